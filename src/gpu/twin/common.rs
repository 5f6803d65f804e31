//! Twin of `shaders/common.wgsl`: the frames, boxes, spans, distances and bounds the stages
//! share.

use super::{v3, INF, U};
use crate::gpu::layout::Query;
use crate::mesh::TriRecord;
use crate::octree::{OctreeNode, NO_CHILD};
use glam::Vec3;

/// `common.wgsl::to_local`: a record-frame point into the query's local frame by `[R | t]`.
pub fn to_local(m: &[[f32; 4]; 3], p: Vec3) -> Vec3 {
    Vec3::new(
        v3(m[0]).dot(p) + m[0][3],
        v3(m[1]).dot(p) + m[1][3],
        v3(m[2]).dot(p) + m[2][3],
    )
}

/// `common.wgsl::from_local`: a local point back into the record frame of `[R | t]`.
pub fn from_local(m: &[[f32; 4]; 3], p: Vec3) -> Vec3 {
    let x = p - Vec3::new(m[0][3], m[1][3], m[2][3]);
    Vec3::new(
        m[0][0] * x.x + m[1][0] * x.y + m[2][0] * x.z,
        m[0][1] * x.x + m[1][1] * x.y + m[2][1] * x.z,
        m[0][2] * x.x + m[1][2] * x.y + m[2][2] * x.z,
    )
}

/// A point of A's record frame in B's: `from_local(q.b, to_local(q.a, p))`.
pub fn a_into_b(q: &Query, p: Vec3) -> Vec3 {
    from_local(&q.b, to_local(&q.a, p))
}

/// `common.wgsl::box_gap`: how far `c` lies outside the node's box, per axis.
pub fn box_gap(node: &OctreeNode, c: Vec3) -> Vec3 {
    (Vec3::from(node.min) - c).max(Vec3::ZERO) + (c - Vec3::from(node.max)).max(Vec3::ZERO)
}

/// `common.wgsl::leaf_range`: a leaf's triangle positions within the chunk (empty, `x >= y`,
/// for an inner node or a leaf outside it).
pub fn leaf_range(node: &OctreeNode, chunk_start: u32, chunk_end: u32) -> (u32, u32) {
    if node.first_child != NO_CHILD {
        return (0, 0);
    }
    (
        node.tri_start.max(chunk_start),
        (node.tri_start + node.tri_count).min(chunk_end),
    )
}

/// `common.wgsl::Box`: a node of A carried into B's record frame (centre, half-extent).
#[derive(Clone, Copy, Debug)]
pub struct CarriedBox {
    pub c: Vec3,
    pub h: Vec3,
}

/// `common.wgsl::box_into_b`: A's node box into B's record frame, as the box around the rotated
/// box (`|M| h` with `M = R_B^T R_A`).
pub fn box_into_b(q: &Query, node: &OctreeNode) -> CarriedBox {
    let (a, b) = (&q.a, &q.b);
    let m: [Vec3; 3] = std::array::from_fn(|r| {
        Vec3::new(
            b[0][r] * a[0][0] + b[1][r] * a[1][0] + b[2][r] * a[2][0],
            b[0][r] * a[0][1] + b[1][r] * a[1][1] + b[2][r] * a[2][1],
            b[0][r] * a[0][2] + b[1][r] * a[1][2] + b[2][r] * a[2][2],
        )
    });
    let (lo, hi) = (Vec3::from(node.min), Vec3::from(node.max));
    let ha = 0.5 * (hi - lo);
    CarriedBox {
        c: a_into_b(q, 0.5 * (hi + lo)),
        h: Vec3::new(m[0].abs().dot(ha), m[1].abs().dot(ha), m[2].abs().dot(ha)),
    }
}

/// `common.wgsl::box_box_gap`: how far B's node box and a carried box of A lie apart, per axis.
pub fn box_box_gap(node: &OctreeNode, bx: &CarriedBox) -> Vec3 {
    let (lo, hi) = (Vec3::from(node.min), Vec3::from(node.max));
    ((0.5 * (hi + lo) - bx.c).abs() - 0.5 * (hi - lo) - bx.h).max(Vec3::ZERO)
}

/// `common.wgsl::EMPTY_SPAN`, `span_with` and `span_gap`.
pub const EMPTY_SPAN: Vec3 = Vec3::new(INF, -INF, 0.0);

pub fn span_with(s: Vec3, v: Vec3, axis: Vec3) -> Vec3 {
    let x = v.dot(axis);
    Vec3::new(s.x.min(x), s.y.max(x), s.z.max(v.length()))
}

pub fn span_gap(a: Vec3, b: Vec3) -> f32 {
    (b.x - a.y).max(a.x - b.y) - 16.0 * U * a.z.max(b.z)
}

/// `common.wgsl::seg_seg`: squared distance.
pub fn seg_seg(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> f32 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let (mut s, mut t) = (0.0f32, 0.0f32);
    if a == 0.0 && e == 0.0 {
    } else if a == 0.0 {
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            // Lagrange's identity, as the shader (common.wgsl says why).
            let n = d1.cross(d2);
            let k = pow2_scale(n);
            let w = n * k;
            let den = w.dot(w);
            let s0 = if den > 0.0 {
                (w.dot(d2.cross(r)) / den * k).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
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
    let x = (p1 + d1 * s) - (p2 + d2 * t);
    x.dot(x)
}

fn vertex_face(p: Vec3, t: &[Vec3; 3], n: Vec3) -> f32 {
    let h = (p - t[0]).dot(n);
    let x = p - n * h;
    let c0 = (t[1] - t[0]).cross(x - t[0]).dot(n);
    let c1 = (t[2] - t[1]).cross(x - t[1]).dot(n);
    let c2 = (t[0] - t[2]).cross(x - t[2]).dot(n);
    if c0 >= 0.0 && c1 >= 0.0 && c2 >= 0.0 {
        h * h
    } else {
        INF
    }
}

fn longest(t: &[Vec3; 3]) -> f32 {
    (t[1] - t[0])
        .length()
        .max((t[2] - t[1]).length())
        .max((t[0] - t[2]).length())
}

/// `common.wgsl::vertices_face`: the smallest squared distance from `x`'s vertices to `t`'s
/// face and no slack, or for a sliver `t` INF and its height as the slack.
fn vertices_face(x: &[Vec3; 3], t: &[Vec3; 3]) -> (f32, f32) {
    let l = longest(t);
    let cr = (t[1] - t[0]).cross(t[2] - t[0]);
    let s = pow2_scale(cr);
    let w = cr * s;
    let h = if l != 0.0 { w.length() / s / l } else { 0.0 };
    let well_shaped = h >= 1e-2 * l; // false for NaN too, as in WGSL
    if !well_shaped {
        return (INF, h);
    }
    let n = w.normalize();
    let best = vertex_face(x[0], t, n)
        .min(vertex_face(x[1], t, n))
        .min(vertex_face(x[2], t, n));
    (best, 0.0)
}

/// `common.wgsl::axis_bound`.
pub fn axis_bound(p: &[Vec3; 3], t: &[Vec3; 3]) -> f32 {
    let ax = (t[0] + t[1] + t[2]) - (p[0] + p[1] + p[2]);
    let len = ax.length();
    if len.is_nan() || len <= 0.0 {
        return 0.0;
    }
    let dp = [p[1] - p[0], p[2] - p[0]];
    let dt = t.map(|v| v - p[0]);
    let span = dp[0]
        .dot(dp[0])
        .max(dp[1].dot(dp[1]))
        .max(dt[0].dot(dt[0]).max(dt[1].dot(dt[1])))
        .max(dt[2].dot(dt[2]))
        .sqrt();
    gap_on(&dp, &dt, ax / len) - 16.0 * U * span
}

/// `common.wgsl::plane_bound(p, plane_of(p), t)`.
pub fn plane_bound(p: &[Vec3; 3], t: [Vec3; 3]) -> f32 {
    let n = unit_or_zero((p[1] - p[0]).cross(p[2] - p[0]));
    // No plane (zero area, or NaN): the shader's INF thickness.
    if n.dot(n).is_nan() || n.dot(n) <= 0.0 {
        return f32::NEG_INFINITY;
    }
    let w = (p[1] - p[0]).dot(n).abs().max((p[2] - p[0]).dot(n).abs());
    let d = t.map(|v| v - p[0]);
    let h = d.map(|x| x.dot(n));
    let g = if h.iter().all(|&x| x > 0.0) {
        h[0].min(h[1]).min(h[2])
    } else if h.iter().all(|&x| x < 0.0) {
        -h[0].max(h[1]).max(h[2])
    } else {
        0.0
    };
    let span = d[0]
        .dot(d[0])
        .max(d[1].dot(d[1]))
        .max(d[2].dot(d[2]))
        .sqrt()
        .max(longest(p));
    g - w - 16.0 * 5.960_464_5e-8 * span
}

/// `common.wgsl::frame_bound` in A's frame, as `cull_pairs.wgsl::near_of` makes it: `p`'s
/// unit normal (`plane_of`: 0 without area) and its edges' normals within its plane.
pub fn frame_bound(p: &[Vec3; 3], t: &[Vec3; 3]) -> f32 {
    let n = unit_or_zero((p[1] - p[0]).cross(p[2] - p[0]));
    let dp = [p[1] - p[0], p[2] - p[0]];
    let en = [
        unit_or_zero((p[1] - p[0]).cross(n)),
        unit_or_zero((p[2] - p[1]).cross(n)),
        unit_or_zero((p[0] - p[2]).cross(n)),
    ];
    let span_p = dp[0].dot(dp[0]).max(dp[1].dot(dp[1])).sqrt();
    let dt = t.map(|v| v - p[0]);
    let span = span_p.max(
        dt[0]
            .dot(dt[0])
            .max(dt[1].dot(dt[1]))
            .max(dt[2].dot(dt[2]))
            .sqrt(),
    );
    let m = 16.0 * U * span;
    let gn = (gap_on(&dp, &dt, n) - m).max(0.0);
    let gu = (gap_on(&dp, &dt, en[0])
        .max(gap_on(&dp, &dt, en[1]))
        .max(gap_on(&dp, &dt, en[2]))
        - m)
        .max(0.0);
    (gn * gn + gu * gu).sqrt() * (1.0 - 1e-5)
}

/// `common.wgsl::gap_on`.
fn gap_on(dp: &[Vec3; 2], dt: &[Vec3; 3], u: Vec3) -> f32 {
    let xp = [0.0, dp[0].dot(u), dp[1].dot(u)];
    let xt = dt.map(|x| x.dot(u));
    let (lo_p, hi_p) = (xp[0].min(xp[1]).min(xp[2]), xp[0].max(xp[1]).max(xp[2]));
    let (lo_t, hi_t) = (xt[0].min(xt[1]).min(xt[2]), xt[0].max(xt[1]).max(xt[2]));
    (lo_t - hi_p).max(lo_p - hi_t)
}

/// `common.wgsl::unit_or_zero`.
pub fn unit_or_zero(v: Vec3) -> Vec3 {
    let w = v * pow2_scale(v);
    let l = w.length();
    if l > 0.0 {
        w / l
    } else {
        Vec3::ZERO
    }
}

/// `common.wgsl::pow2_scale`: the power of two that takes `v`'s largest component into
/// [1/2, 1) (within f32's normal exponents).
pub fn pow2_scale(v: Vec3) -> f32 {
    let a = v.abs();
    let m = a.x.max(a.y).max(a.z);
    let e = ((m.to_bits() >> 23) & 0xff) as i32;
    f32::from_bits(((253 - e).max(1) as u32) << 23)
}

/// `common.wgsl::tri_dist`.
pub fn tri_dist(p: &[Vec3; 3], r: &[Vec3; 3]) -> f32 {
    let (d, slack) = pair_dist(p, r);
    (d - slack).max(0.0)
}

/// `common.wgsl::pair_dist`: the least measured distance, and the slivers' slack.
pub fn pair_dist(p: &[Vec3; 3], r: &[Vec3; 3]) -> (f32, f32) {
    let mut best = INF;
    for i in 0..3 {
        for j in 0..3 {
            best = best.min(seg_seg(p[i], p[(i + 1) % 3], r[j], r[(j + 1) % 3]));
        }
    }
    let (fr, sr) = vertices_face(p, r);
    let (fp, sp) = vertices_face(r, p);
    (best.min(fr).min(fp).sqrt(), sr + sp)
}

/// The triangle `i` of a mesh in the query's local frame.
pub fn local_tri(rows: &[[f32; 4]; 3], t: &TriRecord) -> [Vec3; 3] {
    [0, 1, 2].map(|k| to_local(rows, v3(t.v[k])))
}

/// Drivers that flush subnormal `f32` results to zero (and read subnormal inputs as zero), as
/// GPUs commonly do, emulated on the CPU by MXCSR's FTZ and DAZ bits: the pair kernels' terms
/// on small triangles come out the same as without flushing, bit for bit, because no value
/// they take is subnormal.
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) mod flushing_subnormals {
    use super::*;
    use crate::testing::{flushing, lcg};
    use std::hint::black_box;

    /// `x` moved by `k` units in its last place.
    pub(crate) fn ulps(x: f32, k: i32) -> f32 {
        let step = |y: f32| if k > 0 { y.next_up() } else { y.next_down() };
        (0..k.unsigned_abs()).fold(x, |y, _| step(y))
    }

    /// The terms of a pair as bits: p's plane and frame bounds against r, the pair's distance
    /// (its edge-edge and vertex-face terms) and p's unit normal.
    fn terms(p: &[Vec3; 3], r: &[Vec3; 3]) -> [u32; 6] {
        let n = unit_or_zero((p[1] - p[0]).cross(p[2] - p[0]));
        [
            plane_bound(p, *r),
            frame_bound(p, r),
            tri_dist(p, r),
            n.x,
            n.y,
            n.z,
        ]
        .map(f32::to_bits)
    }

    /// A point in the cube [-1, 1]^3.
    fn point(rnd: &mut impl FnMut() -> f64) -> Vec3 {
        Vec3::new(rnd() as f32, rnd() as f32, rnd() as f32) * 2.0 - 1.0
    }

    /// A triangle at `at` whose other corners are up to 4 units in the last place away.
    pub(crate) fn small(at: Vec3, rnd: &mut impl FnMut() -> f64) -> [Vec3; 3] {
        let mut corner = || {
            let mut k = || (rnd() * 9.0) as i32 - 4;
            Vec3::new(ulps(at.x, k()), ulps(at.y, k()), ulps(at.z, k()))
        };
        [at, corner(), corner()]
    }

    /// Triangles a few units in the last place across (twice their area near f32's smallest
    /// normal number, 1.2e-38, or below it), in parts 1e-4 to 1e-1 across (smaller ones are
    /// the CPU's: `gpu::mesh::SMALLEST_SCALE`), against another such triangle or an ordinary
    /// one, 1e-3 of the part away or more. Before the kernels scaled their cross products by
    /// a power of two, a flushed square made a normal up to a few per cent long.
    #[test]
    fn small_triangles_give_the_same_terms_whether_or_not_subnormals_flush() {
        let mut rnd = lcg(19);
        let mut straddling = 0;
        for i in 0..4000 {
            let size = 10f32.powi(-1 - (i % 4));
            let base = point(&mut rnd) * size;
            let p = small(base, &mut rnd);
            let toward = point(&mut rnd).normalize_or(Vec3::X);
            let away = base + toward * size * (1e-3 + rnd() as f32);
            let r = if i % 2 == 0 {
                small(away, &mut rnd)
            } else {
                let (a, b) = (point(&mut rnd), point(&mut rnd));
                [away, away + a * size, away + b * size]
            };
            let cr = (p[1] - p[0]).cross(p[2] - p[0]);
            let squares = [cr.x * cr.x, cr.y * cr.y, cr.z * cr.z];
            if squares.iter().any(|&s| s != 0.0 && !s.is_normal()) {
                straddling += 1;
            }
            let want = black_box(terms(black_box(&p), black_box(&r)));
            let got = flushing(|| terms(black_box(&p), black_box(&r))).expect("FTZ and DAZ take");
            assert_eq!(got, want, "{p:?} {r:?}");
        }
        // Not vacuous: many of the small triangles have a subnormal square in their normal.
        assert!(straddling > 500, "{straddling}");
    }
}
