//! Ericson, "Interval Halving for Intersecting Moving Objects": a recursive binary search over
//! the motion of a sphere against a static shape, which cannot tunnel through the shape as
//! sampled tests can.

use super::{DVec3, Sphere};

/// Moving sphere `s` (centre `s.center + t·v`, `t ∈ [t0, t1]`) against a static shape given by
/// its distance function `dist` (≥ 0, 0 on contact). Returns the first contact time within
/// `tolerance` of the true one, or `None` if it never touches in the interval.
///
/// Each step bounds the interval by the sphere swept over it; the sweep can only touch the shape
/// if the shape is within `radius + |v|·(half length)` of the midpoint.
pub fn interval_halving(
    s: &Sphere,
    v: DVec3,
    t0: f64,
    t1: f64,
    tolerance: f64,
    dist: &dyn Fn(DVec3) -> f64,
) -> Option<f64> {
    let speed = v.length();
    let mut stack = vec![(t0, t1)];
    // Depth-first, earliest half first: the first leaf reached is the earliest contact.
    while let Some((a, b)) = stack.pop() {
        let mid = 0.5 * (a + b);
        let half = 0.5 * (b - a);
        let centre = s.center + v * mid;
        if dist(centre) > s.radius + speed * half {
            continue;
        }
        if b - a <= tolerance {
            return Some(a);
        }
        stack.push((mid, b));
        stack.push((a, mid));
    }
    None
}
