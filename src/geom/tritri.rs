//! Triangle–triangle intersection and minimum distance (Nathan 2015).
//!
//! Two intersection tests live here:
//! - [`intersect_edge_plane`]: Nathan's step 2 (edge–plane intersection, then the edge-normal
//!   point-in-triangle test, in both directions) plus the coplanar case the seed leaves out. It
//!   works on the precomputed per-triangle quantities with a tolerance `eps`, exactly as the
//!   `f32` GPU kernel does, and is the CPU twin of that kernel.
//! - [`intersect`]: the certified answer, [`super::predicates::triangles_intersect`].
//!
//! The two agree except within `eps` of a decision boundary; the tests hold that.

use super::closest::{closest_point_triangle, closest_points_segments};
use super::predicates;
use super::{DVec3, Tri};

/// The per-triangle quantities of Nathan (2015), in `f64` (see `mesh::TriRecord` for the `f32` GPU
/// layout of the same numbers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriFrame {
    pub v: Tri,
    /// `E0 = V1 − V0`, `E1 = V2 − V1`, `E2 = V0 − V2`.
    pub e: [DVec3; 3],
    /// Unit normal; zero for a zero-area triangle.
    pub n: DVec3,
    /// Edge unit normals `(E_i / |E_i|) × n`: for counter-clockwise winding they point out of
    /// the triangle, so a point is inside when `n_Ei · (P − V_i) ≤ ε` for all three (Nathan 2015).
    pub en: [DVec3; 3],
}

impl TriFrame {
    pub fn new(v: &Tri) -> TriFrame {
        let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
        let n = e[0].cross(-e[2]).normalize_or_zero();
        let en = e.map(|ei| ei.normalize_or_zero().cross(n));
        TriFrame { v: *v, e, n, en }
    }

    pub fn is_degenerate(&self) -> bool {
        self.n == DVec3::ZERO
    }

    /// Nathan's edge-normal point-in-triangle test, inclusive of the edges, tolerance `eps`.
    /// `p` is assumed to be on (or within `eps` of) the plane.
    pub fn contains(&self, p: DVec3, eps: f64) -> bool {
        (0..3).all(|i| self.en[i].dot(p - self.v[i]) <= eps)
    }
}

/// Nathan (2015) step 2, both directions, plus the coplanar case; tolerance `eps` in length units.
/// Zero-area triangles are tested as the segments they are.
pub fn intersect_edge_plane(t1: &TriFrame, t2: &TriFrame, eps: f64) -> bool {
    if t1.is_degenerate() || t2.is_degenerate() {
        return degenerate_pair_within(t1, t2, eps);
    }
    let d1: [f64; 3] = std::array::from_fn(|i| t2.n.dot(t1.v[i] - t2.v[0]));
    let d2: [f64; 3] = std::array::from_fn(|i| t1.n.dot(t2.v[i] - t1.v[0]));
    if d1.iter().all(|&d| d > eps) || d1.iter().all(|&d| d < -eps) {
        return false;
    }
    if d2.iter().all(|&d| d > eps) || d2.iter().all(|&d| d < -eps) {
        return false;
    }
    if d1.iter().all(|d| d.abs() <= eps) {
        return coplanar_within(t1, t2, eps);
    }
    edges_pierce(t1, &d1, t2, eps) || edges_pierce(t2, &d2, t1, eps)
}

/// Edges of `a` (signed distances `d` to the plane of `b`) against the plane of `b`, then the
/// crossing point against `b`. `s = n·(V_b0 − V_a,i) / n·E_a,i`, accepted on `[−ε, 1 + ε]`.
fn edges_pierce(a: &TriFrame, d: &[f64; 3], b: &TriFrame, eps: f64) -> bool {
    (0..3).any(|i| {
        let j = (i + 1) % 3;
        let denom = d[j] - d[i]; // n_b · E_a,i
        if denom == 0.0 {
            return d[i].abs() <= eps && (b.contains(a.v[i], eps) || b.contains(a.v[j], eps));
        }
        let s = -d[i] / denom;
        let tol = eps / a.e[i].length().max(f64::MIN_POSITIVE);
        if s < -tol || s > 1.0 + tol {
            return false;
        }
        let p = a.v[i] + a.e[i] * s.clamp(0.0, 1.0);
        b.contains(p, eps)
    })
}

/// The coplanar case Nathan (2015) skips: a vertex of either triangle inside the other, or two edges
/// crossing (closest distance of the edges within `eps`).
fn coplanar_within(t1: &TriFrame, t2: &TriFrame, eps: f64) -> bool {
    t1.v.iter().any(|&p| t2.contains(p, eps))
        || t2.v.iter().any(|&p| t1.contains(p, eps))
        || (0..3).any(|i| {
            (0..3).any(|j| {
                closest_points_segments(t1.v[i], t1.v[(i + 1) % 3], t2.v[j], t2.v[(j + 1) % 3])
                    .distance_squared
                    <= eps * eps
            })
        })
}

fn degenerate_pair_within(t1: &TriFrame, t2: &TriFrame, eps: f64) -> bool {
    distance(&t1.v, &t2.v).distance <= eps
}

/// The certified triangle–triangle intersection (closed triangles, touching included).
pub fn intersect(t1: &Tri, t2: &Tri) -> bool {
    predicates::triangles_intersect(t1, t2)
}

/// Minimum distance between two triangles, with the closest point on each and the separation
/// vector from triangle 2 to triangle 1 (`point_1 − point_2`, Nathan's convention).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriTriDistance {
    pub distance: f64,
    pub point_1: DVec3,
    pub point_2: DVec3,
    pub separation: DVec3,
}

/// Nathan (2015) step 3: the minimum over
/// 1. vertex–plane: each vertex against the other triangle, counted when its projection falls in
///    the triangle (done by the closest point on the triangle, Ericson 5.1.5, which also covers the
///    projections that fall outside);
/// 2. edge–edge: all nine pairs, clamped properly and with parallel edges handled (Ericson);
/// 3. vertex–vertex: the endpoints of the clamped edge–edge solutions.
///
/// For disjoint triangles the minimum is attained at a vertex–face or edge–edge pair, so this
/// is exact up to rounding. When the triangles intersect (exact test) the distance is 0 and both
/// points are a common point. Zero-area triangles work as the segments or points they are.
pub fn distance(t1: &Tri, t2: &Tri) -> TriTriDistance {
    let mut best = separated_distance(t1, t2);
    if best.distance > 0.0 && intersect(t1, t2) {
        let p = super::classify::contact_point(t1, t2).unwrap_or(best.point_1);
        best = TriTriDistance {
            distance: 0.0,
            point_1: p,
            point_2: p,
            separation: DVec3::ZERO,
        };
    }
    best
}

/// A lower bound on the distance of two triangles: the gap between their projections on `axis`
/// (a separating-axis bound, either way along it; not positive when the projections overlap).
/// Any axis gives a valid bound, so rounding only enters through the projections, and a margin
/// of 1e-12 of the coordinates' magnitude absorbs it: far above the error of an f64 distance of
/// the same triangles, so a positive bound proves them disjoint and their computed
/// [`separated_distance`] is above the bound.
pub fn gap_along(t1: &Tri, t2: &Tri, axis: DVec3) -> f64 {
    gap_between([t1], [t2], axis)
}

/// [`gap_along`] for two sets of triangles: a lower bound on the distance of any triangle of
/// the one set to any of the other, so that a pair of octree leaves is settled at once.
pub fn gap_between<'a>(
    s1: impl IntoIterator<Item = &'a Tri>,
    s2: impl IntoIterator<Item = &'a Tri>,
    axis: DVec3,
) -> f64 {
    let len = axis.length();
    if !(len > 0.0 && len.is_finite()) {
        return f64::NEG_INFINITY;
    }
    let u = axis / len;
    let (lo1, hi1, m1) = span(s1, u);
    let (lo2, hi2, m2) = span(s2, u);
    (lo2 - hi1).max(lo1 - hi2) - 1e-12 * m1.max(m2)
}

/// A set's span along the unit axis `u`, and its largest coordinate (for the rounding margin).
fn span<'a>(s: impl IntoIterator<Item = &'a Tri>, u: DVec3) -> (f64, f64, f64) {
    let (mut lo, mut hi, mut m) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for t in s {
        for p in t {
            let x = p.dot(u);
            lo = lo.min(x);
            hi = hi.max(x);
            m = m.max(p.abs().max_element());
        }
    }
    (lo, hi, m)
}

/// The best of [`gap_along`] on `axis` (the caller's guess: the line joining the triangles'
/// sphere centres) and on each triangle's normal. Where two surfaces face each other across a
/// thin gap, the normals give nearly the exact distance and the centres' line does for
/// triangles side by side; the bounding spheres' bound is loose by their radii in both.
pub fn separation_bound(t1: &Tri, t2: &Tri, axis: DVec3) -> f64 {
    // gap_along three times over, sharing the margin: on the hot path of the distance search
    // and of clearance, once per triangle pair that passes the spheres.
    let margin = 1e-12
        * t1.iter()
            .chain(t2)
            .map(|p| p.abs().max_element())
            .fold(0.0, f64::max);
    let gap = |a: DVec3| {
        let len = a.length();
        if !(len > 0.0 && len.is_finite()) {
            return f64::NEG_INFINITY;
        }
        let x1 = t1.map(|p| p.dot(a));
        let x2 = t2.map(|p| p.dot(a));
        let (lo1, hi1) = (x1[0].min(x1[1]).min(x1[2]), x1[0].max(x1[1]).max(x1[2]));
        let (lo2, hi2) = (x2[0].min(x2[1]).min(x2[2]), x2[0].max(x2[1]).max(x2[2]));
        (lo2 - hi1).max(lo1 - hi2) / len
    };
    let normal = |t: &Tri| (t[1] - t[0]).cross(t[2] - t[0]);
    gap(normal(t1)).max(gap(normal(t2))).max(gap(axis)) - margin
}

/// [`distance`] without the intersection test: exact (up to rounding) whenever the triangles are
/// disjoint. For intersecting ones it can be far from 0: an edge piercing the other's interior is
/// neither a vertex–face nor an edge–edge contact, which is why Nathan (2015) tests for intersection
/// first, and so does every caller here.
pub fn separated_distance(t1: &Tri, t2: &Tri) -> TriTriDistance {
    // Squared distances overflow beyond 1.3e154: there the triangles are scaled down by a power
    // of two (exact, coordinates that small lose nothing that matters at that distance), and
    // the answer up again.
    let m = t1
        .iter()
        .chain(t2)
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    if m > 1e150 && m.is_finite() {
        const K: f64 = 1.0 / (1u128 << 100) as f64;
        let r = separated_distance(&t1.map(|p| p * K), &t2.map(|p| p * K));
        return TriTriDistance {
            distance: r.distance / K,
            point_1: r.point_1 / K,
            point_2: r.point_2 / K,
            separation: r.separation / K,
        };
    }
    let mut best = (f64::INFINITY, DVec3::ZERO, DVec3::ZERO);
    let mut consider = |p1: DVec3, p2: DVec3| {
        let d = p1.distance_squared(p2);
        if d < best.0 {
            best = (d, p1, p2);
        }
    };
    for &p in t1 {
        consider(p, closest_point_triangle(p, t2));
    }
    for &p in t2 {
        consider(closest_point_triangle(p, t1), p);
    }
    for i in 0..3 {
        for j in 0..3 {
            let s = closest_points_segments(t1[i], t1[(i + 1) % 3], t2[j], t2[(j + 1) % 3]);
            consider(s.p1, s.p2);
        }
    }
    let (d2, p1, p2) = best;
    TriTriDistance {
        distance: d2.sqrt(),
        point_1: p1,
        point_2: p2,
        separation: p1 - p2,
    }
}
