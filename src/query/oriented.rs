//! The minimum distance between two surfaces on one thread, over the hierarchies' oriented
//! boxes ([`crate::obb`]): the search each of many poses runs on a thread of its own. The
//! octree search ([`super::distance`]) splits one large question over every thread; this one
//! keeps the bound it finds first and prunes by boxes that stay tight however B is turned.
//!
//! The answer is the same as the octree search's to the bit: both return the smallest
//! `(distance², a, b)` over all triangle pairs, measured on the posed triangles by the same
//! function, and neither prunes a pair that could equal it (the box bounds are padded for
//! their rounding, so a pair at the best distance is always measured).

use super::clearance::within;
use super::distance::{far_apart, report, Best, DistanceReport};
use super::{Posed, Timings};
use crate::bvh::{Bvh, LEAF_MAX};
use crate::geom::{centroid, tritri, DVec3};
use crate::mesh::Pose;
use crate::obb::Obb;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::Instant;

/// The minimum distance between the surfaces of `a` and `b`, which must not intersect (their
/// interference search came back empty): [`super::distance`]'s answer, on this thread.
pub(crate) fn distance(a: &Posed, b: &Posed) -> DistanceReport {
    let t = Instant::now();
    if let Some(r) = far_apart(a, b, Timings::default(), t) {
        return r;
    }
    let walk = Walk::new(a, b);
    // A pad near the parts' size prunes nothing (a rotation written to six digits, carried
    // 1e5 sizes out: every pair opened, 8 s a pose where the octree's search, bounding boxes
    // in the world, took 5 ms; a review's helper): that search answers, the same to the bit.
    if walk.pad > COARSE * walk.least_size() {
        return super::distance(a, b, &super::IntersectReport::default());
    }
    let found = walk.run();
    report(a, b, &[found], Timings::default(), t)
}

/// The largest pad, as a fraction of the smaller part's size, the walk takes on.
const COARSE: f64 = 1e-3;

/// How many triangle pairs of `a` and `b` are closer than `d`: [`super::clearance`]'s count
/// (its pairs' number), on this thread.
pub(crate) fn pairs_within(a: &Posed, b: &Posed, d: f64) -> usize {
    // No distance is below 0 (nor NaN): nothing to count.
    if d.is_nan() || d <= 0.0 {
        return 0;
    }
    Walk::new(a, b).count_within(d)
}

struct Walk<'a> {
    a: &'a Posed<'a>,
    b: &'a Posed<'a>,
    trees: (&'a Bvh, &'a Bvh),
    boxes: (&'a [Obb], &'a [Obb]),
    /// Each node's number of triangles.
    counts: (&'a [u32], &'a [u32]),
    /// B's coordinates into A's.
    rel: Pose,
    /// What the box bounds lose to rounding: the relative pose's and the boxes' own, both
    /// within 1e-12 of the coordinates' magnitude, and either rotation being a little off
    /// orthonormal (distances in A's coordinates are then not quite the world's, and B's
    /// carried axes not quite unit and square). A review bounded the last at 9√3 of each
    /// rotation's defect times the magnitude, three times what carrying a point back can be
    /// off by ([`Pose::unapply_error`]), and found cases within 0.2 % of it: six times, for
    /// each pose. The magnitude is that of the coordinates carried, in A's frame
    /// ([`super::carried_magnitude`]), the rounding's that of the world's.
    pad: f64,
}

impl<'a> Walk<'a> {
    fn new(a: &'a Posed<'a>, b: &'a Posed<'a>) -> Walk<'a> {
        let magnitude = a.frame_magnitude().max(b.frame_magnitude());
        let carried = super::carried_magnitude(a, b);
        Walk {
            a,
            b,
            trees: (a.prep.bvh(), b.prep.bvh()),
            boxes: (&a.prep.oriented().boxes, &b.prep.oriented().boxes),
            counts: (&a.prep.oriented().tri_counts, &b.prep.oriented().tri_counts),
            rel: a.pose.relative(&b.pose),
            pad: 1e-12 * magnitude
                + 6.0 * (a.pose.unapply_error(carried) + b.pose.unapply_error(carried))
                + f64::MIN_POSITIVE,
        }
    }

    /// The smaller part's size: its root box's diagonal.
    fn least_size(&self) -> f64 {
        let size = |b: &[Obb]| b.first().map_or(0.0, |o| 2.0 * o.half.length());
        size(self.boxes.0).min(size(self.boxes.1))
    }

    /// Best first: the pending pair with the smallest bound next, so that no pair is opened
    /// whose bound exceeds the answer (depth first, nearer child first, opened twice as many
    /// pairs: it prunes by the bounds it has found so far). The triangle pairs measured, and
    /// the smallest `(distance², a, b)`.
    fn run(&self) -> (u64, Best) {
        let (ta, tb) = self.trees;
        let mut best: Best = None;
        let mut tested = 0u64;
        if ta.nodes.is_empty() || tb.nodes.is_empty() {
            return (0, None);
        }
        // B's boxes carried into A's coordinates, each once (when its parent was split);
        // pending pairs name theirs by place.
        let mut carried = Vec::with_capacity(1024);
        carried.push(self.boxes.1[0].carried(&self.rel));
        let mut heap = BinaryHeap::with_capacity(1024);
        // The pair to open next: the nearer child just made, when no pending pair is nearer
        // (it would come straight back off the heap), else the heap's nearest.
        let mut next = Some(self.pending(0, 0, 0, &carried));
        while let Some(Pending {
            bound, x, y, by, ..
        }) = next.take().or_else(|| heap.pop())
        {
            if beyond(bound, best) {
                break; // every pair left has a bound at least this
            }
            let (nx, ny) = (&ta.nodes[x as usize], &tb.nodes[y as usize]);
            let bbox = &carried[by as usize];
            if nx.is_leaf() && ny.is_leaf() {
                tested += self.leaf_pair(x, y, bbox, &mut best);
                continue;
            }
            let [p, q] = self
                .split((x, y, by), &mut carried)
                .map(|(x, y, by)| self.pending(x, y, by, &carried));
            let (near, far) = if q.key < p.key { (q, p) } else { (p, q) };
            if !beyond(far.bound, best) {
                heap.push(far);
            }
            if heap.peek().is_some_and(|h| h.key < near.key) {
                heap.push(near);
            } else {
                next = Some(near);
            }
        }
        (tested, best)
    }

    /// The two pairs that replace the pair of A's node `x` and B's node `y` (whose box is
    /// `carried[by]`; not both leaves): the larger box is split (A's when B's is a leaf, B's
    /// when A's is), and B's children's boxes carried into A's coordinates once, here.
    fn split(&self, (x, y, by): (u32, u32, u32), carried: &mut Vec<Obb>) -> [(u32, u32, u32); 2] {
        let (nx, ny) = (
            &self.trees.0.nodes[x as usize],
            &self.trees.1.nodes[y as usize],
        );
        let larger_a = self.boxes.0[x as usize].size() >= carried[by as usize].size();
        if !nx.is_leaf() && (ny.is_leaf() || larger_a) {
            return [0, 1].map(|k| (nx.index + k, y, by));
        }
        [0, 1].map(|k| {
            let c = ny.index + k;
            carried.push(self.boxes.1[c as usize].carried(&self.rel));
            (x, c, carried.len() as u32 - 1)
        })
    }

    /// A's node `x` against B's node `y`, whose box is `carried[by]`: pending, with its bound.
    fn pending(&self, x: u32, y: u32, by: u32, carried: &[Obb]) -> Pending {
        let bound = self.boxes.0[x as usize].gap(&carried[by as usize]) - self.pad;
        // Non-negative f64s order as their bits; boxes that may touch (bound ≤ 0) all come
        // first, in any order.
        let key = bound.max(0.0).to_bits();
        Pending {
            bound,
            key,
            x,
            y,
            by,
        }
    }

    /// Every triangle pair of leaves `x` and `y` (B's box `by` carried into A's coordinates)
    /// that no bound settles, measured on the posed triangles, lowering `best`: how many were
    /// measured.
    fn leaf_pair(&self, x: u32, y: u32, by: &Obb, best: &mut Best) -> u64 {
        let mut tested = 0;
        let settled = |best: &Best, lb| beyond(lb, *best);
        self.leaf_pairs((x, y, by), best, settled, |best, i, j| {
            tested += 1;
            let d = tritri::separated_distance(&self.a.tri(i), &self.b.tri(j)).distance;
            let d2 = d * d;
            if best.is_none_or(|l| (d2, i, j) < l) {
                *best = Some((d2, i, j));
            }
        });
        tested
    }

    /// The triangle pairs `(a, b)` of leaves `x` and `y` (B's box `by` carried into A's
    /// coordinates) that `settled` does not rule out by a lower bound on their distance, given
    /// to `pair`, which may change `state` and so what `settled` answers. The bounds take A's
    /// triangles in its own coordinates and B's carried there (padded as the boxes are): each
    /// triangle against the other leaf's box first, then each pair that both pass.
    fn leaf_pairs<S>(
        &self,
        (x, y, by): (u32, u32, &Obb),
        state: &mut S,
        settled: impl Fn(&S, f64) -> bool,
        mut pair: impl FnMut(&mut S, u32, u32),
    ) {
        let (ta, tb) = self.trees;
        let bx = &self.boxes.0[x as usize];
        let mut near = [[(0, [DVec3::ZERO; 3]); LEAF_MAX]; 2];
        let mut count = [0; 2];
        for s in ta.nodes[x as usize].slots() {
            let t = self.a.prep.mesh.triangle(ta.tris[s] as usize);
            if !settled(state, by.gap_to_triangle(&t) - self.pad) {
                near[0][count[0]] = (ta.tris[s], t);
                count[0] += 1;
            }
        }
        if count[0] == 0 {
            return;
        }
        for s in tb.nodes[y as usize].slots() {
            let t = self.b.prep.mesh.triangle(tb.tris[s] as usize);
            let t = t.map(|p| self.rel.apply(p));
            if !settled(state, bx.gap_to_triangle(&t) - self.pad) {
                near[1][count[1]] = (tb.tris[s], t);
                count[1] += 1;
            }
        }
        for &(i, t1) in &near[0][..count[0]] {
            for &(j, t2) in &near[1][..count[1]] {
                let axis = centroid(&t2) - centroid(&t1);
                if !settled(state, tritri::separation_bound(&t1, &t2, axis) - self.pad) {
                    pair(state, i, j);
                }
            }
        }
    }

    /// How many triangle pairs are closer than `d` (> 0): [`super::clearance`]'s count, by the
    /// same decision on the same posed triangles for every pair no bound puts at `d` or more.
    fn count_within(&self, d: f64) -> usize {
        let (ta, tb) = self.trees;
        if ta.nodes.is_empty() || tb.nodes.is_empty() {
            return 0;
        }
        let mut carried = vec![self.boxes.1[0].carried(&self.rel)];
        let mut stack = vec![(0u32, 0u32, 0u32)];
        let mut count = 0;
        // The bounds below are f64: a node pair is passed over, or counted whole, only where
        // they settle it by more than their rounding, so that a pair exactly d apart is
        // decided by `within`, exactly.
        let far = super::clearance::reach(self.a, self.b, d);
        let near = d - (far - d);
        while let Some((x, y, by)) = stack.pop() {
            let (bx, bbox) = (&self.boxes.0[x as usize], carried[by as usize]);
            if bx.gap(&bbox) - self.pad >= far {
                continue;
            }
            // Every pair of two nodes this near is closer than d (a part deep in another has
            // millions of such pairs): counted without measuring.
            if bx.reach(&bbox) + self.pad < near {
                count += self.counts.0[x as usize] as usize * self.counts.1[y as usize] as usize;
                continue;
            }
            let (nx, ny) = (&ta.nodes[x as usize], &tb.nodes[y as usize]);
            if nx.is_leaf() && ny.is_leaf() {
                let settled = |_: &usize, lb| lb >= far;
                self.leaf_pairs((x, y, &bbox), &mut count, settled, |count, i, j| {
                    let (ta, tb) = (self.a.tri(i), self.b.tri(j));
                    let axis = centroid(&tb) - centroid(&ta);
                    *count += within(&ta, &tb, axis, d).is_some() as usize;
                });
            } else {
                stack.extend(self.split((x, y, by), &mut carried));
            }
        }
        count
    }
}

/// A node pair waiting: a lower bound on its distance (and the order it is taken in, smallest
/// first), A's node, B's node and the place of B's carried box. Among equal keys any order
/// will do: the answer is the smallest pair whichever is opened first.
struct Pending {
    bound: f64,
    key: u64,
    x: u32,
    y: u32,
    by: u32,
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Pending {}

/// Whether a lower bound `lb` on a distance rules it out against the best `(distance², ..)`.
fn beyond(lb: f64, best: Best) -> bool {
    lb > 0.0 && best.is_some_and(|(d2, _, _)| lb * lb > d2)
}
