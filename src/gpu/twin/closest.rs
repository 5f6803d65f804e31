//! `closest.wgsl`, one point after another: the same f32 nearest points and bounds, the same
//! walk, the same candidates.

use super::{v3, within, INF, KEPT};
use crate::gpu::layout::{BvhNode, ClosestQuery, ObbNode, SlotsOut, CANDIDATES};
use glam::Vec3;

/// `closest.wgsl::NO_SLOT`.
const NO_SLOT: u32 = u32::MAX;

/// `closest.wgsl::nearest_on`.
fn nearest_on(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0 {
        return a + d1 / (d1 - d3) * ab;
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0 {
        return a + d2 / (d2 - d6) * ac;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0 {
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
    }
    let denom = va + vb + vc;
    if denom > 0.0 {
        let (v, w) = (vb / denom, vc / denom);
        if v >= 0.0 && w >= 0.0 && v + w <= 1.0 {
            return a + ab * v + ac * w;
        }
    }
    let (e0, e1, e2) = (
        on_segment(p, a, b),
        on_segment(p, b, c),
        on_segment(p, c, a),
    );
    let mut best = e0;
    if (e1 - p).dot(e1 - p) < (best - p).dot(best - p) {
        best = e1;
    }
    if (e2 - p).dot(e2 - p) < (best - p).dot(best - p) {
        best = e2;
    }
    best
}

/// `closest.wgsl::on_segment`.
fn on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let l = ab.dot(ab);
    let s = if l > 0.0 {
        ((p - a).dot(ab) / l).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + ab * s
}

/// `closest.wgsl::tri_bounds`: (lower, upper), no upper bound for a sliver.
fn tri_bounds(q: &ClosestQuery, p: Vec3, t: [Vec3; 3]) -> (f32, f32) {
    let near = nearest_on(p, t[0], t[1], t[2]);
    let d = (p - near).length();
    let mut lower = 0.0;
    if d > 0.0 {
        let u = (p - near) / d;
        lower = u.dot(p) - u.dot(t[0]).max(u.dot(t[1])).max(u.dot(t[2]));
    }
    let (ab, ac, bc) = (t[1] - t[0], t[2] - t[0], t[2] - t[1]);
    let n = ab.cross(ac);
    let longest = ab.dot(ab).max(ac.dot(ac)).max(bc.dot(bc));
    let well_shaped = n.dot(n) >= 1e-8 * longest * longest;
    (lower - q.err, if well_shaped { d + q.err } else { INF })
}

/// `closest.wgsl::box_lower`.
fn box_lower(q: &ClosestQuery, p: Vec3, b: &ObbNode) -> f32 {
    let c = v3(b.center);
    let dp = p - c;
    let scale = p.x.abs() + p.y.abs() + p.z.abs() + c.x.abs() + c.y.abs() + c.z.abs() + q.delta;
    let mut out = Vec3::ZERO;
    for k in 0..3 {
        let a = b.axes[k];
        let e = (scale + a[3]) * 2f32.powi(-20);
        out[k] = (dp.dot(v3(a)).abs() - a[3] - q.delta - e).max(0.0);
    }
    out.length() * (1.0 - 2f32.powi(-18))
}

/// `closest.wgsl::main` over every point: `q.per_thread` a thread, each search hinted by the
/// one before.
pub fn main(
    q: &ClosestQuery,
    bvh: &[BvhNode],
    obbs: &[ObbNode],
    corners: &[[f32; 4]],
    points: &[[f32; 4]],
    out: &mut [SlotsOut],
) {
    let (n, per_thread) = (q.points as usize, q.per_thread.max(1) as usize);
    for first in (0..n).step_by(per_thread) {
        let mut hint = NO_SLOT;
        for i in first..(first + per_thread).min(n) {
            let (o, nearest) = search(q, bvh, obbs, corners, v3(points[i]), hint);
            out[i] = o;
            hint = nearest;
        }
    }
}

/// The candidates kept so far, with the least upper bound and the slot giving it.
struct Kept {
    upper: f32,
    nearest: u32,
    kept: Vec<(u32, f32)>,
}

impl Kept {
    /// `closest.wgsl::consider`.
    fn consider(&mut self, q: &ClosestQuery, corners: &[[f32; 4]], p: Vec3, s: u32) -> bool {
        let k = 3 * s as usize;
        let t = [v3(corners[k]), v3(corners[k + 1]), v3(corners[k + 2])];
        let (lower, up) = tri_bounds(q, p, t);
        if up < self.upper {
            (self.upper, self.nearest) = (up, s);
        }
        if lower > self.upper {
            return true;
        }
        if self.kept.len() == CANDIDATES {
            let upper = self.upper;
            self.kept.retain(|c| within(c.1, upper));
        }
        if self.kept.len() == CANDIDATES {
            return false;
        }
        self.kept.push((s, lower));
        true
    }
}

/// `closest.wgsl::search`: the point's answer and its nearest slot.
fn search(
    q: &ClosestQuery,
    bvh: &[BvhNode],
    obbs: &[ObbNode],
    corners: &[[f32; 4]],
    p: Vec3,
    hint: u32,
) -> (SlotsOut, u32) {
    let mut k = Kept {
        upper: INF,
        nearest: hint,
        kept: Vec::with_capacity(CANDIDATES),
    };
    let mut sure = hint == NO_SLOT || k.consider(q, corners, p, hint);
    // The node taken next and its lower bound, and the farther children kept for later.
    let mut next = Some((0, box_lower(q, p, &obbs[0])));
    let mut stack: Vec<(u32, f32)> = Vec::with_capacity(KEPT);
    while sure {
        let Some((n, low)) = next.take().or_else(|| stack.pop()) else {
            break;
        };
        if low > k.upper {
            continue;
        }
        let node = &bvh[n as usize];
        if node.count > 0 {
            for s in node.index..node.index + node.count {
                if s != hint {
                    sure = k.consider(q, corners, p, s);
                    if !sure {
                        break;
                    }
                }
            }
            continue;
        }
        if stack.len() == (q.kept as usize).min(KEPT) {
            sure = false;
            break;
        }
        let (a, b) = (node.index, node.index + 1);
        let (la, lb) = (
            box_lower(q, p, &obbs[a as usize]),
            box_lower(q, p, &obbs[b as usize]),
        );
        let (near, far) = match la <= lb {
            true => ((a, la), (b, lb)),
            false => ((b, lb), (a, la)),
        };
        stack.push(far);
        next = Some(near);
    }
    let mut out = SlotsOut {
        count: 0,
        unsure: u32::from(!sure),
        slots: [0; CANDIDATES],
    };
    for &(s, lower) in &k.kept {
        if within(lower, k.upper) {
            out.slots[out.count as usize] = s;
            out.count += 1;
        }
    }
    (out, k.nearest)
}
