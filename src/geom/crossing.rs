//! Where a segment crosses the planes of the triangles it meets, and which it crosses first,
//! exactly. The first hit of a ray is the nearest crossing, not the smallest rounded `t`: a ray
//! grazing a triangle far from its origin has a `t` whose rounding error grows as the graze
//! does, and can put a triangle behind another one in front of it. So each crossing gets
//! rigorous bounds (cheap, f64), and only crossings whose bounds overlap are compared exactly,
//! in integers.

use super::integers::{big_sign, det, Integers};
use super::{DVec3, Tri};
use num_bigint::{BigInt, BigUint};
use num_traits::ToPrimitive;
use std::cmp::Ordering;

/// Rigorous bounds `[lo, hi]` on where the ray from `o` along `d` crosses the plane of `tri`,
/// as its parameter `t` (the crossing is at `o + t d`), given that its line crosses the
/// triangle (closed). Two bounds, the tighter taken: the crossing is a point of the triangle,
/// so its projection on the ray lies between its corners' (tight for a graze); and it is at
/// `t = op / dn`, the orientation of `o` against the plane over that of `d`, each within
/// Shewchuk's error bound (tight for a steep crossing).
pub fn crossing_bounds(o: DVec3, d: DVec3, tri: &Tri) -> (f64, f64) {
    let (lo, hi) = projection_bounds(o, d, tri);
    let (op, ep) = orient3d_with_bound(tri[0], tri[1], tri[2], o);
    let (dn, en) = orient3d_of_differences(d, tri[1] - tri[0], tri[2] - tri[0]);
    let (a, b) = (op.abs(), dn.abs());
    if !(b > en && (a + ep + b + en).is_finite()) {
        return (lo, hi);
    }
    // The quotients' own rounding, 4 units.
    let round = 1.0 + 4.0 * f64::EPSILON;
    let lo_o = (a - ep).max(0.0) / (b + en) / round;
    let hi_o = (a + ep) / (b - en) * round;
    (lo.max(lo_o), hi.min(hi_o))
}

/// The corners' projections on the ray, as its parameter `t`, widened by their rounding: the
/// crossing is a point of the triangle, so it lies between them. Along the unit direction, so
/// nothing squares out of range; `(-inf, inf)` where a value is still not finite.
fn projection_bounds(o: DVec3, d: DVec3, tri: &Tri) -> (f64, f64) {
    let len = super::length(d);
    let unit = d / len;
    let proj = tri.map(|v| (v - o).dot(unit) / len);
    let reach = tri
        .iter()
        .map(|&v| super::length(v - o))
        .fold(0.0, f64::max);
    // Each projection: a difference, a unit vector, a dot product and a division, within 16
    // units of its magnitudes' roundoff; underflow within a few of the smallest normal.
    let slack = 16.0 * f64::EPSILON * reach / len + 4.0 * f64::MIN_POSITIVE / len;
    let lo = proj[0].min(proj[1]).min(proj[2]) - slack;
    let hi = proj[0].max(proj[1]).max(proj[2]) + slack;
    if proj.iter().all(|x| x.is_finite()) && slack.is_finite() && len > 0.0 {
        (lo, hi)
    } else {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
}

/// Shewchuk's `orient3d` in f64 and its error bound (his `o3derrboundA` times the permanent,
/// plus what underflow can lose: Shewchuk's bound assumes none, and products of tiny
/// differences go subnormal): the exact determinant lies within `bound` of the value. An
/// overflow gives a bound that is not finite, which callers take as no bound.
///
/// Underflow: each 2×2 minor loses at most 2^-1074 where its products go subnormal, and is
/// then multiplied by a `z`, which may be huge (a review's helper: a minor of 1.5 · 2^-1074
/// rounded to 2, times 2^100, was "certified" at a bound of 1e-306); so the bound takes
/// `2^-1073` times the `z`s' sum, and a few of the least normal for the last products.
pub fn orient3d_with_bound(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> (f64, f64) {
    orient3d_of_differences(a - d, b - d, c - d)
}

/// [`orient3d_with_bound`] given the differences `a − d`, `b − d`, `c − d` as f64 rounds
/// them: where several orientations share a point `d` (a segment's origin against a triangle's
/// corners), each difference is taken once.
pub fn orient3d_of_differences(ad: DVec3, bd: DVec3, cd: DVec3) -> (f64, f64) {
    let (bdxcdy, cdxbdy) = (bd.x * cd.y, cd.x * bd.y);
    let (cdxady, adxcdy) = (cd.x * ad.y, ad.x * cd.y);
    let (adxbdy, bdxady) = (ad.x * bd.y, bd.x * ad.y);
    let det = ad.z * (bdxcdy - cdxbdy) + bd.z * (cdxady - adxcdy) + cd.z * (adxbdy - bdxady);
    let permanent = (bdxcdy.abs() + cdxbdy.abs()) * ad.z.abs()
        + (cdxady.abs() + adxcdy.abs()) * bd.z.abs()
        + (adxbdy.abs() + bdxady.abs()) * cd.z.abs();
    let eps = f64::EPSILON / 2.0;
    let zs = ad.z.abs() + bd.z.abs() + cd.z.abs();
    let underflow = zs * f64::from_bits(2) + 64.0 * f64::MIN_POSITIVE; // 2^-1073 a unit of z
    (det, (7.0 + 56.0 * eps) * eps * permanent + underflow)
}

/// Which of the planes of `a` and `b` the ray from `o` along `d` crosses first (both crossed
/// at `t ≥ 0`, each triangle met through its closed inside), exactly: `Less` when `a`'s. Every
/// coordinate is an integer times a common power of two, so the orientations and their
/// products are exact in integers.
pub fn crossing_order(o: DVec3, d: DVec3, a: &Tri, b: &Tri) -> Ordering {
    let ints = Integers::of(&[o, d, a[0], a[1], a[2], b[0], b[1], b[2]]);
    let place = |i: usize| {
        let (op, dn) = place_in_integers(&ints, i);
        (op.magnitude().clone(), dn.magnitude().clone())
    };
    let ((pa, da), (pb, db)) = (place(2), place(5));
    // pa / da < pb / db  <=>  pa db < pb da.
    (pa * db).cmp(&(pb * da))
}

/// Where the ray from point 0 along point 1 of `ints` crosses the plane of points `i`,
/// `i + 1`, `i + 2`, exactly: at `t = op / dn`, `op` the origin's orientation against the plane
/// and `dn` the direction's, `d · ((b − a) × (c − a))` (of one sign where `t >= 0`).
fn place_in_integers(ints: &Integers, i: usize) -> (BigInt, BigInt) {
    let op = ints.orient3d(i, i + 1, i + 2, 0);
    let dn = det(&ints.v[1], &ints.diff(i + 1, i), &ints.diff(i + 2, i));
    (op, dn)
}

/// The sign of a determinant and its error bound ([`orient3d_of_differences`]) where the bound
/// decides it; `None` where only exact arithmetic can (or a value is not finite).
pub fn sign_within((det, err): (f64, f64)) -> Option<i8> {
    if det > err {
        Some(1)
    } else if det < -err {
        Some(-1)
    } else {
        None
    }
}

/// The sign of `d · ((b − a) × (c − a))` for triangle `abc`, exactly: the direction against
/// the triangle's normal (negative: a ray along `d` meets its front). The ray from `o` crosses
/// the plane at `t = op / dn`, `op` the orientation of `o` ([`orient3d_with_bound`]) and `dn`
/// this one; 0 where `d` runs parallel to the plane or the triangle has no area.
pub fn direction_side(d: DVec3, tri: &Tri) -> i8 {
    sign_within(orient3d_of_differences(d, tri[1] - tri[0], tri[2] - tri[0]))
        .or_else(|| super::expansion::det_sign(d, (tri[1], tri[0]), (tri[2], tri[0])))
        .unwrap_or_else(|| {
            let ints = Integers::of(&[d, tri[0], tri[1], tri[2]]);
            big_sign(&det(&ints.v[0], &ints.diff(2, 1), &ints.diff(3, 1)))
        })
}

/// Whether the ray from `o` along `d`, whose line crosses triangle `tri` (closed) at some
/// `t >= 0`, crosses it at `t <= t_end`, exactly: by [`crossing_bounds`] where they tell,
/// else in integers. The end of a segment `o + t_end d` is not rounded: a ray nearly in the
/// triangle's plane crosses it far from where its rounded end's side of the plane says.
pub fn crosses_by(o: DVec3, d: DVec3, tri: &Tri, t_end: f64) -> bool {
    let (lo, hi) = crossing_bounds(o, d, tri);
    if hi <= t_end {
        return true;
    }
    if lo > t_end {
        return false;
    }
    // t_end and 1 among the points, so that both are integers at the common scale s: the
    // crossing op / dn (each s^3 times its value) is at or before t_end when
    // |op| s <= (t_end s) |dn|.
    let ints = Integers::of(&[o, d, tri[0], tri[1], tri[2], DVec3::new(t_end, 1.0, 0.0)]);
    let (op, dn) = place_in_integers(&ints, 2);
    let (end, one) = (&ints.v[5][0], &ints.v[5][1]);
    op.magnitude() * one.magnitude() <= end.magnitude() * dn.magnitude()
}

/// Where the ray from `o` along `d` crosses the plane of `tri`, as `t` (the crossing is at
/// `o + t d`), and the sign of `d` against the plane ([`direction_side`]), for a ray not
/// parallel to it. `t = op / dn` in f64 where Shewchuk's bounds hold both within 2^-32 of
/// themselves (so `t` within 2^-31 of itself, certified; on igea's 1M rays within 1e-13, the
/// bounds being worst cases), else the exact quotient, rounded: a ray grazing the
/// plane (where `dn` cancels) or products beyond f64 (a direction of 1e300) gave a `t` of 0
/// and a hit at the origin, far from the triangle. 0 for a parallel ray. (Within 2^-50 sent
/// most hits to the integers: the bounds are that loose; 1M rays took twice as long.)
pub fn crossing_t(o: DVec3, d: DVec3, tri: &Tri) -> (f64, i8) {
    // Both about the triangle's own edges: `op` pivoted on `o` would take the difference of
    // three long, nearly equal vectors for a ray from far away (6e-12 of `t` lost on igea).
    let (ba, ca) = (tri[1] - tri[0], tri[2] - tri[0]);
    let (op, ep) = orient3d_of_differences(tri[0] - o, ba, ca);
    let (dn, en) = orient3d_of_differences(d, ba, ca);
    // A bound that is not finite (products beyond f64) holds nothing.
    let tight = |x: f64, e: f64| e.is_finite() && e <= x.abs() * (1.0 / 4294967296.0); // 2^-32
    let t = op / dn;
    if tight(op, ep) && tight(dn, en) && t.is_finite() {
        return (t, if dn > 0.0 { 1 } else { -1 });
    }
    let (op, dn) = place_in_integers(&Integers::of(&[o, d, tri[0], tri[1], tri[2]]), 2);
    match big_sign(&dn) {
        0 => (0.0, 0),
        s => (
            quotient(op.magnitude(), dn.magnitude()) * f64::from(s * big_sign(&op)),
            s,
        ),
    }
}

/// `n / d` (`d` not 0) as f64, within an ulp: the integer quotient taken to at least 64 bits,
/// then scaled back by its power of two.
fn quotient(n: &BigUint, d: &BigUint) -> f64 {
    let shift = (d.bits() + 64).saturating_sub(n.bits());
    let q = ((n << shift) / d).to_f64().unwrap_or(f64::INFINITY);
    // 2^-shift in steps that stay normal (a shift past 1074 bits is a quotient below f64's
    // least positive value: 0).
    let mut scaled = q;
    let mut rest = shift;
    while rest > 0 && scaled != 0.0 {
        let step = rest.min(1000);
        scaled *= 2f64.powi(-(step as i32));
        rest -= step;
    }
    scaled
}

/// The sign of `d · ((a − o) × (b − o))`, exactly: the orientation of edge `ab` against the
/// line through `o` along `d` (`orient3d(o + d, a, b, o)`, where `o + d` would be rounded).
pub fn orient_along(o: DVec3, d: DVec3, a: DVec3, b: DVec3) -> i8 {
    super::expansion::det_sign(d, (a, o), (b, o)).unwrap_or_else(|| {
        let ints = Integers::of(&[o, d, a, b]);
        big_sign(&det(&ints.v[1], &ints.diff(2, 0), &ints.diff(3, 0)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearer_plane_is_crossed_first_and_ties_are_equal() {
        let p = DVec3::new(0.0, 0.1, 0.2);
        let q = DVec3::new(10.0, 0.1, 0.2);
        let wall = |x: f64| -> Tri {
            [
                DVec3::new(x, -1.0, -1.0),
                DVec3::new(x, 2.0, -1.0),
                DVec3::new(x, -1.0, 2.0),
            ]
        };
        let d = q - p;
        assert_eq!(crossing_order(p, d, &wall(1.0), &wall(2.0)), Ordering::Less);
        assert_eq!(
            crossing_order(p, d, &wall(3.0), &wall(2.0)),
            Ordering::Greater
        );
        assert_eq!(
            crossing_order(p, d, &wall(2.0), &wall(2.0)),
            Ordering::Equal
        );
        // The bounds hold the exact places (0.1, 0.2) and are tight.
        let (lo, hi) = crossing_bounds(p, d, &wall(1.0));
        assert!(lo <= 0.1 && 0.1 <= hi && hi - lo < 1e-12, "{lo} {hi}");
    }

    /// A review's cases at the ends of f64's range: a segment 3e154 long (its length squared
    /// overflowed and the bounds collapsed to 0, so a triangle 3e153 away won), and coordinates
    /// near 1e-106 (the orientations' products went subnormal, below Shewchuk's bound).
    #[test]
    fn bounds_hold_at_the_ends_of_the_range() {
        let (p, q) = (DVec3::ZERO, DVec3::new(3.13e154, 0.0, 0.0));
        let wall = |x: f64, s: f64| -> Tri {
            [
                DVec3::new(x, -s, -s),
                DVec3::new(x, 2.0 * s, -s),
                DVec3::new(x, -s, 2.0 * s),
            ]
        };
        for (x, s) in [(1.0, 1.0), (3e153, 3e153)] {
            let (lo, hi) = crossing_bounds(p, q - p, &wall(x, s));
            let exact = x / 3.13e154;
            assert!(lo <= exact && exact <= hi, "{x}: {lo} {hi} {exact}");
        }
        let v = |x: [f64; 3]| DVec3::from_array(x);
        let p = v([
            3.9551643692268333e-106,
            -2.110887525768341e-107,
            1.3069851234871873e-106,
        ]);
        let q = v([
            6.25697335817593e-106,
            -3.84603877230111e-107,
            1.132632420461532e-106,
        ]);
        let a = [
            v([
                5.038306581573302e-106,
                -8.010728337463745e-106,
                -1.4671765088990803e-106,
            ]),
            v([
                3.8435071092202037e-106,
                1.9092929239715424e-106,
                -2.3901296496650085e-106,
            ]),
            v([
                3.7642246198531853e-106,
                -1.7835388886959656e-106,
                1.2644988539381549e-105,
            ]),
        ];
        let b = [
            v([
                3.974280783651674e-106,
                -1.3080452628505039e-105,
                -1.3080452628505039e-105,
            ]),
            v([
                3.974280783651674e-106,
                2.6160905257010078e-105,
                -1.3080452628505039e-105,
            ]),
            v([
                3.974280783651674e-106,
                -1.3080452628505039e-105,
                2.6160905257010078e-105,
            ]),
        ];
        // A is crossed first (exactly 0.0083049442 against 0.0083049525): its bounds must let
        // it be, and the exact comparison says so.
        let d = q - p;
        let (la, _) = crossing_bounds(p, d, &a);
        let (_, hb) = crossing_bounds(p, d, &b);
        assert!(la <= hb, "{la} {hb}");
        assert_eq!(crossing_order(p, d, &a, &b), Ordering::Less);
    }
}
