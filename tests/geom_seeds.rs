//! Hand-worked cases from the seeds, one or more per primitive; expected values are worked out
//! by hand in the comments, not taken from the code.

use meshclash::geom::classify::{classify, ContactClass, Intersection};
use meshclash::geom::closest::*;
use meshclash::geom::dynamic::interval_halving;
use meshclash::geom::overlap::*;
use meshclash::geom::predicates::*;
use meshclash::geom::ray::*;
use meshclash::geom::tritri::{self, TriFrame};
use meshclash::geom::{spheres_within, triangle_bounding_sphere, Aabb, DVec3, Plane, Sphere, Tri};

fn v(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}
fn close(a: DVec3, b: DVec3) -> bool {
    a.distance(b) < 1e-12
}
const UNIT: Tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
fn unit_box() -> Aabb {
    Aabb {
        min: DVec3::ZERO,
        max: DVec3::ONE,
    }
}

#[test]
fn seed001_closest_point_on_plane() {
    // Plane z = 1 written with a non-unit normal (0,0,2): 2z = 2. Q = (1,2,5) projects to (1,2,1).
    let p = Plane {
        n: v(0., 0., 2.),
        d: 2.,
    };
    assert!(close(closest_point_plane(v(1., 2., 5.), &p), v(1., 2., 1.)));
}

#[test]
fn seed001_closest_point_on_segment_three_cases() {
    let (a, b) = (v(0., 0., 0.), v(4., 0., 0.));
    // (a) beyond A, (b) inside, (c) beyond B.
    assert_eq!(closest_point_segment(v(-3., 1., 0.), a, b), (a, 0.0));
    assert_eq!(
        closest_point_segment(v(1., 5., 0.), a, b),
        (v(1., 0., 0.), 0.25)
    );
    assert_eq!(closest_point_segment(v(9., -2., 0.), a, b), (b, 1.0));
    // Squared distances: 3²+1² = 10, 5² = 25, 5²+2² = 29.
    assert_eq!(distance_squared_point_segment(v(-3., 1., 0.), a, b), 10.0);
    assert_eq!(distance_squared_point_segment(v(1., 5., 0.), a, b), 25.0);
    assert_eq!(distance_squared_point_segment(v(9., -2., 0.), a, b), 29.0);
}

#[test]
fn seed001_closest_point_on_aabb_regions() {
    let b = unit_box();
    assert_eq!(closest_point_aabb(v(0.5, 0.5, 0.5), &b), v(0.5, 0.5, 0.5)); // inside
    assert_eq!(closest_point_aabb(v(0.5, 0.5, 3.), &b), v(0.5, 0.5, 1.)); // face region
    assert_eq!(closest_point_aabb(v(2., 0.5, 3.), &b), v(1., 0.5, 1.)); // edge region
    assert_eq!(closest_point_aabb(v(2., -1., 3.), &b), v(1., 0., 1.)); // vertex region
                                                                       // 1² + 1² + 2² = 6.
    assert_eq!(distance_squared_point_aabb(v(2., -1., 3.), &b), 6.0);
    assert_eq!(distance_squared_point_aabb(v(0.5, 0.5, 0.5), &b), 0.0);
}

#[test]
fn seed003_closest_point_on_triangle_every_voronoi_region() {
    let t = UNIT;
    let cases = [
        (v(-1., -1., 1.), v(0., 0., 0.)),       // vertex A
        (v(2., -0.5, 0.), v(1., 0., 0.)),       // vertex B
        (v(-0.5, 2., 3.), v(0., 1., 0.)),       // vertex C
        (v(0.5, -1., 0.), v(0.5, 0., 0.)),      // edge AB
        (v(-1., 0.5, 2.), v(0., 0.5, 0.)),      // edge AC
        (v(1., 1., 5.), v(0.5, 0.5, 0.)),       // edge BC
        (v(0.25, 0.25, 7.), v(0.25, 0.25, 0.)), // face
    ];
    for (p, want) in cases {
        assert!(close(closest_point_triangle(p, &t), want), "{p} -> {want}");
    }
    // Zero-area triangle (collinear): the closest point of the segment it is.
    let flat = [v(0., 0., 0.), v(1., 0., 0.), v(2., 0., 0.)];
    assert!(close(
        closest_point_triangle(v(1.5, 3., 0.), &flat),
        v(1.5, 0., 0.)
    ));
}

#[test]
fn seed001_closest_points_of_two_lines() {
    // x-axis and the line x = 2, z = 1 along y through (2,-1,1): closest at s = 2, t = 1.
    let (s, t) =
        closest_points_lines(v(0., 0., 0.), v(1., 0., 0.), v(2., -1., 1.), v(0., 1., 0.)).unwrap();
    assert_eq!((s, t), (2.0, 1.0));
    assert!(closest_points_lines(DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::X * 3.0).is_none());
}

#[test]
fn seed001_closest_points_of_segments_fixes_seed000_independent_clamp() {
    // Segment 1: x from 1 to 2 on the x-axis. Segment 2: (t, t, 1), t ∈ [−1, 1].
    // Unconstrained minimum at x = 0 (outside segment 1). Nathan (2015) clamps s1 to x = 1 and keeps
    // t = 0: points (1,0,0),(0,0,1), distance² = 2. The true minimum is from (1,0,0) to the line:
    // minimise (1−t)² + t² + 1 → t = 1/2, distance² = 3/2.
    let r = closest_points_segments(v(1., 0., 0.), v(2., 0., 0.), v(-1., -1., 1.), v(1., 1., 1.));
    assert!((r.distance_squared - 1.5).abs() < 1e-15);
    assert!(close(r.p2, v(0.5, 0.5, 1.)));
    // Parallel, overlapping segments 1 apart.
    let r = closest_points_segments(v(0., 0., 0.), v(2., 0., 0.), v(1., 1., 0.), v(3., 1., 0.));
    assert_eq!(r.distance_squared, 1.0);
    // Both degenerate: two points.
    let r = closest_points_segments(v(0., 0., 0.), v(0., 0., 0.), v(0., 3., 4.), v(0., 3., 4.));
    assert_eq!(r.distance_squared, 25.0);
}

#[test]
fn seed001_separating_axis() {
    let a: Vec<DVec3> = (0..8)
        .map(|i| v((i & 1) as f64, ((i >> 1) & 1) as f64, (i >> 2) as f64))
        .collect();
    let b: Vec<DVec3> = a.iter().map(|p| *p + v(1.5, 0., 0.)).collect();
    let c: Vec<DVec3> = a.iter().map(|p| *p + v(0.5, 0.5, 0.)).collect();
    let axes = [DVec3::X, DVec3::Y, DVec3::Z];
    assert!(separated_on_axis(DVec3::X, &a, &b));
    assert!(!sat_overlap(&a, &b, &axes));
    assert!(sat_overlap(&a, &c, &axes));
}

#[test]
fn seed001_sphere_plane_box_aabb_triangle() {
    let plane = Plane { n: DVec3::Z, d: 0. }; // z = 0, unit normal
    let s = |z: f64| Sphere {
        center: v(0., 0., z),
        radius: 1.,
    };
    assert_eq!(sphere_plane(&s(2.), &plane), PlaneSide::Front);
    assert_eq!(sphere_plane(&s(-2.), &plane), PlaneSide::Behind);
    assert_eq!(sphere_plane(&s(0.5), &plane), PlaneSide::Intersecting);
    assert_eq!(sphere_plane(&s(1.), &plane), PlaneSide::Intersecting); // touching
    assert!(sphere_inside_halfspace(&s(-5.), &plane));
    assert!(!sphere_inside_halfspace(&s(1.5), &plane));
    // Box [0,1]³ against x + y + z = d: it spans d ∈ [0, 3].
    let n = v(1., 1., 1.);
    assert!(aabb_plane(&unit_box(), &Plane { n, d: 3. }));
    assert!(!aabb_plane(&unit_box(), &Plane { n, d: 3.01 }));
    // Sphere at (2,2,0.5), radius 1.5: distance to the box is √2 ≈ 1.414 < 1.5.
    assert!(sphere_aabb(
        &Sphere {
            center: v(2., 2., 0.5),
            radius: 1.5
        },
        &unit_box()
    ));
    assert!(!sphere_aabb(
        &Sphere {
            center: v(2., 2., 0.5),
            radius: 1.4
        },
        &unit_box()
    ));
    // Sphere above the unit triangle's face.
    let hit = sphere_triangle(
        &Sphere {
            center: v(0.2, 0.2, 0.5),
            radius: 0.5,
        },
        &UNIT,
    );
    assert!(close(hit.unwrap(), v(0.2, 0.2, 0.)));
    assert_eq!(
        sphere_triangle(
            &Sphere {
                center: v(0.2, 0.2, 0.5),
                radius: 0.49
            },
            &UNIT
        ),
        None
    );
}

#[test]
fn seed001_aabb_triangle_13_axes() {
    let b = unit_box();
    // Through the box.
    assert!(aabb_triangle(
        &b,
        &[v(-1., 0.5, 0.5), v(2., 0.5, 0.5), v(0.5, 3., 0.5)]
    ));
    // Fully outside on a box axis.
    assert!(!aabb_triangle(
        &b,
        &[v(2., 0., 0.), v(3., 0., 0.), v(2., 1., 0.)]
    ));
    // Near the corner (1,1,1): the triangle's plane x + y + z = 3.2 misses the box (axis 1).
    assert!(!aabb_triangle(
        &b,
        &[v(3.2, 0., 0.), v(0., 3.2, 0.), v(0., 0., 3.2)]
    ));
    // Plane x + y = 2.1 cuts no box point (box needs x + y ≤ 2): the triangle lies in it.
    assert!(!aabb_triangle(
        &b,
        &[v(1.05, 1.05, -5.), v(1.05, 1.05, 5.), v(3.05, -0.95, 0.)]
    ));
    // A thin triangle passing by the edge x = 1, y = 1 of the box, separated only by an edge
    // cross-product axis: its points satisfy x + y ≥ 2.05 while the box has x + y ≤ 2.
    let t = [v(1.05, 1.0, -1.), v(1.05, 1.0, 2.), v(1.1, 1.05, 0.5)];
    assert!(!aabb_triangle(&b, &t));
    // Touching the box at its corner.
    assert!(aabb_triangle(
        &b,
        &[v(1., 1., 1.), v(2., 1., 1.), v(1., 2., 1.)]
    ));
}

#[test]
fn seed001_segment_plane_and_plane_plane() {
    let p = Plane { n: DVec3::Z, d: 1. };
    let (t, x) = segment_plane(v(0., 0., 0.), v(0., 0., 4.), &p).unwrap();
    assert_eq!((t, x), (0.25, v(0., 0., 1.)));
    assert!(segment_plane(v(0., 0., 2.), v(0., 0., 4.), &p).is_none());
    assert!(segment_plane(v(0., 0., 0.), v(1., 0., 0.), &p).is_none()); // parallel
                                                                        // z = 1 and x = 2 meet in the line (2, t, 1) along ±y.
    let (pt, d) = plane_plane(&p, &Plane { n: DVec3::X, d: 2. }).unwrap();
    assert!(close(pt, v(2., 0., 1.)));
    assert_eq!(d.normalize().abs(), DVec3::Y);
    assert!(plane_plane(
        &p,
        &Plane {
            n: DVec3::Z * 2.0,
            d: 5.
        }
    )
    .is_none());
}

#[test]
fn seed001_ray_sphere_five_cases() {
    let s = Sphere {
        center: v(0., 0., 5.),
        radius: 1.,
    };
    // (a) hits twice in front: first at t = 4.
    assert_eq!(
        ray_sphere(DVec3::ZERO, DVec3::Z, &s),
        RaySphere::Hit {
            t: 4.,
            point: v(0., 0., 4.)
        }
    );
    // (b) sphere behind the ray.
    assert_eq!(ray_sphere(DVec3::ZERO, -DVec3::Z, &s), RaySphere::Behind);
    // (c) tangent: the ray x = 1 grazes at (1, 0, 5), t = 5.
    assert_eq!(
        ray_sphere(v(1., 0., 0.), DVec3::Z, &s),
        RaySphere::Tangent {
            t: 5.,
            point: v(1., 0., 5.)
        }
    );
    // (d) starts inside: leaves at t = 1.
    assert_eq!(
        ray_sphere(v(0., 0., 5.), DVec3::Z, &s),
        RaySphere::Inside { t_exit: 1. }
    );
    // (e) misses.
    assert_eq!(ray_sphere(v(2., 0., 0.), DVec3::Z, &s), RaySphere::Miss);
    // Segments: too short, long enough.
    assert_eq!(segment_sphere(DVec3::ZERO, v(0., 0., 3.), &s), None);
    assert_eq!(segment_sphere(DVec3::ZERO, v(0., 0., 8.), &s), Some(0.5));
}

#[test]
fn seed001_ray_and_segment_aabb_slabs() {
    let b = unit_box();
    // R2 of the seed's figure: hits, entering x = 0 at t = 1, leaving x = 1 at t = 2.
    assert_eq!(
        ray_aabb(v(-1., 0.5, 0.5), v(1., 0., 0.), &b),
        Some((1., 2.))
    );
    // R1: slab intervals in x and y do not overlap.
    assert_eq!(ray_aabb(v(-1., -0.5, 0.5), v(1., -1., 0.), &b), None);
    // Parallel to a slab and outside it.
    assert_eq!(ray_aabb(v(-1., 2., 0.5), v(1., 0., 0.), &b), None);
    assert_eq!(segment_aabb(v(-1., 0.5, 0.5), v(-0.5, 0.5, 0.5), &b), None);
    assert_eq!(
        segment_aabb(v(-1., 0.5, 0.5), v(3., 0.5, 0.5), &b),
        Some((0.25, 0.5))
    );
}

#[test]
fn seed001_line_and_segment_triangle() {
    // Line x = 0.25, y = 0.5 through the unit triangle: barycentrics (u, v, w) of A, B, C are
    // (0.25, 0.25, 0.5).
    let uvw = line_triangle(v(0.25, 0.5, -1.), v(0.25, 0.5, 1.), &UNIT).unwrap();
    assert!(close(uvw, v(0.25, 0.25, 0.5)));
    assert!(line_triangle(v(0.75, 0.75, -1.), v(0.75, 0.75, 1.), &UNIT).is_none());
    // Segment from z = 2 down to z = −2 at (0.25, 0.5): t = 0.5, v = 0.25, w = 0.5.
    assert_eq!(
        meshclash::geom::ray::segment_triangle(v(0.25, 0.5, 2.), v(0.25, 0.5, -2.), &UNIT),
        Some((0.5, 0.25, 0.5))
    );
    assert_eq!(
        meshclash::geom::ray::segment_triangle(v(0.25, 0.5, 2.), v(0.25, 0.5, 1.), &UNIT),
        None
    );
}

#[test]
fn seed004_matrix_equals_moller_trumbore() {
    // A = (1,1,1), B = (3,1,1), C = (1,5,1): a = (2,0,0), b = (0,4,0), c = (0,0,8), det = 64.
    let t = [v(1., 1., 1.), v(3., 1., 1.), v(1., 5., 1.)];
    let m = TriangleMatrix::new(&t).unwrap();
    // R maps A to 0, B to (1,0,0), C to (0,1,0), and a point 8 above A to (0,0,1)·(64/64)… :
    assert!(close(m.apply(t[0]), DVec3::ZERO));
    assert!(close(m.apply(t[1]), DVec3::X));
    assert!(close(m.apply(t[2]), DVec3::Y));
    // The ray from (2,2,3) to (2,2,−1): crosses z = 1 halfway; i'x = 1/2, i'y = 1/4.
    let (ix, iy, s) = m.collide(v(2., 2., 3.), v(2., 2., -1.)).unwrap();
    assert_eq!((ix, iy, s), (0.5, 0.25, 0.5));
    let (t_mt, u, w) = ray_triangle_mt(v(2., 2., 3.), v(0., 0., -4.), &t).unwrap();
    assert_eq!((t_mt, u, w), (0.5, 0.5, 0.25));
    // Miss beyond the hypotenuse (i'x + i'y > 1).
    assert!(m.collide(v(2.9, 4., 3.), v(2.9, 4., -1.)).is_none());
    assert!(ray_triangle_mt(v(2.9, 4., 3.), v(0., 0., -4.), &t).is_none());
    assert!(TriangleMatrix::new(&[DVec3::ZERO, DVec3::X, DVec3::X * 2.0]).is_none());
}

#[test]
fn seed000_bounding_sphere_and_cull() {
    // Triangle (0,0,0),(3,0,0),(0,3,0): centroid (1,1,0), farthest vertex at √5.
    let s = triangle_bounding_sphere(&[v(0., 0., 0.), v(3., 0., 0.), v(0., 3., 0.)]);
    assert_eq!(s.center, v(1., 1., 0.));
    assert!((s.radius - 5f64.sqrt()).abs() < 1e-15);
    let a = Sphere {
        center: DVec3::ZERO,
        radius: 1.,
    };
    let b = Sphere {
        center: v(3., 0., 0.),
        radius: 1.,
    };
    assert!(!spheres_within(&a, &b, 0.99));
    assert!(spheres_within(&a, &b, 1.0)); // (1 + 1 + 1)² = 9 = |C2 − C1|²
}

fn both(t1: &Tri, t2: &Tri) -> bool {
    let exact = tritri::intersect(t1, t2);
    let seed = tritri::intersect_edge_plane(&TriFrame::new(t1), &TriFrame::new(t2), 1e-12);
    assert_eq!(
        exact, seed,
        "exact and seed-000 tests disagree on {t1:?} {t2:?}"
    );
    exact
}

#[test]
fn seed000_triangle_triangle_cases() {
    let t1 = UNIT;
    // Crossing: a vertical triangle piercing the unit triangle's interior.
    assert!(both(
        &t1,
        &[v(0.2, 0.2, -1.), v(0.2, 0.2, 1.), v(0.3, 0.1, 1.)]
    ));
    // Separated vertically.
    assert!(!both(&t1, &[v(0., 0., 1.), v(1., 0., 1.), v(0., 1., 1.)]));
    // Coplanar overlap (the case Nathan (2015) skips).
    assert!(both(
        &t1,
        &[v(0.1, 0.1, 0.), v(2., 0.1, 0.), v(0.1, 2., 0.)]
    ));
    // Coplanar, disjoint.
    assert!(!both(&t1, &[v(1., 1., 0.), v(2., 1., 0.), v(1., 2., 0.)]));
    // Touching at a vertex: (0.5, 0.5, 0) is on the hypotenuse.
    assert!(both(&t1, &[v(0.5, 0.5, 0.), v(1., 1., 1.), v(1., 0.5, 1.)]));
    // Sharing an edge, in different planes.
    assert!(both(&t1, &[DVec3::ZERO, DVec3::X, v(0., 0., 1.)]));
    // An edge lying in the other's plane but outside it.
    assert!(!both(&t1, &[v(2., 0., 0.), v(3., 0., 0.), v(2., 0., 1.)]));
}

#[test]
fn seed000_distance_vertex_plane_edge_edge_vertex_vertex() {
    // Vertex–plane: a triangle whose lowest vertex (0.2,0.2,1) hangs above the unit triangle.
    let d = tritri::distance(&UNIT, &[v(0.2, 0.2, 1.), v(0.2, 0.2, 3.), v(0.4, 0.2, 3.)]);
    assert!((d.distance - 1.).abs() < 1e-15);
    assert!(close(d.point_1, v(0.2, 0.2, 0.)));
    // Separation points from triangle 2 to triangle 1: (0,0,−1).
    assert!(close(d.separation, v(0., 0., -1.)));
    // Edge–edge: edge AB of the unit triangle, x ∈ [0,1] on the x-axis, and a vertical triangle
    // with the edge (0.5, −1, 2)–(0.5, 1, 2)... lowered: the crossing edge at height 2 above
    // (0.5, 0, 0) is closest to an interior point of AB: distance 2.
    let t2 = [v(0.5, -1., 2.), v(0.5, 1., 2.), v(0.5, 0., 4.)];
    let d = tritri::distance(&[v(0., 0., 0.), v(1., 0., 0.), v(0., -1., 0.)], &t2);
    assert!((d.distance - 2.).abs() < 1e-15);
    // Vertex–vertex (the seed's last figure): corners (1,0,0) and (2,−1,0) facing each other,
    // in one plane: distance √2.
    let d = tritri::distance(&UNIT, &[v(2., -1., 0.), v(3., -1., 0.), v(2., -2., 0.)]);
    assert!((d.distance - 2f64.sqrt()).abs() < 1e-15);
    assert!(close(d.point_1, v(1., 0., 0.)) && close(d.point_2, v(2., -1., 0.)));
    // Intersecting: 0, both points common.
    let d = tritri::distance(&UNIT, &[v(0.2, 0.2, -1.), v(0.2, 0.2, 1.), v(0.3, 0.1, 1.)]);
    assert_eq!(d.distance, 0.0);
    assert_eq!(d.point_1, d.point_2);
}

#[test]
fn seed002_classification() {
    let t1 = UNIT;
    // Point: vertex (0.5,0.5,0) of the second touches the hypotenuse.
    let c = classify(&t1, &[v(0.5, 0.5, 0.), v(1., 1., 1.), v(1., 0.5, 1.)]).unwrap();
    assert_eq!(c.class(), Some(ContactClass::Point));
    assert!(c.touching && !c.coplanar);
    // Segment, piercing: the plane x = 0.25 cuts the unit triangle in y ∈ [0, 0.75].
    let c = classify(
        &t1,
        &[v(0.25, -1., -1.), v(0.25, 3., -1.), v(0.25, -1., 3.)],
    )
    .unwrap();
    match c.intersection {
        Intersection::Segment(a, b) => {
            let (lo, hi) = if a.y < b.y { (a, b) } else { (b, a) };
            assert!(close(lo, v(0.25, 0., 0.)) && close(hi, v(0.25, 0.75, 0.)));
        }
        ref other => panic!("expected a segment, got {other:?}"),
    }
    // ... whose ends are on the unit triangle's boundary, while the other triangle is crossed in
    // its interior: both straddle, so it pierces.
    assert!(!c.touching);
    // Segment, touching: shared edge AB, second triangle standing up.
    let c = classify(&t1, &[DVec3::ZERO, DVec3::X, v(0., 0., 1.)]).unwrap();
    assert_eq!(c.class(), Some(ContactClass::Segment));
    assert!(c.touching);
    // Area: coplanar overlap, the square [0.1, 0.45]² corner region … a triangle
    // (0.1,0.1),(0.4,0.1),(0.1,0.4) lies inside: the overlap is that triangle.
    let inner = [v(0.1, 0.1, 0.), v(0.4, 0.1, 0.), v(0.1, 0.4, 0.)];
    let c = classify(&t1, &inner).unwrap();
    assert!(c.coplanar && c.touching);
    match c.intersection {
        Intersection::Area(poly) => {
            assert_eq!(poly.len(), 3);
            for p in inner {
                assert!(poly.iter().any(|q| close(*q, p)));
            }
        }
        other => panic!("expected an area, got {other:?}"),
    }
    // None.
    assert!(classify(&t1, &[v(0., 0., 1.), v(1., 0., 1.), v(0., 1., 1.)]).is_none());
}

#[test]
fn seed001_interval_halving_moving_sphere() {
    // Unit sphere at the origin moving with v = (0,0,10) over t ∈ [0,1] toward the plane z = 6:
    // contact when 10 t + 1 = 6, t = 0.5.
    let s = Sphere {
        center: DVec3::ZERO,
        radius: 1.,
    };
    let dist = |p: DVec3| (6. - p.z).max(0.);
    let t = interval_halving(&s, v(0., 0., 10.), 0., 1., 1e-9, &dist).unwrap();
    assert!((t - 0.5).abs() < 1e-8, "{t}");
    // The plane z = 20 is never reached: 10 + 1 < 20.
    assert!(
        interval_halving(&s, v(0., 0., 10.), 0., 1., 1e-9, &|p: DVec3| (20. - p.z)
            .max(0.))
        .is_none()
    );
}

#[test]
fn exact_predicates_basic_degeneracies() {
    assert!(is_degenerate(&[DVec3::ZERO, DVec3::X, DVec3::X * 2.0]));
    assert!(!is_degenerate(&UNIT));
    assert!(segments_intersect(
        v(0., 0., 0.),
        v(2., 2., 0.),
        v(0., 2., 0.),
        v(2., 0., 0.)
    ));
    assert!(!segments_intersect(
        v(0., 0., 0.),
        v(2., 2., 0.),
        v(0., 2., 1.),
        v(2., 0., 1.)
    ));
    // Collinear overlapping and collinear disjoint.
    assert!(segments_intersect(
        v(0., 0., 0.),
        v(2., 0., 0.),
        v(1., 0., 0.),
        v(3., 0., 0.)
    ));
    assert!(!segments_intersect(
        v(0., 0., 0.),
        v(1., 0., 0.),
        v(2., 0., 0.),
        v(3., 0., 0.)
    ));
    assert!(point_in_triangle(v(0.5, 0.5, 0.), &UNIT)); // on the hypotenuse
    assert!(!point_in_triangle(v(0.5, 0.5 + 1e-16, 0.), &UNIT) || 0.5 + 1e-16 == 0.5);
    assert!(!point_in_triangle(v(0.5, 0.500000001, 0.), &UNIT));
}

/// A review's cases (f32 corners, proved by exact signs): two triangles whose edges cross at
/// one point X, each other corner strictly on its own side of the plane through both edges,
/// meet at X alone: a touching point on both triangles. The crossing's barycentric weight on
/// the other triangle is exactly 0 and rounded negative; it had been replaced by the edge's
/// midpoint, 0.18 off, and the pair reported as a piercing segment.
#[test]
fn edges_crossing_at_one_point_touch_there() {
    let a: Tri = [
        v(0.9028873443603516, 1.1526851654052734, 1.3666677474975586),
        v(2.266977310180664, 2.06573486328125, 2.6628284454345703),
        v(1.4663686752319336, 0.7782163619995117, 1.2829618453979492),
    ];
    let b: Tri = [
        v(1.5886411666870117, 1.4307317733764648, 1.821162223815918),
        v(0.6644124984741211, 1.535944938659668, 1.731398582458496),
        v(2.508016586303711, 0.8902912139892578, 0.6948823928833008),
    ];
    for (t1, t2) in [(a, b), (b, a)] {
        let c = classify(&t1, &t2).expect("they meet");
        let Intersection::Point(x) = c.intersection else {
            panic!("{:?}", c.intersection);
        };
        assert!(c.touching && !c.coplanar);
        for t in [&t1, &t2] {
            assert!(closest_point_triangle(x, t).distance(x) < 1e-12, "{x}");
        }
    }
}

/// Coplanar triangles (z = 1) sharing a part of an edge, 1.27 long (B's first corner lies on
/// A's edge), meet along it: a segment,
/// not a point. The shared corners lie exactly on the other's edge line, and rounded side
/// tests had put them outside.
#[test]
fn coplanar_triangles_sharing_an_edge_meet_along_it() {
    let a: Tri = [
        v(1.4059219360351562, 1.2952995300292969, 1.0),
        v(2.537128448486328, 2.548595428466797, 1.0),
        v(2.6474609375, 3.8167037963867188, 1.0),
    ];
    let b: Tri = [
        v(1.6887235641479492, 1.6086235046386719, 1.0),
        v(2.537128448486328, 2.548595428466797, 1.0),
        v(1.4459800720214844, 0.093597412109375, 1.0),
    ];
    for (t1, t2) in [(a, b), (b, a)] {
        let c = classify(&t1, &t2).expect("they meet");
        let Intersection::Segment(p, q) = c.intersection else {
            panic!("{:?}", c.intersection);
        };
        assert!(c.coplanar && c.touching);
        // From B's first corner (on A's edge) to the corner they share.
        assert!(
            (p.distance(q) - b[0].distance(b[1])).abs() < 1e-9,
            "{p} {q}"
        );
    }
}

/// Whether a crossing pair pierces (shares a segment) or touches at a point is exact at any
/// placement. Worked by hand, in units `u` of 2^-26 about (2^26, 2^26, 0), where one unit is
/// one ulp of the coordinates (the points' merging tolerance, 4 eps of them, is 16): T2 is the
/// triangle x, y ≥ 0, x + y ≤ 8N in z = 0 (N = 1024); T1 lies in y = N, crossing z = 0 from
/// (-4N, N) to its corner (tip, N, 0). T2 meets y = N for x in [0, 7N], T1 meets z = 0 for x in
/// [-4N, tip]: tip 1 shares the segment x in [0, 1] (piercing, one ulp long, which the merging
/// had made a touching point), tip 0 the point (0, N, 0) only (touching), tip -1 nothing.
#[test]
fn crossing_pairs_pierce_or_touch_exactly_an_ulp_apart() {
    let (u, big) = (2f64.powi(-26), 2f64.powi(26));
    let n = 1024.0;
    let at = |x: f64, y: f64, z: f64| v(big + x * u, big + y * u, z * u);
    let t2 = [
        at(0.0, 0.0, 0.0),
        at(8.0 * n, 0.0, 0.0),
        at(0.0, 8.0 * n, 0.0),
    ];
    let t1 = |tip: f64| [at(-4.0 * n, n, -n), at(-4.0 * n, n, n), at(tip, n, 0.0)];
    let c = classify(&t1(1.0), &t2).expect("they share [0, 1]");
    assert_eq!(
        (c.class(), c.touching),
        (Some(ContactClass::Segment), false)
    );
    let Intersection::Segment(a, b) = c.intersection else {
        unreachable!()
    };
    // Its ends are (0, N, 0) and (1, N, 0), within a rounding of the coordinates each.
    let (lo, hi) = if a.x <= b.x { (a, b) } else { (b, a) };
    assert!(lo.distance(at(0.0, n, 0.0)) <= 4.0 * u && hi.distance(at(1.0, n, 0.0)) <= 4.0 * u);
    let c = classify(&t2, &t1(0.0)).expect("they share (0, N, 0)");
    assert_eq!((c.class(), c.touching), (Some(ContactClass::Point), true));
    assert!(classify(&t1(-1.0), &t2).is_none());
}

/// A review's helper's pair, proven piercing in rationals: A = (-0.001, -0.001, 0.0005),
/// (0.0005, 0.0005, -0.001), (0.001, 0.002, 0) and B = (0.001, 0.002, 0), (-0.001, 0.0005, 0.002),
/// (0, 0.0005, 0.001) (f32), B turned by a rotation with entries ±2^-1022 (accepted as rigid):
/// its posed coordinates include 2.2e-311 beside 1e-3. Each crosses the other's plane strictly
/// and they share a segment about 1e-617 long; the orientations deciding that were rounded to
/// 0 by Shewchuk's expansions, whose terms underflowed even at the rescaled coordinates, and
/// the pair was called touching.
#[test]
fn a_pair_sharing_a_segment_below_f64_pierces() {
    let f = |x: f32| f64::from(x);
    let p = |x: f32, y: f32, z: f32| v(f(x), f(y), f(z));
    let a = [
        p(-0.001, -0.001, 0.0005),
        p(0.0005, 0.0005, -0.001),
        p(0.001, 0.002, 0.0),
    ];
    let e = f64::MIN_POSITIVE;
    let pose = meshclash::mesh::Pose {
        rotation: [[1.0, 0.0, e], [0.0, 1.0, 0.0], [-e, 0.0, 1.0]],
        translation: DVec3::ZERO,
    };
    let b = [
        p(0.001, 0.002, 0.0),
        p(-0.001, 0.0005, 0.002),
        p(0.0, 0.0005, 0.001),
    ]
    .map(|q| pose.apply(q));
    let c = classify(&a, &b).expect("they meet");
    assert!(!c.touching, "{c:?}");
}
