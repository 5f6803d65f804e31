//! Boolean primitive tests of Ericson ("Testing Primitives"): separating axes, sphere, box,
//! plane, triangle. Floating point; the certified booleans are in [`super::predicates`].

use super::closest::{closest_point_triangle, distance_squared_point_aabb};
use super::{Aabb, DVec3, Plane, Sphere, Tri};

/// Separating-axis helper: projections of two point sets onto `axis` are disjoint.
pub fn separated_on_axis(axis: DVec3, a: &[DVec3], b: &[DVec3]) -> bool {
    let range = |pts: &[DVec3]| {
        pts.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                let d = axis.dot(*p);
                (lo.min(d), hi.max(d))
            })
    };
    let (a0, a1) = range(a);
    let (b0, b1) = range(b);
    a1 < b0 || b1 < a0
}

/// Separating-axis test for two convex polytopes given by vertices and candidate axes
/// (`2F + E²` axes for polytopes, Ericson). True when no axis separates them.
pub fn sat_overlap(a: &[DVec3], b: &[DVec3], axes: &[DVec3]) -> bool {
    !axes
        .iter()
        .any(|&axis| axis != DVec3::ZERO && separated_on_axis(axis, a, b))
}

/// Where a sphere lies against a plane (unit normal), Ericson "Testing Sphere Against Plane".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneSide {
    /// Entirely in front (on the normal's side).
    Front,
    /// Entirely behind.
    Behind,
    /// Cuts or touches the plane.
    Intersecting,
}

/// Ericson: sphere against plane `n·X = d` with unit `n`.
pub fn sphere_plane(s: &Sphere, p: &Plane) -> PlaneSide {
    let dist = p.signed_distance(s.center);
    if dist > s.radius {
        PlaneSide::Front
    } else if dist < -s.radius {
        PlaneSide::Behind
    } else {
        PlaneSide::Intersecting
    }
}

/// Ericson: sphere intersects the negative half-space of the plane (unit normal).
pub fn sphere_inside_halfspace(s: &Sphere, p: &Plane) -> bool {
    p.signed_distance(s.center) <= s.radius
}

/// Ericson, "Testing Box Against Plane": AABB against plane `n·X = d` (any `n`), by the
/// projection radius `r = e·|n|`.
pub fn aabb_plane(b: &Aabb, p: &Plane) -> bool {
    let c = b.center();
    let e = b.half_extent();
    let r = e.x * p.n.x.abs() + e.y * p.n.y.abs() + e.z * p.n.z.abs();
    p.signed_distance(c).abs() <= r
}

/// Ericson: sphere against AABB, by the squared distance of the centre to the box.
pub fn sphere_aabb(s: &Sphere, b: &Aabb) -> bool {
    distance_squared_point_aabb(s.center, b) <= s.radius * s.radius
}

/// Ericson: sphere against triangle, by the closest point of the triangle (Ericson 5.1.5). Returns
/// that point when they intersect.
pub fn sphere_triangle(s: &Sphere, t: &Tri) -> Option<DVec3> {
    let p = closest_point_triangle(s.center, t);
    (p.distance_squared(s.center) <= s.radius * s.radius).then_some(p)
}

/// Ericson, "Testing AABB Against Triangle": the 13 separating axes, in the order 3-1-2 the
/// seed recommends (box normals, triangle normal, nine edge cross products).
pub fn aabb_triangle(b: &Aabb, t: &Tri) -> bool {
    let c = b.center();
    let e = b.half_extent();
    let v = [t[0] - c, t[1] - c, t[2] - c];
    // 3: the box's face normals, i.e. the AABB of the triangle against the box.
    for k in 0..3 {
        let lo = v[0][k].min(v[1][k]).min(v[2][k]);
        let hi = v[0][k].max(v[1][k]).max(v[2][k]);
        if lo > e[k] || hi < -e[k] {
            return false;
        }
    }
    // 1: the triangle's plane against the box (Ericson's box–plane test), projecting all
    // three vertices rather than only V0 so that a sliver's noisy normal stays consistent with
    // the triangle it came from.
    let f = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let n = f[0].cross(f[1]);
    // 2: the nine axes u_i × f_j.
    let units = [DVec3::X, DVec3::Y, DVec3::Z];
    let axes = std::iter::once(n).chain(
        units
            .iter()
            .flat_map(|u| f.iter().map(move |fj| u.cross(*fj))),
    );
    for a in axes {
        {
            if a == DVec3::ZERO {
                continue;
            }
            let p = [v[0].dot(a), v[1].dot(a), v[2].dot(a)];
            let r = e.x * a.x.abs() + e.y * a.y.abs() + e.z * a.z.abs();
            let lo = p[0].min(p[1]).min(p[2]);
            let hi = p[0].max(p[1]).max(p[2]);
            if lo > r || hi < -r {
                return false;
            }
        }
    }
    true
}
