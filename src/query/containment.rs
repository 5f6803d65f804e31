//! Is a point inside a mesh, and is one part inside another?
//!
//! Inside is decided by the generalized winding number ([`winding_number`]): |w| ≥ 1/2, the
//! nonzero rule, so that a body turned inside out, two overlapping bodies of one assembly and a
//! mesh closed only to the eye (an unwelded seam, a missing triangle, the teapot's lid) all
//! bound what a person sees them bound. Where the mesh is closed and consistently oriented w is
//! the exact integer of a ray's crossings; elsewhere a point whose |w| is within the rounding
//! bound of 1/2 is reported as uncertain, never silently decided. A closed mesh whose triangles
//! are not consistently oriented has no meaningful w: there a ray's crossings are counted by
//! parity.

use super::winding::{inside_room, ray_crossings, room, winding_number, Winding};
use super::Posed;
use crate::geom::DVec3;
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Containment {
    /// A, or a body of it (a connected component), is inside B.
    AInB,
    /// B, or a body of it, is inside A.
    BInA,
}

impl Containment {
    pub fn as_str(self) -> &'static str {
        match self {
            Containment::AInB => "a_in_b",
            Containment::BInA => "b_in_a",
        }
    }
}

/// Whether a point is inside a mesh, and whether that is certain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inside {
    pub inside: bool,
    /// False only where the mesh is not closed (or not consistently oriented) and the point's
    /// winding number is within its rounding bound of ±1/2, or every ray grazed an edge.
    pub certain: bool,
}

impl Inside {
    /// By the winding number's rule: |w| ≥ 1/2, certain where |w| is farther from 1/2 than
    /// its bound.
    pub fn of(w: &Winding) -> Inside {
        Inside {
            inside: w.inside(),
            certain: w.certain(),
        }
    }
}

/// Whether `m`'s inside is decided by the parity of a ray's crossings rather than by its
/// winding number: a closed mesh whose triangles are not consistently oriented. There the
/// winding number depends on which triangles are turned (a cube with one turned triangle winds
/// 0.03 just inside that triangle and 0.97 just outside it), while the parity is what the
/// closed surface bounds.
pub fn inside_by_parity(m: &Posed) -> bool {
    m.prep.info.closed && !m.prep.info.oriented
}

/// Whether `p` is inside the solid `m` bounds (its surface must not pass through `p`): by the
/// winding number, or by parity where [`inside_by_parity`].
pub fn point_inside(p: DVec3, m: &Posed) -> Inside {
    if inside_by_parity(m) {
        return parity_inside(p, m);
    }
    Inside::of(&winding_number(p, m))
}

/// [`point_inside`] for a point whose winding number `w` around `m` is known already (a
/// batch's, from either backend): the same answer.
pub fn inside_given(p: DVec3, w: &Winding, m: &Posed) -> Inside {
    if inside_by_parity(m) {
        return parity_inside(p, m);
    }
    Inside::of(w)
}

/// Odd crossings of a ray are inside; uncertain where every ray tried grazed an edge or a
/// vertex, or `p` lies on the surface.
fn parity_inside(p: DVec3, m: &Posed) -> Inside {
    match ray_crossings(p, m, &[]) {
        Some((n, _)) => Inside {
            inside: n % 2 == 1,
            certain: true,
        },
        None => Inside {
            inside: false,
            certain: false,
        },
    }
}

/// A vertex standing for its body's inside-ness: its index, its body, where it is.
pub(crate) type Witness = (u32, u32, DVec3);

/// How a body's witnesses stand for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// Against a closed mesh: one vertex per body, exactly (a body that does not meet its
    /// surface is wholly on one side of it).
    Probes,
    /// Against a mesh that is not closed, whose winding number can pass 1/2 away from its
    /// surface (a rod through the teapot's open lid is partly in): every vertex, and each
    /// body's must agree for its answer to be certain.
    Every,
    /// As `Every`, but too many vertices to ask each: one per body, never certain.
    Sampled,
}

/// Vertices of the bodies of a part asked against a mesh that is not closed, at most: beyond
/// this a body is judged by one vertex and the answer is not certain. (Every vertex of a
/// 134k-vertex part against an open scan, per pose, cost over a second.)
const WITNESS_LIMIT: usize = 20_000;

/// The vertices of bodies `bodies` of `a` whose inside-ness against `b` stands for theirs, and
/// how they stand for them ([`Coverage`]).
pub(crate) fn witnesses(
    a: &Posed,
    b: &Posed,
    bodies: std::ops::Range<usize>,
) -> (Vec<Witness>, Coverage) {
    let probes = &a.prep.bodies.probes;
    let bodies = bodies.start.min(probes.len())..bodies.end.min(probes.len());
    let one_each = || {
        bodies
            .clone()
            .map(|k| (probes[k], k as u32, a.vertex(probes[k])))
            .collect()
    };
    if b.prep.info.closed {
        return (one_each(), Coverage::Probes);
    }
    // Counted before listed: a part asked many times (poses) would list every vertex each time.
    let count: usize = a.prep.bodies.vertex_counts[bodies.clone()].iter().sum();
    if count > WITNESS_LIMIT {
        return (one_each(), Coverage::Sampled);
    }
    // No vertex at all (the bodies after the first of a one-body part): the list below would
    // still read every vertex to find none, once per pose.
    if count == 0 {
        return (Vec::new(), Coverage::Every);
    }
    let body_of = &a.prep.bodies.of_vertex;
    let every: Vec<u32> = (0..body_of.len() as u32)
        .filter(|&v| bodies.contains(&(body_of[v as usize] as usize)))
        .collect();
    a.verts_for(every.len() * 4);
    let all = every
        .into_iter()
        .map(|v| (v, body_of[v as usize], a.vertex(v)))
        .collect();
    (all, Coverage::Every)
}

/// Against a part `m` that is not closed, whether the bodies of `a` that `witnesses` (every
/// vertex of them, [`Coverage::Every`], none inside `m`, their winding numbers `windings`)
/// stand for lie wholly outside it. Their vertices being outside says nothing of the rest of
/// them there, whose winding number can pass 1/2 away from its surface: a rod threaded through
/// an open tube has its ends outside and its middle inside, and was called apart for certain
/// (a review's helper). Each triangle must lie within a ball about one of its corners that
/// [`inside_room`] clears of `m`'s inside, or be cut in four whose pieces do ([`covered`]),
/// within [`SAMPLES`] points asked in all.
pub(crate) fn wholly_outside(
    a: &Posed,
    m: &Posed,
    witnesses: &[Witness],
    windings: &[Winding],
) -> bool {
    let mut rooms = vec![None; a.prep.mesh.vertices.len()];
    for (&(v, _, p), w) in witnesses.iter().zip(windings) {
        if let Some(r) = rooms.get_mut(v as usize) {
            *r = Some((p, inside_room(p, w, m)));
        }
    }
    let left = std::sync::atomic::AtomicI64::new(SAMPLES);
    let triangles = &a.prep.mesh.triangles;
    // The triangles of the bodies asked: those whose corners were.
    triangles.par_iter().all(|t| {
        let corners = t.map(|v| rooms.get(v as usize).copied().flatten());
        match corners {
            [Some(x), Some(y), Some(z)] => covered([x, y, z], m, &left, 0),
            _ => true,
        }
    })
}

/// Points of triangles cut in four that [`wholly_outside`] asks, at most, for one part.
const SAMPLES: i64 = 1 << 14;

/// Whether triangle `corners` (each with its room) lies where `m`'s winding number cannot
/// reach 1/2: within a ball about one corner that its room clears (a ball holds the triangle
/// of any points it holds), else in four pieces that each are (their corners' rooms asked, from
/// `left`), at most eight cuts deep.
fn covered(
    corners: [(DVec3, f64); 3],
    m: &Posed,
    left: &std::sync::atomic::AtomicI64,
    depth: u32,
) -> bool {
    let held = (0..3).any(|k| {
        let (p, r) = corners[k];
        let far = p
            .distance(corners[(k + 1) % 3].0)
            .max(p.distance(corners[(k + 2) % 3].0));
        // Below the room by more than the lengths' rounding.
        far * (1.0 + 1e-9) < r
    });
    if held {
        return true;
    }
    if depth == 8 || left.fetch_sub(3, std::sync::atomic::Ordering::Relaxed) < 3 {
        return false;
    }
    let mid = |i: usize, j: usize| {
        let p = (corners[i].0 + corners[j].0) * 0.5;
        (p, room(p, m))
    };
    let (ab, bc, ca) = (mid(0, 1), mid(1, 2), mid(2, 0));
    if ab.1 == 0.0 || bc.1 == 0.0 || ca.1 == 0.0 {
        return false; // inside, or too near 1/2
    }
    let [a, b, c] = corners;
    [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
        .into_iter()
        .all(|piece| covered(piece, m, left, depth + 1))
}

/// The first of `witnesses` (of part `a`) certainly inside `m`, else the first inside but
/// uncertain; and whether the answer is certain ([`pick`]; with [`Coverage::Every`] and none
/// inside, [`wholly_outside`] too).
pub(crate) fn first_inside(
    a: &Posed,
    (witnesses, coverage): (Vec<Witness>, Coverage),
    m: &Posed,
) -> (Option<(u32, DVec3)>, bool) {
    if coverage == Coverage::Every && !inside_by_parity(m) {
        let windings: Vec<Winding> = witnesses
            .par_iter()
            .map(|w| winding_number(w.2, m))
            .collect();
        return pick_every(a, m, witnesses, windings);
    }
    pick(
        witnesses.into_iter().map(|w| (w, point_inside(w.2, m))),
        coverage,
    )
}

/// [`pick`] for every vertex of some bodies ([`Coverage::Every`]) given their winding numbers
/// around `m` (from either backend): where none is inside and all are certain, certain only if
/// the bodies lie wholly outside ([`wholly_outside`]).
pub(crate) fn pick_every(
    a: &Posed,
    m: &Posed,
    witnesses: Vec<Witness>,
    windings: Vec<Winding>,
) -> (Option<(u32, DVec3)>, bool) {
    let answers = witnesses
        .iter()
        .zip(&windings)
        .map(|(w, n)| (*w, Inside::of(n)));
    let (first, certain) = pick(answers, Coverage::Every);
    let outside = || wholly_outside(a, m, &witnesses, &windings);
    (first, certain && (first.is_some() || outside()))
}

/// From witnesses and their answers: the first certainly inside, else the first inside; and
/// whether that is certain: every answer certain; with [`Coverage::Every`], every body's
/// vertices agreeing; with [`Coverage::Sampled`], never. With [`Coverage::Probes`] it stops at
/// the first certainly inside.
pub(crate) fn pick(
    answers: impl Iterator<Item = (Witness, Inside)>,
    coverage: Coverage,
) -> (Option<(u32, DVec3)>, bool) {
    let whole = coverage == Coverage::Every;
    let (mut first, mut first_certain, mut certain) = (None, None, true);
    // Per body: some vertex inside, some outside.
    let mut votes: std::collections::HashMap<u32, (bool, bool)> = Default::default();
    for ((v, body, p), i) in answers {
        if i.inside && i.certain && coverage == Coverage::Probes {
            return (Some((v, p)), true);
        }
        certain &= i.certain;
        if i.inside {
            first.get_or_insert((v, p));
            if i.certain {
                first_certain.get_or_insert((v, p));
            }
        }
        let vote = votes.entry(body).or_default();
        if i.inside {
            vote.0 = true;
        } else {
            vote.1 = true;
        }
    }
    let split = whole && votes.values().any(|&(inside, outside)| inside && outside);
    let sampled = coverage == Coverage::Sampled;
    (first_certain.or(first), certain && !split && !sampled)
}

/// With the surfaces known not to intersect: is one part inside the other, or a body of it,
/// and is that certain ([`Inside::certain`], and against a container that is not closed every
/// body wholly on one side)?
pub fn containment(a: &Posed, b: &Posed) -> (Option<Containment>, bool) {
    let Ok(c) =
        containment_with::<std::convert::Infallible>(a, b, |w, ws, m| Ok(first_inside(w, ws, m)));
    c
}

/// [`containment`] with `first` answering [`first_inside`] for a part's witnesses against the
/// other part (the GPU answers them in one batch).
pub(crate) fn containment_with<E>(
    a: &Posed,
    b: &Posed,
    first: impl Fn(&Posed, (Vec<Witness>, Coverage), &Posed) -> Result<(Option<(u32, DVec3)>, bool), E>,
) -> Result<(Option<Containment>, bool), E> {
    let (a_in_b, certain_a) = first(a, witnesses(a, b, 0..usize::MAX), b)?;
    if a_in_b.is_some() && certain_a {
        return Ok((Some(Containment::AInB), true));
    }
    let (b_in_a, certain_b) = first(b, witnesses(b, a, 0..usize::MAX), a)?;
    Ok(match (a_in_b, b_in_a) {
        (_, Some(_)) if certain_b => (Some(Containment::BInA), true),
        (Some(_), _) => (Some(Containment::AInB), false),
        (None, Some(_)) => (Some(Containment::BInA), false),
        (None, None) => (None, certain_a && certain_b),
    })
}
