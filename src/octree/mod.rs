//! A flattened octree over a mesh's triangles: nodes in one array, triangle indices in another,
//! no pointers, so the GPU can traverse the very arrays the CPU does (Nathan (2015): "octree search
//! instead of O(N) scans").
//!
//! Each node splits its triangles into eight octants by centroid around the centre of their
//! centroids' box; a node's bounds are the box of its triangles themselves (tighter than the box
//! of their bounding spheres, and just as conservative), rounded outward to `f32`. Leaves hold
//! up to [`LEAF_SIZE`] triangles; the seed's bounding-sphere test is applied per triangle pair
//! inside a pair of leaves. Triangles that position cannot split (identical centroids, or the
//! depth limit reached) are split by index instead, into runs of consecutive triangles.

mod traverse;

pub use traverse::{any_leaf_pair, leaf_pairs, self_leaf_pairs, world_box};

use crate::geom::{centroid, Aabb, DVec3};
use crate::mesh::Mesh;
use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

/// Triangles per leaf, at most, always: the GPU cull gives each of a leaf's triangles a lane of
/// its own (`cull_pairs.wgsl`, `LEAF_THREADS`).
pub const LEAF_SIZE: usize = 8;
/// Depth of the splits by position; splits by index may go [`INDEX_LEVELS`] deeper.
const MAX_DEPTH: u32 = 24;
/// Splits by index of at most eight runs each bring 2^32 triangles down to leaves of
/// [`LEAF_SIZE`] in this many levels.
pub const INDEX_LEVELS: u32 = 10;
/// Levels of the tree, at most (the root's included): what the GPU's traversal stacks are sized
/// for (`common.wgsl::STACK`).
pub const MAX_LEVELS: u32 = MAX_DEPTH + INDEX_LEVELS + 1;
/// `first_child` of a leaf.
pub const NO_CHILD: u32 = u32::MAX;

/// One node. WGSL twin: `struct OctreeNode` in `shaders/common.wgsl` (checked by
/// `tests/layout.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct OctreeNode {
    /// Box of the node's triangles, in the mesh's own coordinates, rounded outward.
    pub min: [f32; 3],
    /// Index of the first child; children are contiguous. [`NO_CHILD`] for a leaf.
    pub first_child: u32,
    pub max: [f32; 3],
    pub child_count: u32,
    /// The node's triangles are `tri_index[tri_start .. tri_start + tri_count]` (for inner nodes
    /// too: a node's range covers its whole subtree).
    pub tri_start: u32,
    pub tri_count: u32,
    /// The node a depth-first walk visits after this one's subtree (its next sibling, or its
    /// parent's escape): [`NO_CHILD`] past the last. The GPU walks without a stack with it.
    pub escape: u32,
    pub _pad: u32,
}

impl OctreeNode {
    pub fn is_leaf(&self) -> bool {
        self.first_child == NO_CHILD
    }

    pub fn aabb(&self) -> Aabb {
        Aabb {
            min: DVec3::new(self.min[0] as f64, self.min[1] as f64, self.min[2] as f64),
            max: DVec3::new(self.max[0] as f64, self.max[1] as f64, self.max[2] as f64),
        }
    }

    pub fn children(&self) -> std::ops::Range<usize> {
        if self.is_leaf() {
            0..0
        } else {
            self.first_child as usize..(self.first_child + self.child_count) as usize
        }
    }

    pub fn tris(&self) -> std::ops::Range<usize> {
        self.tri_start as usize..(self.tri_start + self.tri_count) as usize
    }
}

/// Subtrees with more triangles than this are built in parallel.
const PARALLEL_MIN: usize = 16_384;

/// The subtree over `tris` (which start at `start` in the whole index), its root first and its
/// child indices relative to its own node vector. Sorts `tris` into octant order in place.
fn build_subtree(
    boxes: &[Aabb],
    centroids: &[DVec3],
    tris: &mut [u32],
    start: usize,
    depth: u32,
) -> Vec<OctreeNode> {
    let bounds = tris
        .iter()
        .fold(Aabb::EMPTY, |b, &t| b.union(&boxes[t as usize]));
    let cbox = Aabb::from_points(tris.iter().map(|&t| centroids[t as usize]));
    let root = OctreeNode {
        min: bounds.min.to_array().map(down),
        max: bounds.max.to_array().map(up),
        first_child: NO_CHILD,
        child_count: 0,
        tri_start: start as u32,
        tri_count: tris.len() as u32,
        escape: NO_CHILD,
        _pad: 0,
    };
    if tris.len() <= LEAF_SIZE {
        return vec![root];
    }
    let counts: Vec<usize> = if depth >= MAX_DEPTH || cbox.min == cbox.max {
        // Position cannot split them: up to eight runs of consecutive triangles, as even as
        // can be, in their order (a leaf's triangles stay in index order).
        let (n, k) = (tris.len(), tris.len().div_ceil(LEAF_SIZE).min(8));
        (0..k).map(|i| n * (i + 1) / k - n * i / k).collect()
    } else {
        partition_by_octant(centroids, tris, cbox.center()).to_vec()
    };
    // Disjoint slices, one per non-empty octant or run, with their offsets in the whole index.
    let mut slices: Vec<(&mut [u32], usize)> = Vec::with_capacity(8);
    let mut rest = tris;
    let mut at = start;
    for &count in counts.iter().filter(|&&k| k > 0) {
        let (head, tail) = rest.split_at_mut(count);
        slices.push((head, at));
        at += count;
        rest = tail;
    }
    let build = |(s, at): (&mut [u32], usize)| build_subtree(boxes, centroids, s, at, depth + 1);
    let subs: Vec<Vec<OctreeNode>> = if at - start > PARALLEL_MIN {
        slices.into_par_iter().map(build).collect()
    } else {
        slices.into_iter().map(build).collect()
    };
    splice(root, subs)
}

/// Reorders `tris` by the octant of their centroids about `c`: the triangle count per octant.
fn partition_by_octant(centroids: &[DVec3], tris: &mut [u32], c: DVec3) -> [usize; 8] {
    let octant = |t: u32| {
        let p = centroids[t as usize];
        (p.x > c.x) as usize | ((p.y > c.y) as usize) << 1 | ((p.z > c.z) as usize) << 2
    };
    // A stable partition by octant: `tris` arrive in increasing order (the root's 0..n,
    // and each partition keeps it), so this is the sort by (octant, index) in linear time.
    let octants: Vec<u8> = tris.iter().map(|&t| octant(t) as u8).collect();
    let mut counts = [0usize; 8];
    for &o in &octants {
        counts[o as usize] += 1;
    }
    let mut next = [0usize; 8];
    for o in 1..8 {
        next[o] = next[o - 1] + counts[o - 1];
    }
    let mut sorted = vec![0u32; tris.len()];
    for (&t, &o) in tris.iter().zip(&octants) {
        sorted[next[o as usize]] = t;
        next[o as usize] += 1;
    }
    tris.copy_from_slice(&sorted);
    counts
}

/// This root, then the children's roots side by side (children are contiguous), then each
/// child's remaining nodes; a child's node i > 0 lands at its offset + i - 1.
fn splice(mut root: OctreeNode, subs: Vec<Vec<OctreeNode>>) -> Vec<OctreeNode> {
    let k = subs.len();
    let mut offsets = Vec::with_capacity(k);
    let mut next = 1 + k;
    for sub in &subs {
        offsets.push(next);
        next += sub.len() - 1;
    }
    let remap = |n: &OctreeNode, off: usize| OctreeNode {
        first_child: if n.is_leaf() {
            NO_CHILD
        } else {
            (off + n.first_child as usize - 1) as u32
        },
        ..*n
    };
    root.first_child = 1;
    root.child_count = k as u32;
    let mut nodes = Vec::with_capacity(next);
    nodes.push(root);
    nodes.extend(
        subs.iter()
            .zip(&offsets)
            .map(|(sub, &off)| remap(&sub[0], off)),
    );
    for (sub, &off) in subs.iter().zip(&offsets) {
        nodes.extend(sub[1..].iter().map(|n| remap(n, off)));
    }
    nodes
}

/// The flattened octree: node 0 is the root.
#[derive(Clone, Debug)]
pub struct Octree {
    pub nodes: Vec<OctreeNode>,
    pub tri_index: Vec<u32>,
    /// Per node, the smallest triangle index in its subtree: the distance search breaks ties
    /// by index, and a node pair whose smallest pair of indices cannot win a tie is passed
    /// over without visiting it (parts so far apart that every distance rounds alike).
    pub min_tri: Vec<u32>,
}

/// `x` rounded down to `f32`.
pub(crate) fn down(x: f64) -> f32 {
    let f = x as f32;
    if f as f64 > x {
        f.next_down()
    } else {
        f
    }
}

/// `x` rounded up to `f32`.
pub(crate) fn up(x: f64) -> f32 {
    let f = x as f32;
    if (f as f64) < x {
        f.next_up()
    } else {
        f
    }
}

impl Octree {
    /// Build over all of `mesh`'s triangles. Subtrees of more than [`PARALLEL_MIN`] triangles are
    /// built on rayon's threads over disjoint slices of the index; the result is the same for
    /// any thread count.
    pub fn build(mesh: &Mesh) -> Octree {
        let n = mesh.triangles.len();
        let (boxes, centroids): (Vec<Aabb>, Vec<DVec3>) = (0..n)
            .into_par_iter()
            .map(|i| {
                let t = mesh.triangle(i);
                (Aabb::from_points(t), centroid(&t))
            })
            .unzip();
        let mut tri_index: Vec<u32> = (0..n as u32).collect();
        let mut nodes = build_subtree(&boxes, &centroids, &mut tri_index, 0, 0);
        // Parents come before their children, so their escapes are set first.
        for n in 0..nodes.len() {
            let (escape, first) = (nodes[n].escape, nodes[n].first_child as usize);
            for c in nodes[n].children() {
                nodes[c].escape = if c + 1 < first + nodes[n].child_count as usize {
                    c as u32 + 1
                } else {
                    escape
                };
            }
        }
        // Children come after their parents: from the last node back, each parent's minimum
        // is its children's, a leaf's its own triangles'.
        let mut min_tri = vec![u32::MAX; nodes.len()];
        for n in (0..nodes.len()).rev() {
            let node = &nodes[n];
            min_tri[n] = if node.is_leaf() {
                tri_index[node.tris()]
                    .iter()
                    .copied()
                    .min()
                    .unwrap_or(u32::MAX)
            } else {
                node.children()
                    .map(|c| min_tri[c])
                    .min()
                    .unwrap_or(u32::MAX)
            };
        }
        Octree {
            nodes,
            tri_index,
            min_tri,
        }
    }

    pub fn depth(&self) -> usize {
        fn d(t: &Octree, i: usize) -> usize {
            1 + t.nodes[i].children().map(|c| d(t, c)).max().unwrap_or(0)
        }
        d(self, 0)
    }

    /// Panics with a description if the tree is malformed: every triangle in exactly one leaf,
    /// each leaf in index order, children contiguous and inside their parent's range, bounds
    /// containing every triangle. For tests; cheap enough to run after every build there.
    pub fn assert_well_formed(&self, mesh: &Mesh) {
        let mut seen = vec![0u32; mesh.triangles.len()];
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            let nd = &self.nodes[i];
            let b = nd.aabb();
            for &t in &self.tri_index[nd.tris()] {
                for p in mesh.triangle(t as usize) {
                    assert!(
                        p.cmpge(b.min).all() && p.cmple(b.max).all(),
                        "node {i}: triangle {t} outside its bounds"
                    );
                }
            }
            if nd.is_leaf() {
                assert!(
                    nd.tri_count as usize <= LEAF_SIZE,
                    "node {i}: a leaf of {} triangles",
                    nd.tri_count
                );
                let tris = &self.tri_index[nd.tris()];
                // The layout promised to both backends: a leaf's triangles in index order.
                assert!(
                    tris.windows(2).all(|w| w[0] < w[1]),
                    "node {i}: leaf not in index order"
                );
                for &t in tris {
                    seen[t as usize] += 1;
                }
            } else {
                let mut next = nd.tri_start;
                for c in nd.children() {
                    let ch = &self.nodes[c];
                    assert_eq!(
                        ch.tri_start, next,
                        "node {i}: child {c} range not contiguous"
                    );
                    assert!(ch.tri_count > 0, "node {i}: empty child {c}");
                    next += ch.tri_count;
                    stack.push(c);
                }
                assert_eq!(
                    next,
                    nd.tri_start + nd.tri_count,
                    "node {i}: children do not cover it"
                );
            }
        }
        assert!(
            seen.iter().all(|&s| s == 1),
            "a triangle is not in exactly one leaf"
        );
        // Escapes: in the depth-first order of the children, a node's escape is the node that
        // follows its whole subtree.
        fn preorder(t: &Octree, i: usize, out: &mut Vec<(usize, usize)>) {
            let at = out.len();
            out.push((i, 0));
            for c in t.nodes[i].children() {
                preorder(t, c, out);
            }
            out[at].1 = out.len() - at; // the subtree's size
        }
        let mut order = Vec::with_capacity(self.nodes.len());
        preorder(self, 0, &mut order);
        for (at, &(i, size)) in order.iter().enumerate() {
            let after = order.get(at + size).map_or(NO_CHILD, |&(j, _)| j as u32);
            assert_eq!(self.nodes[i].escape, after, "node {i}: escape");
        }
    }
}
