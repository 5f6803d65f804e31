//! A yes/no clash query that stops at the first evidence: the question a clash review asks
//! first, answered without listing every pair.

use super::containment::{first_inside, witnesses};
use super::{leaf_gap, Posed};
use crate::geom::{spheres_within, tritri, DVec3};
use crate::octree::{any_leaf_pair, world_box};

/// The first evidence that two parts interfere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Interference {
    /// Vertex `vertex` of A, at `point` (world), is inside B ([`super::point_inside`]);
    /// `certain` as [`super::Inside::certain`].
    VertexOfAInB {
        vertex: u32,
        point: DVec3,
        certain: bool,
    },
    /// Vertex `vertex` of B, at `point` (world), is inside A.
    VertexOfBInA {
        vertex: u32,
        point: DVec3,
        certain: bool,
    },
    /// Some triangle pair intersects. Which pair the search meets first depends on the
    /// threads, so none is named: [`super::intersect`] lists them all.
    SurfacesMeet,
}

impl Interference {
    /// Whether the evidence is certain: surfaces meeting always are; a vertex inside is
    /// unless its winding number was within its rounding bound of 1/2.
    pub fn certain(&self) -> bool {
        match self {
            Interference::VertexOfAInB { certain, .. }
            | Interference::VertexOfBInA { certain, .. } => *certain,
            Interference::SurfacesMeet => true,
        }
    }

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

/// The first evidence that the parts interfere, or `None` when they do not
/// ([`interference_and_certainty`]).
pub fn interference(a: &Posed, b: &Posed) -> Option<Interference> {
    interference_and_certainty(a, b).0
}

/// The first evidence that the parts interfere, or `None` when they do not, and whether that
/// is certain ([`super::Inside::certain`]):
/// - a vertex of either certainly inside the other means the parts overlap (or, if the vertex
///   is on the surface, touch): interference, in microseconds (where both are closed: against
///   a part that is not, every vertex is asked, after the surfaces). A vertex found outside
///   proves nothing yet;
/// - the surface search, stopping at the first intersecting pair;
/// - no pair intersecting: a vertex of every other body of each (a part of several bodies may
///   have one inside the other part and the rest outside it);
/// - no certain evidence: a vertex inside but uncertain is the evidence, not certain.
///
/// Only the vertices and nodes visited are posed.
pub fn interference_and_certainty(a: &Posed, b: &Posed) -> (Option<Interference>, bool) {
    interference_given(a, b, || surfaces_meet(a, b))
}

/// [`interference_and_certainty`] with `meet` telling whether the surfaces meet: where a GPU
/// has already proved they do not (`gpu::poses`), the vertices alone, in the same order.
pub(crate) fn interference_given(
    a: &Posed,
    b: &Posed,
    meet: impl FnOnce() -> bool,
) -> (Option<Interference>, bool) {
    // Against a part that is not closed every vertex is asked, a winding number each, dear on
    // or near its surface: the surfaces first there (an open bunny against its own copy spent
    // 10 s on its vertices before the first pair, a hunt's helper found).
    if !(a.prep.info.closed && b.prep.info.closed) {
        if meet() {
            return (Some(Interference::SurfacesMeet), true);
        }
        return inside_bodies(a, b, 0, usize::MAX);
    }
    // The first body of each first: a part that is one body is settled by these two rays.
    let (first, first_certain) = inside_bodies(a, b, 0, 1);
    if let Some(i) = first.filter(Interference::certain) {
        return (Some(i), true);
    }
    if meet() {
        return (Some(Interference::SurfacesMeet), true);
    }
    // The other bodies: one of them may be inside where the first is not.
    let (rest, rest_certain) = inside_bodies(a, b, 1, usize::MAX);
    if let Some(i) = rest.filter(Interference::certain) {
        return (Some(i), true);
    }
    (first.or(rest), first_certain && rest_certain)
}

/// Bodies `skip..skip + take` of A against B, then of B against A: the first vertex certainly
/// inside, else the first inside but uncertain; and whether every vertex looked at was certain.
fn inside_bodies(a: &Posed, b: &Posed, skip: usize, take: usize) -> (Option<Interference>, bool) {
    let bodies = skip..skip.saturating_add(take);
    let (in_b, certain_a) = first_inside(a, witnesses(a, b, bodies.clone()), b);
    let of_a = in_b.map(|(vertex, point)| Interference::VertexOfAInB {
        vertex,
        point,
        certain: evidence_certain(certain_a, point, b),
    });
    if of_a.is_some_and(|i| i.certain()) {
        return (of_a, true);
    }
    let (in_a, certain_b) = first_inside(b, witnesses(b, a, bodies), a);
    let of_b = in_a.map(|(vertex, point)| Interference::VertexOfBInA {
        vertex,
        point,
        certain: evidence_certain(certain_b, point, a),
    });
    if of_b.is_some_and(|i| i.certain()) {
        return (of_b, true);
    }
    (of_a.or(of_b), certain_a && certain_b)
}

/// Whether a vertex found inside `m` is certain evidence: every answer about the part's
/// vertices was (`all_certain`), or this vertex is itself certainly inside. The parts then
/// share that point, whatever the other vertices of its body say: a split body leaves its
/// containment uncertain, not the interference (a review's helper: a cube crossing an open
/// box's hole, a vertex at w = 0.59 inside, read "interferes, uncertain").
fn evidence_certain(all_certain: bool, point: DVec3, m: &Posed) -> bool {
    all_certain || super::point_inside(point, m).certain
}

/// Whether any triangle pair intersects, stopping at the first.
fn surfaces_meet(a: &Posed, b: &Posed) -> bool {
    // The node search in A's own frame: A's boxes as built, B's carried by A⁻¹B, one pose per
    // box instead of two. Both are padded by 1e-12 of the world coordinates' magnitude, which
    // covers the rounding of both poses (the exact tests use the posed triangles).
    let rel = a.pose.relative(&b.pose);
    let magnitude = a.frame_magnitude().max(b.frame_magnitude());
    // Plus how far A's Rᵀ is from its inverse (a rotation accepted a little off orthonormal),
    // at the coordinates it carries.
    let pad = 1e-12 * magnitude
        + a.pose.unapply_error(super::carried_magnitude(a, b))
        + f64::MIN_POSITIVE;
    let ba = |n: usize| a.tree().nodes[n].aabb().padded(pad);
    let bb = |n: usize| world_box(&b.tree().nodes[n].aabb(), &rel).padded(pad);
    any_leaf_pair(a.tree(), ba, b.tree(), bb, 0.0, |la, lb| {
        let (mut leaf_a, mut leaf_b) = (Vec::new(), Vec::new());
        a.leaf_tris(la, &mut leaf_a);
        b.leaf_tris(lb, &mut leaf_b);
        leaf_gap(&leaf_a, &leaf_b) <= 0.0
            && leaf_a.iter().any(|(_, ta, sa)| {
                leaf_b
                    .iter()
                    .any(|(_, tb, sb)| spheres_within(sa, sb, 0.0) && tritri::intersect(ta, tb))
            })
    })
}
