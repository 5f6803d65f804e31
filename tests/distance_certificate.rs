//! Triangle–triangle distance held to its optimality certificate, on the configurations the
//! sampling test of `geom_props.rs` almost never draws: parallel faces at a distance, parallel
//! edges, skew edges passing over each other, coplanar triangles side by side, intersecting
//! pairs, each near the origin and 1e6 away. Case count: `PROPTEST_CASES` (default 256).
//!
//! The oracle is convexity, not another distance routine. For convex sets `T1`, `T2`, points
//! `p1 ∈ T1`, `p2 ∈ T2` are a closest pair iff
//!   `(p1 − p2)·(x − p1) ≥ 0` for every `x ∈ T1` and `(p2 − p1)·(y − p2) ≥ 0` for every `y ∈ T2`
//! (the first-order condition of the convex `|p1 − p2|²` over `T1 × T2`, which is also
//! sufficient). Both sides are linear in `x` and `y`, so the three vertices of each triangle
//! decide it. With the points checked to lie in their triangles and `|p1 − p2|` equal to the
//! reported distance, that distance is the minimum up to rounding.

use glam::DQuat;
use meshclash::geom::tritri;
use meshclash::geom::{DVec3, Tri};
use proptest::prelude::*;

/// Unit roundoff of f64.
const U: f64 = f64::EPSILON / 2.0;

/// The tolerances of one pair, from the f64 rounding of its coordinates.
///
/// Let `M` be the largest coordinate magnitude among the vertices and the reported points,
/// `L` the longest edge, `D` the diameter of the pair (its joint box's diagonal) and `d` the
/// distance.
///
/// Position. A reported point is a combination `V0 + v·E1 + w·E2` (or an edge's `P + s·E`)
/// whose weights come from 2×2 determinants of dot products (Ericson 5.1.5, 5.1.9). Each
/// determinant is a difference of products of size up to `L⁴` divided by `(2·area)²`, so the
/// weights carry a relative error of `~u·κ²`, `κ = L² / (2·area)` (the triangle's shape
/// factor: 2 for an equilateral one), and the point `~u·L·κ²`; adding it to coordinates of
/// magnitude `M` rounds by `u·M`. So a point is within `c·u·(M + L·κ²)` of one the exact
/// computation would give, `c` a small constant.
///
/// Certificate. Moving `p1` by `e` changes `(p1 − p2)·(x − p1)` by at most
/// `|e|·(|x − p1| + |p1 − p2|) ≤ |e|·(D + d)`; the test's own evaluation (subtractions of
/// numbers of magnitude `M`, a three-term dot product) adds `~4u·M·(D + d)`. So
/// `ε = c·u·(M + L·κ²)·(D + d)`.
///
/// `c = 16` covers the constants (300 000 cases, about 60 000 per family, passed; `c = 8`
/// did not). For the
/// triangles drawn here (`κ ≤ 80`) that is at most 2e-11 of the pair's size: an answer a
/// millionth of the size off the optimum fails by five orders of magnitude.
struct Tol {
    /// Positions: how far a reported point may be from its triangle.
    position: f64,
    /// The certificate's `ε`.
    certificate: f64,
}

/// `L · κ²` of a triangle: its longest edge times the square of `L² / (2·area)`.
fn shape_error(t: &Tri) -> f64 {
    let l = (0..3)
        .map(|i| t[i].distance(t[(i + 1) % 3]))
        .fold(0.0, f64::max);
    let kappa = l * l / (t[1] - t[0]).cross(t[2] - t[0]).length();
    l * kappa * kappa
}

fn tolerances(t1: &Tri, t2: &Tri, r: &tritri::TriTriDistance) -> Tol {
    let pts = t1.iter().chain(t2).chain([&r.point_1, &r.point_2]);
    let m = pts.map(|p| p.abs().max_element()).fold(0.0, f64::max);
    let (lo, hi) = t1.iter().chain(t2).fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let diameter = (hi - lo).length();
    let c = 16.0;
    let position = c * U * (m + shape_error(t1).max(shape_error(t2)));
    Tol {
        position,
        certificate: position * (diameter + r.distance),
    }
}

/// `p` lies in `t` (non-degenerate) within `tol`, a length: its distance from the plane, and
/// how far it is outside each edge's line in the plane, are at most `tol`. Signed distances
/// from the edges by cross products (`n·(E_j × (p − V_j)) / |E_j|`, positive inside for the
/// normal `n = E_0 × E_2'` the vertex order gives): each rounds to within a few ulps of the
/// coordinates, where solving for barycentric weights would multiply that by the triangle's
/// condition.
fn in_triangle(p: DVec3, t: &Tri, tol: f64) -> Result<(), String> {
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize();
    let off_plane = n.dot(p - t[0]).abs();
    let outside = (0..3)
        .map(|j| {
            let e = t[(j + 1) % 3] - t[j];
            -n.dot(e.cross(p - t[j])) / e.length()
        })
        .fold(off_plane, f64::max);
    if outside <= tol {
        Ok(())
    } else {
        Err(format!(
            "{p:?} is {outside:e} outside {t:?} ({off_plane:e} off its plane, tolerance {tol:e})"
        ))
    }
}

/// Every check of one pair: intersecting pairs against the exact predicate; disjoint pairs
/// against the certificate, membership and the reported length.
fn certify(t1: &Tri, t2: &Tri) -> Result<(), String> {
    check_answer(t1, t2, &tritri::distance(t1, t2))
}

fn check_answer(t1: &Tri, t2: &Tri, r: &tritri::TriTriDistance) -> Result<(), String> {
    let exact = tritri::intersect(t1, t2);
    if r.distance == 0.0 || exact {
        // The certificate says nothing at distance 0: the exact predicate must agree.
        return match (r.distance == 0.0, exact) {
            (true, true) => Ok(()),
            (d0, x) => Err(format!("distance 0: {d0}, exact intersect: {x} ({r:?})")),
        };
    }
    let tol = tolerances(t1, t2, r);
    in_triangle(r.point_1, t1, tol.position)?;
    in_triangle(r.point_2, t2, tol.position)?;
    let length = r.point_1.distance(r.point_2);
    if (length - r.distance).abs() > 4.0 * U * r.distance {
        return Err(format!("|p1 − p2| = {length} but distance {}", r.distance));
    }
    let (n1, n2) = (r.point_1 - r.point_2, r.point_2 - r.point_1);
    for (x, n, p) in t1
        .iter()
        .map(|x| (x, n1, r.point_1))
        .chain(t2.iter().map(|y| (y, n2, r.point_2)))
    {
        let c = n.dot(*x - p);
        if c < -tol.certificate {
            return Err(format!(
                "certificate fails at vertex {x:?}: {c:e} < −{:e}; {r:?}",
                tol.certificate
            ));
        }
    }
    Ok(())
}

/// A triangle in the plane z = `z` from three points of the plane, counter-clockwise or not.
fn flat(p: [[f64; 2]; 3], z: f64) -> Tri {
    p.map(|[x, y]| DVec3::new(x, y, z))
}

fn xy() -> impl Strategy<Value = [f64; 2]> {
    [-1.0f64..1.0, -1.0f64..1.0]
}

/// A triangle of the plane whose area is not tiny against its size (the certificate holds for
/// slivers too, but the membership check divides by the heights).
fn fat2d() -> impl Strategy<Value = [[f64; 2]; 3]> {
    [xy(), xy(), xy()].prop_filter("well shaped", |t| {
        let (u, v) = (
            [t[1][0] - t[0][0], t[1][1] - t[0][1]],
            [t[2][0] - t[0][0], t[2][1] - t[0][1]],
        );
        let area = (u[0] * v[1] - u[1] * v[0]).abs();
        area > 0.05
    })
}

/// Parallel faces: both triangles in planes z = 0 and z = `h`, overlapping in projection or not.
fn parallel_faces() -> impl Strategy<Value = (Tri, Tri)> {
    (fat2d(), fat2d(), 1e-9f64..1.0).prop_map(|(a, b, h)| (flat(a, 0.0), flat(b, h)))
}

/// Parallel edges: the second triangle's first edge is the first's, moved off by `off` and
/// slid along itself by `slide`; its third vertex goes away from the first triangle.
fn parallel_edges() -> impl Strategy<Value = (Tri, Tri)> {
    (
        fat2d(),
        [-1.0f64..1.0, 1e-6f64..1.0, -1.0f64..1.0],
        -1.5f64..1.5,
        0.2f64..2.0,
    )
        .prop_map(|(a, off, slide, len)| {
            let t1 = flat(a, 0.0);
            let e = t1[1] - t1[0];
            let away = DVec3::from_array(off);
            let p = t1[0] + away + e * slide;
            (t1, [p, p + e * len, p + away + DVec3::Z])
        })
}

/// Skew edges: one triangle below the x axis's edge (hanging in −z), the other above an edge
/// along y at height `h` (rising in +z), so the edges pass over each other at distance `h`
/// where their spans cross.
fn skew_edges() -> impl Strategy<Value = (Tri, Tri)> {
    (
        [0.1f64..1.0, 0.1f64..1.0, 0.1f64..1.0, 0.1f64..1.0],
        [-1.0f64..1.0, -1.0f64..1.0, 0.1f64..1.0],
        [-1.0f64..1.0, -1.0f64..1.0, 0.1f64..1.0],
        1e-9f64..1.0,
    )
        .prop_map(|(ends, c1, c2, h)| {
            let t1 = [
                DVec3::new(-ends[0], 0.0, 0.0),
                DVec3::new(ends[1], 0.0, 0.0),
                DVec3::new(c1[0], c1[1], -c1[2]),
            ];
            let t2 = [
                DVec3::new(0.0, -ends[2], h),
                DVec3::new(0.0, ends[3], h),
                DVec3::new(c2[0], c2[1], h + c2[2]),
            ];
            (t1, t2)
        })
}

/// Coplanar triangles side by side in z = 0: the second moved along x past the first's extent
/// by `gap`.
fn coplanar_apart() -> impl Strategy<Value = (Tri, Tri)> {
    (fat2d(), fat2d(), 1e-9f64..1.0).prop_map(|(a, b, gap)| {
        let right = a.iter().map(|p| p[0]).fold(f64::NEG_INFINITY, f64::max);
        let left = b.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
        let shift = right - left + gap;
        (flat(a, 0.0), flat(b.map(|[x, y]| [x + shift, y]), 0.0))
    })
}

/// Intersecting: the second triangle pierces the first at a point `c` inside it (weights `w`):
/// its vertices are `c + u`, `c − u + v` and `c − u − v` with `u` rising, so `c` is the middle
/// of its median from the first vertex.
fn intersecting() -> impl Strategy<Value = (Tri, Tri)> {
    (
        fat2d(),
        [0.05f64..1.0, 0.05f64..1.0, 0.05f64..1.0],
        [-1.0f64..1.0, -1.0f64..1.0, 0.1f64..1.0],
        xy(),
    )
        .prop_map(|(a, w, u, v)| {
            let t1 = flat(a, 0.0);
            let c = (t1[0] * w[0] + t1[1] * w[1] + t1[2] * w[2]) / (w[0] + w[1] + w[2]);
            let (u, v) = (DVec3::from_array(u), DVec3::new(v[0], v[1], 0.0));
            (t1, [c + u, c - u + v, c - u - v])
        })
}

/// A rigid motion: rotation from a normalised quaternion (or none, to keep exact parallelism
/// and coplanarity), translation by up to 1 plus, half the time, 1e6 on every axis.
fn motion() -> impl Strategy<Value = (Option<DQuat>, DVec3)> {
    (
        prop::option::of([-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0]),
        [-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0],
        any::<bool>(),
    )
        .prop_filter_map("quaternion near zero", |(q, t, far)| {
            let rotation = match q {
                Some(q) => {
                    let q = DQuat::from_array(q);
                    if q.length() < 0.1 {
                        return None;
                    }
                    Some(q.normalize())
                }
                None => None,
            };
            let offset = if far { DVec3::splat(1e6) } else { DVec3::ZERO };
            Some((rotation, DVec3::from_array(t) + offset))
        })
}

fn moved(t: &Tri, (rotation, shift): &(Option<DQuat>, DVec3)) -> Tri {
    t.map(|p| rotation.map_or(p, |q| q * p) + *shift)
}

fn any_pair() -> impl Strategy<Value = (&'static str, (Tri, Tri))> {
    prop_oneof![
        parallel_faces().prop_map(|p| ("parallel faces", p)),
        parallel_edges().prop_map(|p| ("parallel edges", p)),
        skew_edges().prop_map(|p| ("skew edges", p)),
        coplanar_apart().prop_map(|p| ("coplanar apart", p)),
        intersecting().prop_map(|p| ("intersecting", p)),
    ]
}

proptest! {
    /// Every family, moved rigidly (often 1e6 away), in both orders.
    #[test]
    fn distance_meets_its_optimality_certificate((kind, (t1, t2)) in any_pair(), m in motion()) {
        let (a, b) = (moved(&t1, &m), moved(&t2, &m));
        // Built to pierce well inside (see `intersecting`): rounding cannot undo it.
        if kind == "intersecting" {
            prop_assert!(tritri::intersect(&a, &b), "not intersecting: {:?} {:?}", a, b);
        }
        let r = certify(&a, &b).and_then(|_| certify(&b, &a));
        prop_assert!(r.is_ok(), "{}: {}", kind, r.unwrap_err());
    }

    /// Before any motion the families' distances are known exactly: `h` for skew edges over
    /// each other, and never below the planes' gap for parallel faces.
    #[test]
    fn skew_edges_are_their_height_apart((t1, t2) in skew_edges()) {
        let h = t2[0].z;
        let d = tritri::distance(&t1, &t2).distance;
        // Both edges lie on axis lines crossing at (0, 0): their closest points are (0,0,0)
        // and (0,0,h), inside both edges, and every other point of the triangles is farther.
        prop_assert!((d - h).abs() <= 4.0 * U * h, "{} vs {}", d, h);
    }

    #[test]
    fn parallel_faces_are_at_least_their_planes_apart((t1, t2) in parallel_faces()) {
        let h = t2[0].z;
        let d = tritri::distance(&t1, &t2).distance;
        prop_assert!(d >= h, "{} below the planes' gap {}", d, h);
    }
}

/// The checks fail wrong answers: on two coplanar unit triangles one apart (hand-worked: the
/// closest pair is (1,0,0)–(2,0,0)), a point slid along its triangle by a thousandth, a point
/// pushed off its triangle, and a distance that is not the points'.
#[test]
fn the_checks_reject_wrong_answers() {
    let t1 = flat([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], 0.0);
    let t2 = flat([[2.0, 0.0], [3.0, 0.0], [2.0, 1.0]], 0.0);
    let good = tritri::distance(&t1, &t2);
    assert_eq!(good.distance, 1.0);
    assert_eq!((good.point_1, good.point_2), (t1[1], t2[0]));
    assert!(check_answer(&t1, &t2, &good).is_ok());
    let answer = |p1: DVec3, p2: DVec3| tritri::TriTriDistance {
        distance: p1.distance(p2),
        point_1: p1,
        point_2: p2,
        separation: p1 - p2,
    };
    // On the hypotenuse, a thousandth from the corner: in t1, but not closest.
    let slid = answer(t1[1] + DVec3::new(-1e-3, 1e-3, 0.0), t2[0]);
    let e = check_answer(&t1, &t2, &slid).unwrap_err();
    assert!(e.contains("certificate"), "{e}");
    // A thousandth past the corner, out of t1 (and nearer t2).
    let outside = answer(t1[1] + DVec3::new(1e-3, 0.0, 0.0), t2[0]);
    assert!(check_answer(&t1, &t2, &outside)
        .unwrap_err()
        .contains("outside"));
    let long = tritri::TriTriDistance {
        distance: 1.0 + 1e-9,
        ..good
    };
    assert!(check_answer(&t1, &t2, &long)
        .unwrap_err()
        .contains("|p1 − p2|"));
    let zero = tritri::TriTriDistance {
        distance: 0.0,
        ..good
    };
    assert!(check_answer(&t1, &t2, &zero)
        .unwrap_err()
        .contains("distance 0"));
}
