//! Distance between solids: the question parry3d's and FCL's `distance` answer for closed
//! meshes, where a part inside another is at distance 0 although its surface is not.

use super::interferes::{interference_and_certainty, interference_given, Interference};
use super::{distance, DistanceReport, IntersectReport, Posed};

/// How far apart two parts are as solids.
#[derive(Clone, Debug, PartialEq)]
pub enum SolidDistance {
    /// They share points (distance 0): the first evidence found.
    Interfering(Interference),
    /// They are apart: the surfaces' minimum distance, which is the solids' too; and whether
    /// no vertex's inside-ness was uncertain ([`super::Inside::certain`]).
    Apart {
        report: DistanceReport,
        containment_certain: bool,
    },
}

impl SolidDistance {
    pub fn distance(&self) -> f64 {
        match self {
            SolidDistance::Interfering(_) => 0.0,
            SolidDistance::Apart { report, .. } => report.distance,
        }
    }

    /// Whether the answer is certain, not the likelier one (possible only against a part that
    /// is not closed): the evidence's certainty, or apart's `containment_certain`.
    pub fn certain(&self) -> bool {
        match self {
            SolidDistance::Interfering(i) => i.certain(),
            SolidDistance::Apart {
                containment_certain,
                ..
            } => *containment_certain,
        }
    }
}

/// The distance between the solids bounded by `a` and `b`: 0 when they interfere (surfaces
/// meeting, or one inside the other), else the minimum distance between the surfaces. Stops at
/// the first evidence of interference ([`interference`]), so a part swallowed by another is
/// answered in microseconds. For a mesh that is not closed there is no solid: its surface
/// stands for it.
pub fn solid_distance(a: &Posed, b: &Posed) -> SolidDistance {
    solid_with(a, b, |a, b| distance(a, b, &IntersectReport::default()))
}

/// [`solid_distance`] on the calling thread, by the oriented boxes' search
/// ([`super::oriented`]): the same answer, for callers that ask many (poses, each on a thread
/// of its own; a long sweep, step by step) once the boxes are built.
pub(crate) fn solid_distance_serial(a: &Posed, b: &Posed) -> SolidDistance {
    solid_with(a, b, super::oriented::distance)
}

/// The interference search, then `measure`'s distance when there is none.
fn solid_with(
    a: &Posed,
    b: &Posed,
    measure: impl Fn(&Posed, &Posed) -> DistanceReport,
) -> SolidDistance {
    solid_from(a, b, interference_and_certainty(a, b), measure)
}

/// [`solid_distance`] where the surfaces are known not to meet (a GPU proved it, `gpu::poses`):
/// the vertices' evidence in the same order, then `measure`'s distance.
pub(crate) fn solid_distance_apart(
    a: &Posed,
    b: &Posed,
    measure: impl Fn(&Posed, &Posed) -> DistanceReport,
) -> SolidDistance {
    solid_from(a, b, interference_given(a, b, || false), measure)
}

/// The answer given the interference search's: its evidence, else `measure`'s distance.
fn solid_from(
    a: &Posed,
    b: &Posed,
    interference: (Option<Interference>, bool),
    measure: impl Fn(&Posed, &Posed) -> DistanceReport,
) -> SolidDistance {
    match interference {
        (Some(i), _) => SolidDistance::Interfering(i),
        // No pair intersects (the search was exhaustive), which is what the distance needs to
        // know: every pair is disjoint.
        (None, containment_certain) => SolidDistance::Apart {
            report: measure(a, b),
            containment_certain,
        },
    }
}
