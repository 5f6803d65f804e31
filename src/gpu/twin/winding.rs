//! `winding.wgsl`, one point after another: the same f32 orientations, the same walk by the
//! escapes, the same doubts.

use super::{v3, U};
use crate::gpu::layout::{OctreeNode, TriRecord, WindingOut, WindingQuery};
use crate::octree::NO_CHILD;
use glam::Vec3;

/// `winding.wgsl::orient_w`.
fn orient_w(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> i32 {
    let (ba, ca, da) = (b - a, c - a, d - a);
    let det = -ba.cross(ca).dot(da);
    let bound = 64.0 * U * ba.length() * ca.length() * da.length() + 1e-30;
    if det > bound {
        1
    } else if det < -bound {
        -1
    } else {
        0
    }
}

/// `winding.wgsl::crossing`: 0, ±1, or `None` where in doubt.
fn crossing(p: Vec3, q: Vec3, t: [Vec3; 3]) -> Option<i32> {
    let op = orient_w(t[0], t[1], t[2], p);
    let oq = orient_w(t[0], t[1], t[2], q);
    if op != 0 && op == oq {
        return Some(0);
    }
    if op == 0 || oq == 0 {
        return None;
    }
    let s = [
        orient_w(p, q, t[0], t[1]),
        orient_w(p, q, t[1], t[2]),
        orient_w(p, q, t[2], t[0]),
    ];
    if s.iter().any(|&x| x > 0) && s.iter().any(|&x| x < 0) {
        return Some(0);
    }
    if s.contains(&0) {
        return None;
    }
    Some(op)
}

/// `winding.wgsl::near`.
fn near(q: &WindingQuery, p: Vec3, t: [Vec3; 3]) -> bool {
    let d = Vec3::splat(q.delta);
    let lo = t[0].min(t[1]).min(t[2]) - d;
    let hi = t[0].max(t[1]).max(t[2]) + d;
    if p.cmplt(lo).any() || p.cmpgt(hi).any() {
        return false;
    }
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    // Not `<=`: a NaN (a degenerate triangle's) counts as near, as in the shader.
    let far = n
        .dot(p - t[0])
        .abs()
        .partial_cmp(&(2.0 * q.delta * n.length()));
    far != Some(std::cmp::Ordering::Greater)
}

/// `winding.wgsl::segment_meets`, for the box `[lo, hi]`.
fn segment_meets(q: &WindingQuery, p: Vec3, inv: Vec3, len: f32, lo: Vec3, hi: Vec3) -> bool {
    let d = Vec3::splat(q.delta);
    let t0 = (lo - d - p) * inv;
    let t1 = (hi + d - p) * inv;
    let (near_t, far_t) = (t0.min(t1), t0.max(t1));
    let enter = near_t.x.max(near_t.y).max(near_t.z.max(0.0));
    let leave = far_t.x.min(far_t.y).min(far_t.z.min(len));
    enter <= leave
}

/// `winding.wgsl::main` over every point, adding to `out` as the shader does.
pub fn main(
    q: &WindingQuery,
    tris: &[TriRecord],
    nodes: &[OctreeNode],
    points: &[[f32; 4]],
    caps: &[[f32; 4]],
    out: &mut [WindingOut],
) {
    for (i, pt) in points.iter().enumerate().take(q.points as usize) {
        let (sum, sure) = point(q, tris, nodes, *pt, caps);
        out[i].crossings += sum;
        if !sure {
            out[i].unsure = 1;
        }
    }
}

/// One thread of `main`: its crossings and whether it is sure of them.
fn point(
    q: &WindingQuery,
    tris: &[TriRecord],
    nodes: &[OctreeNode],
    row: [f32; 4],
    caps: &[[f32; 4]],
) -> (i32, bool) {
    let p = v3(row);
    let (way, len) = (row[3], row[3].abs());
    let dir = if way < 0.0 { -v3(q.dir) } else { v3(q.dir) };
    let end = p + dir * len;
    let inv = Vec3::ONE / dir;
    let mut sum = 0;
    let mut add = |t: [Vec3; 3]| -> bool {
        if near(q, p, t) {
            return false;
        }
        let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
        if !segment_meets(q, p, inv, len, lo, hi) {
            return true;
        }
        crossing(p, end, t).map(|c| sum += c).is_some()
    };
    let mut n = 0u32;
    let mut sure = true;
    let mut steps = 0;
    while steps < nodes.len() && n != NO_CHILD && sure {
        steps += 1;
        let node = &nodes[n as usize];
        if !segment_meets(q, p, inv, len, Vec3::from(node.min), Vec3::from(node.max)) {
            n = node.escape;
            continue;
        }
        if node.first_child != NO_CHILD {
            n = node.first_child;
            continue;
        }
        for k in node.tri_start..node.tri_start + node.tri_count {
            let t = &tris[k as usize];
            sure = add([v3(t.v[0]), v3(t.v[1]), v3(t.v[2])]);
            if !sure {
                break;
            }
        }
        n = node.escape;
    }
    if n != NO_CHILD {
        sure = false;
    }
    for k in 0..q.caps as usize {
        if !sure {
            break;
        }
        sure = add([v3(caps[3 * k]), v3(caps[3 * k + 1]), v3(caps[3 * k + 2])]);
    }
    (sum, sure)
}
