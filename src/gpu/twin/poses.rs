//! `poses.wgsl`, one pose after another: the same walk, the same f32 bounds, the same
//! candidates.

use super::common::{axis_bound, pair_dist, plane_bound, to_local};
use super::{v3, within, INF};
use crate::gpu::layout::{
    BvhNode, ObbNode, PoseItem, PoseOut, PosePair, PosesQuery, POSE_CANDIDATES, POSE_DONE,
    POSE_FULL, POSE_NEAR,
};
use glam::Vec3;

/// `poses.wgsl::POSE_STACK`.
pub const POSE_STACK: usize = 96;
/// `node_lower`'s shrink, as WGSL rounds the constant `1.0 - 1e-4`.
const SHRINK: f32 = (1.0 - 1e-4) as f32;

/// `poses.wgsl::GROUP`: the lanes that walk one pose together in `group`.
pub const GROUP: usize = 32;
/// `poses.wgsl::GROUP_STACK`: the node pairs one pose's group holds pending.
pub const GROUP_STACK: usize = 1024;

/// One mesh as the stage reads it: hierarchy nodes, slot corners, oriented boxes.
pub type Tree<'a> = (&'a [BvhNode], &'a [[f32; 4]], &'a [ObbNode]);

/// `poses.wgsl::main` over every pose, each walk at most `walk_steps` steps (`WALK_STEPS`).
pub fn main(
    q: &PosesQuery,
    (a, b): (Tree, Tree),
    items: &[PoseItem],
    walk_steps: u32,
    out: &mut [PoseOut],
) {
    for i in 0..q.poses as usize {
        out[i] = Walk::new(a, b, items[i]).run(walk_steps);
    }
}

/// `poses.wgsl::group` over every pose, each walk at most `walk_steps` rounds.
pub fn group(
    q: &PosesQuery,
    (a, b): (Tree, Tree),
    items: &[PoseItem],
    walk_steps: u32,
    out: &mut [PoseOut],
) {
    for i in 0..q.poses as usize {
        out[i] = Walk::new(a, b, items[i]).run_group(walk_steps);
    }
}

/// The lesser of two bounds as `atomicMin` on their bits takes it (both at least 0).
fn bits_min(x: f32, y: f32) -> f32 {
    f32::from_bits(x.to_bits().min(y.to_bits()))
}

struct Carried {
    c: Vec3,
    ax: [Vec3; 3],
    h: Vec3,
}

/// `poses.wgsl::rotate`.
fn rotate(m: &[[f32; 4]; 3], v: Vec3) -> Vec3 {
    Vec3::new(v3(m[0]).dot(v), v3(m[1]).dot(v), v3(m[2]).dot(v))
}

fn size(o: &ObbNode) -> f32 {
    o.axes[0][3] + o.axes[1][3] + o.axes[2][3]
}

/// One thread's private state.
struct Walk<'a> {
    a: Tree<'a>,
    b: Tree<'a>,
    item: PoseItem,
    status: u32,
    upper: f32,
    cands: Vec<PosePair>,
}

impl<'a> Walk<'a> {
    fn new(a: Tree<'a>, b: Tree<'a>, item: PoseItem) -> Walk<'a> {
        Walk {
            a,
            b,
            item,
            status: POSE_DONE,
            upper: INF,
            cands: Vec::with_capacity(POSE_CANDIDATES),
        }
    }

    /// `poses.wgsl::carry`.
    fn carry(&self, n: u32) -> Carried {
        let o = &self.b.2[n as usize];
        let m = &self.item.rows;
        Carried {
            c: to_local(m, v3(o.center)),
            ax: o.axes.map(|a| rotate(m, v3(a))),
            h: Vec3::new(o.axes[0][3], o.axes[1][3], o.axes[2][3]),
        }
    }

    /// `poses.wgsl::node_lower`.
    fn node_lower(&self, x: u32, cb: &Carried) -> f32 {
        let oa = &self.a.2[x as usize];
        let d = cb.c - v3(oa.center);
        let ga = Vec3::from_array(oa.axes.map(|a| self.gap_a(a, d, cb)));
        let gb = Vec3::from_array(std::array::from_fn(|k| {
            self.gap_b(cb.ax[k], cb.h[k], d, oa)
        }));
        ga.length().max(gb.length()).max(self.line_gap(d, oa, cb)) * SHRINK
    }

    /// `poses.wgsl::line_gap`.
    fn line_gap(&self, d: Vec3, oa: &ObbNode, cb: &Carried) -> f32 {
        let len = d.length();
        // As the shader's `!(len > 0.0)`: NaN too.
        if len.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return 0.0;
        }
        let u = d / len;
        let ra = oa.axes[0][3] * v3(oa.axes[0]).dot(u).abs()
            + oa.axes[1][3] * v3(oa.axes[1]).dot(u).abs()
            + oa.axes[2][3] * v3(oa.axes[2]).dot(u).abs();
        let rb = cb.h.x * cb.ax[0].dot(u).abs()
            + cb.h.y * cb.ax[1].dot(u).abs()
            + cb.h.z * cb.ax[2].dot(u).abs();
        len - ra - rb - self.item.tol[2]
    }

    /// `poses.wgsl::gap_a`.
    fn gap_a(&self, a: [f32; 4], d: Vec3, cb: &Carried) -> f32 {
        let u = v3(a);
        let reach_b = cb.h.x * cb.ax[0].dot(u).abs()
            + cb.h.y * cb.ax[1].dot(u).abs()
            + cb.h.z * cb.ax[2].dot(u).abs();
        (d.dot(u).abs() - a[3] - reach_b - self.item.tol[2]).max(0.0)
    }

    /// `poses.wgsl::gap_b`.
    fn gap_b(&self, u: Vec3, h: f32, d: Vec3, oa: &ObbNode) -> f32 {
        let reach_a = oa.axes[0][3] * v3(oa.axes[0]).dot(u).abs()
            + oa.axes[1][3] * v3(oa.axes[1]).dot(u).abs()
            + oa.axes[2][3] * v3(oa.axes[2]).dot(u).abs();
        (d.dot(u).abs() - h - reach_a - self.item.tol[2]).max(0.0)
    }

    /// `poses.wgsl::keep`.
    fn keep(&mut self, a: u32, b: u32, lower: f32) {
        if self.cands.len() == POSE_CANDIDATES {
            let upper = self.upper;
            self.cands.retain(|c| within(c.lower, upper));
        }
        if self.cands.len() == POSE_CANDIDATES {
            self.status = POSE_FULL;
            return;
        }
        self.cands.push(PosePair {
            a,
            b,
            lower,
            _pad: 0,
        });
    }

    /// `poses.wgsl::tri_pair`.
    fn tri_pair(&mut self, p: &[Vec3; 3], t: &[Vec3; 3]) -> f32 {
        match self.tri_bounds(p, t, self.upper) {
            Tri::Beyond => INF,
            Tri::Near => {
                self.status = POSE_NEAR;
                INF
            }
            Tri::Measured { lower, upper } => {
                self.upper = self.upper.min(upper);
                lower
            }
        }
    }

    /// `tri_pair`'s bounds against the least upper bound `upper`.
    fn tri_bounds(&self, p: &[Vec3; 3], t: &[Vec3; 3], upper: f32) -> Tri {
        let cheap = plane_bound(p, *t)
            .max(plane_bound(t, *p))
            .max(axis_bound(p, t))
            - 4.0 * self.item.tol[0];
        if cheap > upper {
            return Tri::Beyond;
        }
        if within(cheap, 0.0) {
            return Tri::Near;
        }
        let (d, slack) = pair_dist(p, t);
        let band = self.item.tol[1];
        Tri::Measured {
            lower: (d - slack - band).max(cheap),
            upper: d + band,
        }
    }

    /// The triangle pair `k` of the leaf pair (`lx` of A, `ly` of B), B's carried.
    fn leaf_tris(&self, lx: &BvhNode, ly: &BvhNode, k: u32) -> ([Vec3; 3], [Vec3; 3]) {
        let p = Self::tri(self.a.1, lx.index + k % lx.count);
        let t = Self::tri(self.b.1, ly.index + k / lx.count).map(|v| to_local(&self.item.rows, v));
        (p, t)
    }

    /// The node pair's two children, split as `walk` splits, each with its lower bound: the
    /// nearer second.
    fn children(&self, (x, y): (u32, u32), nx: &BvhNode, ny: &BvhNode) -> [(u32, u32, f32); 2] {
        let split_a = ny.count > 0
            || (nx.count == 0 && size(&self.a.2[x as usize]) >= size(&self.b.2[y as usize]));
        let (c0, c1) = if split_a {
            ((nx.index, y), (nx.index + 1, y))
        } else {
            ((x, ny.index), (x, ny.index + 1))
        };
        let l0 = self.node_lower(c0.0, &self.carry(c0.1));
        let l1 = self.node_lower(c1.0, &self.carry(c1.1));
        if l0 <= l1 {
            [(c1.0, c1.1, l1), (c0.0, c0.1, l0)]
        } else {
            [(c0.0, c0.1, l0), (c1.0, c1.1, l1)]
        }
    }

    fn tri(corners: &[[f32; 4]], s: u32) -> [Vec3; 3] {
        [0, 1, 2].map(|k| v3(corners[3 * s as usize + k]))
    }

    /// `poses.wgsl::walk`: one loop over node pairs and the triangle pairs of leaf pairs.
    fn run(mut self, walk_steps: u32) -> PoseOut {
        let mut steps = 0u32;
        let mut stack = Vec::with_capacity(POSE_STACK);
        stack.push((0u32, 0u32, self.node_lower(0, &self.carry(0))));
        let zero = <BvhNode as bytemuck::Zeroable>::zeroed();
        let (mut lx, mut ly) = (zero, zero);
        let (mut leaves, mut k, mut n, mut low) = ((0u32, 0u32), 0u32, 0u32, INF);
        while self.status == POSE_DONE {
            if steps == walk_steps {
                self.status = POSE_FULL;
                break;
            }
            steps += 1;
            if k < n {
                let (p, t) = self.leaf_tris(&lx, &ly, k);
                low = low.min(self.tri_pair(&p, &t));
                k += 1;
                if k == n && within(low, self.upper) {
                    self.keep(leaves.0, leaves.1, low);
                }
                continue;
            }
            let Some((x, y, bound)) = stack.pop() else {
                break;
            };
            if bound > self.upper {
                continue;
            }
            let (nx, ny) = (self.a.0[x as usize], self.b.0[y as usize]);
            if nx.count > 0 && ny.count > 0 {
                (leaves, lx, ly) = ((x, y), nx, ny);
                (k, n, low) = (0, nx.count * ny.count, INF);
                continue;
            }
            if stack.len() + 2 > POSE_STACK {
                self.status = POSE_FULL;
                break;
            }
            stack.extend(self.children((x, y), &nx, &ny));
        }
        if (!stack.is_empty() || k < n) && self.status == POSE_DONE {
            self.status = POSE_FULL;
        }
        self.out(steps)
    }

    /// The pose's answer: the pairs kept within the least upper bound.
    fn out(&self, steps: u32) -> PoseOut {
        let mut out = PoseOut {
            status: self.status,
            upper: self.upper,
            steps,
            count: 0,
            ..PoseOut::FULL
        };
        for c in self.cands.iter().filter(|c| within(c.lower, self.upper)) {
            out.pairs[out.count as usize] = *c;
            out.count += 1;
        }
        out
    }
}

/// A triangle pair against the least upper bound: beyond it, maybe touching, or measured.
enum Tri {
    Beyond,
    Near,
    Measured { lower: f32, upper: f32 },
}

impl Walk<'_> {
    /// `poses.wgsl::group`: the pose's walk in rounds, [`GROUP`] lanes a round (one until a
    /// leaf pair gives a bound). Each lane takes one of the pending node pairs from the top;
    /// every lane bounds against the least upper bound as the round began (so that the answer
    /// does not depend on which lane is first), and the lanes' children go back on top in lane
    /// order, the first lane's topmost. Then the triangle pairs of the leaf pairs taken, a
    /// lane each; then those leaf pairs kept.
    fn run_group(mut self, walk_steps: u32) -> PoseOut {
        let mut stack = vec![(0u32, 0u32, self.node_lower(0, &self.carry(0)))];
        let mut rounds = 0u32;
        while self.status == POSE_DONE && !stack.is_empty() {
            if rounds == walk_steps {
                self.status = POSE_FULL;
                break;
            }
            rounds += 1;
            let upper = self.upper;
            // One lane dives until a leaf pair gives a bound.
            let lanes = if upper == INF { 1 } else { GROUP };
            let taken = stack.split_off(stack.len() - stack.len().min(lanes));
            let mut leaves = Vec::new();
            let mut pushed = Vec::new();
            // Lanes from the last to the first, so that the first's children end on top.
            for &(x, y, bound) in &taken {
                if bound > upper {
                    continue;
                }
                let (nx, ny) = (self.a.0[x as usize], self.b.0[y as usize]);
                if nx.count > 0 && ny.count > 0 {
                    leaves.push((x, y, nx, ny));
                    continue;
                }
                let kids = self.children((x, y), &nx, &ny);
                pushed.extend(kids.into_iter().filter(|k| within(k.2, upper)));
            }
            // A stack that would overflow takes none of the round's children (the pose is
            // unsure); its leaves are still measured, as the shader's lanes measure them.
            if stack.len() + pushed.len() > GROUP_STACK {
                self.status = POSE_FULL;
            } else {
                stack.extend(pushed);
            }
            self.leaf_round(&leaves, upper);
        }
        if !stack.is_empty() && self.status == POSE_DONE {
            self.status = POSE_FULL;
        }
        self.out(rounds)
    }

    /// A round's leaf pairs: every triangle pair bounded against `upper` (the round's), the
    /// least upper bound lowered by all of them, then each leaf pair kept whose least lower
    /// bound is within it.
    fn leaf_round(&mut self, leaves: &[(u32, u32, BvhNode, BvhNode)], upper: f32) {
        let mut lows = vec![INF; leaves.len()];
        let mut least = upper;
        for (q, (_, _, lx, ly)) in leaves.iter().enumerate() {
            for k in 0..lx.count * ly.count {
                let (p, t) = self.leaf_tris(lx, ly, k);
                match self.tri_bounds(&p, &t, upper) {
                    Tri::Beyond => {}
                    Tri::Near => self.status = self.status.max(POSE_NEAR),
                    Tri::Measured { lower, upper } => {
                        least = bits_min(least, upper);
                        lows[q] = bits_min(lows[q], lower);
                    }
                }
            }
        }
        // Kept as a thread keeps them: the same set as the shader's lanes keep together (the
        // list rid of pairs past the bound where they would not fit, else unsure).
        self.upper = least;
        for (&(x, y, ..), &low) in leaves.iter().zip(&lows) {
            if within(low, least) {
                self.keep(x, y, low);
            }
        }
    }
}
