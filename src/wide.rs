//! The CPU rays' tree: eight children a node, their boxes in `f32`, one array per plane so that
//! a ray meets all eight at once in SIMD lanes, as Embree lays out its BVH8. obvhs builds it
//! (its compressed wide BVH: Ylitie, Karras and Laine, "Efficient incoherent ray traversal on
//! GPUs through compressed wide BVHs", 2017, built by SAH); its 8-bit child boxes are not kept:
//! each child's box here is the union of its triangles' own, so decoding costs nothing and
//! boxes are as tight as `f32` holds. The binary hierarchy ([`crate::bvh`]) takes 20 steps
//! down igea where this takes about 7, each a likely cache miss for incoherent rays, and its
//! `f64` box tests cost as much again (docs/performance.md).
//!
//! Only a cull: the walk names the triangles a segment may meet and exact signs decide
//! ([`crate::query::ray_hits`]). It may name too many, never too few, because every `f32`
//! error is made smaller than a margin the boxes were grown by:
//! - the tree's frame is the mesh's coordinates less the centre of its box, scaled by a power
//!   of two (exact) so that the largest coordinate is about 1; every child's box there holds
//!   its triangles' boxes grown by half of [`PAD`], rounded outwards to `f32`;
//! - the ray starts where the segment enters the root's box (less [`BEHIND`]), so each
//!   difference the walk rounds is of coordinates of order 1: a slab's computed `t` is the
//!   exact one of a plane moved by at most 3 units of `f32` rounding of 2, about 2^-21, and
//!   the ray's own `f32` rounding moves it by about 2^-22;
//! - the caller takes the walk only where its segment is carried into the mesh's frame within
//!   a quarter of the pad ([`WideTree::slack`]): a pose off rigid, or a ray from 1e7 sizes
//!   away, walks the binary tree (as does a walk whose kept children overflow [`Pendings`]).

use crate::geom::ray::segment_aabb;
use crate::geom::{Aabb, DVec3};
use crate::mesh::Mesh;
use obvhs::cwbvh::CwBvh;
use obvhs::BvhBuildParams;

/// The pad, as a fraction of the largest coordinate in the tree's frame.
const PAD: f64 = 1.0 / 65536.0;
/// Rays start this far back from where the segment enters the root's box, in a frame scaled so
/// that its largest coordinate is about 1: a box entered right at the start is entered after
/// the walk's `t = 0` whatever the rounding.
const BEHIND: f64 = 1.0 / 4096.0;
/// The smallest magnitude a direction's component is given (its reciprocal stays finite):
/// the ray turns by at most this, 2^-40 of its length.
const TINY: f32 = 1.0 / (1u64 << 40) as f32;
/// The deepest tree kept (igea's is 7): laying it out recurses once a level.
const MAX_DEPTH: usize = 30;

/// One of the walk's slots: a triangle's corners in the mesh's own coordinates and its index,
/// side by side so that a candidate costs one read (posing the corners costs less than the
/// cache miss an array of posed triangles takes).
#[derive(Clone, Copy, Debug)]
pub struct WideSlot {
    pub corners: [[f32; 3]; 3],
    pub triangle: u32,
}

/// A node's eight children: their boxes, one array per axis and side so that a ray meets all
/// eight in SIMD lanes, and where each leads. Four cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Node {
    lo: [[f32; 8]; 3],
    hi: [[f32; 8]; 3],
    /// An inner child's node, or a leaf child's first slot.
    first: [u32; 8],
    /// A leaf child's number of slots; 0 for an inner child.
    count: [u8; 8],
    /// The children present, a bit each.
    present: u8,
}

impl Node {
    const EMPTY: Node = Node {
        lo: [[0.0; 8]; 3],
        hi: [[0.0; 8]; 3],
        first: [0; 8],
        count: [0; 8],
        present: 0,
    };
}

/// A child the walk has entered or will: a node (`count` 0) or a leaf's slots, and where the
/// ray enters its box (for the nearest-point tree, [`crate::nearest_tree`], a lower bound on
/// its squared distance).
#[derive(Clone, Copy, Default)]
pub(crate) struct Pending {
    pub first: u32,
    pub count: u32,
    pub near: f32,
}

/// The children a walk keeps for later, the nearest on top: a fixed array of [`Pendings::ROOM`].
/// A walk keeps at most its tree's width less one a level: 7 in the eight-wide tree (49 on
/// igea's, 7 levels deep), 3 in the four-wide nearest tree. A walk of a deeper tree may
/// overflow it; it then stops and reports itself incomplete, and its caller searches another
/// way (the binary hierarchy). It replaced a `SmallVec`, which checked where its items lived
/// at every push and pop: about 500 instructions a nearest-point search, 2 % of its time.
pub(crate) struct Pendings {
    items: [Pending; Pendings::ROOM],
    len: usize,
    /// How many it takes: [`Pendings::ROOM`], less in tests that make walks overflow.
    room: usize,
    overflowed: bool,
}

impl Pendings {
    pub(crate) const ROOM: usize = 64;

    pub fn new() -> Pendings {
        #[cfg(not(test))]
        let room = Pendings::ROOM;
        #[cfg(test)]
        let room = TEST_ROOM.with(|r| r.get()).min(Pendings::ROOM);
        Pendings {
            items: [Pending::default(); Pendings::ROOM],
            len: 0,
            room,
            overflowed: false,
        }
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<Pending> {
        self.len = self.len.checked_sub(1)?;
        self.items.get(self.len).copied()
    }

    /// Keeps `p`; where there is no room, drops it and remembers that it did.
    #[inline(always)]
    fn push(&mut self, p: Pending) {
        let slot = self
            .items
            .get_mut(self.len)
            .filter(|_| self.len < self.room);
        match slot {
            Some(slot) => {
                *slot = p;
                self.len += 1;
            }
            None => self.overflowed = true,
        }
    }

    /// Whether a child was dropped for want of room: the walk is incomplete.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }
}

#[cfg(test)]
thread_local! {
    /// The room the walks of a test's thread give [`Pendings`]: a test that makes it small
    /// makes walks overflow, to see their callers search another way and miss nothing.
    pub(crate) static TEST_ROOM: std::cell::Cell<usize> =
        const { std::cell::Cell::new(Pendings::ROOM) };
}

/// The children of a node a walk has entered (`hits`, a bit each, at most `W`; `child` makes
/// each): all but the nearest kept, farthest first, and the nearest returned, to be taken at
/// once.
#[inline(always)]
pub(crate) fn push_entered<const W: usize>(
    mut hits: u32,
    mut child: impl FnMut(usize) -> Pending,
    kept: &mut Pendings,
) -> Option<Pending> {
    let mut entered = [Pending::default(); W];
    let mut n = 0;
    while hits != 0 {
        let i = hits.trailing_zeros() as usize;
        hits &= hits - 1;
        entered[n] = child(i);
        n += 1;
    }
    let entered = &mut entered[..n];
    entered.sort_unstable_by(|x, y| y.near.total_cmp(&x.near));
    let (nearest, rest) = entered.split_last()?;
    for &p in rest {
        kept.push(p);
    }
    Some(*nearest)
}

/// A ray in the tree's frame, as the box tests take it.
struct WalkRay {
    origin: [f32; 3],
    inv: [f32; 3],
    /// Per axis, whether the ray runs towards lower coordinates (it meets upper planes first).
    back: [bool; 3],
}

/// The tree, in the mesh's coordinates less `centre`, times `scale` (a power of two: exact).
pub struct WideTree {
    nodes: Vec<Node>,
    slots: Vec<WideSlot>,
    centre: DVec3,
    scale: f64,
    /// The root's box grown by the pad, in the tree's frame.
    root: Aabb,
}

impl WideTree {
    /// The tree over `mesh`'s triangles; `None` for an empty mesh, or a tree deeper than
    /// [`MAX_DEPTH`] or whose leaves do not hold every triangle once.
    pub fn build(mesh: &Mesh) -> Option<WideTree> {
        let boxes: Vec<Aabb> = mesh.triangles.iter().map(|t| tri_box(mesh, t)).collect();
        let whole = boxes.iter().fold(Aabb::EMPTY, |a, b| a.union(b));
        if boxes.is_empty() || !(whole.min.is_finite() && whole.max.is_finite()) {
            return None;
        }
        // An f32 value, so every vertex less it is exact in f64.
        let centre = whole.center().as_vec3().as_dvec3();
        let reach = (whole.max - centre).max(centre - whole.min).max_element();
        // Largest coordinate in [1/2, 1); a flat or point-like mesh keeps a scale that f32 holds.
        let scale = 2f64.powi(-(reach.max(1e-30).log2().floor() as i32) - 1);
        let local = |b: &Aabb| in_frame(b, centre, scale);
        let held: Vec<Aabb> = boxes.iter().map(|b| local(b).padded(PAD / 2.0)).collect();
        let to_build: Vec<obvhs::aabb::Aabb> = held
            .iter()
            .map(|b| {
                let (min, max) = outward(b);
                obvhs::aabb::Aabb {
                    min: min.into(),
                    max: max.into(),
                }
            })
            .collect();
        let mut params = BvhBuildParams::medium_build();
        params.max_prims_per_leaf = 3;
        let cw = obvhs::cwbvh::builder::build_cwbvh(&to_build, params, &mut Default::default());
        let mut nodes = Vec::with_capacity(cw.nodes.len());
        let mut seen = vec![false; held.len()];
        lay_out(&cw, 0, &held, &mut nodes, &mut seen, 0)?;
        if !seen.iter().all(|&s| s) {
            return None;
        }
        let slots = cw
            .primitive_indices
            .iter()
            .map(|&t| WideSlot {
                corners: mesh.triangles[t as usize].map(|v| mesh.vertices[v as usize]),
                triangle: t,
            })
            .collect();
        Some(WideTree {
            nodes,
            slots,
            centre,
            scale,
            root: local(&whole).padded(PAD),
        })
    }

    /// The walk's slots, in its order.
    pub fn slots(&self) -> &[WideSlot] {
        &self.slots
    }

    /// How far a segment given to [`WideTree::walk`] may lie from the exact one (the mesh's
    /// units).
    pub fn slack(&self) -> f64 {
        PAD / 4.0 / self.scale
    }

    /// The slots whose boxes segment `ab` (the mesh's own coordinates) may meet, given to
    /// `visit`, which answers how far the walk must still go as a fraction of `ab` (past a hit
    /// found: a box entered beyond it holds nothing nearer; `-inf` ends the walk). `false`
    /// where the segment has no length in `f64`, the children kept for later overflowed
    /// [`Pendings`] (a tree deeper than igea's, on some walks), or a node is missing (never, in
    /// a tree [`WideTree::build`] made): the caller walks another way, and may be given some
    /// slots again.
    pub fn walk(&self, a: DVec3, b: DVec3, mut visit: impl FnMut(usize) -> f64) -> bool {
        let (a, b) = (
            (a - self.centre) * self.scale,
            (b - self.centre) * self.scale,
        );
        let len = (b - a).length();
        if !(len > 0.0 && len.is_finite()) {
            return false;
        }
        let Some((s0, s1)) = segment_aabb(a, b, &self.root.padded(PAD / 4.0)) else {
            return true; // it meets no box
        };
        let unit = ((b - a) / len).as_vec3().to_array().map(away_from_zero);
        // Along the ray, from BEHIND before where the segment enters the root: a fraction `s`
        // of `ab` is at `(s - s0) len + BEHIND`, rounded up and given a pad more (rounding
        // errors are far below it).
        let start = a + (b - a) * s0 - (b - a) / len * BEHIND;
        let reach = |s: f64| up((s - s0) * len * (1.0 + 1.0 / 1048576.0) + BEHIND + PAD);
        let ray = WalkRay {
            origin: start.as_vec3().to_array(),
            inv: unit.map(|c| 1.0 / c),
            back: unit.map(|c| c < 0.0),
        };
        self.traverse(&ray, reach(s1), |slot| match visit(slot) {
            s if s == f64::NEG_INFINITY => f32::NEG_INFINITY,
            s if s.is_finite() => reach(s),
            _ => f32::INFINITY,
        })
    }

    /// The walk: depth first, the nearest child entered first and the others kept, nearest on
    /// top; a kept child entered beyond `tmax` (which each slot's `visit` may lower) is passed
    /// over. `false` where the kept children overflow [`Pendings`], or a node is missing (a
    /// tree that passed [`WideTree::build`] has none).
    fn traverse(&self, ray: &WalkRay, mut tmax: f32, mut visit: impl FnMut(usize) -> f32) -> bool {
        let mut stack = Pendings::new();
        let mut next = Some(Pending::default()); // the root
        loop {
            let here = match next.take() {
                Some(p) => p,
                None => match stack.pop() {
                    Some(p) => p,
                    None => return true,
                },
            };
            if here.near > tmax {
                continue;
            }
            if here.count > 0 {
                for slot in here.first..here.first + here.count {
                    tmax = tmax.min(visit(slot as usize));
                }
                if tmax == f32::NEG_INFINITY {
                    return true;
                }
                continue;
            }
            let Some(node) = self.nodes.get(here.first as usize) else {
                return false;
            };
            let (near, hits) = enter(node, ray, tmax);
            let child = |ch: usize| {
                let c = Pending {
                    first: node.first[ch],
                    count: node.count[ch] as u32,
                    near: near[ch],
                };
                self.prefetch(&c);
                c
            };
            next = push_entered::<8>(hits, child, &mut stack);
            if stack.overflowed() {
                return false;
            }
        }
    }

    /// Ask for what a child entered leads to (its node, or its leaf's slots) while the walk
    /// goes on: incoherent rays wait on these reads more than on anything they compute (on
    /// igea, 1M rays: 850 -> 670 ms on one core).
    fn prefetch(&self, child: &Pending) {
        if child.count > 0 {
            if let Some(s) = self.slots.get(child.first as usize) {
                // From the line the first slot starts in, to the one the last ends in.
                let p: *const u8 = (s as *const WideSlot).cast();
                let skew = p as usize % 64;
                let bytes = std::mem::size_of::<WideSlot>() * child.count as usize;
                prefetch(p.wrapping_sub(skew), (skew + bytes).div_ceil(64));
            }
        } else if let Some(n) = self.nodes.get(child.first as usize) {
            prefetch((n as *const Node).cast(), std::mem::size_of::<Node>() / 64);
        }
    }
}

/// The planes of the node's children's boxes on axis `k` that the ray meets first (`far`:
/// last): the upper ones for a ray running towards lower coordinates.
#[inline(always)]
fn side<'n>(node: &'n Node, ray: &WalkRay, k: usize, far: bool) -> &'n [f32; 8] {
    if ray.back[k] != far {
        &node.hi[k]
    } else {
        &node.lo[k]
    }
}

/// Where the ray enters each of the node's children's boxes (its `t`, at least 0), and which
/// it enters before leaving it and before `tmax`, a bit each: [`enter_lanes`] in SSE, four
/// children at a time, each child's entered bit taken by `movmskps` (the compiler packed the
/// lanes' bits with multiplies and shuffles; 1M rays on igea on one core: about 5 % faster).
/// The same values, bit for bit: `maxps` and `minps` select as `enter_lanes`'s comparisons do.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn enter(node: &Node, ray: &WalkRay, tmax: f32) -> ([f32; 8], u32) {
    use std::arch::x86_64::*;
    let planes = |k: usize, far: bool| side(node, ray, k, far);
    let mut near = [0f32; 8];
    let mut hits = 0u32;
    // SAFETY: SSE and SSE2 are in x86_64's base; every load and store is of four lanes within
    // an array of eight (`half` is 0 or 4).
    unsafe {
        let tmax4 = _mm_set1_ps(tmax);
        for half in [0, 4] {
            let plane = |k: usize, far: bool| {
                let p = _mm_loadu_ps(planes(k, far).as_ptr().add(half));
                let o = _mm_set1_ps(ray.origin[k]);
                _mm_mul_ps(_mm_sub_ps(p, o), _mm_set1_ps(ray.inv[k]))
            };
            let enter_at = _mm_max_ps(
                _mm_max_ps(plane(0, false), plane(1, false)),
                _mm_max_ps(plane(2, false), _mm_setzero_ps()),
            );
            let leave_at = _mm_min_ps(
                _mm_min_ps(plane(0, true), plane(1, true)),
                _mm_min_ps(plane(2, true), tmax4),
            );
            _mm_storeu_ps(near.as_mut_ptr().add(half), enter_at);
            hits |= (_mm_movemask_ps(_mm_cmple_ps(enter_at, leave_at)) as u32) << half;
        }
    }
    (near, hits & node.present as u32)
}

/// Where the ray enters each of the node's children's boxes (its `t`, at least 0), and which
/// it enters before leaving it and before `tmax`, a bit each. Written lane by lane, for the
/// compiler to vectorise: every value is finite (`inv` is, by [`away_from_zero`]), so
/// comparisons select as SIMD min and max do. Elsewhere than x86_64, [`enter`] itself; there,
/// its SSE version's twin in the tests.
#[cfg(any(not(target_arch = "x86_64"), test))]
#[inline(always)]
fn enter_lanes(node: &Node, ray: &WalkRay, tmax: f32) -> ([f32; 8], u32) {
    let max = |a: f32, b: f32| if a > b { a } else { b };
    let min = |a: f32, b: f32| if a < b { a } else { b };
    let planes = |k: usize, far: bool| side(node, ray, k, far);
    let (nx, ny, nz) = (planes(0, false), planes(1, false), planes(2, false));
    let (fx, fy, fz) = (planes(0, true), planes(1, true), planes(2, true));
    let ([ox, oy, oz], [ix, iy, iz]) = (ray.origin, ray.inv);
    let mut near = [0f32; 8];
    let mut inside = [false; 8];
    for i in 0..8 {
        let enter_at = max(
            max((nx[i] - ox) * ix, (ny[i] - oy) * iy),
            max((nz[i] - oz) * iz, 0.0),
        );
        let leave_at = min(
            min((fx[i] - ox) * ix, (fy[i] - oy) * iy),
            min((fz[i] - oz) * iz, tmax),
        );
        near[i] = enter_at;
        inside[i] = enter_at <= leave_at;
    }
    let hits = (0..8).fold(0u32, |m, i| m | (inside[i] as u32) << i);
    (near, hits & node.present as u32)
}

#[cfg(not(target_arch = "x86_64"))]
use enter_lanes as enter;

/// Node `n` of obvhs's tree laid out at the end of `nodes` (its children after it, depth
/// first), each child's box the union of its triangles' boxes `held`, rounded outwards; its
/// index and that union. `None` where the tree is deeper than [`MAX_DEPTH`], or a leaf names a
/// triangle that is not there or that another leaf has named (`seen`).
fn lay_out(
    cw: &CwBvh,
    n: usize,
    held: &[Aabb],
    nodes: &mut Vec<Node>,
    seen: &mut [bool],
    depth: usize,
) -> Option<(u32, Aabb)> {
    let from = cw.nodes.get(n)?;
    if depth > MAX_DEPTH {
        return None;
    }
    let at = nodes.len();
    nodes.push(Node::EMPTY);
    let mut node = Node::EMPTY;
    let mut all = Aabb::EMPTY;
    for ch in (0..8).filter(|&ch| !from.is_child_empty(ch)) {
        let (first, count, content) = if from.is_leaf(ch) {
            let (first, count) = from.child_primitives(ch);
            let mut b = Aabb::EMPTY;
            for slot in first..first + count {
                let tri = *cw.primitive_indices.get(slot as usize)? as usize;
                if std::mem::replace(seen.get_mut(tri)?, true) {
                    return None;
                }
                b = b.union(&held[tri]);
            }
            (first, u8::try_from(count).ok()?, b)
        } else {
            let child = from.child_node_index(ch) as usize;
            let (at, b) = lay_out(cw, child, held, nodes, seen, depth + 1)?;
            (at, 0, b)
        };
        if content.is_empty() {
            continue; // a leaf of no triangles
        }
        let (min, max) = outward(&content);
        for k in 0..3 {
            node.lo[k][ch] = min[k];
            node.hi[k][ch] = max[k];
        }
        node.first[ch] = first;
        node.count[ch] = count;
        node.present |= 1 << ch;
        all = all.union(&content);
    }
    nodes[at] = node;
    Some((at as u32, all))
}

/// Ask for `lines` cache lines from `p` on (a hint: nothing is read; elsewhere than x86_64,
/// nothing).
fn prefetch(p: *const u8, lines: usize) {
    for l in 0..lines {
        let _line = p.wrapping_add(64 * l);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing and cannot fault, whatever the address; SSE, which
        // it needs, is in x86_64's base.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                _line as *const i8,
            )
        };
    }
}

/// Box `b` (the mesh's coordinates) in the tree's frame: less `centre`, times `scale` (exact
/// in f64 for f32 coordinates, `scale` being a power of two).
fn in_frame(b: &Aabb, centre: DVec3, scale: f64) -> Aabb {
    Aabb {
        min: (b.min - centre) * scale,
        max: (b.max - centre) * scale,
    }
}

/// A triangle's box in the mesh's coordinates (f32 vertices: exact).
fn tri_box(mesh: &Mesh, t: &[u32; 3]) -> Aabb {
    Aabb::from_points(t.iter().map(|&v| mesh.vertex(v)))
}

/// `b`'s corners in `f32`, rounded outwards.
fn outward(b: &Aabb) -> ([f32; 3], [f32; 3]) {
    let down = |x: f64| {
        let y = x as f32;
        if (y as f64) > x {
            y.next_down()
        } else {
            y
        }
    };
    (b.min.to_array().map(down), b.max.to_array().map(up))
}

/// `x` in `f32`, rounded up.
pub(crate) fn up(x: f64) -> f32 {
    let y = x as f32;
    if (y as f64) < x {
        y.next_up()
    } else {
        y
    }
}

/// A direction's component at least [`TINY`] in magnitude (zero taken as positive), so its
/// reciprocal is finite and of the same sign.
fn away_from_zero(c: f32) -> f32 {
    if c.abs() >= TINY {
        c
    } else if c.is_sign_negative() && c != 0.0 {
        -TINY
    } else {
        TINY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::mesh::generate;
    use crate::testing::{lcg, placed};

    /// A torus about the origin and a sphere 2e5 from it.
    fn meshes() -> [Mesh; 2] {
        let far = placed(&generate::sphere(1.0, 12, 24), 1.0, [1e5, -2e5, 0.0]);
        [generate::torus(1.0, 0.3, 24, 12), far]
    }

    /// The triangles under child `ch` of node `n`.
    fn under(tree: &WideTree, n: usize, ch: usize, out: &mut Vec<u32>) {
        let node = &tree.nodes[n];
        let (first, count) = (node.first[ch] as usize, node.count[ch] as usize);
        if count > 0 {
            out.extend(tree.slots[first..first + count].iter().map(|s| s.triangle));
            return;
        }
        let inner = &tree.nodes[first];
        for c in (0..8).filter(|c| inner.present >> c & 1 == 1) {
            under(tree, first, c, out);
        }
    }

    /// Kept children come back last in, first out; one past the room is dropped and said to
    /// be, so that the walk reports itself incomplete rather than miss a box.
    #[test]
    fn kept_children_past_the_room_are_reported() {
        let mut kept = Pendings::new();
        let child = |i: u32| Pending {
            first: i,
            count: 0,
            near: 0.0,
        };
        for i in 0..Pendings::ROOM as u32 {
            kept.push(child(i));
        }
        assert!(!kept.overflowed());
        kept.push(child(99));
        assert!(kept.overflowed());
        let order: Vec<u32> = std::iter::from_fn(|| kept.pop()).map(|p| p.first).collect();
        assert_eq!(order, (0..Pendings::ROOM as u32).rev().collect::<Vec<_>>());
    }

    /// The SSE [`enter`] equals [`enter_lanes`] bit for bit: every node of both meshes' trees
    /// against rays from random points (most outside the boxes, some inside) in random
    /// directions or at a child's centre, components of [`TINY`] among them, and `tmax` from
    /// 0 to far past the mesh.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn enter_in_sse_equals_enter_lane_by_lane() {
        let mut rnd = lcg(0x5eed_0f55);
        let mut entered = 0;
        for mesh in meshes() {
            let tree = WideTree::build(&mesh).expect("a tree");
            for node in &tree.nodes {
                for _ in 0..64 {
                    let mut c = || (rnd() * 2.4 - 1.2) as f32;
                    let (origin, mut unit) = ([c(), c(), c()], [c(), c(), c()]);
                    // Half of them aimed at a child's centre.
                    let ch = (rnd() * 8.0) as usize;
                    if rnd() < 0.5 && node.present >> ch & 1 == 1 {
                        unit =
                            [0, 1, 2].map(|k| (node.lo[k][ch] + node.hi[k][ch]) / 2.0 - origin[k]);
                    }
                    if rnd() < 0.2 {
                        unit[(rnd() * 3.0) as usize] = 0.0;
                    }
                    let unit = unit.map(away_from_zero);
                    let ray = WalkRay {
                        origin,
                        inv: unit.map(|c| 1.0 / c),
                        back: unit.map(|c| c < 0.0),
                    };
                    let tmax = [0.0, 0.5, 4.0][(rnd() * 3.0) as usize];
                    let (near, hits) = enter(node, &ray, tmax);
                    let (twin_near, twin_hits) = enter_lanes(node, &ray, tmax);
                    assert_eq!(near.map(f32::to_bits), twin_near.map(f32::to_bits));
                    assert_eq!(hits, twin_hits);
                    entered += hits.count_ones();
                }
            }
        }
        assert!(entered > 1000, "{entered}: the rays must enter boxes too");
    }

    /// Every child's `f32` box holds the boxes of the triangles under it grown by half the pad
    /// (computed here in `f64`), and every triangle is in one leaf: on a mesh about the origin
    /// and one 2e5 from it.
    #[test]
    fn every_box_holds_its_triangles_grown_by_half_the_pad() {
        for mesh in meshes() {
            let tree = WideTree::build(&mesh).expect("a tree");
            let held = |t: u32| {
                let b = tri_box(&mesh, &mesh.triangles[t as usize]);
                in_frame(&b, tree.centre, tree.scale).padded(PAD / 2.0)
            };
            let mut in_leaves = vec![0; mesh.triangles.len()];
            for (n, node) in tree.nodes.iter().enumerate() {
                for ch in (0..8).filter(|c| node.present >> c & 1 == 1) {
                    let corner = |side: &[[f32; 8]; 3]| {
                        DVec3::new(side[0][ch] as f64, side[1][ch] as f64, side[2][ch] as f64)
                    };
                    let (lo, hi) = (corner(&node.lo), corner(&node.hi));
                    let mut tris = Vec::new();
                    under(&tree, n, ch, &mut tris);
                    assert!(!tris.is_empty());
                    for &t in &tris {
                        let b = held(t);
                        assert!(lo.cmple(b.min).all() && hi.cmpge(b.max).all(), "{t}");
                        in_leaves[t as usize] += (node.count[ch] > 0) as u32;
                    }
                }
            }
            assert!(in_leaves.iter().all(|&k| k == 1));
        }
    }

    /// What [`WideTree::slack`] promises callers: the walk names every triangle whose box,
    /// grown by just under the slack, the segment meets, and where `visit` answers a fraction,
    /// every one whose grown box it enters at or before that (brute force over the triangles,
    /// in f64). Segments from triangles' corners, from random points, along the axes both ways
    /// (reciprocals of zero components) and at random; a mesh about the origin and one 2e5 away.
    #[test]
    fn the_walk_names_every_box_the_segment_meets_within_the_slack() {
        let mut rnd = lcg(0x9e37_79b9_7f4a_7c15);
        for mesh in meshes() {
            let tree = WideTree::build(&mesh).expect("a tree");
            let local = |p: DVec3| (p - tree.centre) * tree.scale;
            let grown: Vec<Aabb> = mesh
                .triangles
                .iter()
                .map(|t| in_frame(&tri_box(&mesh, t), tree.centre, tree.scale))
                .map(|b| b.padded(0.99 * PAD / 4.0))
                .collect();
            let whole = mesh
                .triangles
                .iter()
                .fold(Aabb::EMPTY, |a, t| a.union(&tri_box(&mesh, t)));
            let size = whole.diagonal();
            let (mut met, mut cut_short) = (0, 0);
            for i in 0..800usize {
                let a = match i % 4 {
                    0 => mesh.vertex(mesh.triangles[i % mesh.triangles.len()][i / 4 % 3]),
                    _ => whole.center() + (DVec3::new(rnd(), rnd(), rnd()) - 0.5) * size,
                };
                let axes = [
                    DVec3::X,
                    DVec3::NEG_X,
                    DVec3::Y,
                    DVec3::NEG_Y,
                    DVec3::Z,
                    DVec3::NEG_Z,
                ];
                let d = match i % 2 {
                    0 => axes[i / 2 % 6],
                    _ => DVec3::new(rnd(), rnd(), rnd()) - 0.5,
                };
                let b = a + d * size * (0.1 + rnd());
                // Every third walk goes to the end; the others are told, at each slot, that
                // nothing beyond a fraction `cut` is wanted.
                let cut = if i % 3 == 0 { f64::INFINITY } else { rnd() };
                let mut named = vec![false; mesh.triangles.len()];
                assert!(tree.walk(a, b, |s| {
                    named[tree.slots[s].triangle as usize] = true;
                    cut
                }));
                for (t, g) in grown.iter().enumerate() {
                    let Some((enters, _)) = segment_aabb(local(a), local(b), g) else {
                        continue;
                    };
                    if enters <= cut {
                        met += 1;
                        assert!(named[t], "segment {i}: triangle {t} not named");
                    } else {
                        cut_short += !named[t] as usize;
                    }
                }
            }
            // Not vacuous: segments a tenth of the size or more from inside the mesh's box
            // cross several boxes each, and walks told to stop pass some over.
            assert!(met > 1000 && cut_short > 100, "{met} {cut_short}");
        }
    }
}
