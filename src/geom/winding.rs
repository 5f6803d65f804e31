//! The winding number of one triangle around a point: the solid angle it subtends there over
//! 4π, by Van Oosterom and Strackee's formula, as Jacobson, Kavan and Sorkine-Hornung (2013)
//! sum it into a mesh's generalized winding number. With a bound on its rounding, so that a
//! sum can say whether it is certainly on one side of 1/2.

use super::predicates::{orient3d, point_in_triangle};
use super::{DVec3, Tri};
use std::f64::consts::TAU;
use twofloat::TwoFloat;

/// `(w, bound)`: triangle `t`'s solid angle at `p` over 4π, in (−1/2, 1/2], positive where
/// `p` lies behind the triangle (its normal `(b − a) × (c − a)` points away from `p`), and a
/// bound on the error of `w`. The bound is infinite where `p` lies on the triangle (there the
/// winding number jumps by 1) or so near its edges' lines that the rounding could reach a
/// half turn.
pub fn triangle_winding(p: DVec3, t: &Tri) -> (f64, f64) {
    let (a, b, c) = scaled(t[0] - p, t[1] - p, t[2] - p);
    let (la, lb, lc) = (length(a), length(b), length(c));
    let scale = la * lb * lc;
    if scale == 0.0 {
        return (0.0, f64::INFINITY); // p is a vertex
    }
    if scale < NEAR_VERTEX {
        // Within 2^-900 or so of a vertex, at the triangle's size: the products below lose
        // their bits to underflow, and the margins assume each rounds relatively. As good
        // as on the vertex.
        return (0.0, f64::INFINITY);
    }
    // tan(Ω/2) = det / den. Each term of either is at most `scale` in magnitude: det is six
    // products of three coordinates, den four terms of three lengths or a dot product and a
    // length; each rounds by a few ulps, and so does the subtraction of `p` (a perturbation of
    // the vertices by an ulp of their size). These margins hold every such error with room.
    let det = a.dot(b.cross(c));
    let den = scale + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    let (e_det, e_den) = (64.0 * f64::EPSILON * scale, 128.0 * f64::EPSILON * scale);
    let det = if det.abs() > e_det {
        det
    } else {
        // The sign of det chooses between +π and −π where den < 0 (p in front of or behind
        // the triangle's inside): take it from the exact predicate.
        match orient3d(t[0], t[1], t[2], p) {
            0 if point_in_triangle(p, t) => return (0.0, f64::INFINITY),
            0 => return (0.0, 0.0), // in the plane, beside the triangle: seen edge-on
            s => det.abs().copysign(s as f64),
        }
    };
    let h = det.hypot(den);
    let margin = e_det + e_den;
    let w = det.atan2(den) / TAU;
    if h <= 4.0 * margin {
        // p near an edge's line: the angle is not to be trusted in f64.
        return nearer_edge(p, t).unwrap_or((w, f64::INFINITY));
    }
    let bound = angle_bound(margin, h);
    if bound > NEAR_EDGE {
        return nearer_edge(p, t).unwrap_or((w, bound));
    }
    (w, bound)
}

/// A bound on `atan2(det, den) / 2π`'s error where `det` and `den` are each within `margin` of
/// their exact values and `h` is their hypotenuse: atan2 moves by at most (δdet + δden) / h to
/// first order; twice that covers the rest, and 4ε the rounding of atan2 and of the quotient.
fn angle_bound(margin: f64, h: f64) -> f64 {
    2.0 * margin / h / TAU + 4.0 * f64::EPSILON
}

/// An f64 bound past which a triangle's solid angle is asked again in double-double.
const NEAR_EDGE: f64 = 1e-12;

/// The product of `p`'s distances to a triangle's corners (as [`scaled`] leaves them) below
/// which `p` is taken to be on a vertex, 2^-900: at or above it, every product of three
/// coordinates that matters is a normal number, and those that are not lie far below the
/// margins (2^-946 at least) by their absolute rounding (2^-1074).
const NEAR_VERTEX: f64 = f64::MIN_POSITIVE * (1u128 << 122) as f64;

/// `v`'s length without its squares' underflow: a vector of 1e-162 squares to a subnormal's
/// few bits (a review's helper: its length, and the angle, half wrong). `hypot` where the
/// square sum is that small, the plain root (within an ulp, and faster) elsewhere.
fn length(v: DVec3) -> f64 {
    let sq = v.length_squared();
    match sq >= MIN_SQUARE {
        true => sq.sqrt(),
        false => v.x.hypot(v.y).hypot(v.z),
    }
}

/// A square sum at or above which no square that adds to it lost more than an ulp of it.
const MIN_SQUARE: f64 = f64::MIN_POSITIVE * (1u64 << 53) as f64;

/// [`triangle_winding`] for `p` beside one of the triangle's edges (or the seam between two
/// triangles of a fan closing a hole), where f64 loses the angle: `den` cancels to nothing
/// there and its rounding, an ulp of the corners' size, outweighs it, and the subtraction of
/// `p` itself moves the edge by as much (a review's helper: 2e-4 off at 6e-14 from a cap's
/// seam, within the bound). The corners less `p` are exact in double-double, and every
/// product and sum after them within a few units of 2^-106 of its size (Joldes, Muller and
/// Popescu 2017, the algorithms `twofloat` implements); `margin` holds their sum with room.
/// `None` where even that cannot tell the angle (the caller keeps its infinite bound).
fn nearer_edge(p: DVec3, t: &Tri) -> Option<(f64, f64)> {
    type V = [TwoFloat; 3];
    let k = TwoFloat::from(power_of_two(largest(&[t[0] - p, t[1] - p, t[2] - p])));
    let less_p = |v: DVec3| -> V { std::array::from_fn(|i| TwoFloat::new_sub(v[i], p[i]) * k) };
    let (a, b, c) = (less_p(t[0]), less_p(t[1]), less_p(t[2]));
    let dot = |u: &V, v: &V| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let cross = |u: &V, v: &V| {
        [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ]
    };
    // Each length from its vector scaled near 1 by a power of two (exact): the squares of a
    // vector of 1e-162 are subnormal in their low words, far from double-double's precision.
    let length = |v: &V| {
        let k = power_of_two(v.iter().fold(0.0, |m, x| m.max(x.hi().abs())));
        let u = v.map(|x| x * k);
        dot(&u, &u).sqrt() / k
    };
    let (la, lb, lc) = (length(&a), length(&b), length(&c));
    let product = la * lb * lc;
    let det = dot(&a, &cross(&b, &c));
    let den = product + dot(&a, &b) * lc + dot(&b, &c) * la + dot(&c, &a) * lb;
    let (scale, det, den) = (product.hi(), det.hi(), den.hi());
    let margin = 2f64.powi(-90) * scale;
    if !(margin > 0.0 && margin.is_finite()) {
        return None;
    }
    // As in f64: a det within its rounding takes its sign from the exact predicate (here p
    // is off the triangle's plane, or the caller would have answered).
    let det = match det.abs() > margin {
        true => det,
        false => det.abs().copysign(orient3d(t[0], t[1], t[2], p) as f64),
    };
    let h = det.hypot(den);
    // Rounding det and den to f64 moves atan2 by less than ε.
    (h > 4.0 * margin).then(|| (det.atan2(den) / TAU, angle_bound(margin, h) + f64::EPSILON))
}

/// `a, b, c` scaled by one power of two (the solid angle does not change) so that the
/// largest coordinate is near 1: products of three lengths would overflow beyond 5e102 and
/// lose their bound to subnormals below 1e-103.
fn scaled(a: DVec3, b: DVec3, c: DVec3) -> (DVec3, DVec3, DVec3) {
    let k = power_of_two(largest(&[a, b, c]));
    (a * k, b * k, c * k)
}

/// The largest coordinate of `vectors`, in magnitude.
fn largest(vectors: &[DVec3]) -> f64 {
    vectors
        .iter()
        .fold(0.0, |m, v| m.max(v.abs().max_element()))
}

/// The power of two [`scaled`] multiplies coordinates whose largest is `m` by: 1 where `m` is
/// within 1e±90 (or is not a positive finite number).
fn power_of_two(m: f64) -> f64 {
    if !(m.is_finite() && m > 0.0) || (1e-90..=1e90).contains(&m) {
        return 1.0;
    }
    2f64.powi(-(m.log2().floor() as i32))
}

/// The sum of [`triangle_winding`] over `tris`: the winding number of the surface they form
/// around `p`, and the sum of the bounds.
pub fn winding_sum(p: DVec3, tris: impl Iterator<Item = Tri>) -> (f64, f64) {
    tris.map(|t| triangle_winding(p, &t))
        .fold((0.0, 0.0), |(w, e), (tw, te)| (w + tw, e + te))
}
