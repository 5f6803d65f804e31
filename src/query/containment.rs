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

/// Vertices whose inside-ness stands for their mesh's (any vertex of a body would do when the
/// surfaces do not meet and the other mesh is closed: a body is connected, so it is wholly on
/// one side of the other part's surface): one per body ([`crate::mesh::Bodies::probes`]),
/// where it is. Against a mesh that is not closed, whose winding number can cross 1/2 away from
/// its surface, a body is judged by this vertex.
pub(crate) fn probes<'a>(m: &'a Posed) -> impl Iterator<Item = (u32, DVec3)> + 'a {
    m.prep.bodies.probes.iter().map(|&v| (v, m.vertex(v)))
}

/// The first of `probes` certainly inside `m`; else the first inside but uncertain; with
/// whether every probe looked at was certain (all of them when none is inside).
pub(crate) fn first_inside(
    probes: impl Iterator<Item = (u32, DVec3)>,
    m: &Posed,
) -> (Option<(u32, DVec3)>, bool) {
    pick(probes.map(|(v, p)| ((v, p), point_inside(p, m))))
}

/// [`first_inside`] over probes already answered (lazily: it stops at the first certain one).
pub(crate) fn pick(
    answers: impl Iterator<Item = ((u32, DVec3), Inside)>,
) -> (Option<(u32, DVec3)>, bool) {
    let (mut uncertain_inside, mut certain) = (None, true);
    for (probe, i) in answers {
        if i.inside && i.certain {
            return (Some(probe), true);
        }
        certain &= i.certain;
        if i.inside && uncertain_inside.is_none() {
            uncertain_inside = Some(probe);
        }
    }
    (uncertain_inside, certain)
}

/// With the surfaces known not to intersect: is one part inside the other, or a body of it,
/// and is that certain ([`Inside::certain`])?
pub fn containment(a: &Posed, b: &Posed) -> (Option<Containment>, bool) {
    let Ok(c) = containment_with::<std::convert::Infallible>(a, b, |probes, m| {
        Ok(first_inside(probes.into_iter(), m))
    });
    c
}

/// [`containment`] with `first` answering [`first_inside`] for a part's probes against the
/// other part (the GPU answers them in one batch).
pub(crate) fn containment_with<E>(
    a: &Posed,
    b: &Posed,
    first: impl Fn(Vec<(u32, DVec3)>, &Posed) -> Result<(Option<(u32, DVec3)>, bool), E>,
) -> Result<(Option<Containment>, bool), E> {
    let (a_in_b, certain_a) = first(probes(a).collect(), b)?;
    if a_in_b.is_some() && certain_a {
        return Ok((Some(Containment::AInB), true));
    }
    let (b_in_a, certain_b) = first(probes(b).collect(), a)?;
    Ok(match (a_in_b, b_in_a) {
        (_, Some(_)) if certain_b => (Some(Containment::BInA), true),
        (Some(_), _) => (Some(Containment::AInB), false),
        (None, Some(_)) => (Some(Containment::BInA), false),
        (None, None) => (None, certain_a && certain_b),
    })
}
