//! Lines, rays and segments against planes, spheres, boxes and triangles (Ericson, *Real-Time Collision Detection*:
//! "Intersecting Lines, Rays, and (Directed) Segments", "Intersection of Two Planes") and the
//! per-triangle world→(a, b, c) matrix of the GPWiki article "Ray Triangle Collision", with Möller–Trumbore beside it.

use super::{Aabb, DVec3, Plane, Sphere, Tri};

/// Ericson, segment `ab` against plane `n·X = d`: the parameter `t ∈ [0, 1]` and the point.
pub fn segment_plane(a: DVec3, b: DVec3, p: &Plane) -> Option<(f64, DVec3)> {
    let ab = b - a;
    let denom = p.n.dot(ab);
    if denom == 0.0 {
        return None; // parallel (or in the plane: no single point)
    }
    let t = (p.d - p.n.dot(a)) / denom;
    (0.0..=1.0).contains(&t).then(|| (t, a + t * ab))
}

/// The five cases of Ericson's ray–sphere figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RaySphere {
    /// (a) enters and leaves in front of the origin: first hit at `t`.
    Hit { t: f64, point: DVec3 },
    /// (c) grazes the sphere in one point.
    Tangent { t: f64, point: DVec3 },
    /// (d) starts inside: leaves at `t_exit`; the first contact is the origin itself (`t = 0`).
    Inside { t_exit: f64 },
    /// (b) the line meets the sphere only behind the origin.
    Behind,
    /// (e) the line misses the sphere.
    Miss,
}

/// Ericson: ray `p + t d` (`d` unit, `t ≥ 0`) against a sphere, `t = −b ± √(b² − c)`.
pub fn ray_sphere(p: DVec3, d: DVec3, s: &Sphere) -> RaySphere {
    let m = p - s.center;
    let b = m.dot(d);
    let c = m.dot(m) - s.radius * s.radius;
    if c > 0.0 && b > 0.0 {
        return RaySphere::Behind; // outside and pointing away
    }
    let disc = b * b - c;
    if disc < 0.0 {
        return RaySphere::Miss;
    }
    if c <= 0.0 {
        return RaySphere::Inside {
            t_exit: -b + disc.sqrt(),
        };
    }
    let t = -b - disc.sqrt();
    let point = p + t * d;
    if disc == 0.0 {
        RaySphere::Tangent { t, point }
    } else {
        RaySphere::Hit { t, point }
    }
}

/// Ericson: segment `ab` against a sphere; the first contact parameter in `[0, 1]`.
pub fn segment_sphere(a: DVec3, b: DVec3, s: &Sphere) -> Option<f64> {
    let len = a.distance(b);
    if len == 0.0 {
        return (a.distance_squared(s.center) <= s.radius * s.radius).then_some(0.0);
    }
    let d = (b - a) / len;
    match ray_sphere(a, d, s) {
        RaySphere::Hit { t, .. } | RaySphere::Tangent { t, .. } => (t <= len).then(|| t / len),
        RaySphere::Inside { .. } => Some(0.0),
        RaySphere::Behind | RaySphere::Miss => None,
    }
}

/// Ericson, ray `p + t d` (`t ≥ 0`, any `d`) against an AABB by slabs: entry and exit `t`.
pub fn ray_aabb(p: DVec3, d: DVec3, b: &Aabb) -> Option<(f64, f64)> {
    slabs(p, d, DVec3::ONE / d, b)
}

/// [`ray_aabb`] with the direction's reciprocals `inv` given (a zero component's is unused).
fn slabs(p: DVec3, d: DVec3, inv: DVec3, b: &Aabb) -> Option<(f64, f64)> {
    let mut tmin = 0.0_f64;
    let mut tmax = f64::INFINITY;
    for k in 0..3 {
        if d[k] == 0.0 {
            if p[k] < b.min[k] || p[k] > b.max[k] {
                return None; // parallel to the slab and outside it
            }
        } else {
            let inv = inv[k];
            let (mut t1, mut t2) = ((b.min[k] - p[k]) * inv, (b.max[k] - p[k]) * inv);
            if t1 > t2 {
                std::mem::swap(&mut t1, &mut t2);
            }
            tmin = tmin.max(t1);
            tmax = tmax.min(t2);
            if tmin > tmax {
                return None;
            }
        }
    }
    Some((tmin, tmax))
}

/// Ericson: segment `ab` against an AABB (slabs with `t ∈ [0, 1]`).
pub fn segment_aabb(a: DVec3, b: DVec3, bx: &Aabb) -> Option<(f64, f64)> {
    ray_aabb(a, b - a, bx)
        .filter(|&(t0, _)| t0 <= 1.0)
        .map(|(t0, t1)| (t0, t1.min(1.0)))
}

/// [`segment_aabb`] for one segment against many boxes (a ray walking an octree): the
/// direction's reciprocals are computed once instead of per box. The same slabs on the same
/// values, so the same answer for every box.
#[derive(Clone, Copy, Debug)]
pub struct SegmentSlabs {
    a: DVec3,
    d: DVec3,
    inv: DVec3,
}

impl SegmentSlabs {
    pub fn new(a: DVec3, b: DVec3) -> SegmentSlabs {
        let d = b - a;
        SegmentSlabs {
            a,
            d,
            inv: DVec3::ONE / d,
        }
    }

    /// Whether [`segment_aabb`] would meet `bx`.
    pub fn meets(&self, bx: &Aabb) -> bool {
        self.entry(bx).is_some()
    }

    /// Where the segment enters `bx` (in `[0, 1]`), if it meets it.
    pub fn entry(&self, bx: &Aabb) -> Option<f64> {
        slabs(self.a, self.d, self.inv, bx)
            .map(|(t0, _)| t0)
            .filter(|&t0| t0 <= 1.0)
    }
}

fn triple(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    a.dot(b.cross(c))
}

/// Ericson, line through `p, q` against triangle `abc` (counter-clockwise) by scalar triple
/// products `u = [PQ PC PB]`, `v = [PQ PA PC]`, `w = [PQ PB PA]`. Returns the barycentric
/// coordinates `(u, v, w)` of the hit, which sum to one. Either winding is accepted.
pub fn line_triangle(p: DVec3, q: DVec3, t: &Tri) -> Option<DVec3> {
    let DVec3 { x: u, y: v, z: w } = line_triangle_weights(p, q, t);
    let same = (u >= 0.0 && v >= 0.0 && w >= 0.0) || (u <= 0.0 && v <= 0.0 && w <= 0.0);
    let sum = u + v + w;
    (same && sum != 0.0).then(|| DVec3::new(u, v, w) / sum)
}

/// [`line_triangle`]'s triple products `(u, v, w)` as they are, unscaled and unchecked.
pub fn line_triangle_weights(p: DVec3, q: DVec3, t: &Tri) -> DVec3 {
    let [a, b, c] = *t;
    let (pq, pa, pb, pc) = (q - p, a - p, b - p, c - p);
    DVec3::new(triple(pq, pc, pb), triple(pq, pa, pc), triple(pq, pb, pa))
}

/// Ericson, directed segment `pq` against triangle `abc`: solves
/// `[(P − Q) (B − A) (C − A)] (t, v, w)ᵀ = P − A` with `n = (B − A) × (C − A)`,
/// `d = (P − Q)·n`, `e = (P − Q) × (P − A)`. Returns `(t, v, w)`; hits from either side.
pub fn segment_triangle(p: DVec3, q: DVec3, tri: &Tri) -> Option<(f64, f64, f64)> {
    let [a, b, c] = *tri;
    let (ab, ac, qp) = (b - a, c - a, p - q);
    let n = ab.cross(ac);
    let d = qp.dot(n);
    if d == 0.0 {
        return None;
    }
    let ap = p - a;
    let t = ap.dot(n) / d;
    if !(0.0..=1.0).contains(&t) {
        return None;
    }
    let e = qp.cross(ap);
    let v = ac.dot(e) / d;
    let w = -ab.dot(e) / d;
    (v >= 0.0 && w >= 0.0 && v + w <= 1.0).then_some((t, v, w))
}

/// Ericson, intersection line of planes `n1·X = d1`, `n2·X = d2`: point and direction
/// `n1 × n2`. `None` when the planes are parallel or coincident.
pub fn plane_plane(p1: &Plane, p2: &Plane) -> Option<(DVec3, DVec3)> {
    let d = p1.n.cross(p2.n);
    let dd = d.dot(d);
    if dd == 0.0 {
        return None;
    }
    let point = (p1.d * p2.n - p2.d * p1.n).cross(d) / dd;
    Some((point, d))
}

/// GPWiki (Ray Triangle Collision): the world→(a, b, c) matrix of a triangle, rows of `R` (3×4, the last row of the
/// 4×4 being `0 0 0 1`). `a = B − A`, `b = C − A`, `c = a × b`; `R = M⁻¹` with
/// `det M = |c|²`. Precomputable per triangle and reusable under rigid motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleMatrix {
    pub r: [[f64; 4]; 3],
}

impl TriangleMatrix {
    /// `None` for a zero-area triangle (`det M = 0`).
    pub fn new(t: &Tri) -> Option<TriangleMatrix> {
        let [pa, pb, pc] = *t;
        let (a, b) = (pb - pa, pc - pa);
        let c = a.cross(b);
        let det = c.length_squared();
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let inv = 1.0 / det;
        let row0 = b.cross(c) * inv; // (b_y c_z − b_z c_y, …)
        let row1 = c.cross(a) * inv;
        let row2 = c * inv;
        let o = |row: DVec3| -(row.dot(pa));
        Some(TriangleMatrix {
            r: [
                [row0.x, row0.y, row0.z, o(row0)],
                [row1.x, row1.y, row1.z, o(row1)],
                [row2.x, row2.y, row2.z, o(row2)],
            ],
        })
    }

    /// `(a, b, c)` coordinates of a world point.
    pub fn apply(&self, p: DVec3) -> DVec3 {
        let row = |i: usize| {
            let r = self.r[i];
            r[0] * p.x + r[1] * p.y + r[2] * p.z + r[3]
        };
        DVec3::new(row(0), row(1), row(2))
    }

    /// GPWiki (Ray Triangle Collision) `collide`: the segment `j → k` against the triangle. Returns the hit's
    /// coordinates `(i'x, i'y)` along `AB` and `AC` and the segment parameter. The seed rejects
    /// `j'z · k'z ≥ 0`; this keeps the touching cases (one end on the plane) and rejects only a
    /// segment lying in the plane, so it agrees with the closed triangle.
    pub fn collide(&self, j: DVec3, k: DVec3) -> Option<(f64, f64, f64)> {
        let (jj, kk) = (self.apply(j), self.apply(k));
        if jj.z * kk.z > 0.0 || (jj.z == 0.0 && kk.z == 0.0) {
            return None;
        }
        let s = jj.z / (jj.z - kk.z);
        let ix = jj.x + s * (kk.x - jj.x);
        if !(0.0..=1.0).contains(&ix) {
            return None;
        }
        let iy = jj.y + s * (kk.y - jj.y);
        if !(0.0..=1.0).contains(&iy) || ix + iy > 1.0 {
            return None;
        }
        Some((ix, iy, s))
    }
}

/// Möller–Trumbore ray `o + t d` against triangle: `(t, u, v)` with the hit at
/// `A + u (B − A) + v (C − A)`; `t ≥ 0`; both sides; `None` when the ray is parallel to the plane.
pub fn ray_triangle_mt(o: DVec3, d: DVec3, tri: &Tri) -> Option<(f64, f64, f64)> {
    let [a, b, c] = *tri;
    let (e1, e2) = (b - a, c - a);
    let pv = d.cross(e2);
    let det = e1.dot(pv);
    if det == 0.0 {
        return None;
    }
    let inv = 1.0 / det;
    let tv = o - a;
    let u = tv.dot(pv) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let qv = tv.cross(e1);
    let v = d.dot(qv) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(qv) * inv;
    (t >= 0.0).then_some((t, u, v))
}
