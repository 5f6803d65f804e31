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

use super::winding::{ray_crossings, winding_number};
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

/// Whether `p` is inside the solid `m` bounds (its surface must not pass through `p`).
pub fn point_inside(p: DVec3, m: &Posed) -> Inside {
    let info = &m.prep.info;
    if info.closed && !info.oriented {
        return match ray_crossings(p, m, &[]) {
            Some((n, _)) => Inside {
                inside: n % 2 == 1,
                certain: true,
            },
            None => Inside {
                inside: false,
                certain: false,
            },
        };
    }
    let w = winding_number(p, m);
    Inside {
        inside: w.inside(),
        certain: w.certain(),
    }
}

/// A vertex standing for its body's inside-ness: its index, its body, where it is.
pub(crate) type Witness = (u32, u32, DVec3);

/// The vertices of bodies `bodies` of `a` whose inside-ness against `b` stands for theirs.
/// Against a closed `b`, one per body ([`crate::mesh::Bodies::probes`]): a body that does not
/// meet b's surface is wholly on one side of it. Against any other, every vertex: its winding
/// number can pass 1/2 away from its surface (a rod through the teapot's open lid is partly in),
/// so each body's vertices must agree for its answer to be certain ([`pick`]).
pub(crate) fn witnesses(a: &Posed, b: &Posed, bodies: std::ops::Range<usize>) -> Vec<Witness> {
    let probes = &a.prep.bodies.probes;
    let bodies = bodies.start.min(probes.len())..bodies.end.min(probes.len());
    if b.prep.info.closed {
        return bodies
            .map(|k| (probes[k], k as u32, a.vertex(probes[k])))
            .collect();
    }
    let mesh = &a.prep.mesh;
    let mut body_of = vec![u32::MAX; mesh.vertices.len()];
    for (t, &k) in mesh.triangles.iter().zip(&a.prep.bodies.of_triangle) {
        for &v in t {
            body_of[v as usize] = k;
        }
    }
    a.verts_for(mesh.triangles.len());
    (0..body_of.len() as u32)
        .filter(|&v| bodies.contains(&(body_of[v as usize] as usize)))
        .map(|v| (v, body_of[v as usize], a.vertex(v)))
        .collect()
}

/// The first of `witnesses` certainly inside `m`, else the first inside but uncertain; and
/// whether the answer is certain ([`pick`]).
pub(crate) fn first_inside(witnesses: Vec<Witness>, m: &Posed) -> (Option<(u32, DVec3)>, bool) {
    let whole = !m.prep.info.closed;
    if whole {
        let answers: Vec<Inside> = witnesses.par_iter().map(|w| point_inside(w.2, m)).collect();
        return pick(witnesses.into_iter().zip(answers), whole);
    }
    pick(
        witnesses.into_iter().map(|w| (w, point_inside(w.2, m))),
        whole,
    )
}

/// From witnesses and their answers: the first certainly inside, else the first inside; and
/// whether that is certain: every answer certain and, where `whole` (the container is not
/// closed and every vertex was asked), every body's vertices agreeing. Where not `whole`, it
/// stops at the first certainly inside.
pub(crate) fn pick(
    answers: impl Iterator<Item = (Witness, Inside)>,
    whole: bool,
) -> (Option<(u32, DVec3)>, bool) {
    let (mut first, mut first_certain, mut certain) = (None, None, true);
    // Per body: some vertex inside, some outside.
    let mut votes: std::collections::HashMap<u32, (bool, bool)> = Default::default();
    for ((v, body, p), i) in answers {
        if i.inside && i.certain && !whole {
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
    let split = votes.values().any(|&(inside, outside)| inside && outside);
    (first_certain.or(first), certain && !split)
}

/// With the surfaces known not to intersect: is one part inside the other, or a body of it,
/// and is that certain ([`Inside::certain`], and against a container that is not closed every
/// body wholly on one side)?
pub fn containment(a: &Posed, b: &Posed) -> (Option<Containment>, bool) {
    let Ok(c) = containment_with::<std::convert::Infallible>(a, b, |ws, m| Ok(first_inside(ws, m)));
    c
}

/// [`containment`] with `first` answering [`first_inside`] for a part's witnesses against the
/// other part (the GPU answers them in one batch).
pub(crate) fn containment_with<E>(
    a: &Posed,
    b: &Posed,
    first: impl Fn(Vec<Witness>, &Posed) -> Result<(Option<(u32, DVec3)>, bool), E>,
) -> Result<(Option<Containment>, bool), E> {
    let (a_in_b, certain_a) = first(witnesses(a, b, 0..usize::MAX), b)?;
    if a_in_b.is_some() && certain_a {
        return Ok((Some(Containment::AInB), true));
    }
    let (b_in_a, certain_b) = first(witnesses(b, a, 0..usize::MAX), a)?;
    Ok(match (a_in_b, b_in_a) {
        (_, Some(_)) if certain_b => (Some(Containment::BInA), true),
        (Some(_), _) => (Some(Containment::AInB), false),
        (None, Some(_)) => (Some(Containment::BInA), false),
        (None, None) => (None, certain_a && certain_b),
    })
}
