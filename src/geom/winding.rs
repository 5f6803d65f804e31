//! The winding number of one triangle around a point: the solid angle it subtends there over
//! 4π, by Van Oosterom and Strackee's formula, as Jacobson, Kavan and Sorkine-Hornung (2013)
//! sum it into a mesh's generalized winding number. With a bound on its rounding, so that a
//! sum can say whether it is certainly on one side of 1/2.

use super::predicates::{orient3d, point_in_triangle};
use super::{DVec3, Tri};
use std::f64::consts::TAU;

/// `(w, bound)`: triangle `t`'s solid angle at `p` over 4π, in (−1/2, 1/2], positive where
/// `p` lies behind the triangle (its normal `(b − a) × (c − a)` points away from `p`), and a
/// bound on the error of `w`. The bound is infinite where `p` lies on the triangle (there the
/// winding number jumps by 1) or so near its edges' lines that the rounding could reach a
/// half turn.
pub fn triangle_winding(p: DVec3, t: &Tri) -> (f64, f64) {
    let (a, b, c) = scaled(t[0] - p, t[1] - p, t[2] - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let scale = la * lb * lc;
    if scale == 0.0 {
        return (0.0, f64::INFINITY); // p is a vertex
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
        return (w, f64::INFINITY); // p near an edge's line: the angle is not to be trusted
    }
    // atan2 moves by at most (δdet + δden) / h to first order; twice that covers the rest.
    (w, 2.0 * margin / h / TAU + 4.0 * f64::EPSILON)
}

/// `a, b, c` scaled by one power of two (the solid angle does not change) so that the
/// largest coordinate is near 1: products of three lengths would overflow beyond 5e102 and
/// lose their bound to subnormals below 1e-103.
fn scaled(a: DVec3, b: DVec3, c: DVec3) -> (DVec3, DVec3, DVec3) {
    let m = a.abs().max(b.abs()).max(c.abs()).max_element();
    if !(m.is_finite() && m > 0.0) || (1e-90..=1e90).contains(&m) {
        return (a, b, c);
    }
    let k = 2f64.powi(-(m.log2().floor() as i32));
    (a * k, b * k, c * k)
}

/// The sum of [`triangle_winding`] over `tris`: the winding number of the surface they form
/// around `p`, and the sum of the bounds.
pub fn winding_sum(p: DVec3, tris: impl Iterator<Item = Tri>) -> (f64, f64) {
    tris.map(|t| triangle_winding(p, &t))
        .fold((0.0, 0.0), |(w, e), (tw, te)| (w + tw, e + te))
}
