//! The minimum distance between two surfaces on one thread, over the hierarchies' oriented
//! boxes ([`crate::obb`]): the search each of many poses runs on a thread of its own. The
//! octree search ([`super::distance`]) splits one large question over every thread; this one
//! keeps the bound it finds first and prunes by boxes that stay tight however B is turned.
//!
//! The answer is the same as the octree search's to the bit: both return the smallest
//! `(distance², a, b)` over all triangle pairs, measured on the posed triangles by the same
//! function, and neither prunes a pair that could equal it (the box bounds are padded for
//! their rounding, so a pair at the best distance is always measured).

use super::distance::{report, Best, DistanceReport};
use super::{far, padded_sphere, Posed, Timings};
use crate::bvh::{Bvh, LEAF_MAX};
use crate::geom::{tritri, DVec3, Sphere, Tri};
use crate::mesh::Pose;
use crate::obb::Obb;
use std::time::Instant;

/// The minimum distance between the surfaces of `a` and `b`, which must not intersect (their
/// interference search came back empty): [`super::distance`]'s answer, on this thread.
pub(crate) fn distance(a: &Posed, b: &Posed) -> DistanceReport {
    let t = Instant::now();
    if let Some((i, j)) = far::support_pair(a, b) {
        return report(a, b, &[(1, Some((0.0, i, j)))], Timings::default(), t);
    }
    let found = Walk::new(a, b).run();
    report(a, b, &[found], Timings::default(), t)
}

/// A node pair waiting: the lower bound on its distance, A's node, B's node and B's box
/// carried into A's coordinates (carried once, when its parent pair was opened).
type Pending = (f64, u32, u32, Obb);

struct Walk<'a> {
    a: &'a Posed<'a>,
    b: &'a Posed<'a>,
    trees: (&'a Bvh, &'a Bvh),
    boxes: (&'a [Obb], &'a [Obb]),
    /// B's coordinates into A's.
    rel: Pose,
    /// What the box bounds lose to rounding: the relative pose's and the boxes' own, both
    /// within 1e-12 of the coordinates' magnitude, and either rotation being a little off
    /// orthonormal (distances in A's coordinates are then not quite the world's, and B's
    /// carried axes not quite unit and square: three times what carrying a point back can be
    /// off by, for each pose, covers the point, the stretch and the axes).
    pad: f64,
}

impl<'a> Walk<'a> {
    fn new(a: &'a Posed<'a>, b: &'a Posed<'a>) -> Walk<'a> {
        let magnitude = a.frame_magnitude().max(b.frame_magnitude());
        Walk {
            a,
            b,
            trees: (a.prep.bvh(), b.prep.bvh()),
            boxes: (a.prep.node_obbs(), b.prep.node_obbs()),
            rel: a.pose.relative(&b.pose),
            pad: 1e-12 * magnitude
                + 3.0 * (a.pose.unapply_error(magnitude) + b.pose.unapply_error(magnitude))
                + f64::MIN_POSITIVE,
        }
    }

    /// The pair of A's node `x` and B's carried box: pending, with its bound.
    fn pending(&self, x: u32, y: u32, by: Obb) -> Pending {
        (self.boxes.0[x as usize].gap(&by) - self.pad, x, y, by)
    }

    /// Depth first, the nearer child pair first: the triangle pairs measured, and the smallest
    /// `(distance², a, b)`.
    fn run(&self) -> (u64, Best) {
        let (ta, tb) = self.trees;
        let mut best: Best = None;
        let mut tested = 0u64;
        if ta.nodes.is_empty() || tb.nodes.is_empty() {
            return (0, None);
        }
        let mut stack = vec![self.pending(0, 0, self.boxes.1[0].carried(&self.rel))];
        while let Some((lb, x, y, by)) = stack.pop() {
            if beyond(lb, best) {
                continue;
            }
            let (nx, ny) = (&ta.nodes[x as usize], &tb.nodes[y as usize]);
            if nx.is_leaf() && ny.is_leaf() {
                tested += self.leaf_pair(x, y, &mut best);
                continue;
            }
            let open_a =
                !nx.is_leaf() && (ny.is_leaf() || self.boxes.0[x as usize].size() >= by.size());
            let [p, q] = if open_a {
                [0, 1].map(|k| self.pending(nx.index + k, y, by))
            } else {
                [0, 1].map(|k| {
                    let c = ny.index + k;
                    self.pending(x, c, self.boxes.1[c as usize].carried(&self.rel))
                })
            };
            // The nearer last, so that it is taken first; one already beyond the best not at all.
            let (near, far) = if q.0 < p.0 { (q, p) } else { (p, q) };
            stack.extend([far, near].into_iter().filter(|c| !beyond(c.0, best)));
        }
        (tested, best)
    }

    /// Every triangle pair of leaves `x` and `y` that no bound settles, measured on the posed
    /// triangles, lowering `best`: how many were measured.
    fn leaf_pair(&self, x: u32, y: u32, best: &mut Best) -> u64 {
        let (ta, tb) = self.trees;
        let ((la, na), (lb, nb)) = (leaf(self.a, ta, x), leaf(self.b, tb, y));
        let mut tested = 0;
        for &(i, t1, s1) in &la[..na] {
            for &(j, t2, s2) in &lb[..nb] {
                // The spheres first (a subtraction), then the three-axis bound.
                let axis = s2.center - s1.center;
                if beyond(axis.length() - s1.radius - s2.radius, *best)
                    || beyond(tritri::separation_bound(&t1, &t2, axis), *best)
                {
                    continue;
                }
                tested += 1;
                let d = tritri::separated_distance(&t1, &t2).distance;
                let d2 = d * d;
                if best.is_none_or(|l| (d2, i, j) < l) {
                    *best = Some((d2, i, j));
                }
            }
        }
        tested
    }
}

/// Whether a lower bound `lb` on a distance rules it out against the best `(distance², ..)`.
fn beyond(lb: f64, best: Best) -> bool {
    lb > 0.0 && best.is_some_and(|(d2, _, _)| lb * lb > d2)
}

/// A leaf's triangles, posed, with their padded spheres ([`super::padded_sphere`]), and how
/// many there are.
type Leaf = ([(u32, Tri, Sphere); LEAF_MAX], usize);

fn leaf(p: &Posed, t: &Bvh, n: u32) -> Leaf {
    let slots = t.nodes[n as usize].slots();
    let mut out = [(0, [DVec3::ZERO; 3], Sphere::default()); LEAF_MAX];
    for (o, s) in out.iter_mut().zip(slots.clone()) {
        let tri = p.tri(t.tris[s]);
        *o = (t.tris[s], tri, padded_sphere(&tri));
    }
    (out, slots.len())
}
