//! A bounding volume hierarchy over a mesh's triangles, for the one-against-many queries (rays,
//! nearest points). The octree ([`crate::octree`]) is built for pairs of meshes and for the GPU's
//! leaf lanes: eight children split at a centre, leaves of eight. A ray or a nearest-point search
//! wants the opposite: two children whose boxes overlap as little as possible, and small leaves,
//! since every triangle reached costs exact predicates. So this tree is binary, split by the
//! surface area heuristic over binned centroids (Wald, "On fast construction of SAH-based
//! bounding volume hierarchies", 2007), with leaves of at most [`LEAF_MAX`] triangles.
//!
//! Flat, depth-first, the root first: an inner node's two children are side by side at `index`
//! and `index + 1` (a walk reads both, in one cache line or two adjacent ones). A leaf's
//! triangles are `tris[index .. index + count]` ("slots"). Boxes are in the mesh's own
//! coordinates, in `f32`: the vertices are `f32`, so a box of them is exact.

use crate::geom::{Aabb, DVec3};
use crate::mesh::Mesh;
use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

/// Triangles per leaf, at most.
pub const LEAF_MAX: usize = 4;
/// Levels split by the heuristic; below them, splits halve by index, so no tree is deeper than
/// this plus 30 levels (2^32 triangles), and a walk's stack of [`STACK`] never overflows.
const SAH_LEVELS: usize = 64;
/// A walk's stack: one pending node per level at most.
pub const STACK: usize = SAH_LEVELS + 40;
/// Centroid bins per axis.
const BINS: usize = 16;
/// Subtrees of this many triangles and more are built on rayon's threads.
const PARALLEL_BUILD: usize = 16_384;

/// One node: its box, and either its children (an inner node, `count == 0`) or its slots.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BvhNode {
    pub min: [f32; 3],
    /// Inner node: its first child (the second is the next node). Leaf: its first slot.
    pub index: u32,
    pub max: [f32; 3],
    /// A leaf's triangles (1 to [`LEAF_MAX`]); 0 for an inner node.
    pub count: u32,
}

impl BvhNode {
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }

    pub fn aabb(&self) -> Aabb {
        let d = |v: [f32; 3]| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64);
        Aabb {
            min: d(self.min),
            max: d(self.max),
        }
    }

    /// A leaf's slots.
    pub fn slots(&self) -> std::ops::Range<usize> {
        self.index as usize..(self.index + self.count) as usize
    }
}

/// The hierarchy: nodes depth-first (the root first), and the triangle in each slot.
#[derive(Clone, Debug, Default)]
pub struct Bvh {
    pub nodes: Vec<BvhNode>,
    pub tris: Vec<u32>,
    /// Levels, counted once when built (every GPU batch checks it against its stack).
    depth: usize,
}

/// A triangle being placed: its box and index.
#[derive(Clone, Copy)]
struct Item {
    lo: DVec3,
    hi: DVec3,
    tri: u32,
}

impl Item {
    /// Twice the box's centre: what the bins sort by (halving changes nothing).
    fn key(&self) -> DVec3 {
        self.lo + self.hi
    }
}

impl Bvh {
    /// Build over every triangle of `mesh` (zero-area ones included: a ray or a point can meet
    /// a segment's worth of triangle, and the exact tests decide).
    pub fn build(mesh: &Mesh) -> Bvh {
        if mesh.triangles.is_empty() {
            // No nodes: a root of count 0 would read as an inner node whose children are
            // itself.
            return Bvh::default();
        }
        let mut items: Vec<Item> = mesh
            .triangles
            .par_iter()
            .enumerate()
            .map(|(i, t)| {
                let b = Aabb::from_points(t.iter().map(|&v| mesh.vertex(v)));
                Item {
                    lo: b.min,
                    hi: b.max,
                    tri: i as u32,
                }
            })
            .collect();
        let nodes = subtree(&mut items, 0, 0);
        Bvh {
            depth: levels(&nodes),
            nodes,
            tris: items.iter().map(|it| it.tri).collect(),
        }
    }

    /// The slots each node covers: a subtree's leaves are consecutive, so its slots are one
    /// range, from its first leaf's first slot to its last leaf's last.
    pub fn slot_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let mut ranges = vec![0..0; self.nodes.len()];
        // Children come after their parent, so a backward pass sees them first.
        for n in (0..self.nodes.len()).rev() {
            let node = &self.nodes[n];
            ranges[n] = if node.is_leaf() {
                node.slots()
            } else {
                let c = node.index as usize;
                ranges[c].start..ranges[c + 1].end
            };
        }
        ranges
    }

    /// The number of levels (the root's included).
    pub fn depth(&self) -> usize {
        self.depth
    }
}

/// The levels of the tree `nodes` (0 when empty).
fn levels(nodes: &[BvhNode]) -> usize {
    fn below(nodes: &[BvhNode], n: usize) -> usize {
        let node = &nodes[n];
        if node.is_leaf() {
            1
        } else {
            let c = node.index as usize;
            1 + below(nodes, c).max(below(nodes, c + 1))
        }
    }
    if nodes.is_empty() {
        0
    } else {
        below(nodes, 0)
    }
}

/// The nodes of the subtree over `items` (whose first slot is `first`), its root first,
/// indices relative to it.
fn subtree(items: &mut [Item], first: usize, level: usize) -> Vec<BvhNode> {
    let mut out = Vec::with_capacity(items.len());
    out.push(BvhNode::zeroed());
    grow(items, first, level, &mut out, 0);
    out
}

/// Fill `out[me]` with the node over `items` and append its subtree, depth-first, each node's
/// two children side by side (one cache line between them: a walk reads both). Large halves
/// are built in parallel and their nodes moved in, their indices shifted by where they land.
fn grow(items: &mut [Item], first: usize, level: usize, out: &mut Vec<BvhNode>, me: usize) {
    let bounds = items.iter().fold(Aabb::EMPTY, |b, it| Aabb {
        min: b.min.min(it.lo),
        max: b.max.max(it.hi),
    });
    out[me] = node(&bounds, first as u32, items.len() as u32);
    let Some(mid) = split(items, &bounds, level) else {
        return;
    };
    let children = out.len();
    out.extend([BvhNode::zeroed(); 2]);
    out[me].index = children as u32;
    out[me].count = 0;
    let (left, right) = items.split_at_mut(mid);
    if left.len() + right.len() >= PARALLEL_BUILD {
        let (l, r) = rayon::join(
            || subtree(left, first, level + 1),
            || subtree(right, first + mid, level + 1),
        );
        place(out, l, children);
        place(out, r, children + 1);
    } else {
        grow(left, first, level + 1, out, children);
        grow(right, first + mid, level + 1, out, children + 1);
    }
}

/// Put a subtree built apart into `out`: its root at `at`, the rest appended, every inner
/// node's index shifted to where its children land.
fn place(out: &mut Vec<BvhNode>, nodes: Vec<BvhNode>, at: usize) {
    // Node j > 0 of the subtree lands at base + j - 1.
    let base = out.len() as u32;
    let shift = |mut n: BvhNode| {
        if !n.is_leaf() {
            n.index = base + n.index - 1;
        }
        n
    };
    let mut nodes = nodes.into_iter();
    if let Some(root) = nodes.next() {
        out[at] = shift(root);
    }
    out.extend(nodes.map(shift));
}

/// A node over `bounds`, as a leaf of `count` slots from `first` (made inner by the caller).
fn node(bounds: &Aabb, first: u32, count: u32) -> BvhNode {
    // Exact: every coordinate is an f32 vertex's.
    let f = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32];
    BvhNode {
        min: f(bounds.min),
        index: first,
        max: f(bounds.max),
        count,
    }
}

/// Half a box's surface area (what the heuristic weighs a child by).
pub(crate) fn half_area(b: &Aabb) -> f64 {
    let e = (b.max - b.min).max(DVec3::ZERO);
    e.x * e.y + e.y * e.z + e.z * e.x
}

/// Reorder `items` into two halves and say where the second starts, or `None` for a leaf.
fn split(items: &mut [Item], bounds: &Aabb, level: usize) -> Option<usize> {
    let n = items.len();
    if n <= 1 {
        return None;
    }
    if level >= SAH_LEVELS {
        return (n > LEAF_MAX).then_some(n / 2);
    }
    let Some((axis, bin, cost)) = best_bin(items) else {
        // Every centroid the same: by index, while a leaf would be too large.
        return (n > LEAF_MAX).then_some(n / 2);
    };
    // Costs in units of one triangle test, a node's box test counted as one.
    let leaf_cost = n as f64;
    if n <= LEAF_MAX && 1.0 + cost / half_area(bounds).max(f64::MIN_POSITIVE) >= leaf_cost {
        return None;
    }
    let (lo, scale) = bin_scale(items, axis);
    let mid = partition(items, |it| bin_of(it.key()[axis], lo, scale) <= bin);
    if mid == 0 || mid == n {
        return (n > LEAF_MAX).then_some(n / 2);
    }
    Some(mid)
}

/// The low end of the centroids' range on `axis` and the factor that maps it onto the bins.
fn bin_scale(items: &[Item], axis: usize) -> (f64, f64) {
    let (lo, hi) = items
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), it| {
            let k = it.key()[axis];
            (l.min(k), h.max(k))
        });
    (lo, BINS as f64 * (1.0 - 1e-9) / (hi - lo))
}

fn bin_of(k: f64, lo: f64, scale: f64) -> usize {
    (((k - lo) * scale) as usize).min(BINS - 1)
}

/// The axis and last bin of the cheapest split (bins up to it go first), with its cost: the
/// sum over both halves of half-area times triangles. `None` where no axis has a spread.
fn best_bin(items: &[Item]) -> Option<(usize, usize, f64)> {
    let mut best: Option<(usize, usize, f64)> = None;
    for axis in 0..3 {
        let (lo, scale) = bin_scale(items, axis);
        if !scale.is_finite() {
            continue; // no spread on this axis
        }
        let mut bins = [(0usize, Aabb::EMPTY); BINS];
        for it in items {
            let b = &mut bins[bin_of(it.key()[axis], lo, scale)];
            b.0 += 1;
            b.1 = b.1.union(&Aabb {
                min: it.lo,
                max: it.hi,
            });
        }
        // Right-hand sums from the far end, then a sweep from the near end.
        let mut right = [0.0; BINS];
        let (mut count, mut bx) = (0, Aabb::EMPTY);
        for i in (1..BINS).rev() {
            count += bins[i].0;
            bx = bx.union(&bins[i].1);
            right[i] = if count > 0 {
                half_area(&bx) * count as f64
            } else {
                0.0
            };
        }
        let (mut count, mut bx) = (0, Aabb::EMPTY);
        for i in 0..BINS - 1 {
            count += bins[i].0;
            bx = bx.union(&bins[i].1);
            if count == 0 || count == items.len() {
                continue;
            }
            let cost = half_area(&bx) * count as f64 + right[i + 1];
            if best.is_none_or(|b| cost < b.2) {
                best = Some((axis, i, cost));
            }
        }
    }
    best
}

/// Move the items for which `first` holds to the front; how many there are.
fn partition(items: &mut [Item], first: impl Fn(&Item) -> bool) -> usize {
    let mut mid = 0;
    for i in 0..items.len() {
        if first(&items[i]) {
            items.swap(i, mid);
            mid += 1;
        }
    }
    mid
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    /// Every triangle in one slot; every node's box holds its children's and its triangles';
    /// leaves within the size limit; the depth within the stack.
    fn assert_well_formed(mesh: &Mesh, bvh: &Bvh) {
        let mut seen = bvh.tris.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..mesh.triangles.len() as u32).collect::<Vec<_>>());
        let within = |inner: &Aabb, outer: &Aabb| {
            inner.min.cmpge(outer.min).all() && inner.max.cmple(outer.max).all()
        };
        for (i, n) in bvh.nodes.iter().enumerate() {
            let b = n.aabb();
            if n.is_leaf() {
                assert!(n.count as usize <= LEAF_MAX);
                for &t in &bvh.tris[n.slots()] {
                    let tb = Aabb::from_points(mesh.triangles[t as usize].map(|v| mesh.vertex(v)));
                    assert!(within(&tb, &b));
                }
            } else {
                let c = n.index as usize;
                assert!(c > i && c + 1 < bvh.nodes.len());
                assert!(within(&bvh.nodes[c].aabb(), &b));
                assert!(within(&bvh.nodes[c + 1].aabb(), &b));
            }
        }
        assert!(bvh.depth() <= STACK);
    }

    #[test]
    fn well_formed_on_generated_meshes() {
        for mesh in [
            generate::torus(2.0, 0.5, 200, 100), // 40 000: built in parallel
            generate::sphere(1.0, 3, 6),
        ] {
            let bvh = Bvh::build(&mesh);
            assert_well_formed(&mesh, &bvh);
        }
    }

    #[test]
    fn identical_triangles_split_by_index() {
        // 100 copies of one triangle: no centroid spread, so leaves by index, every one kept.
        let tri = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let soup: Vec<_> = (0..100).map(|_| tri).collect();
        let mesh = Mesh::from_soup("copies", soup).unwrap();
        // Welding merged the vertices, not the triangles.
        assert_eq!(mesh.triangles.len(), 100);
        let bvh = Bvh::build(&mesh);
        assert_well_formed(&mesh, &bvh);
        assert!(bvh.depth() <= 7);
    }
}
