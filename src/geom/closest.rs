//! Closest points and distances (Ericson "Closest-point Computations", Ericson 5.1.5).

use super::{Aabb, DVec3, Plane, Tri};

/// Ericson, closest point on plane to point: `R = Q − (n·(Q − P))/(n·n) n`.
pub fn closest_point_plane(q: DVec3, plane: &Plane) -> DVec3 {
    let nn = plane.n.length_squared();
    if nn == 0.0 {
        return q;
    }
    q - plane.signed_distance(q) / nn * plane.n
}

/// Ericson, closest point on segment `ab` to `c`, with its parameter `t ∈ [0, 1]`.
pub fn closest_point_segment(c: DVec3, a: DVec3, b: DVec3) -> (DVec3, f64) {
    let ab = b - a;
    let denom = ab.length_squared();
    if denom == 0.0 {
        return (a, 0.0);
    }
    let t = ((c - a).dot(ab) / denom).clamp(0.0, 1.0);
    (a + t * ab, t)
}

/// Ericson, squared distance point–segment without forming the closest point.
pub fn distance_squared_point_segment(c: DVec3, a: DVec3, b: DVec3) -> f64 {
    let (ab, ac, bc) = (b - a, c - a, c - b);
    let e = ac.dot(ab);
    if e <= 0.0 {
        return ac.length_squared();
    }
    let f = ab.length_squared();
    if e >= f {
        return bc.length_squared();
    }
    (ac.length_squared() - e * e / f).max(0.0)
}

/// Ericson, closest point on (or in) an AABB: clamp each coordinate.
pub fn closest_point_aabb(p: DVec3, b: &Aabb) -> DVec3 {
    p.clamp(b.min, b.max)
}

/// Ericson, squared distance point–AABB without forming the closest point.
pub fn distance_squared_point_aabb(p: DVec3, b: &Aabb) -> f64 {
    let mut sq = 0.0;
    for k in 0..3 {
        let v = p[k];
        if v < b.min[k] {
            sq += (b.min[k] - v) * (b.min[k] - v);
        }
        if v > b.max[k] {
            sq += (v - b.max[k]) * (v - b.max[k]);
        }
    }
    sq
}

/// Ericson 5.1.5: closest point on triangle `abc` to `p` by Voronoi regions, with the
/// face-region barycentrics in the Lagrange-identity form (`va`, `vb`, `vc` from dot products
/// only). Those identities cancel as the triangle thins: their point is off by about eps/sin²
/// of the triangle's size (sin of its widest angle; a review found a sliver's nearest point
/// 2e-5 off on a part of size 1). A thin triangle is taken by [`thin_triangle`] instead, whose
/// weights are off by eps/sin. Either way the point is on the triangle: the distance is never
/// below the exact one, and above it by at most 3e-10 of the triangle's size where sin² is at
/// the threshold (less, for either branch, away from it).
// Inlined, as `closest_points_segments` is, into the triangle–triangle distance's fifteen
// candidates: the calls' divisions then overlap (420 to 354 ns per pair, one core).
#[inline]
pub fn closest_point_triangle(p: DVec3, t: &Tri) -> DVec3 {
    let [a, b, c] = *t;
    let n = (b - a).cross(c - a);
    let area2 = n.length_squared();
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    if area2 >= 1e-6 * longest * longest {
        return voronoi(p, t);
    }
    thin_triangle(p, t, n, area2)
}

/// The closest point of a thin triangle (sin² of its widest angle under 1e-6, `n` its cross
/// product, `area2` its square): where the foot of `p` on its plane lies inside it, the point
/// of the triangle with the foot's barycentric weights (the three edges' signed areas around
/// it, each along `n`); else the closest point of its edges, as for a triangle with no area.
/// The weights come from the cross product, whose direction is off by eps/sin, not from the
/// Lagrange identities (eps/sin²); and the point is a convex combination of the corners, so it
/// lies on the triangle and the distance is never below the exact one (a review found the foot
/// itself 1e-5 off a sliver, and the distance 32 % low).
#[cold]
fn thin_triangle(p: DVec3, t: &Tri, n: DVec3, area2: f64) -> DVec3 {
    let edges = closest_on_edges(p, t);
    if !(area2 > 0.0 && area2.is_finite()) {
        return edges;
    }
    let [a, b, c] = *t;
    let foot = p - n * (n.dot(p - a) / area2);
    // Twice the areas of (b, c, foot), (c, a, foot), (a, b, foot) along n: the weights of a,
    // b and c.
    let w = [(b, c), (c, a), (a, b)].map(|(s, e)| (e - s).cross(foot - s).dot(n));
    let sum = w[0] + w[1] + w[2];
    if !(w.iter().all(|&x| x >= 0.0) && sum > 0.0 && sum.is_finite()) {
        return edges;
    }
    let on = a * (w[0] / sum) + b * (w[1] / sum) + c * (w[2] / sum);
    if on.distance_squared(p) < edges.distance_squared(p) {
        on
    } else {
        edges
    }
}

#[inline]
fn voronoi(p: DVec3, t: &Tri) -> DVec3 {
    let [a, b, c] = *t;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a; // vertex region A
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b; // vertex region B
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0 {
        return a + d1 / (d1 - d3) * ab; // edge region AB
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c; // vertex region C
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0 {
        return a + d2 / (d2 - d6) * ac; // edge region AC
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0 {
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b); // edge region BC
    }
    let denom = va + vb + vc;
    if denom > 0.0 && denom.is_finite() {
        let v = vb / denom;
        let w = vc / denom;
        if v >= 0.0 && w >= 0.0 && v + w <= 1.0 {
            return a + ab * v + ac * w; // face region
        }
    }
    // Only slivers get here: the Lagrange-identity products cancel catastrophically when the
    // triangle is (nearly) flat, and the regions above can all be missed by rounding. The
    // closest point is then on the boundary, which clamped projections find stably.
    closest_on_edges(p, t)
}

fn closest_on_edges(p: DVec3, t: &Tri) -> DVec3 {
    let [a, b, c] = *t;
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(s, e)| closest_point_segment(p, s, e).0)
        .min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p)))
        .unwrap_or(a)
}

/// Ericson, closest points of two (infinite) lines `p1 + s d1` and `p2 + t d2`. `None` when the
/// lines are parallel (`d = ae − b² = 0`).
pub fn closest_points_lines(p1: DVec3, d1: DVec3, p2: DVec3, d2: DVec3) -> Option<(f64, f64)> {
    let r = p1 - p2;
    let (a, b, c) = (d1.dot(d1), d1.dot(d2), d1.dot(r));
    let (e, f) = (d2.dot(d2), d2.dot(r));
    let d = a * e - b * b;
    if d == 0.0 {
        return None;
    }
    Some(((b * f - c * e) / d, (a * f - b * c) / d))
}

/// Result of [`closest_points_segments`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentClosest {
    pub s: f64,
    pub t: f64,
    pub p1: DVec3,
    pub p2: DVec3,
    pub distance_squared: f64,
}

/// Ericson 5.1.9, closest points of segments `p1q1` and `p2q2`, clamped to both, with
/// the parallel and zero-length cases handled.
///
/// Nathan (2015) clamps `s1` and `s2` independently after solving the unconstrained system; that can
/// miss the true minimum when one parameter is clamped (a vertex against the interior of the
/// other edge). Here `t` is recomputed after `s` is clamped and `s` after `t` is, which is exact
/// for the convex quadratic.
#[inline]
pub fn closest_points_segments(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> SegmentClosest {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (s, t);
    if a == 0.0 && e == 0.0 {
        s = 0.0;
        t = 0.0;
    } else if a == 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0 // parallel: any s works, pick an end and let t follow
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    let c1 = p1 + d1 * s;
    let c2 = p2 + d2 * t;
    SegmentClosest {
        s,
        t,
        p1: c1,
        p2: c2,
        distance_squared: c1.distance_squared(c2),
    }
}
