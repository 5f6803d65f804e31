//! Exact orientation predicates and the certified booleans built from them.
//!
//! `robust` (Shewchuk's adaptive predicates) gives the exact sign of the orientation
//! determinants for `f64` inputs, so every decision here is exact for the coordinates as given:
//! no epsilon, no "nearly coplanar". Degenerate inputs (zero-area triangles, zero-length
//! segments, coplanar and collinear configurations) are decided exactly too.
//!
//! One fact is used throughout: two sets that lie in a common plane (or on a common line)
//! intersect exactly when their projections onto *all three* coordinate planes intersect. One of
//! those projections is injective on the plane, which gives "if"; "only if" is trivial. That
//! removes any floating-point choice of a projection axis.

use super::integers::big_sign;
use super::{DVec3, Tri};
use robust::{Coord, Coord3D};
use std::cmp::Ordering;

fn c3(p: DVec3) -> Coord3D<f64> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// Sign of the orientation of `d` against the plane through `a, b, c`: the sign of
/// `(a − d) · ((b − d) × (c − d))`. Positive when `d` lies below the plane, i.e. on the side
/// opposite the normal `(b − a) × (c − a)`; zero when the four points are coplanar.
pub fn orient3d(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> i8 {
    // Two points the same: coplanar, exactly. Common where copies of a part meet (every
    // triangle against its twin and its neighbours'), where Shewchuk's adaptive stages all
    // run to certify the zero: the bunny checked against itself spent 80 % of its time there.
    if a == b || a == c || a == d || b == c || b == d || c == d {
        return 0;
    }
    let v = robust::orient3d(c3(a), c3(b), c3(c), c3(d));
    if !v.is_finite() {
        // Overflowed (products of differences beyond 1e308): only then scaled down, since
        // scaling down can underflow the differences of coordinates far smaller than the
        // largest.
        return match downscale(&[a, b, c, d]) {
            Some(k) => sign(robust::orient3d(c3(a * k), c3(b * k), c3(c * k), c3(d * k))),
            None => 0,
        };
    }
    let s = sign(v);
    // A determinant this small may come from products that underflowed, where Shewchuk's
    // error bound (a product too) rounds to 0 and certifies a wrong sign (a point 4e-263 from
    // a corner of a mesh 1e-30 across read as inside): decided in integers instead. A 2×2
    // minor loses up to 2^-1074 where it goes subnormal, and is multiplied by a difference of
    // `z`s that may be large (a review's helper certified a wrong sign of 1e-198 in a copy of
    // the filter, minors underflowing times 3e125): the threshold grows with them.
    let zs = (a.z - d.z).abs() + (b.z - d.z).abs() + (c.z - d.z).abs();
    if s != 0 && (v.abs() < 1e-250 || v.abs() <= zs * f64::from_bits(1 << 14)) {
        return orient3d_in_integers(&[a, b, c, d]);
    }
    if s != 0 {
        return s;
    }
    // Shewchuk's expansions are exact only without underflow: a difference of one ulp near 0
    // (5e-324) times O(1) terms rounds to a false zero. Scaling every coordinate by the same
    // power of two is exact and keeps the sign, so a zero is confirmed at a scale where the
    // largest coordinate is 2^200; in integers where the coordinates span too many binades for
    // that ([`spans_underflow`]); as it is where no term could underflow ([`no_underflow`]).
    let points = [a, b, c, d];
    if no_underflow(&points) {
        return 0;
    }
    let k = rescale(&points).unwrap_or(1.0);
    if spans_underflow(&points, k) {
        return orient3d_in_integers(&points);
    }
    sign(robust::orient3d(c3(a * k), c3(b * k), c3(c * k), c3(d * k)))
}

/// [`orient3d`] of `[a, b, c, d]` in integers, exactly: where f64 cannot be trusted.
fn orient3d_in_integers(points: &[DVec3; 4]) -> i8 {
    big_sign(&super::integers::Integers::of(points).orient3d(0, 1, 2, 3))
}

/// [`orient2d`] of three points (`z` 0) in integers, exactly.
fn orient2d_in_integers(points: &[DVec3; 3]) -> i8 {
    let ints = super::integers::Integers::of(points);
    let (ac, bc) = (ints.diff(0, 2), ints.diff(1, 2));
    big_sign(&(&ac[0] * &bc[1] - &ac[1] * &bc[0]))
}

/// Whether some coordinate, times `k`, is not 0 but below 2^-250: then the expansions' terms
/// (the differences' tails, at least its unit in the last place, and their products of three)
/// can underflow, and a zero may be false. A review's helper: a part posed with a rotation
/// entry of 2.2e-308 has coordinates of 2e-311 beside ones of 1e-3, and a pair sharing a
/// segment 1e-617 long was called touching, its orientations' expansions rounded to 0.
fn spans_underflow(points: &[DVec3], k: f64) -> bool {
    let least = 2f64.powi(-250);
    points
        .iter()
        .flat_map(|p| p.to_array())
        .any(|x| x != 0.0 && (x * k).abs() < least)
}

/// Whether every coordinate is 0 or between 2^-250 and 2^250 in magnitude: then each is a
/// multiple of 2^-302 (its unit in the last place), the determinants' products of three
/// differences are multiples of 2^-906 and below 2^753, and every term of Shewchuk's
/// expansions is held exactly: a zero they give is the determinant's, with no rescaling (which
/// took a second pass of the adaptive stages at every exact zero).
fn no_underflow(points: &[DVec3]) -> bool {
    let (least, most) = (2f64.powi(-250), 2f64.powi(250));
    points
        .iter()
        .flat_map(|p| p.to_array())
        .all(|x| x == 0.0 || (least..=most).contains(&x.abs()))
}

/// The power of two that brings the largest coordinate down to about 2^200, where it is beyond
/// 2^300: the determinants' products of three differences overflow from about 2^340 (1e102),
/// and an overflowed expansion has no sign. The scaling is exact, but differences far below
/// the largest coordinate can underflow after it, so it is used only where the unscaled
/// determinant overflowed (its products could not be held anyway).
fn downscale(points: &[DVec3]) -> Option<f64> {
    let m = points
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0_f64, f64::max);
    (m > 2f64.powi(300) && m.is_finite()).then(|| 2f64.powi(200 - m.log2().floor() as i32))
}

/// The power of two that brings the largest coordinate to about 2^200, if that is a scale-up.
fn rescale(points: &[DVec3]) -> Option<f64> {
    let m = points
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0_f64, f64::max);
    if m == 0.0 || !m.is_finite() {
        return None;
    }
    let e = 200 - m.log2().floor() as i32;
    (e > 0).then(|| 2f64.powi(e.min(1000)))
}

/// Sign of the 2-D orientation of `(a, b, c)`: positive when counter-clockwise.
pub fn orient2d(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i8 {
    // As in orient3d: two points the same are collinear, exactly.
    if a == b || a == c || b == c {
        return 0;
    }
    let p = |q: [f64; 2], k: f64| Coord {
        x: q[0] * k,
        y: q[1] * k,
    };
    let d = |q: [f64; 2]| DVec3::new(q[0], q[1], 0.0);
    let v = robust::orient2d(p(a, 1.0), p(b, 1.0), p(c, 1.0));
    if !v.is_finite() {
        // As in orient3d: scaled down only where it overflowed.
        return match downscale(&[d(a), d(b), d(c)]) {
            Some(k) => sign(robust::orient2d(p(a, k), p(b, k), p(c, k))),
            None => 0,
        };
    }
    let s = sign(v);
    // As in orient3d: a determinant this small is decided in integers.
    if s != 0 && v.abs() < 1e-250 {
        return orient2d_in_integers(&[d(a), d(b), d(c)]);
    }
    if s != 0 {
        return s;
    }
    // As in orient3d: confirm a zero where underflow cannot fake it, or in integers.
    let points = [d(a), d(b), d(c)];
    if no_underflow(&points) {
        return 0;
    }
    let k = rescale(&points).unwrap_or(1.0);
    if spans_underflow(&points, k) {
        return orient2d_in_integers(&points);
    }
    sign(robust::orient2d(p(a, k), p(b, k), p(c, k)))
}

fn sign(v: f64) -> i8 {
    match v.partial_cmp(&0.0) {
        Some(Ordering::Greater) => 1,
        Some(Ordering::Less) => -1,
        _ => 0,
    }
}

/// Projection dropping coordinate `axis` (0 = x, 1 = y, 2 = z). Exact.
pub fn project(p: DVec3, axis: usize) -> [f64; 2] {
    match axis {
        0 => [p.y, p.z],
        1 => [p.z, p.x],
        _ => [p.x, p.y],
    }
}

/// Whether the triangle has zero area, decided exactly: its normal `(b − a) × (c − a)` is zero
/// exactly when all three coordinate projections are collinear.
pub fn is_degenerate(t: &Tri) -> bool {
    (0..3).all(|k| orient2d(project(t[0], k), project(t[1], k), project(t[2], k)) == 0)
}

/// A coordinate plane on which the (non-degenerate) triangle projects with non-zero area.
fn injective_axis(t: &Tri) -> Option<usize> {
    (0..3).find(|&k| orient2d(project(t[0], k), project(t[1], k), project(t[2], k)) != 0)
}

fn in_box_2d(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> bool {
    p[0] >= a[0].min(b[0])
        && p[0] <= a[0].max(b[0])
        && p[1] >= a[1].min(b[1])
        && p[1] <= a[1].max(b[1])
}

/// Closed 2-D segments `ab` and `cd` intersect (touching, collinear overlap and zero-length
/// segments included).
pub fn segments_intersect_2d(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let o1 = orient2d(a, b, c);
    let o2 = orient2d(a, b, d);
    let o3 = orient2d(c, d, a);
    let o4 = orient2d(c, d, b);
    if o1 * o2 < 0 && o3 * o4 < 0 {
        return true;
    }
    (o1 == 0 && in_box_2d(a, b, c))
        || (o2 == 0 && in_box_2d(a, b, d))
        || (o3 == 0 && in_box_2d(c, d, a))
        || (o4 == 0 && in_box_2d(c, d, b))
}

/// Closed 2-D point-in-triangle, either winding; a degenerate triangle contains the points of its
/// edges.
pub fn point_in_triangle_2d(p: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    let o = orient2d(a, b, c);
    if o == 0 {
        return segments_intersect_2d(p, p, a, b)
            || segments_intersect_2d(p, p, b, c)
            || segments_intersect_2d(p, p, c, a);
    }
    orient2d(a, b, p) * o >= 0 && orient2d(b, c, p) * o >= 0 && orient2d(c, a, p) * o >= 0
}

fn segment_triangle_2d(a: [f64; 2], b: [f64; 2], t: [[f64; 2]; 3]) -> bool {
    point_in_triangle_2d(a, t[0], t[1], t[2])
        || segments_intersect_2d(a, b, t[0], t[1])
        || segments_intersect_2d(a, b, t[1], t[2])
        || segments_intersect_2d(a, b, t[2], t[0])
}

/// Closed 3-D segments intersect, decided exactly.
pub fn segments_intersect(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    if orient3d(a, b, c, d) != 0 {
        return false;
    }
    (0..3)
        .all(|k| segments_intersect_2d(project(a, k), project(b, k), project(c, k), project(d, k)))
}

/// Closed point-in-triangle in 3-D (the point must lie in the triangle's plane), exact.
pub fn point_in_triangle(p: DVec3, t: &Tri) -> bool {
    segment_triangle(p, p, t)
}

/// Closed segment `ab` against closed triangle `t`, exact; any degeneracy of either.
///
/// Ericson "segment–triangle" by scalar triple products, with the signs taken from `orient3d`
/// instead of floating-point determinants, and the coplanar case (which the triple products
/// cannot decide) done in 2-D.
pub fn segment_triangle(a: DVec3, b: DVec3, t: &Tri) -> bool {
    if is_degenerate(t) {
        return segments_intersect(a, b, t[0], t[1])
            || segments_intersect(a, b, t[1], t[2])
            || segments_intersect(a, b, t[2], t[0]);
    }
    let oa = orient3d(t[0], t[1], t[2], a);
    let ob = orient3d(t[0], t[1], t[2], b);
    if oa * ob > 0 {
        return false;
    }
    if oa == 0 && ob == 0 {
        let k = injective_axis(t).unwrap_or(2);
        let pt = [project(t[0], k), project(t[1], k), project(t[2], k)];
        return segment_triangle_2d(project(a, k), project(b, k), pt);
    }
    // The segment meets the plane in exactly one point; it lies in the closed triangle when the
    // line ab passes on the same side (or on) all three edges.
    let s0 = orient3d(a, b, t[0], t[1]);
    let s1 = orient3d(a, b, t[1], t[2]);
    let s2 = orient3d(a, b, t[2], t[0]);
    !((s0 > 0 || s1 > 0 || s2 > 0) && (s0 < 0 || s1 < 0 || s2 < 0))
}

/// Closed triangle–triangle intersection, exact, every degeneracy included.
///
/// The intersection of two closed triangles is a convex set whose extreme points lie on an edge
/// of one of them; so the triangles meet exactly when an edge of one meets the other.
pub fn triangles_intersect(t1: &Tri, t2: &Tri) -> bool {
    // Boxes apart on an axis: comparisons only, exact at any magnitude (the determinants below
    // cannot hold 1e308 and 0.5 in one expansion).
    let lo = |t: &Tri, k: usize| t.iter().map(|p| p[k]).fold(f64::INFINITY, f64::min);
    let hi = |t: &Tri, k: usize| t.iter().map(|p| p[k]).fold(f64::NEG_INFINITY, f64::max);
    if (0..3).any(|k| lo(t1, k) > hi(t2, k) || lo(t2, k) > hi(t1, k)) {
        return false;
    }
    // Quick exact rejection: all of one triangle strictly on one side of the other's plane.
    if !is_degenerate(t2) {
        let o: [i8; 3] = std::array::from_fn(|i| orient3d(t2[0], t2[1], t2[2], t1[i]));
        if o.iter().all(|&s| s > 0) || o.iter().all(|&s| s < 0) {
            return false;
        }
    }
    if !is_degenerate(t1) {
        let o: [i8; 3] = std::array::from_fn(|i| orient3d(t1[0], t1[1], t1[2], t2[i]));
        if o.iter().all(|&s| s > 0) || o.iter().all(|&s| s < 0) {
            return false;
        }
    }
    (0..3).any(|i| segment_triangle(t1[i], t1[(i + 1) % 3], t2))
        || (0..3).any(|i| segment_triangle(t2[i], t2[(i + 1) % 3], t1))
}

/// Both triangles non-degenerate and lying in one plane, decided exactly.
pub fn coplanar(t1: &Tri, t2: &Tri) -> bool {
    !is_degenerate(t1)
        && !is_degenerate(t2)
        && t1.iter().all(|&p| orient3d(t2[0], t2[1], t2[2], p) == 0)
}

/// Whether the vertices of `t` lie strictly on both sides of the plane of `other`.
pub fn straddles(t: &Tri, other: &Tri) -> bool {
    if is_degenerate(other) {
        return false;
    }
    let o: [i8; 3] = std::array::from_fn(|i| orient3d(other[0], other[1], other[2], t[i]));
    o.contains(&1) && o.contains(&-1)
}

/// Whether the direction `p − v` points into the closed triangle `(v, c, d)` from its vertex `v`:
/// some point `v + ε (p − v)`, `ε > 0`, lies in it. Exact. Used for neighbours sharing a vertex.
pub fn direction_enters_triangle(v: DVec3, p: DVec3, c: DVec3, d: DVec3) -> bool {
    let t = [v, c, d];
    if is_degenerate(&t) || orient3d(v, c, d, p) != 0 {
        return false;
    }
    let k = injective_axis(&t).unwrap_or(2);
    let (v2, p2, c2, d2) = (project(v, k), project(p, k), project(c, k), project(d, k));
    let s = orient2d(v2, c2, d2);
    orient2d(v2, c2, p2) * s >= 0 && orient2d(v2, p2, d2) * s >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Zeros are taken without the second, rescaled pass where no term can underflow, and at
    /// once where two points are the same: every sign still the integers', on points exactly
    /// coplanar (lattice points `a + i (b − a) + j (c − a)`), one unit off that plane and with a
    /// point repeated, at every scale from 2^-460 to 2^460: where the shortcut is taken, and
    /// where it is not and Shewchuk's expansions underflow to false zeros (one unit off the
    /// plane at 2^-400: a determinant near 2^-1160).
    #[test]
    fn zeros_taken_early_are_the_integers_zeros_at_every_scale() {
        let mut rnd = crate::testing::lcg(0x9e37_79b9_7f4a_7c15);
        let mut int = |n: f64| (rnd() * 2.0 * n - n).round();
        let mut zeros = 0;
        for e in (-460..=460).step_by(7) {
            let k = 2f64.powi(e);
            for case in 0..30 {
                let mut p = || DVec3::new(int(1e6), int(1e6), int(1e6));
                let (a, b, c) = (p(), p(), p());
                let (i, j) = (int(50.0), int(50.0));
                let mut d = a + (b - a) * i + (c - a) * j;
                match case % 3 {
                    1 => d.z += 1.0,
                    2 => d = b,
                    _ => {}
                }
                let pts = [a * k, b * k, c * k, d * k];
                let exact = orient3d_in_integers(&pts);
                zeros += (exact == 0) as u32;
                assert_eq!(
                    orient3d(pts[0], pts[1], pts[2], pts[3]),
                    exact,
                    "2^{e}: {pts:?}"
                );
                let flat = pts.map(|q| DVec3::new(q.x, q.y, 0.0));
                let exact2 = orient2d_in_integers(&[flat[0], flat[1], flat[3]]);
                let two = orient2d(project(pts[0], 2), project(pts[1], 2), project(pts[3], 2));
                assert_eq!(two, exact2, "2^{e}: {flat:?}");
            }
        }
        assert!(zeros > 500, "{zeros}");
    }

    /// A review's helper's case: a triangle a few units across whose x coordinates are
    /// subnormal (a pose's rotation entry of 7 · 2^-1074), against a point 3.4e125 below it.
    /// Shewchuk's filter, whose products of `x`s underflow and are then multiplied by the
    /// large `z` differences, certified -1.7e-198; the determinant is positive (integers).
    #[test]
    fn underflowing_minors_times_large_heights_are_decided_in_integers() {
        let t = [
            DVec3::new(-8.4e-323, -2.408670663833618, -1.647782802581787),
            DVec3::new(4.4e-323, 1.2212679386138916, -0.2576597332954407),
            DVec3::new(5.4e-323, 1.5031074285507202, 2.846505641937256),
        ];
        let o = DVec3::new(5e-324, 1.9709655387259408, -3.384606560206073e125);
        let exact = orient3d_in_integers(&[t[0], t[1], t[2], o]);
        assert_eq!(exact, 1);
        assert_eq!(orient3d(t[0], t[1], t[2], o), exact);
    }
}
