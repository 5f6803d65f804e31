//! `check`: what a clash review asks of two placed parts, in one call.

use super::distance::closest_listed;
use super::intersect::classify_pairs;
use super::{
    clearance_at_most, containment, distance, intersect_at_most, ClearanceReport, Containment,
    DistanceReport, IntersectReport, Posed, PreparedMesh, Timings, TooMany,
};
use crate::mesh::Pose;
use std::time::Instant;

#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Also list every pair closer than this.
    pub clearance: Option<f64>,
}

#[derive(Clone, Debug)]
pub struct CheckReport {
    pub intersect: IntersectReport,
    /// Only decided when the surfaces do not intersect ([`super::containment`]).
    pub containment: Option<Containment>,
    /// False where a probe's winding number was within its rounding bound of 1/2 (a mesh
    /// that is not closed): the containment is then the likelier answer, not a certain one.
    pub containment_certain: bool,
    pub distance: DistanceReport,
    pub clearance: Option<ClearanceReport>,
    pub timings: Timings,
}

impl CheckReport {
    pub fn intersects(&self) -> bool {
        self.intersect.intersects()
    }

    /// Surfaces intersect, or one part is swallowed by the other.
    pub fn interferes(&self) -> bool {
        self.intersects() || self.containment.is_some()
    }
}

pub fn check(
    a: &PreparedMesh,
    pose_a: Pose,
    b: &PreparedMesh,
    pose_b: Pose,
    opts: &CheckOptions,
) -> CheckReport {
    match check_at_most(a, pose_a, b, pose_b, opts, u64::MAX) {
        Ok(r) => r,
        Err(_) => unreachable!("no search finds more than u64::MAX pairs"),
    }
}

/// [`check`], refused once its intersecting pairs, or those within its clearance, are more
/// than `most` ([`intersect_at_most`], [`clearance_at_most`]).
pub fn check_at_most(
    a: &PreparedMesh,
    pose_a: Pose,
    b: &PreparedMesh,
    pose_b: Pose,
    opts: &CheckOptions,
    most: u64,
) -> Result<CheckReport, TooMany> {
    check_with(
        (a, pose_a),
        (b, pose_b),
        opts,
        |x, y| intersect_at_most(x, y, most),
        |x, y| Ok(containment(x, y)),
        |x, y, hits| Ok(distance(x, y, hits)),
        |x, y, d| clearance_at_most(x, y, d, most),
    )
}

/// The order of a check, shared by both backends: intersect, containment (only when the
/// surfaces do not meet), distance, clearance; each backend brings its own four stages. With
/// a clearance `d > 0` the clearance search runs first and the intersecting pairs are read off
/// it: it tests every pair the intersect search would, and decides each exactly (its
/// `intersects`), so a second search would find the same pairs again; and when some pair is
/// closer than `d`, the closest pair is among those listed, so the distance is read off them.
pub(crate) fn check_with<E>(
    (a, pose_a): (&PreparedMesh, Pose),
    (b, pose_b): (&PreparedMesh, Pose),
    opts: &CheckOptions,
    intersect: impl FnOnce(&Posed, &Posed) -> Result<IntersectReport, E>,
    contain: impl FnOnce(&Posed, &Posed) -> Result<(Option<Containment>, bool), E>,
    distance: impl FnOnce(&Posed, &Posed, &IntersectReport) -> Result<DistanceReport, E>,
    clearance: impl Fn(&Posed, &Posed, f64) -> Result<ClearanceReport, E>,
) -> Result<CheckReport, E> {
    let mut timings = Timings::default();
    // Posing is done on demand, inside the stages that need it.
    let (pa, pb) = (Posed::new(a, pose_a), Posed::new(b, pose_b));
    let mut clear = None;
    let hits = match opts.clearance {
        Some(d) if d > 0.0 => {
            let c = clearance(&pa, &pb, d)?;
            timings.extend(&c.timings);
            let t = Instant::now();
            let contacts: Vec<(u32, u32)> = c
                .pairs
                .iter()
                .filter(|p| p.intersects)
                .map(|p| (p.a, p.b))
                .collect();
            let mut hit_timings = Timings::default();
            let pairs = classify_pairs(&pa, &pb, &contacts);
            hit_timings.add("classify", t);
            let candidates = c.candidates;
            clear = Some(c);
            IntersectReport {
                pairs,
                candidates,
                timings: hit_timings,
            }
        }
        _ => intersect(&pa, &pb)?,
    };
    timings.extend(&hits.timings);
    let t = Instant::now();
    let (contained, containment_certain) = if hits.intersects() {
        (None, true)
    } else {
        contain(&pa, &pb)?
    };
    timings.add("containment", t);
    // Any pair closer than the clearance is listed, so the closest pair is too: the clearance
    // search has measured it already (on the GPU, that saves the nearest stage's round).
    let listed = match &clear {
        Some(c) if !hits.intersects() => closest_listed(&pa, &pb, c),
        _ => None,
    };
    let dist = match listed {
        Some(d) => d,
        None => distance(&pa, &pb, &hits)?,
    };
    timings.extend(&dist.timings);
    if clear.is_none() {
        clear = opts.clearance.map(|d| clearance(&pa, &pb, d)).transpose()?;
        if let Some(c) = &clear {
            timings.extend(&c.timings);
        }
    }
    Ok(CheckReport {
        intersect: hits,
        containment: contained,
        containment_certain,
        distance: dist,
        clearance: clear,
        timings,
    })
}
