//! A yes/no clash query that stops at the first evidence: the question a clash review asks
//! first, answered without listing every pair.

use super::containment::{first_inside, probes};
use super::{leaf_gap, Posed};
use crate::geom::{spheres_within, tritri, DVec3};
use crate::octree::{any_leaf_pair, world_box};

/// The first evidence that two parts interfere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Interference {
    /// Vertex `vertex` of A, at `point` (world), is inside B's closed bodies or on their surface.
    VertexOfAInB { vertex: u32, point: DVec3 },
    /// Vertex `vertex` of B, at `point` (world), is inside A's closed bodies or on their surface.
    VertexOfBInA { vertex: u32, point: DVec3 },
    /// Some triangle pair intersects. Which pair the search meets first depends on the
    /// threads, so none is named: [`super::intersect`] lists them all.
    SurfacesMeet,
}

impl Interference {
    pub fn as_str(&self) -> &'static str {
        match self {
            Interference::VertexOfAInB { .. } => "vertex_of_a_in_b",
            Interference::VertexOfBInA { .. } => "vertex_of_b_in_a",
            Interference::SurfacesMeet => "surfaces_meet",
        }
    }
}

/// Do the parts interfere: surfaces meeting, or one inside the other. Same answer as
/// [`super::check`]'s `interferes()`, found faster; see [`interference`].
pub fn interferes(a: &Posed, b: &Posed) -> bool {
    interference(a, b).is_some()
}

/// The first evidence that the parts interfere, or `None` when they do not:
/// - a vertex of either that a ray puts inside the solid the other's closed bodies bound
///   means the parts overlap (or, if the vertex is on the surface, touch): interference, in
///   microseconds. A vertex found outside proves nothing yet;
/// - the surface search, stopping at the first intersecting pair;
/// - no pair intersecting: a vertex of every other body of each (a part of several bodies may
///   have one inside the other part and the rest outside it).
///
/// Only the vertices and nodes visited are posed.
pub fn interference(a: &Posed, b: &Posed) -> Option<Interference> {
    // The first body of each first: a part that is one body is settled by these two rays.
    let inside = |skip: usize, take: usize| {
        if let Some((vertex, point)) = first_inside(probes(a).skip(skip).take(take), b) {
            return Some(Interference::VertexOfAInB { vertex, point });
        }
        first_inside(probes(b).skip(skip).take(take), a)
            .map(|(vertex, point)| Interference::VertexOfBInA { vertex, point })
    };
    if let Some(i) = inside(0, 1) {
        return Some(i);
    }
    // The node search in A's own frame: A's boxes as built, B's carried by A⁻¹B, one pose per
    // box instead of two. Both are padded by 1e-12 of the world coordinates' magnitude, which
    // covers the rounding of both poses (the exact tests use the posed triangles).
    let rel = a.pose.relative(&b.pose);
    let pad = 1e-12 * a.frame_magnitude().max(b.frame_magnitude()) + f64::MIN_POSITIVE;
    let ba = |n: usize| a.tree().nodes[n].aabb().padded(pad);
    let bb = |n: usize| world_box(&b.tree().nodes[n].aabb(), &rel).padded(pad);
    let meet = any_leaf_pair(a.tree(), ba, b.tree(), bb, 0.0, |la, lb| {
        let (mut leaf_a, mut leaf_b) = (Vec::new(), Vec::new());
        a.leaf_tris(la, &mut leaf_a);
        b.leaf_tris(lb, &mut leaf_b);
        leaf_gap(&leaf_a, &leaf_b) <= 0.0
            && leaf_a.iter().any(|(_, ta, sa)| {
                leaf_b
                    .iter()
                    .any(|(_, tb, sb)| spheres_within(sa, sb, 0.0) && tritri::intersect(ta, tb))
            })
    });
    if meet {
        return Some(Interference::SurfacesMeet);
    }
    // The other bodies: one of them may be inside where the first is not.
    inside(1, usize::MAX)
}
