//! Property tests of the seed-001 primitives not covered in `geom_props.rs`, each against an
//! oracle computed another way: exact orientation predicates for the booleans, sampling or the
//! defining equations for points and distances. Case count: `PROPTEST_CASES`.

use glam::Vec3;
use meshclash::geom::closest::*;
use meshclash::geom::dynamic::interval_halving;
use meshclash::geom::overlap::*;
use meshclash::geom::predicates;
use meshclash::geom::ray::*;
use meshclash::geom::tritri;
use meshclash::geom::{Aabb, DVec3, Plane, Sphere, Tri};
use proptest::prelude::*;

fn pt(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

fn tri() -> impl Strategy<Value = Tri> {
    [pt(1.0), pt(1.0), pt(1.0)]
}

fn aabb() -> impl Strategy<Value = Aabb> {
    (pt(1.0), pt(0.8)).prop_map(|(c, e)| Aabb {
        min: c - e.abs(),
        max: c + e.abs(),
    })
}

proptest! {
    /// The prepared segment meets exactly the boxes `segment_aabb` does, axis-parallel segments
    /// (a zero direction component) and segments ending on a face included.
    #[test]
    fn segment_slabs_agree_with_segment_aabb(a in pt(2.0), b in pt(2.0), bx in aabb(), flat in 0usize..8, end_on_face in any::<bool>()) {
        let mut b = b;
        for k in 0..3 {
            if flat & (1 << k) != 0 {
                b[k] = a[k];
            }
        }
        if end_on_face {
            b.x = bx.min.x;
        }
        let seg = SegmentSlabs::new(a, b);
        prop_assert_eq!(seg.meets(&bx), segment_aabb(a, b, &bx).is_some());
    }

    /// Closest points on plane, segment and box: on the primitive, and no sample is closer.
    #[test]
    fn closest_points_on_plane_segment_box(p in pt(2.0), a in pt(1.0), b in pt(1.0), n in pt(1.0), bx in aabb()) {
        prop_assume!(n.length() > 1e-3);
        let plane = Plane::from_point_normal(a, n);
        let q = closest_point_plane(p, &plane);
        prop_assert!(plane.signed_distance(q).abs() <= 1e-12 * (1.0 + n.length()));
        prop_assert!((p - q).cross(n).length() <= 1e-12 * (1.0 + p.length()) * n.length());
        let (s, t) = closest_point_segment(p, a, b);
        let best = (0..=1000).map(|k| a.lerp(b, k as f64 / 1000.0).distance(p)).fold(f64::INFINITY, f64::min);
        prop_assert!(s.distance(p) <= best + 1e-12 && (0.0..=1.0).contains(&t));
        prop_assert!((distance_squared_point_segment(p, a, b) - s.distance_squared(p)).abs() < 1e-12);
        let c = closest_point_aabb(p, &bx);
        prop_assert!(c.cmpge(bx.min).all() && c.cmple(bx.max).all());
        prop_assert!((distance_squared_point_aabb(p, &bx) - c.distance_squared(p)).abs() < 1e-12);
        // No corner or face-centre of the box is closer.
        for k in 0..8 {
            let corner = DVec3::new(
                if k & 1 == 0 { bx.min.x } else { bx.max.x },
                if k & 2 == 0 { bx.min.y } else { bx.max.y },
                if k & 4 == 0 { bx.min.z } else { bx.max.z },
            );
            prop_assert!(c.distance(p) <= corner.distance(p) + 1e-12);
        }
    }

    /// Sphere–plane / box–plane / sphere–box / sphere–triangle against distances computed
    /// independently (plane distance, the closest box point, sampled triangle points).
    #[test]
    fn sphere_and_box_tests(c in pt(1.5), r in 0.01f64..1.0, n in pt(1.0), d in -1.0f64..1.0, bx in aabb(), t in tri()) {
        prop_assume!(n.length() > 1e-3);
        let plane = Plane { n: n.normalize(), d };
        let s = Sphere { center: c, radius: r };
        let dist = plane.signed_distance(c);
        let want = if dist > r { PlaneSide::Front } else if dist < -r { PlaneSide::Behind } else { PlaneSide::Intersecting };
        prop_assert_eq!(sphere_plane(&s, &plane), want);
        // Box–plane: the corners lie on both sides (or on) exactly when the box meets the plane.
        let corners: Vec<f64> = (0..8).map(|k| plane.signed_distance(DVec3::new(
            if k & 1 == 0 { bx.min.x } else { bx.max.x },
            if k & 2 == 0 { bx.min.y } else { bx.max.y },
            if k & 4 == 0 { bx.min.z } else { bx.max.z }))).collect();
        let lo = corners.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = corners.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if lo < -1e-9 && hi > 1e-9 { prop_assert!(aabb_plane(&bx, &plane)); }
        if lo > 1e-9 || hi < -1e-9 { prop_assert!(!aabb_plane(&bx, &plane)); }
        let box_d = c.clamp(bx.min, bx.max).distance(c);
        if box_d < r - 1e-9 { prop_assert!(sphere_aabb(&s, &bx)); }
        if box_d > r + 1e-9 { prop_assert!(!sphere_aabb(&s, &bx)); }
        let n_s = 60;
        let sampled = (0..=n_s).flat_map(|i| (0..=n_s - i).map(move |j| (i, j)))
            .map(|(i, j)| (t[0] + (t[1] - t[0]) * (i as f64 / n_s as f64) + (t[2] - t[0]) * (j as f64 / n_s as f64)).distance(c))
            .fold(f64::INFINITY, f64::min);
        if sampled < r - 1e-9 { prop_assert!(sphere_triangle(&s, &t).is_some()); }
        let edge = (0..3).map(|i| t[i].distance(t[(i + 1) % 3])).fold(0.0, f64::max);
        if sampled > r + edge / n_s as f64 + 1e-9 { prop_assert!(sphere_triangle(&s, &t).is_none()); }
    }

    /// Ericson's floating-point segment–triangle and line–triangle agree with the exact
    /// predicate wherever the hit is not within 1e-9 of the triangle's boundary or plane.
    #[test]
    fn segment_and_line_triangle_agree_with_exact(t in tri(), p in pt(2.0), q in pt(2.0)) {
        let exact = predicates::segment_triangle(p, q, &t);
        let n = (t[1] - t[0]).cross(t[2] - t[0]);
        prop_assume!(n.length() > 1e-6);
        match segment_triangle(p, q, &t) {
            Some((s, v, w)) => {
                let margin = v.min(w).min(1.0 - v - w).min(s).min(1.0 - s);
                if margin > 1e-9 { prop_assert!(exact); }
                let hit = p + (q - p) * s;
                let on_tri = t[0] + (t[1] - t[0]) * v + (t[2] - t[0]) * w;
                prop_assert!(hit.distance(on_tri) < 1e-9);
            }
            None => {
                // Missed: exact must agree unless the hit is near the boundary.
                if exact {
                    let d = (p - q).dot(n);
                    let near_plane = ((p - t[0]).dot(n) / d).abs() < 1e-9 || ((q - t[0]).dot(n) / d).abs() < 1e-9 || d.abs() < 1e-9;
                    let uvw = line_triangle(p, q, &t);
                    let near_edge = uvw.is_none_or(|b| b.min_element() < 1e-9);
                    prop_assert!(near_plane || near_edge);
                }
            }
        }
        // line_triangle: the barycentric point is on the line through p and q.
        if let Some(b) = line_triangle(p, q, &t) {
            let x = t[0] * b.x + t[1] * b.y + t[2] * b.z;
            let dir = (q - p).normalize();
            prop_assert!((x - p).cross(dir).length() < 1e-8 * (1.0 + (x - p).length()));
        }
    }

    /// Segment–plane and plane–plane: the results satisfy the defining equations.
    #[test]
    fn segment_plane_and_plane_plane(a in pt(2.0), b in pt(2.0), n1 in pt(1.0), n2 in pt(1.0), d1 in -1.0f64..1.0, d2 in -1.0f64..1.0) {
        prop_assume!(n1.length() > 1e-2 && n2.length() > 1e-2);
        let (p1, p2) = (Plane { n: n1, d: d1 }, Plane { n: n2, d: d2 });
        let (sa, sb) = (p1.signed_distance(a), p1.signed_distance(b));
        match segment_plane(a, b, &p1) {
            Some((t, x)) => {
                prop_assert!((0.0..=1.0).contains(&t));
                prop_assert!(p1.signed_distance(x).abs() < 1e-9);
            }
            None => prop_assert!(sa * sb > -1e-12),
        }
        if let Some((x, dir)) = plane_plane(&p1, &p2) {
            let s = n1.cross(n2).length();
            if s > 1e-3 {
                prop_assert!(p1.signed_distance(x).abs() < 1e-9 / s && p2.signed_distance(x).abs() < 1e-9 / s);
                prop_assert!(dir.dot(n1).abs() < 1e-12 && dir.dot(n2).abs() < 1e-12);
            }
        }
    }

    /// Ray–sphere and ray–box: the hit points are on the surfaces; a miss leaves every sampled
    /// point of the ray outside.
    #[test]
    fn ray_sphere_and_box(o in pt(3.0), d in pt(1.0), c in pt(1.0), r in 0.05f64..1.0, bx in aabb()) {
        prop_assume!(d.length() > 1e-3);
        let d = d.normalize();
        let s = Sphere { center: c, radius: r };
        let samples = |f: &dyn Fn(DVec3) -> bool| (0..=2000).any(|k| f(o + d * (k as f64 * 0.005)));
        match ray_sphere(o, d, &s) {
            RaySphere::Hit { t, point } | RaySphere::Tangent { t, point } => {
                prop_assert!(t >= 0.0);
                prop_assert!((point.distance(c) - r).abs() < 1e-9);
            }
            RaySphere::Inside { t_exit } => {
                prop_assert!(o.distance(c) <= r + 1e-12);
                prop_assert!(((o + d * t_exit).distance(c) - r).abs() < 1e-9);
            }
            RaySphere::Behind | RaySphere::Miss => {
                let inside = |p: DVec3| p.distance(c) < r - 1e-6;
                prop_assert!(!samples(&inside));
            }
        }
        match ray_aabb(o, d, &bx) {
            Some((t0, t1)) => {
                prop_assert!(t0 <= t1 && t0 >= 0.0);
                let mid = o + d * (0.5 * (t0 + t1));
                prop_assert!(mid.cmpge(bx.min - 1e-9).all() && mid.cmple(bx.max + 1e-9).all());
            }
            None => {
                let inside = |p: DVec3| p.cmpgt(bx.min + 1e-9).all() && p.cmplt(bx.max - 1e-9).all();
                prop_assert!(!samples(&inside));
            }
        }
    }

    /// Interval halving against the analytic contact time of a sphere moving onto a plane.
    #[test]
    fn interval_halving_matches_analytic_contact(z0 in -5.0f64..-1.5, v in 0.5f64..10.0, r in 0.1f64..1.0) {
        // Sphere at (0,0,z0) moving up at speed v, plane z = 0: contact when z0 + v t + r = 0.
        let s = Sphere { center: DVec3::new(0.0, 0.0, z0), radius: r };
        let dist = |p: DVec3| (-p.z).max(0.0);
        let t_true = (-z0 - r) / v;
        let got = interval_halving(&s, DVec3::new(0.0, 0.0, v), 0.0, 1.0, 1e-9, &dist);
        if t_true <= 1.0 - 1e-6 {
            let t = got.unwrap();
            prop_assert!((t - t_true).abs() < 1e-6, "{} vs {}", t, t_true);
        } else if t_true > 1.0 + 1e-6 {
            prop_assert!(got.is_none());
        }
    }

    /// The separating-axis bounds (on any axis, and on the triangles' normals) never exceed the
    /// pair's distance from Nathan's triangle–triangle distance, for slivers and 1e6 from the
    /// origin too; intersecting triangles are never proved apart; and triangles in parallel
    /// planes `g` apart, one over the other, get a bound within rounding of `g`.
    #[test]
    fn separation_bounds_never_exceed_the_distance(
        t1 in tri(),
        t2 in tri(),
        lift in -0.5f64..0.5,
        far in 0usize..3,
        axis in pt(1.0),
        sliver in any::<bool>(),
        g in 1e-6f64..0.1,
    ) {
        let base = [DVec3::ZERO, DVec3::new(5e3, -3e3, 1.2e3), DVec3::new(1e6, 1e6, -1e6)][far];
        let mut t1 = t1;
        if sliver {
            t1[2] = t1[0].lerp(t1[1], 0.3) + DVec3::splat(1e-9);
        }
        let a = t1.map(|p| p + base);
        let b = t2.map(|p| p * 0.5 + base + DVec3::new(0.0, 0.0, lift));
        let d = tritri::distance(&a, &b).distance;
        // Sets: a and a moved copy against b; the bound holds for the nearest of the pairs.
        let a2 = a.map(|p| p + DVec3::new(0.3, -0.2, 0.1));
        let nearest = d.min(tritri::distance(&a2, &b).distance);
        let set_bound = tritri::gap_between([&a, &a2], [&b], axis);
        prop_assert!(set_bound <= nearest, "set bound {set_bound} over {nearest}");
        for bound in [tritri::gap_along(&a, &b, axis), tritri::separation_bound(&a, &b, axis)] {
            prop_assert!(bound <= d, "bound {bound} over the distance {d}");
            if tritri::intersect(&a, &b) {
                prop_assert!(bound <= 0.0);
            }
        }
        // Facing: a flat triangle and a copy shrunk about its centroid, lifted by g.
        let flat = t1.map(|p| DVec3::new(p.x, p.y, 0.0) + base);
        let c = (flat[0] + flat[1] + flat[2]) / 3.0;
        let over = flat.map(|p| c + (p - c) * 0.5 + DVec3::new(0.0, 0.0, g));
        // (Not for slivers: flattened, they have no normal to face along. A condition, not an
        // assumption, so that the bounds above are still checked on them.)
        let n = (flat[1] - flat[0]).cross(flat[2] - flat[0]);
        if n.length() > 1e-6 {
            let bound = tritri::separation_bound(&flat, &over, axis);
            let exact = tritri::distance(&flat, &over).distance;
            prop_assert!(bound <= exact && bound >= g - 1e-9 * (1.0 + base.length()), "{bound} vs {g}");
        }
    }

    /// The GPU stages' f32 lower bounds (through their twins: `common.wgsl::plane_bound`,
    /// `axis_bound` and `frame_bound`) never exceed the f64 distance of the same f32 triangles, 5 km and 1e6
    /// from the origin too, slivers included.
    #[test]
    fn f32_distance_bounds_never_exceed_the_distance(
        t1 in tri(),
        t2 in tri(),
        lift in -0.5f64..0.5,
        far in 0usize..3,
        sliver in any::<bool>(),
    ) {
        use meshclash::gpu::twin;
        let base = [DVec3::ZERO, DVec3::new(5e3, -3e3, 1.2e3), DVec3::new(1e6, 1e6, -1e6)][far];
        let mut t1 = t1;
        if sliver {
            t1[2] = t1[0].lerp(t1[1], 0.3) + DVec3::splat(1e-7);
        }
        let f = |t: Tri, shift: DVec3| t.map(|p| (p + base + shift).as_vec3());
        let (p, r) = (f(t1, DVec3::ZERO), f(t2.map(|q| q * 0.5), DVec3::new(0.0, 0.0, lift)));
        let exact = tritri::distance(&p.map(|v| v.as_dvec3()), &r.map(|v| v.as_dvec3())).distance;
        for bound in [
            twin::plane_bound(&p, r),
            twin::axis_bound(&p, &r),
            twin::frame_bound(&p, &r),
        ] {
            prop_assert!((bound as f64) <= exact, "f32 bound {bound} over the distance {exact}");
        }
        // Facing, near the origin (where the GPU's local frame puts the parts): the triangle
        // and its copy lifted by g along its normal, the line joining their vertex sums along
        // that normal too: all three bounds are the gap, less rounding.
        // The slack is the f32 triangle's own thickness about the plane computed from it plus
        // 16 u of its span: about u |E1| |E2| span / |E1 x E2| + 16 u span, below 1e-4 for
        // |E1 x E2| > 1e-2 and coordinates within 2 (a skinnier triangle's normal is rounded
        // more, and the bound, rightly, gives up more).
        let n = (t1[1] - t1[0]).cross(t1[2] - t1[0]);
        if !sliver && n.length() > 1e-2 {
            let g = 0.01 + lift.abs();
            let (p, r) = (f(t1, -base), f(t1, n.normalize() * g - base));
            let exact =
                tritri::distance(&p.map(|v| v.as_dvec3()), &r.map(|v| v.as_dvec3())).distance;
            for bound in [
            twin::plane_bound(&p, r),
            twin::axis_bound(&p, &r),
            twin::frame_bound(&p, &r),
        ] {
                let bound = bound as f64;
                prop_assert!(bound <= exact && bound >= exact - 1e-4, "{bound} vs {exact}");
            }
        }
    }
    /// `cull_pairs.wgsl::leaf_bound` (through its twin) never exceeds the f64 distance between
    /// any triangle of the A leaf and any of the B leaf (their f32 vertices), near the origin,
    /// 5 km and 1e6 out; B is another cluster, A's moved (the frames of facing surfaces), or
    /// A's lifted along its first triangle's normal (the sphere centres then lie along B's
    /// normal, and the direction across it is rounding alone).
    #[test]
    fn leaf_bound_never_exceeds_the_distance(
        a in prop::collection::vec(tri(), 1..6),
        b in prop::collection::vec(tri(), 1..6),
        shift in pt(1.5),
        kind in 0usize..3,
        far in 0usize..3,
    ) {
        use meshclash::gpu::twin;
        use meshclash::mesh::TriRecord;
        let base = [DVec3::ZERO, DVec3::new(5e3, -3e3, 1.2e3), DVec3::new(1e6, 1e6, -1e6)][far];
        let small = |t: &Tri, at: DVec3| t.map(|p| p * 0.3 + at + base);
        let ra: Vec<TriRecord> = a.iter().map(|t| TriRecord::new(&small(t, DVec3::ZERO))).collect();
        let n = (a[0][1] - a[0][0]).cross(a[0][2] - a[0][0]).normalize_or_zero();
        let shift = if kind == 2 { n * shift.x } else { shift };
        let rb: Vec<TriRecord> = if kind == 0 { &b } else { &a }
            .iter()
            .map(|t| TriRecord::new(&small(t, shift)))
            .collect();
        let ia: Vec<u32> = (0..ra.len() as u32).collect();
        let ib: Vec<u32> = (0..rb.len() as u32).collect();
        let bound = twin::leaf_bound(&identity_query(), &ra, &ia, &rb, &ib) as f64;
        let f64_tri = |r: &TriRecord| r.v.map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
        for x in &ra {
            for y in &rb {
                let exact = tritri::distance(&f64_tri(x), &f64_tri(y)).distance;
                prop_assert!(bound <= exact, "leaf bound {bound} over the distance {exact}");
            }
        }
    }
}

/// Both poses the identity (rows `[I | 0]`), no tolerance: the twins' bounds on records as
/// they are.
fn identity_query() -> meshclash::gpu::layout::Query {
    let rows = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
    ];
    meshclash::gpu::layout::Query {
        a: rows,
        b: rows,
        tol: [0.0; 4],
        chunk_start: 0,
        chunk_end: 0,
        capacity: 0,
        mode: meshclash::gpu::layout::MODE_CLEARANCE,
    }
}

/// The leaf pairs' bound on the pair of `frame_bound_of_triangles_side_by_side_is_their_distance`
/// as one-triangle leaves: B's normal is +z, the direction between the sphere centres across it
/// +y; the gaps are 0.15 along z and 0.2 along y (A's y from 0 to 0.8, B's from -1 to -0.2),
/// so the bound is their hypotenuse 0.25, the distance. The gap along B's normal alone, the
/// bound before the lateral direction, is 0.15.
#[test]
fn leaf_bound_of_leaves_side_by_side_is_their_distance() {
    use meshclash::gpu::twin;
    use meshclash::mesh::TriRecord;
    let p = [
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.3, 0.8, 0.0),
    ];
    let r = p.map(|v| v + DVec3::new(0.0, -1.0, 0.15));
    let exact = tritri::distance(&p, &r).distance;
    assert!((exact - 0.25).abs() < 1e-6, "{exact}");
    let bound = twin::leaf_bound(
        &identity_query(),
        &[TriRecord::new(&p)],
        &[0],
        &[TriRecord::new(&r)],
        &[0],
    ) as f64;
    assert!(
        bound <= exact && bound >= exact - 1e-5,
        "{bound} vs {exact}"
    );
}

/// Side by side across a gap, where the plane and axis bounds fall short: the triangle
/// (0,0,0), (1,0,0), (0.3,0.8,0) and its copy moved 1 along -y and lifted 0.15. Their nearest
/// points are the copy's apex (0.3,-0.2,0.15) and (0.3,0,0) on the first edge, 0.2 apart within
/// the plane and 0.15 across it: distance 0.25. The frame bound (the gap along the first edge's
/// normal within the plane, -y, and along the normal, as a hypotenuse) finds it to within
/// rounding; the plane bound sees only the 0.15 across, the axis bound about 0.22.
#[test]
fn frame_bound_of_triangles_side_by_side_is_their_distance() {
    use meshclash::gpu::twin;
    let p = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.3, 0.8, 0.0),
    ];
    let r = p.map(|v| v + Vec3::new(0.0, -1.0, 0.15));
    let exact = tritri::distance(&p.map(|v| v.as_dvec3()), &r.map(|v| v.as_dvec3())).distance;
    assert!((exact - 0.25).abs() < 1e-6, "{exact}");
    let frame = twin::frame_bound(&p, &r) as f64;
    assert!(
        frame <= exact && frame >= exact - 1e-5,
        "{frame} vs {exact}"
    );
    let (plane, axis) = (
        twin::plane_bound(&p, r) as f64,
        twin::axis_bound(&p, &r) as f64,
    );
    assert!(plane < 0.151 && axis < 0.23, "plane {plane}, axis {axis}");
}
