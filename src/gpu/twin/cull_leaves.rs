//! Twin of `shaders/cull_leaves.wgsl`: each leaf of A in the chunk walks B's octree by the
//! nodes' escapes, as the shader does, and lists the leaves of B within reach.

use super::common::{box_box_gap, box_into_b, leaf_range};
use crate::gpu::layout::{LeafPair, Query, MODE_SELF};
use crate::octree::{OctreeNode, NO_CHILD};

/// `cull_leaves.wgsl::main` for every node of A, unbounded (no pauses, no capacity): the leaf
/// pairs `[lo, hi − lo, tri_start, tri_count]`, by positions of the parts' octree order. The
/// GPU lists them in no particular order: compare as sets.
pub fn leaf_pairs(q: &Query, nodes_a: &[OctreeNode], nodes_b: &[OctreeNode]) -> Vec<LeafPair> {
    let mut out = Vec::new();
    for leaf in nodes_a {
        let (lo, hi) = leaf_range(leaf, q.chunk_start, q.chunk_end);
        if lo >= hi {
            continue;
        }
        let bx = box_into_b(q, leaf);
        let reach = q.tol[0] + q.tol[1];
        let mut at = 0u32;
        while at != NO_CHILD {
            let node = &nodes_b[at as usize];
            // Self: a subtree wholly before A's triangles holds no pair (i, j) with j > i.
            if q.mode == MODE_SELF && node.tri_start + node.tri_count <= lo {
                at = node.escape;
                continue;
            }
            let g = box_box_gap(node, &bx);
            if g.dot(g) > reach * reach {
                at = node.escape;
                continue;
            }
            if node.first_child != NO_CHILD {
                at = node.first_child;
                continue;
            }
            out.push([lo, hi - lo, node.tri_start, node.tri_count]);
            at = node.escape;
        }
    }
    out
}
