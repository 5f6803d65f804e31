//! Traversals: two trees under their poses (pairs of leaves whose boxes come within `d`), and one
//! tree against itself. Work is split into independent subtrees for rayon; each subtree is walked
//! depth-first in a fixed order and the pieces are concatenated in order, so the result is the
//! same for any number of threads.

use super::Octree;
use crate::geom::Aabb;
use crate::mesh::Pose;
use rayon::prelude::*;

/// A box in world coordinates under `pose`: the rotated box's axis-aligned bounds, padded by a
/// relative 1e-12 so that rounding in the pose never makes a box miss a vertex that
/// `Pose::apply` puts on its surface.
pub fn world_box(b: &Aabb, pose: &Pose) -> Aabb {
    // The identity poses every point exactly (1·x + 0·y + 0·z + 0 is x): no rounding to pad
    // for. A part left where it was loaded is common, and a search far apart poses little else.
    if *pose == Pose::IDENTITY {
        return *b;
    }
    let c = pose.apply(b.center());
    let h = pose.rotate_extent(b.half_extent());
    let pad = 1e-12 * (c.abs().max_element() + h.max_element()) + f64::MIN_POSITIVE;
    Aabb {
        min: c - h,
        max: c + h,
    }
    .padded(pad)
}

/// Node pairs [`any_leaf_pair`] opens on the calling thread before it starts others.
const SERIAL_OPENINGS: usize = 256;

/// Split the traversal into about this many independent tasks per thread.
const TASKS_PER_THREAD: usize = 16;

fn within(a: &Aabb, b: &Aabb, d: f64) -> bool {
    a.distance_squared(b) <= d * d
}

/// Pairs of leaves `(leaf of A, leaf of B)` whose world boxes are within `d` of each other.
pub fn leaf_pairs(ta: &Octree, ba: &[Aabb], tb: &Octree, bb: &[Aabb], d: f64) -> Vec<(u32, u32)> {
    if !within(&ba[0], &bb[0], d) {
        return Vec::new();
    }
    let (ba, bb) = (|n: usize| ba[n], |n: usize| bb[n]);
    collect_leaves(|a, b, next, leaves| expand(ta, &ba, tb, &bb, d, a, b, next, leaves))
}

/// Whether some pair of leaves within `d` satisfies `hit`, stopping as soon as one does: the
/// dual traversal of [`leaf_pairs`] walked lazily, each independent subtree depth-first on
/// rayon's threads, all of them stopped by a shared flag. Boxes come from `ba(node)` and
/// `bb(node)`, so that a query which stops early can pose only the nodes it visits.
pub fn any_leaf_pair(
    ta: &Octree,
    ba: impl Fn(usize) -> Aabb + Sync,
    tb: &Octree,
    bb: impl Fn(usize) -> Aabb + Sync,
    d: f64,
    hit: impl Fn(u32, u32) -> bool + Sync,
) -> bool {
    if !within(&ba(0), &bb(0), d) {
        return false;
    }
    // Depth first on this thread for a while: a hit is often a few openings away, where
    // starting threads would cost more than the whole search.
    let mut stack = vec![(0u32, 0u32)];
    for _ in 0..SERIAL_OPENINGS {
        let Some((a, b)) = stack.pop() else {
            return false;
        };
        let (mut next, mut leaves) = (Vec::new(), Vec::new());
        expand(ta, &ba, tb, &bb, d, a, b, &mut next, &mut leaves);
        if leaves.iter().any(|&(x, y)| hit(x, y)) {
            return true;
        }
        stack.extend(next.into_iter().rev());
    }
    // The pairs left on the stack are the rest of the search, in independent subtrees.
    let target = rayon::current_num_threads() * TASKS_PER_THREAD;
    let mut frontier = stack;
    while !frontier.is_empty() && frontier.len() < target {
        let mut next = Vec::new();
        let mut leaves = Vec::new();
        for (a, b) in frontier {
            expand(ta, &ba, tb, &bb, d, a, b, &mut next, &mut leaves);
        }
        if leaves.iter().any(|&(a, b)| hit(a, b)) {
            return true;
        }
        frontier = next;
    }
    let found = std::sync::atomic::AtomicBool::new(false);
    frontier.par_iter().any(|&(a, b)| {
        let mut stack = vec![(a, b)];
        while let Some((a, b)) = stack.pop() {
            if found.load(std::sync::atomic::Ordering::Relaxed) {
                return true;
            }
            let (mut next, mut leaves) = (Vec::new(), Vec::new());
            expand(ta, &ba, tb, &bb, d, a, b, &mut next, &mut leaves);
            if leaves.iter().any(|&(x, y)| hit(x, y)) {
                found.store(true, std::sync::atomic::Ordering::Relaxed);
                return true;
            }
            stack.extend(next.into_iter().rev());
        }
        false
    })
}

/// The driver of both traversals: open node pairs breadth-first from the roots until there is
/// enough independent work, then finish each subtree depth-first on rayon's threads and
/// concatenate the pieces in order, so the result does not depend on the thread count.
/// `expand(a, b, next, leaves)` opens one pair.
fn collect_leaves<F>(expand: F) -> Vec<(u32, u32)>
where
    F: Fn(u32, u32, &mut Vec<(u32, u32)>, &mut Vec<(u32, u32)>) + Sync,
{
    let target = rayon::current_num_threads() * TASKS_PER_THREAD;
    let mut frontier = vec![(0u32, 0u32)];
    let mut leaves = Vec::new();
    while !frontier.is_empty() && frontier.len() < target {
        let mut next = Vec::new();
        for (a, b) in frontier {
            expand(a, b, &mut next, &mut leaves);
        }
        frontier = next;
    }
    let rest: Vec<Vec<(u32, u32)>> = frontier
        .par_iter()
        .map(|&(a, b)| {
            let mut out = Vec::new();
            let mut stack = vec![(a, b)];
            while let Some((a, b)) = stack.pop() {
                let mut next = Vec::new();
                expand(a, b, &mut next, &mut out);
                stack.extend(next.into_iter().rev());
            }
            out
        })
        .collect();
    leaves.extend(rest.into_iter().flatten());
    leaves
}

/// Open the pair `(a, b)`: a pair of leaves goes to `leaves`; otherwise the larger node (or the
/// one that is not a leaf) is split and its children paired with the other node.
#[allow(clippy::too_many_arguments)]
fn expand(
    ta: &Octree,
    ba: &impl Fn(usize) -> Aabb,
    tb: &Octree,
    bb: &impl Fn(usize) -> Aabb,
    d: f64,
    a: u32,
    b: u32,
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
) {
    let (na, nb) = (&ta.nodes[a as usize], &tb.nodes[b as usize]);
    if na.is_leaf() && nb.is_leaf() {
        leaves.push((a, b));
        return;
    }
    let (box_a, box_b) = (ba(a as usize), bb(b as usize));
    let split_a = !na.is_leaf() && (nb.is_leaf() || box_a.diagonal() >= box_b.diagonal());
    if split_a {
        for c in na.children() {
            if within(&ba(c), &box_b, d) {
                next.push((c as u32, b));
            }
        }
    } else {
        for c in nb.children() {
            if within(&box_a, &bb(c), d) {
                next.push((a, c as u32));
            }
        }
    }
}

/// Pairs of leaves `(p, q)`, `p ≤ q`, of one tree whose boxes are within `d` (a leaf is paired
/// with itself).
pub fn self_leaf_pairs(t: &Octree, boxes: &[Aabb], d: f64) -> Vec<(u32, u32)> {
    collect_leaves(|a, b, next, leaves| expand_self(t, boxes, d, a, b, next, leaves))
}

fn expand_self(
    t: &Octree,
    boxes: &[Aabb],
    d: f64,
    a: u32,
    b: u32,
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
) {
    let (na, nb) = (&t.nodes[a as usize], &t.nodes[b as usize]);
    if a == b {
        if na.is_leaf() {
            leaves.push((a, a));
            return;
        }
        let kids: Vec<usize> = na.children().collect();
        for (i, &c) in kids.iter().enumerate() {
            for &e in &kids[i..] {
                if within(&boxes[c], &boxes[e], d) {
                    next.push((c as u32, e as u32));
                }
            }
        }
        return;
    }
    if na.is_leaf() && nb.is_leaf() {
        leaves.push((a.min(b), a.max(b)));
        return;
    }
    let split_a = !na.is_leaf()
        && (nb.is_leaf() || boxes[a as usize].diagonal() >= boxes[b as usize].diagonal());
    let (split, keep) = if split_a { (na, b) } else { (nb, a) };
    for c in split.children() {
        if within(&boxes[c], &boxes[keep as usize], d) {
            next.push((c as u32, keep));
        }
    }
}
