//! The CPU rays' tree: obvhs's compressed eight-wide hierarchy (Ylitie, Karras and Laine,
//! "Efficient incoherent ray traversal on GPUs through compressed wide BVHs", 2017), walked
//! four boxes at a time in `f32`. The binary hierarchy ([`crate::bvh`]) takes 20 steps down
//! igea where this takes about 7, each a likely cache miss for incoherent rays, and its `f64`
//! box tests cost as much again (1M rays on igea: 780 → about 350 ms, docs/performance.md).
//!
//! Only a cull: the walk names the triangles a segment may meet and exact signs decide
//! ([`crate::query::ray_hits`]). It may name too many, never too few, because every `f32`
//! error is made smaller than a margin the boxes were grown by:
//! - the tree's frame is the mesh's coordinates less the centre of its box, scaled by a power
//!   of two (exact) so that the largest coordinate is about 1; every triangle's box there is
//!   grown by [`PAD`] and rounded outwards to `f32`;
//! - after the build every child's quantized box is decoded exactly in `f64` and checked to
//!   hold its triangles' boxes grown by half the pad (obvhs rounds its 8-bit planes in `f32`,
//!   not always outwards); a tree that fails is not used, and rays walk the binary one;
//! - the ray starts where the segment enters the root's box (less [`BEHIND`]), so each
//!   difference the walk rounds is of coordinates of order 1: a box test is within about
//!   2^-20 of its exact value, and the ray's own `f32` rounding within 2^-22;
//! - the caller takes the walk only where its segment is carried into the mesh's frame within
//!   a quarter of the pad ([`WideTree::slack`]): a pose off rigid, or a ray from 1e7 sizes
//!   away, walks the binary tree.

use crate::geom::ray::segment_aabb;
use crate::geom::{Aabb, DVec3};
use crate::mesh::Mesh;
use obvhs::cwbvh::CwBvh;
use obvhs::ray::{Ray, RayHit};
use obvhs::BvhBuildParams;

/// The pad, as a fraction of the largest coordinate in the tree's frame.
const PAD: f64 = 1.0 / 65536.0;
/// obvhs's walk passes over every box the ray leaves before `t = 1e-4` (a renderer's guard
/// against a ray meeting the surface it leaves), whatever the ray's `tmin`: rays start this far
/// back instead, in a frame scaled so that its largest coordinate is about 1.
const BEHIND: f64 = 1.0 / 4096.0;
/// The smallest magnitude a direction's component is given (its reciprocal stays finite):
/// the ray turns by at most this, 2^-40 of its length.
const TINY: f32 = 1.0 / (1u64 << 40) as f32;

/// One of the walk's slots: a triangle's corners in the mesh's own coordinates and its index,
/// side by side so that a candidate costs one read (posing the corners costs less than the
/// cache miss an array of posed triangles takes).
#[derive(Clone, Copy, Debug)]
pub struct WideSlot {
    pub corners: [[f32; 3]; 3],
    pub triangle: u32,
}

/// The tree, in the mesh's coordinates less `centre`, times `scale` (a power of two: exact).
pub struct WideTree {
    bvh: CwBvh,
    slots: Vec<WideSlot>,
    centre: DVec3,
    scale: f64,
    /// The root's box grown by the pad, in the tree's frame.
    root: Aabb,
}

impl WideTree {
    /// The tree over `mesh`'s triangles; `None` for an empty mesh, or where the check after
    /// the build finds a box that does not hold its triangles.
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
        let local = |b: &Aabb| Aabb {
            min: (b.min - centre) * scale,
            max: (b.max - centre) * scale,
        };
        let grown: Vec<obvhs::aabb::Aabb> = boxes
            .iter()
            .map(|b| outward(&local(b).padded(PAD)))
            .collect();
        let mut params = BvhBuildParams::medium_build();
        params.max_prims_per_leaf = 3;
        let bvh = obvhs::cwbvh::builder::build_cwbvh(&grown, params, &mut Default::default());
        let held: Vec<Aabb> = boxes.iter().map(|b| local(b).padded(PAD / 2.0)).collect();
        if !covers(&bvh, &held) {
            return None;
        }
        let slots = bvh
            .primitive_indices
            .iter()
            .map(|&t| WideSlot {
                corners: mesh.triangles[t as usize].map(|v| mesh.vertices[v as usize]),
                triangle: t,
            })
            .collect();
        Some(WideTree {
            bvh,
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
    /// where the segment has no length in `f64`: the caller walks another way.
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
        // obvhs's vectors are built from arrays: its glam need not be this crate's.
        let unit = ((b - a) / len).as_vec3().to_array().map(away_from_zero);
        // Along the ray, from BEHIND before where the segment enters the root: a fraction `s`
        // of `ab` is at `(s - s0) len + BEHIND`, rounded up and given a pad more (rounding
        // errors are far below it).
        let start = a + (b - a) * s0 - (b - a) / len * BEHIND;
        let reach = |s: f64| up((s - s0) * len * (1.0 + 1.0 / 1048576.0) + BEHIND + PAD);
        let ray = Ray {
            origin: start.as_vec3().to_array().into(),
            direction: unit.into(),
            inv_direction: unit.map(|c| 1.0 / c).into(),
            tmin: 0.0, // unused by obvhs
            tmax: reach(s1),
        };
        let mut hit = RayHit::none();
        self.bvh
            .ray_traverse(ray, &mut hit, |_, slot| match visit(slot) {
                s if s == f64::NEG_INFINITY => f32::NEG_INFINITY,
                s if s.is_finite() => reach(s),
                _ => f32::INFINITY,
            });
        true
    }
}

/// A triangle's box in the mesh's coordinates (f32 vertices: exact).
fn tri_box(mesh: &Mesh, t: &[u32; 3]) -> Aabb {
    Aabb::from_points(t.iter().map(|&v| mesh.vertex(v)))
}

/// An obvhs vector's components (its glam need not be this crate's) as a `DVec3` (exact).
fn f64s(v: [f32; 3]) -> DVec3 {
    glam::Vec3::from(v).as_dvec3()
}

/// `b` in `f32`, rounded outwards.
fn outward(b: &Aabb) -> obvhs::aabb::Aabb {
    let down = |x: f64| {
        let y = x as f32;
        if (y as f64) > x {
            y.next_down()
        } else {
            y
        }
    };
    obvhs::aabb::Aabb {
        min: b.min.to_array().map(down).into(),
        max: b.max.to_array().map(up).into(),
    }
}

/// `x` in `f32`, rounded up.
fn up(x: f64) -> f32 {
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

/// Whether every child's quantized box, decoded exactly in `f64`, holds the boxes `local` of
/// its triangles, and every slot is in exactly one leaf.
fn covers(bvh: &CwBvh, local: &[Aabb]) -> bool {
    let mut seen = vec![false; local.len()];
    let ok = !bvh.nodes.is_empty() && node_covers(bvh, 0, local, &mut seen, 0).is_some();
    ok && seen.iter().all(|&s| s)
}

/// The union of node `n`'s triangles' boxes, if each of its children's boxes holds its own.
fn node_covers(
    bvh: &CwBvh,
    n: usize,
    local: &[Aabb],
    seen: &mut [bool],
    depth: usize,
) -> Option<Aabb> {
    let node = bvh.nodes.get(n)?;
    // obvhs's walk keeps at most 32 pending groups, one a level, and silently drops more: a
    // deeper tree could lose a branch.
    if depth > 30 {
        return None;
    }
    let e = f64s(node.compute_extent().to_array());
    let p = f64s(node.p.to_array());
    let mut all = Aabb::EMPTY;
    for ch in (0..8).filter(|&ch| !node.is_child_empty(ch)) {
        let content = if node.is_leaf(ch) {
            let (first, count) = node.child_primitives(ch);
            let mut b = Aabb::EMPTY;
            for slot in first..first + count {
                let tri = *bvh.primitive_indices.get(slot as usize)? as usize;
                let seen_before = std::mem::replace(seen.get_mut(tri)?, true);
                if seen_before {
                    return None;
                }
                b = b.union(&local[tri]);
            }
            b
        } else {
            node_covers(
                bvh,
                node.child_node_index(ch) as usize,
                local,
                seen,
                depth + 1,
            )?
        };
        let q = node.local_child_aabb(ch);
        let decoded = Aabb {
            min: p + f64s(q.min.to_array()) * e,
            max: p + f64s(q.max.to_array()) * e,
        };
        let holds = decoded.min.cmple(content.min).all() && decoded.max.cmpge(content.max).all();
        if !holds {
            return None;
        }
        all = all.union(&content);
    }
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    /// The check after the build holds obvhs's boxes to the triangles': one box shrunk by a
    /// quantum, and the tree is refused.
    #[test]
    fn a_box_that_does_not_hold_its_triangles_fails_the_check() {
        let mesh = generate::torus(1.0, 0.3, 24, 12);
        let tree = WideTree::build(&mesh).expect("a sound tree passes");
        let (centre, scale) = (tree.centre, tree.scale);
        let held: Vec<Aabb> = mesh
            .triangles
            .iter()
            .map(|t| {
                let b = tri_box(&mesh, t);
                Aabb {
                    min: (b.min - centre) * scale,
                    max: (b.max - centre) * scale,
                }
                .padded(PAD / 2.0)
            })
            .collect();
        assert!(covers(&tree.bvh, &held));
        let mut bvh = tree.bvh.clone();
        let node = bvh.nodes.iter_mut().find(|n| n.imask == 0).unwrap(); // leaves only
        let ch = (0..8).find(|&c| !node.is_child_empty(c)).unwrap();
        node.child_max_x[ch] -= 1;
        assert!(!covers(&bvh, &held));
    }
}
