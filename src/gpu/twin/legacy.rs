//! CPU twins of the WGSL stages: the same functions in `f32`, line by line, so the stage tests
//! can hold each GPU stage equal to its twin. (GPU compilers may fuse a multiply and an add, so
//! a value can differ in its last bit; the tests allow exactly that and nothing more: a pair may
//! be certain on one side and unsure on the other, never certain both ways.)

use crate::gpu::layout::{Hit, Query, MODE_SELF};
use crate::mesh::TriRecord;
use crate::octree::{OctreeNode, NO_CHILD};
use glam::Vec3;

const U: f32 = 5.960_464_5e-8;
const INF: f32 = f32::MAX;

fn v3(v: [f32; 4]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

pub fn to_local(m: &[[f32; 4]; 3], p: Vec3) -> Vec3 {
    Vec3::new(
        v3(m[0]).dot(p) + m[0][3],
        v3(m[1]).dot(p) + m[1][3],
        v3(m[2]).dot(p) + m[2][3],
    )
}

fn to_b_frame(q: &Query, p: Vec3) -> Vec3 {
    let x = p - Vec3::new(q.b[0][3], q.b[1][3], q.b[2][3]);
    Vec3::new(
        q.b[0][0] * x.x + q.b[1][0] * x.y + q.b[2][0] * x.z,
        q.b[0][1] * x.x + q.b[1][1] * x.y + q.b[2][1] * x.z,
        q.b[0][2] * x.x + q.b[1][2] * x.y + q.b[2][2] * x.z,
    )
}

/// `cull_leaves.wgsl` then `cull_pairs.wgsl` for A's triangles at positions
/// `q.chunk_start .. q.chunk_end` of A's octree order (the GPU's order of the pairs is not
/// defined: compare as sets). The shaders take a position as the record's index: uploaded
/// parts store their records in octree order, so their `tri_index` (`index_a`, `index_b`
/// here) is the identity.
#[allow(clippy::too_many_arguments)]
pub fn cull(
    q: &Query,
    tris_a: &[TriRecord],
    tris_b: &[TriRecord],
    nodes_a: &[OctreeNode],
    index_a: &[u32],
    nodes_b: &[OctreeNode],
    index_b: &[u32],
) -> Vec<[u32; 2]> {
    let col_b = |r: usize| Vec3::new(q.b[0][r], q.b[1][r], q.b[2][r]);
    // M = R_B^T R_A, row r: B's column r against each column of R_A.
    let m: [Vec3; 3] = std::array::from_fn(|r| {
        let b = col_b(r);
        Vec3::new(
            b.x * q.a[0][0] + b.y * q.a[1][0] + b.z * q.a[2][0],
            b.x * q.a[0][1] + b.y * q.a[1][1] + b.z * q.a[2][1],
            b.x * q.a[0][2] + b.y * q.a[1][2] + b.z * q.a[2][2],
        )
    });
    let reach = q.tol[0] + q.tol[1];
    let mut out = Vec::new();
    for leaf in nodes_a {
        let lo = leaf.tri_start.max(q.chunk_start);
        let hi = (leaf.tri_start + leaf.tri_count).min(q.chunk_end);
        if leaf.first_child != NO_CHILD || lo >= hi {
            continue;
        }
        let (lmin, lmax) = (Vec3::from(leaf.min), Vec3::from(leaf.max));
        let ha = 0.5 * (lmax - lmin);
        let c = to_b_frame(q, to_local(&q.a, 0.5 * (lmax + lmin)));
        let h = Vec3::new(m[0].abs().dot(ha), m[1].abs().dot(ha), m[2].abs().dot(ha));
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = &nodes_b[n as usize];
            if q.mode == MODE_SELF && node.tri_start + node.tri_count <= lo {
                continue;
            }
            let (nmin, nmax) = (Vec3::from(node.min), Vec3::from(node.max));
            let g = ((0.5 * (nmax + nmin) - c).abs() - 0.5 * (nmax - nmin) - h).max(Vec3::ZERO);
            if g.dot(g) > reach * reach {
                continue;
            }
            if node.first_child != NO_CHILD {
                stack.extend((0..node.child_count).map(|k| node.first_child + k));
                continue;
            }
            let (ia, ib) = (&index_a[lo as usize..hi as usize], &index_b[node.tris()]);
            if leaf_far(q, tris_a, ia, tris_b, ib) {
                continue;
            }
            for &i in ia {
                let s = tris_a[i as usize].sphere;
                let ci = to_b_frame(q, to_local(&q.a, v3(s)));
                let r_i = s[3] + reach;
                let p = tris_a[i as usize]
                    .v
                    .map(|v| to_b_frame(q, to_local(&q.a, v3(v))));
                for &j in &index_b[node.tris()] {
                    if q.mode == MODE_SELF && j <= i {
                        continue;
                    }
                    let sj = tris_b[j as usize].sphere;
                    let d = v3(sj) - ci;
                    let r = r_i + sj[3];
                    if d.dot(d) > r * r {
                        continue;
                    }
                    let t = tris_b[j as usize].v.map(v3);
                    if !(plane_bound(&p, t).max(axis_bound(&p, &t)) > reach
                        || frame_bound(&p, &t) > reach)
                    {
                        out.push([i, j]);
                    }
                }
            }
        }
    }
    out
}

/// `cull_pairs.wgsl::leaf_far`: the A triangles `ia` and B triangles `ib` certainly farther
/// apart than `d`, by [`leaf_bound`].
fn leaf_far(q: &Query, tris_a: &[TriRecord], ia: &[u32], tris_b: &[TriRecord], ib: &[u32]) -> bool {
    !ib.is_empty() && leaf_bound(q, tris_a, ia, tris_b, ib) > q.tol[0] + q.tol[1]
}

/// `cull_pairs.wgsl::leaf_bound`: a lower bound on the distance between the A triangles `ia`
/// and the B triangles `ib` (B's record frame), from the normal of B's first triangle and the
/// direction between the first triangles' sphere centres across it. `ib` is not empty.
pub fn leaf_bound(
    q: &Query,
    tris_a: &[TriRecord],
    ia: &[u32],
    tris_b: &[TriRecord],
    ib: &[u32],
) -> f32 {
    let first = &tris_b[ib[0] as usize];
    let (n, origin) = (v3(first.normal), v3(first.v[0]));
    let dc = to_b_frame(q, to_local(&q.a, v3(tris_a[ia[0] as usize].sphere))) - v3(first.sphere);
    let u1 = unit_or_zero(dc - dc.dot(n) * n);
    let u2 = unit_or_zero(u1 - u1.dot(n) * n);
    let u = if u2.dot(n).abs() <= 1e-6 {
        u2
    } else {
        Vec3::ZERO
    };
    let (mut sa, mut sb, mut ta, mut tb) = (EMPTY_SPAN, EMPTY_SPAN, EMPTY_SPAN, EMPTY_SPAN);
    for &i in ia {
        for v in tris_a[i as usize].v {
            let v = to_b_frame(q, to_local(&q.a, v3(v))) - origin;
            sa = span_with(sa, v, n);
            ta = span_with(ta, v, u);
        }
    }
    for &j in ib {
        for v in tris_b[j as usize].v {
            let v = v3(v) - origin;
            sb = span_with(sb, v, n);
            tb = span_with(tb, v, u);
        }
    }
    if n.dot(n) > 0.0 {
        let (gn, gu) = (span_gap(sa, sb).max(0.0), span_gap(ta, tb).max(0.0));
        (gn * gn + gu * gu).sqrt() * (1.0 - 1e-5)
    } else {
        0.0 // B's first triangle has no area: no frame
    }
}

/// `common.wgsl::EMPTY_SPAN`, `span_with` and `span_gap`.
const EMPTY_SPAN: Vec3 = Vec3::new(INF, -INF, 0.0);

fn span_with(s: Vec3, v: Vec3, axis: Vec3) -> Vec3 {
    let x = v.dot(axis);
    Vec3::new(s.x.min(x), s.y.max(x), s.z.max(v.length()))
}

fn span_gap(a: Vec3, b: Vec3) -> f32 {
    (b.x - a.y).max(a.x - b.y) - 16.0 * U * a.z.max(b.z)
}

/// `narrow.wgsl::orient`.
pub fn orient(a: Vec3, b: Vec3, c: Vec3, d: Vec3, e_in: f32) -> i32 {
    let (ad, bd, cd) = (a - d, b - d, c - d);
    let det = ad.dot(bd.cross(cd));
    let e2 = 2.0 * e_in;
    let (la, lb, lc) = (ad.length() + e2, bd.length() + e2, cd.length() + e2);
    let bound = 2.0 * (e2 * (lb * lc + la * lc + la * lb) + 32.0 * U * la * lb * lc) + 1e-30;
    if det > bound {
        1
    } else if det < -bound {
        -1
    } else {
        0
    }
}

/// `narrow.wgsl::tri_tri`: 0 disjoint, 1 intersecting, 2 unsure. As loops here: the shader
/// writes them out (lavapipe's cost of dynamically indexed arrays), in the same order.
pub fn tri_tri(p: &[Vec3; 3], r: &[Vec3; 3], e: f32) -> u32 {
    let op: [i32; 3] = std::array::from_fn(|i| orient(r[0], r[1], r[2], p[i], e));
    if op[0] != 0 && op[0] == op[1] && op[1] == op[2] {
        return 0;
    }
    let mut or = [0i32; 3];
    for i in 0..3 {
        or[i] = orient(p[0], p[1], p[2], r[i], e);
        if op[i] == 0 || or[i] == 0 {
            return 2;
        }
    }
    if or[0] == or[1] && or[1] == or[2] {
        return 0;
    }
    for i in 0..3 {
        let j = (i + 1) % 3;
        for (x, y, sx) in [(p, r, &op), (r, p, &or)] {
            if sx[i] != sx[j] {
                let s0 = orient(x[i], x[j], y[0], y[1], e);
                let s1 = orient(x[i], x[j], y[1], y[2], e);
                let s2 = orient(x[i], x[j], y[2], y[0], e);
                if s0 == 0 || s1 == 0 || s2 == 0 {
                    return 2;
                }
                if s0 == s1 && s1 == s2 {
                    return 1;
                }
            }
        }
    }
    0
}

/// `narrow.wgsl::seg_seg`: squared distance.
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
            let den = a * e - b * b;
            let s0 = if den > 0.0 {
                ((b * f - c * e) / den).clamp(0.0, 1.0)
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
    let h = if l != 0.0 { cr.length() / l } else { 0.0 };
    let well_shaped = h >= 1e-2 * l; // false for NaN too, as in WGSL
    if !well_shaped {
        return (INF, h);
    }
    let n = cr.normalize();
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
    let cr = (p[1] - p[0]).cross(p[2] - p[0]);
    let len = cr.length();
    // No plane (zero area, or NaN): the shader's INF thickness.
    if len.is_nan() || len <= 0.0 {
        return f32::NEG_INFINITY;
    }
    let n = cr / len;
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
    let cr = (p[1] - p[0]).cross(p[2] - p[0]);
    let len = cr.length();
    let n = if len > 0.0 { cr / len } else { Vec3::ZERO };
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
fn unit_or_zero(v: Vec3) -> Vec3 {
    let l = v.length();
    if l > 0.0 {
        v / l
    } else {
        Vec3::ZERO
    }
}

/// `narrow.wgsl::tri_dist`.
pub fn tri_dist(p: &[Vec3; 3], r: &[Vec3; 3]) -> f32 {
    let mut best = INF;
    for i in 0..3 {
        for j in 0..3 {
            best = best.min(seg_seg(p[i], p[(i + 1) % 3], r[j], r[(j + 1) % 3]));
        }
    }
    let (fr, sr) = vertices_face(p, r);
    let (fp, sp) = vertices_face(r, p);
    (best.min(fr).min(fp).sqrt() - (sr + sp)).max(0.0)
}

/// The triangle `i` of a mesh in the query's local frame.
pub fn local_tri(rows: &[[f32; 4]; 3], t: &TriRecord) -> [Vec3; 3] {
    [0, 1, 2].map(|k| to_local(rows, v3(t.v[k])))
}

/// `narrow.wgsl::main` in intersect mode: the hits, unordered. `pairs` come from [`cull`],
/// which has applied the plane and axis bounds.
pub fn narrow_intersect(
    q: &Query,
    tris_a: &[TriRecord],
    tris_b: &[TriRecord],
    pairs: &[[u32; 2]],
) -> Vec<Hit> {
    pairs
        .iter()
        .filter_map(|&[i, j]| {
            let (p, r) = (
                local_tri(&q.a, &tris_a[i as usize]),
                local_tri(&q.b, &tris_b[j as usize]),
            );
            let code = tri_tri(&p, &r, q.tol[2]);
            (code != 0).then_some(Hit {
                a: i,
                b: j,
                flag: code,
                dist_bits: 0,
            })
        })
        .collect()
}

/// What `nearest.wgsl` must find, by brute force over A's triangles at positions
/// `q.chunk_start .. q.chunk_end` of its octree order and all of B: every pair's f32 distance
/// (`tri_dist`), as `(distance, i, j)`.
pub fn nearest(
    q: &Query,
    tris_a: &[TriRecord],
    index_a: &[u32],
    tris_b: &[TriRecord],
) -> Vec<(f32, u32, u32)> {
    let mut out = Vec::new();
    for &i in &index_a[q.chunk_start as usize..q.chunk_end as usize] {
        let p = local_tri(&q.a, &tris_a[i as usize]);
        for (j, tb) in tris_b.iter().enumerate() {
            out.push((tri_dist(&p, &local_tri(&q.b, tb)), i, j as u32));
        }
    }
    out
}
