//! `rays.wgsl`, one ray after another: the same f32 orientations and bounds, the same walk,
//! the same doubts.

use super::{v3, INF, KEPT, U};
use crate::gpu::layout::{
    BvhNode, RayOut, RayQuery, SlotsOut, CANDIDATES, NO_HIT, RAYS_ALL, RAYS_ANY,
};
use glam::Vec3;

enum Cast {
    Miss,
    SureHit([f32; 2]),
    InDoubt,
}

/// `rays.wgsl::side`: the value and its bound.
fn side(q: &RayQuery, a: Vec3, n: Vec3, l1: f32, l2: f32, d: Vec3) -> (f32, f32) {
    let da = d - a;
    let det = -n.dot(da);
    let e = 2.0 * q.delta;
    let l3 = da.length();
    let moved = e * (l1 * l2 + l1 * l3 + l2 * l3) + e * e * (l1 + l2 + l3) + e * e * e;
    let bound = 64.0 * U * (l1 + e) * (l2 + e) * (l3 + e) + 2.0 * moved + 1e-30;
    (det, bound)
}

/// `rays.wgsl::orient_edge`: the value and its bound.
fn orient_edge(q: &RayQuery, p: Vec3, e: Vec3, a: Vec3, b: Vec3) -> (f32, f32) {
    let (x, ap, z) = (e - p, a - p, b - a);
    let xx = x.dot(x);
    let lam = if xx > 0.0 {
        (ap.dot(x) / xx).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let y = ap - lam * x;
    let det = x.dot(y.cross(z));
    let (lx, ly, lz) = (x.length(), y.length(), z.length());
    let ex = 2.0 * q.delta + U * lx;
    let ey = 4.0 * q.delta + 4.0 * U * (ap.length() + lam * lx);
    let ez = 2.0 * q.delta + U * lz;
    let moved = ex * (ly + ey) * (lz + ez) + lx * ey * (lz + ez) + lx * ly * ez;
    let bound = 16.0 * U * (lx + ex) * (ly + ey) * (lz + ez) + moved + 1e-30;
    (det, bound)
}

/// `rays.wgsl::sure_sign`.
fn sure_sign(o: (f32, f32)) -> i32 {
    if o.0 > o.1 {
        1
    } else if o.0 < -o.1 {
        -1
    } else {
        0
    }
}

/// `rays.wgsl::meet`.
fn meet(q: &RayQuery, p: Vec3, e: Vec3, t: [Vec3; 3]) -> Cast {
    let d = Vec3::splat(q.delta);
    let lo = t[0].min(t[1]).min(t[2]) - d;
    let hi = t[0].max(t[1]).max(t[2]) + d;
    if p.max(e).cmplt(lo).any() || p.min(e).cmpgt(hi).any() {
        return Cast::Miss;
    }
    let (ba, ca) = (t[1] - t[0], t[2] - t[0]);
    let n = ba.cross(ca);
    let (l1, l2) = (ba.length(), ca.length());
    let op = side(q, t[0], n, l1, l2, p);
    let oq = side(q, t[0], n, l1, l2, e);
    let (sp, sq) = (sure_sign(op), sure_sign(oq));
    if sp != 0 && sp == sq {
        return Cast::Miss;
    }
    let s = [
        sure_sign(orient_edge(q, p, e, t[0], t[1])),
        sure_sign(orient_edge(q, p, e, t[1], t[2])),
        sure_sign(orient_edge(q, p, e, t[2], t[0])),
    ];
    if s.iter().any(|&x| x > 0) && s.iter().any(|&x| x < 0) {
        return Cast::Miss;
    }
    if sp == 0 || sq == 0 || s.contains(&0) {
        return Cast::InDoubt;
    }
    let (a, b) = (op.0.abs(), oq.0.abs());
    let lo_t = (a - op.1) / (a + b + op.1 + oq.1);
    let hi_t = (a + op.1) / (a + b - op.1 - oq.1);
    Cast::SureHit([lo_t * (1.0 - 16.0 * U), hi_t * (1.0 + 16.0 * U)])
}

/// `rays.wgsl::enter`.
fn enter(q: &RayQuery, p: Vec3, dir: Vec3, inv: Vec3, node: &BvhNode) -> f32 {
    let d = Vec3::splat(q.delta);
    let lo = Vec3::from(node.min) - d;
    let hi = Vec3::from(node.max) + d;
    let flat = dir.cmpeq(Vec3::ZERO);
    if (flat & (p.cmplt(lo) | p.cmpgt(hi))).any() {
        return 2.0;
    }
    let (t0, t1) = ((lo - p) * inv, (hi - p) * inv);
    let near_t = Vec3::select(flat, Vec3::splat(-INF), t0.min(t1));
    let far_t = Vec3::select(flat, Vec3::splat(INF), t0.max(t1));
    let a = near_t.x.max(near_t.y).max(near_t.z.max(0.0));
    let b = far_t.x.min(far_t.y).min(far_t.z.min(1.0));
    if a <= b {
        a
    } else {
        2.0
    }
}

/// `rays.wgsl::main` over every ray: `out` for the first hit and any hit, `all` for all hits.
pub fn main(
    q: &RayQuery,
    bvh: &[BvhNode],
    corners: &[[f32; 4]],
    rays: &[[f32; 4]],
    out: &mut [RayOut],
    all: &mut [SlotsOut],
) {
    for i in 0..q.rays as usize {
        let (first, every) = ray(q, bvh, corners, v3(rays[2 * i]), v3(rays[2 * i + 1]));
        if q.mode == RAYS_ALL {
            all[i] = every;
        } else {
            out[i] = first;
        }
    }
}

/// One thread of `main`: its answer as the first hit (or any hit), and as all hits.
fn ray(
    q: &RayQuery,
    bvh: &[BvhNode],
    corners: &[[f32; 4]],
    p: Vec3,
    e: Vec3,
) -> (RayOut, SlotsOut) {
    let dir = e - p;
    let inv = Vec3::ONE / dir;
    let (mut best, mut best_span, mut rival, mut sure) = (NO_HIT, [INF, INF], INF, true);
    let mut all = SlotsOut::default();
    // The node taken next, and the farther children kept for later.
    let mut next = (enter(q, p, dir, inv, &bvh[0]) <= 1.0).then_some(0u32);
    let mut stack: Vec<u32> = Vec::with_capacity(KEPT);
    while sure {
        let Some(n) = next.take().or_else(|| stack.pop()) else {
            break;
        };
        let node = &bvh[n as usize];
        let en = enter(q, p, dir, inv, node);
        if en > best_span[1] {
            continue;
        }
        if node.count == 0 {
            let (a, b) = (node.index, node.index + 1);
            let (ea, eb) = (
                enter(q, p, dir, inv, &bvh[a as usize]),
                enter(q, p, dir, inv, &bvh[b as usize]),
            );
            let (near, far) = match eb <= 1.0 && (ea > 1.0 || eb < ea) {
                true => (b, a),
                false => (a, b),
            };
            if ea.max(eb) <= 1.0 {
                if stack.len() == (q.kept as usize).min(KEPT) {
                    sure = false;
                    break;
                }
                stack.push(far);
            }
            next = (ea.min(eb) <= 1.0).then_some(near);
            continue;
        }
        for s in node.index..node.index + node.count {
            let k = 3 * s as usize;
            let t = [v3(corners[k]), v3(corners[k + 1]), v3(corners[k + 2])];
            let span = match meet(q, p, e, t) {
                Cast::Miss => continue,
                _ if q.mode == RAYS_ANY => {
                    sure = false;
                    break;
                }
                Cast::InDoubt if q.mode == RAYS_ALL => {
                    sure = false;
                    break;
                }
                _ if q.mode == RAYS_ALL => {
                    if all.count as usize == CANDIDATES {
                        sure = false;
                        break;
                    }
                    all.slots[all.count as usize] = s;
                    all.count += 1;
                    continue;
                }
                Cast::InDoubt => {
                    rival = rival.min(en);
                    continue;
                }
                Cast::SureHit(span) => span,
            };
            if span[0] < best_span[0] {
                rival = rival.min(best_span[0]);
                (best, best_span) = (s, span);
            } else {
                rival = rival.min(span[0]);
            }
        }
    }
    all.unsure = u32::from(!sure);
    sure = sure
        && if best == NO_HIT {
            rival == INF
        } else {
            best_span[1] < rival
        };
    let first = RayOut {
        slot: best,
        unsure: u32::from(!sure),
    };
    (first, all)
}
