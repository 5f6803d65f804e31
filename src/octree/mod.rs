//! A flattened octree over a mesh's triangles: nodes in one array, triangle indices in another,
//! no pointers, so the GPU can traverse the very arrays the CPU does (seed 000: "octree search
//! instead of O(N) scans").
//!
//! Each node splits its triangles into eight octants by centroid around the centre of their
//! centroids' box; a node's bounds are the box of its triangles themselves (tighter than the box
//! of their bounding spheres, and just as conservative), rounded outward to `f32`. Leaves hold
//! up to [`LEAF_SIZE`] triangles; the seed's bounding-sphere test is applied per triangle pair
//! inside a pair of leaves.

mod traverse;

pub use traverse::{any_leaf_pair, leaf_pairs, self_leaf_pairs, world_boxes};

use crate::geom::{Aabb, DVec3};
use crate::mesh::Mesh;
use bytemuck::{Pod, Zeroable};

/// Triangles per leaf, at most (unless they cannot be split: identical centroids, or depth).
pub const LEAF_SIZE: usize = 8;
const MAX_DEPTH: u32 = 24;
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
    pub _pad: [u32; 2],
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

/// The flattened octree: node 0 is the root.
#[derive(Clone, Debug)]
pub struct Octree {
    pub nodes: Vec<OctreeNode>,
    pub tri_index: Vec<u32>,
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
    pub fn build(mesh: &Mesh) -> Octree {
        let n = mesh.triangles.len();
        let boxes: Vec<Aabb> = (0..n)
            .map(|i| Aabb::from_points(mesh.triangle(i)))
            .collect();
        let centroids: Vec<DVec3> = (0..n)
            .map(|i| {
                let t = mesh.triangle(i);
                (t[0] + t[1] + t[2]) / 3.0
            })
            .collect();
        let mut tree = Octree {
            nodes: vec![OctreeNode::zeroed()],
            tri_index: (0..n as u32).collect(),
        };
        // Explicit stack of (node, depth); children are allocated together when a node splits.
        let mut stack = vec![(0usize, 0u32, 0usize, n)];
        while let Some((node, depth, start, end)) = stack.pop() {
            let range = &mut tree.tri_index[start..end];
            let bounds = range
                .iter()
                .fold(Aabb::EMPTY, |b, &t| b.union(&boxes[t as usize]));
            let cbox = Aabb::from_points(range.iter().map(|&t| centroids[t as usize]));
            let mut nd = OctreeNode {
                min: bounds.min.to_array().map(down),
                max: bounds.max.to_array().map(up),
                first_child: NO_CHILD,
                child_count: 0,
                tri_start: start as u32,
                tri_count: (end - start) as u32,
                _pad: [0; 2],
            };
            let splittable = cbox.min != cbox.max;
            if end - start > LEAF_SIZE && depth < MAX_DEPTH && splittable {
                let c = cbox.center();
                let octant = |t: u32| {
                    let p = centroids[t as usize];
                    (p.x > c.x) as usize | ((p.y > c.y) as usize) << 1 | ((p.z > c.z) as usize) << 2
                };
                range.sort_unstable_by_key(|&t| (octant(t), t));
                let mut counts = [0usize; 8];
                for &t in range.iter() {
                    counts[octant(t)] += 1;
                }
                let first = tree.nodes.len();
                let mut s = start;
                for &count in counts.iter().filter(|&&c| c > 0) {
                    let child = tree.nodes.len();
                    tree.nodes.push(OctreeNode::zeroed());
                    stack.push((child, depth + 1, s, s + count));
                    s += count;
                }
                nd.first_child = first as u32;
                nd.child_count = (tree.nodes.len() - first) as u32;
            }
            tree.nodes[node] = nd;
        }
        tree
    }

    pub fn depth(&self) -> usize {
        fn d(t: &Octree, i: usize) -> usize {
            1 + t.nodes[i].children().map(|c| d(t, c)).max().unwrap_or(0)
        }
        d(self, 0)
    }

    /// Panics with a description if the tree is malformed: every triangle in exactly one leaf,
    /// children contiguous and inside their parent's range, bounds containing every triangle.
    /// For tests; cheap enough to run after every build there.
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
                for &t in &self.tri_index[nd.tris()] {
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
    }
}
