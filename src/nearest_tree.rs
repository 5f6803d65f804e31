//! The tree a batch of nearest-point searches walks on the CPU: the hierarchy's oriented boxes
//! ([`crate::obb`]) four to a node, in `f32` and one array per coordinate so that a point's
//! bounds to all four are computed at once in SIMD lanes. The binary search
//! ([`crate::query::closest_point`]) spends two thirds of its time opening nodes one box pair
//! at a time, about 58 of them a point far from igea's surface; here a step takes four boxes,
//! and half as many steps reach a leaf.
//!
//! The boxes are the binary hierarchy's own (each node's children found by opening, from the
//! binary node it stands for, the inner child of largest area while there is room: Wald et
//! al., "Getting rid of packets", 2008), and its leaves are the binary leaves: a search here
//! prunes only what a lower bound proves farther than the best so far, as there, so it gives
//! the same answer.
//!
//! Each box is rounded to `f32` relative to an origin near the mesh and grown to cover that
//! ([`crate::obb::Obb::rounded`]); the bounds are computed in `f32` from those values, less a
//! margin for that arithmetic, and shrunk for the `f32` axes' departure from orthonormal.

use crate::bvh::{half_area, Bvh, BvhNode};
use crate::geom::DVec3;
use crate::obb::{Obb, Obb32, Oriented};
use crate::wide::{push_entered, up, Pending, Pendings};
use smallvec::SmallVec;

/// Children a node holds at most.
const WIDTH: usize = 4;

/// Four children: their boxes, one array per coordinate (lanes side by side), and where each
/// leads. Five cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Node {
    center: [[f32; WIDTH]; 3],
    /// `axes[k][j]`: component `j` of axis `k`.
    axes: [[[f32; WIDTH]; 3]; 3],
    half: [[f32; WIDTH]; 3],
    /// An inner child's node, or a leaf child's first slot.
    first: [u32; WIDTH],
    /// A leaf child's slots; 0 for an inner child.
    count: [u32; WIDTH],
    /// The children present, a bit each.
    present: u32,
}

impl Node {
    const EMPTY: Node = Node {
        center: [[0.0; WIDTH]; 3],
        axes: [[[0.0; WIDTH]; 3]; 3],
        half: [[0.0; WIDTH]; 3],
        first: [0; WIDTH],
        count: [0; WIDTH],
        present: 0,
    };

    /// Child `lane`: box `b`, each half-extent grown by [`GROWTH`] of itself and of the
    /// centre's magnitude (the part of a bound's `f32` error that is the box's), and where it
    /// leads.
    fn set(&mut self, lane: usize, b: &Obb32, first: u32, count: u32) {
        let centre: f64 = b.center.iter().map(|&c| (c as f64).abs()).sum();
        for k in 0..3 {
            let h = b.half[k] as f64;
            self.center[k][lane] = b.center[k];
            self.half[k][lane] = up(h + GROWTH * (centre + h));
            for j in 0..3 {
                self.axes[k][j][lane] = b.axes[k][j];
            }
        }
        self.first[lane] = first;
        self.count[lane] = count;
        self.present |= 1 << lane;
    }
}

/// The tree, its boxes relative to `origin`.
pub struct NearestTree {
    nodes: Vec<Node>,
    origin: DVec3,
    /// The largest coordinate of the mesh's box relative to `origin`.
    reach: f64,
}

impl NearestTree {
    /// The tree over `bvh`'s nodes and their `oriented` boxes.
    pub fn build(bvh: &Bvh, oriented: &Oriented) -> NearestTree {
        let whole = bvh.nodes.first().map(|n| n.aabb());
        let origin = whole.map_or(DVec3::ZERO, |b| b.center().as_vec3().as_dvec3());
        let reach = whole.map_or(0.0, |b| {
            (b.min - origin)
                .abs()
                .max((b.max - origin).abs())
                .max_element()
        });
        let mut tree = NearestTree {
            nodes: Vec::with_capacity(bvh.nodes.len() / 3 + 1),
            origin,
            reach,
        };
        if let Some(root) = bvh.nodes.first() {
            tree.nodes.push(Node::EMPTY);
            if root.is_leaf() {
                let b = oriented.boxes[0].rounded(origin);
                tree.nodes[0].set(0, &b, root.index, root.count);
            } else {
                tree.regroup(&bvh.nodes, &oriented.boxes, 0, 0);
            }
        }
        tree
    }

    /// Lay out the children of inner node `nodes[n]` (and those below them) into
    /// `self.nodes[at]`, opening inner children of largest area while there is room; each
    /// child's box rounded as it is laid out (every box is a child once).
    fn regroup(&mut self, nodes: &[BvhNode], boxes: &[Obb], n: usize, at: usize) {
        let first = nodes[n].index as usize;
        let mut kids: SmallVec<[usize; WIDTH]> = SmallVec::from_slice(&[first, first + 1]);
        while kids.len() < WIDTH {
            let area = |k: usize| half_area(&nodes[k].aabb());
            let inner = (0..kids.len())
                .filter(|&i| !nodes[kids[i]].is_leaf())
                .max_by(|&i, &j| area(kids[i]).total_cmp(&area(kids[j])));
            let Some(i) = inner else { break };
            let c = nodes[kids[i]].index as usize;
            kids[i] = c;
            kids.push(c + 1);
        }
        for (lane, &k) in kids.iter().enumerate() {
            let b = &boxes[k].rounded(self.origin);
            if nodes[k].is_leaf() {
                self.nodes[at].set(lane, b, nodes[k].index, nodes[k].count);
            } else {
                let child = self.nodes.len();
                self.nodes.push(Node::EMPTY);
                self.nodes[at].set(lane, b, child as u32, 0);
                self.regroup(nodes, boxes, k, child);
            }
        }
    }

    /// The leaves whose boxes may hold a point within `sqrt(bound)` of `p` (the mesh's own
    /// coordinates, carried there within `pad` of the exact point), nearest box first, given to
    /// `visit` by their slots; `visit` answers the squared distance the search must still
    /// reach within (the nearest so far, or `bound`): a box whose lower bound exceeds it is
    /// passed over, as [`crate::query::closest_point`]'s binary search passes nodes over.
    /// `false` where the bounds cannot be computed in `f32` ([`NearestTree::point`]), or the
    /// boxes kept for later overflow [`crate::wide::Pendings`]: the caller searches another way.
    pub fn search(
        &self,
        p: DVec3,
        pad: f64,
        mut bound: f64,
        mut visit: impl FnMut(std::ops::Range<usize>) -> f64,
    ) -> bool {
        if self.nodes.is_empty() {
            return true;
        }
        let Some(point) = self.point(p, pad) else {
            return false;
        };
        let mut stack = Pendings::new();
        let mut next = Some(Pending::default()); // the root node
        loop {
            let here = match next.take().or_else(|| stack.pop()) {
                Some(h) => h,
                None => return true,
            };
            if here.near as f64 > bound {
                continue;
            }
            if here.count > 0 {
                let slots = here.first as usize..(here.first + here.count) as usize;
                bound = bound.min(visit(slots));
                continue;
            }
            let node = &self.nodes[here.first as usize];
            let (d2, hits) = lower_bounds(node, &point, bound);
            let child = |i: usize| Pending {
                first: node.first[i],
                count: node.count[i],
                near: d2[i],
            };
            next = push_entered::<WIDTH>(hits, child, &mut stack);
            if stack.overflowed() {
                return false;
            }
        }
    }

    /// `p` (within `pad` of the exact point) as the bounds take it; `None` where a gap's
    /// square could pass `f32`'s largest value (a point, or a mesh, beyond 1e18 of the origin),
    /// where `p` is not a number, and where `p` lies more than [`FAR`] times the mesh's size
    /// away: the bounds' margins grow with the point's distance (2^-16 of the squared gap, 2^-20
    /// of the coordinates), and there they pass over nothing. The bunny's 10 000 points 1e4
    /// away took 74 s, every point testing every triangle, where the binary search's f64 bounds
    /// take 50 ms.
    fn point(&self, p: DVec3, pad: f64) -> Option<SearchPoint> {
        let q = p - self.origin;
        let far = q.abs().max_element();
        if !q.is_finite() || far + self.reach >= 1e18 || far > FAR * self.reach {
            return None;
        }
        let pad = 3.0 * pad * (1.0 + 1e-6);
        Some(SearchPoint {
            q: q.as_vec3().to_array(),
            // The pad as the binary search takes it for oriented boxes, scaled by the axes'
            // lengths (within 2^-22 of 1); and the point's part of the f32 error.
            margin: up(pad + GROWTH * (q.abs().element_sum() * (1.0 + 1e-6) + pad)),
        })
    }
}

/// How many times the mesh's size (its box's largest half-extent) a point may lie from its
/// centre for the tree's bounds: at 1 250 times the bunny's, 10 000 points took 86 ms against
/// 25 near it; at 12 500 times, 920 ms.
const FAR: f64 = 256.0;

/// A point relative to the tree's origin, in `f32`, and what every gap is taken less by.
struct SearchPoint {
    q: [f32; 3],
    margin: f32,
}

/// The relative error a bound allows for: `f32`'s rounding of the point, of its difference
/// from a box's centre, of the projection on an axis and of the gap, each a few units of 2^-24
/// of the point's, the centre's and the half-extent's magnitudes (axes of length 1 at most
/// but for 2^-23), and twice that.
const GROWTH: f64 = 1.0 / 1048576.0;

/// 2^-140 (a subnormal: its tenth mantissa bit), taken from every bound for the rounding of
/// values below f32's smallest normal.
const TINY: f32 = f32::from_bits(1 << 9);

/// A lower bound on the squared distance from the point to each of the node's four boxes (to
/// everything inside), and which are within `bound`, a bit each: how far the point lies
/// outside each box's slab along each axis, less the margin (the half-extents grown by their
/// part of it), combined as if the axes were orthonormal; the sum of squares (within 3 2^-24
/// of itself) shrunk by 2^-16, which also covers the `f32` axes' departure from orthonormal
/// (3 2^-23 at most in each product, as `closest.wgsl`'s bound). Written lane by lane, for
/// the compiler to vectorise.
#[inline(always)]
fn lower_bounds(node: &Node, p: &SearchPoint, bound: f64) -> ([f32; WIDTH], u32) {
    let max = |a: f32, b: f32| if a > b { a } else { b };
    let mut d2 = [0f32; WIDTH];
    for (i, out) in d2.iter_mut().enumerate() {
        let d: [f32; 3] = std::array::from_fn(|j| p.q[j] - node.center[j][i]);
        let mut sum = 0.0;
        for k in 0..3 {
            let a = &node.axes[k];
            let s = d[0] * a[0][i] + d[1] * a[1][i] + d[2] * a[2][i];
            let gap = max(s.abs() - node.half[k][i] - p.margin, 0.0);
            sum += gap * gap;
        }
        // Less 2^-140: below f32's smallest normal (2^-126) rounding is absolute, up to 2^-150
        // an operation, where no relative shrink covers it (a mesh 1e-23 across, found by a
        // review).
        *out = max(sum * (1.0 - 1.0 / 65536.0) - TINY, 0.0);
    }
    let hits = (0..WIDTH).fold(0u32, |m, i| m | ((d2[i] as f64 <= bound) as u32) << i);
    (d2, hits & node.present)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::closest::closest_point_triangle;
    use crate::geom::Aabb;
    use crate::mesh::generate;
    use crate::testing::{lcg, placed};

    /// The slots under child `lane` of node `n`.
    fn under(tree: &NearestTree, n: usize, lane: usize, out: &mut Vec<usize>) {
        let node = &tree.nodes[n];
        let (first, count) = (node.first[lane] as usize, node.count[lane] as usize);
        if count > 0 {
            out.extend(first..first + count);
            return;
        }
        for c in (0..WIDTH).filter(|c| tree.nodes[first].present >> c & 1 == 1) {
            under(tree, first, c, out);
        }
    }

    /// Every lower bound is at most the distance (f64, Ericson) from the point to every
    /// triangle under that child, and every slot is under one leaf: points on the surface
    /// (corners, centroids: distance 0, where a bound without its margin comes out above 0),
    /// near it and far from it; a torus about the origin and a sphere 2e5 from it.
    /// A point farther than [`FAR`] times the mesh's size is left to the binary search, whose
    /// f64 bounds still pass boxes over there (10 000 points 1e4 bunny sizes away took 74 s
    /// here); nearer, the tree searches, and finds the distance brute force finds.
    #[test]
    fn points_far_beyond_the_mesh_are_left_to_the_binary_search() {
        let mesh = generate::torus(1.0, 0.3, 24, 12);
        let bvh = Bvh::build(&mesh);
        let tree = NearestTree::build(&bvh, &Oriented::build(&bvh, &mesh));
        assert!((tree.reach - 1.3).abs() < 1e-6, "{}", tree.reach);
        let nearest = |p: DVec3| {
            let mut best = (f64::INFINITY, usize::MAX);
            let found = tree.search(p, 0.0, f64::INFINITY, |slots| {
                for s in slots {
                    let t = mesh.triangle(bvh.tris[s] as usize);
                    let d2 = closest_point_triangle(p, &t).distance_squared(p);
                    if d2 < best.0 {
                        best = (d2, s);
                    }
                }
                best.0
            });
            found.then_some(best.0)
        };
        let brute = |p: DVec3| {
            (0..mesh.triangles.len())
                .map(|t| closest_point_triangle(p, &mesh.triangle(t)).distance_squared(p))
                .fold(f64::INFINITY, f64::min)
        };
        let dir = DVec3::new(0.6, -0.48, 0.64);
        for k in [0.5, 10.0, 255.0] {
            let p = dir * k * tree.reach;
            assert_eq!(nearest(p), Some(brute(p)), "{k} sizes away");
        }
        assert_eq!(nearest(DVec3::X * 257.0 * tree.reach), None);
        assert!(nearest(DVec3::X * 255.0 * tree.reach).is_some());
        assert_eq!(nearest(dir * 1e9), None);
    }

    #[test]
    fn every_bound_is_below_the_distance_to_each_triangle_under_it() {
        let far = placed(&generate::sphere(1.0, 12, 24), 1.0, [1e5, -2e5, 0.0]);
        let mut rnd = lcg(0x2545_f491_4f6c_dd1d);
        for mesh in [generate::torus(1.0, 0.3, 24, 12), far] {
            let bvh = Bvh::build(&mesh);
            let tree = NearestTree::build(&bvh, &Oriented::build(&bvh, &mesh));
            let tri = |s: usize| mesh.triangle(bvh.tris[s] as usize);
            let mut slots = vec![0; bvh.tris.len()];
            let mut under_each = Vec::new();
            for (n, node) in tree.nodes.iter().enumerate() {
                for lane in (0..WIDTH).filter(|c| node.present >> c & 1 == 1) {
                    let mut below = Vec::new();
                    under(&tree, n, lane, &mut below);
                    if node.count[lane] > 0 {
                        below.iter().for_each(|&s| slots[s] += 1);
                    }
                    under_each.push((n, lane, below));
                }
            }
            assert!(slots.iter().all(|&k| k == 1));
            let size = Aabb::from_points((0..mesh.vertices.len() as u32).map(|v| mesh.vertex(v)))
                .diagonal();
            let mut points: Vec<DVec3> = Vec::new();
            for t in 0..mesh.triangles.len() {
                let [a, b, c] = mesh.triangle(t);
                points.extend([a, (a + b + c) / 3.0]);
            }
            for _ in 0..300 {
                let t = mesh.triangle((rnd() * mesh.triangles.len() as f64) as usize);
                let off = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
                points.push(t[0] + off * size * 10f64.powf(-6.0 + 8.0 * rnd()));
            }
            for p in points {
                let point = tree.point(p, 0.0).expect("near the mesh");
                for (n, lane, below) in &under_each {
                    let (d2, _) = lower_bounds(&tree.nodes[*n], &point, f64::INFINITY);
                    let nearest = below
                        .iter()
                        .map(|&s| closest_point_triangle(p, &tri(s)).distance_squared(p))
                        .fold(f64::INFINITY, f64::min);
                    assert!(
                        d2[*lane] as f64 <= nearest,
                        "{p}: {} > {nearest}",
                        d2[*lane]
                    );
                }
            }
        }
    }
}
