//! Which triangle pairs of two posed meshes intersect (touching included), each classified.

use super::{
    concatenated, leaf_gap, over_leaf_pairs_by_job, posed_leaf_pairs, spheres_if, Listed, Listing,
    Posed, Timings, TooMany,
};
use crate::geom::classify::{classify, Contact, Intersection};
use crate::geom::{spheres_within, tritri, DVec3};
use rayon::prelude::*;
use std::time::Instant;

/// One intersecting pair: triangle `a` of the first mesh, `b` of the second.
#[derive(Clone, Debug, PartialEq)]
pub struct PairContact {
    pub a: u32,
    pub b: u32,
    pub contact: Contact,
}

#[derive(Clone, Debug, Default)]
pub struct IntersectReport {
    /// Sorted by `(a, b)`.
    pub pairs: Vec<PairContact>,
    /// Triangle pairs that passed the octree and bounding-sphere culls and were tested exactly.
    pub candidates: u64,
    pub timings: Timings,
}

impl IntersectReport {
    pub fn intersects(&self) -> bool {
        !self.pairs.is_empty()
    }

    /// The pairs that pierce (each triangle crosses the other's plane through both interiors)
    /// rather than touch.
    pub fn piercing_count(&self) -> usize {
        self.pairs.iter().filter(|p| !p.contact.touching).count()
    }

    /// The intersection curves, as the segments of the crossing (non-coplanar) pairs.
    pub fn curve_segments(&self) -> Vec<(DVec3, DVec3)> {
        self.pairs
            .iter()
            .filter_map(|p| match p.contact.intersection {
                Intersection::Segment(a, b) if !p.contact.coplanar => Some((a, b)),
                _ => None,
            })
            .collect()
    }
}

/// Sabharwal and Leopold's classification of intersecting pairs (shared by both backends).
pub(crate) fn classify_pairs(a: &Posed, b: &Posed, hits: &[(u32, u32)]) -> Vec<PairContact> {
    hits.par_iter()
        .map(|&(i, j)| PairContact {
            a: i,
            b: j,
            contact: classify(&a.tri(i), &b.tri(j)).unwrap_or(Contact {
                intersection: Intersection::None,
                coplanar: false,
                touching: true,
            }),
        })
        .collect()
}

/// Every intersecting triangle pair of `a` and `b`: octree dual traversal, Nathan's
/// bounding-sphere cull (`d = 0`), then the exact test and Sabharwal and Leopold's classification.
/// However many there are: [`intersect_at_most`] stops at a number.
pub fn intersect(a: &Posed, b: &Posed) -> IntersectReport {
    match intersect_at_most(a, b, u64::MAX) {
        Ok(r) => r,
        Err(_) => unreachable!("no search finds more than u64::MAX pairs"),
    }
}

/// [`intersect`], refused once more than `most` pairs are found (parts made of one triangle
/// repeated 50 000 times have 2.5e9, and filled the memory).
pub fn intersect_at_most(a: &Posed, b: &Posed, most: u64) -> Result<IntersectReport, TooMany> {
    let mut timings = Timings::default();
    let t = Instant::now();
    let leaves = posed_leaf_pairs(a, b, 0.0);
    spheres_if(!leaves.is_empty(), a, b);
    timings.add("cull_nodes", t);
    let t = Instant::now();
    let listed = Listed::new(most);
    let jobs = over_leaf_pairs_by_job(a, b, &leaves, |leaf_a, leaf_b, tested, hits| {
        // Apart along a normal: no pair of these leaves meets.
        if leaf_gap(leaf_a, leaf_b) > 0.0 || listed.full() {
            return;
        }
        let before = hits.len();
        for (i, ta, sa) in leaf_a {
            for (j, tb, sb) in leaf_b {
                if !spheres_within(sa, sb, 0.0) {
                    continue;
                }
                *tested += 1;
                if tritri::intersect(ta, tb) {
                    hits.push((*i, *j));
                }
            }
        }
        listed.add(hits.len() - before);
    });
    listed.over(Listing::Intersecting)?;
    let (candidates, mut hits) = concatenated(jobs);
    hits.par_sort_unstable();
    timings.add("narrow_phase", t);
    let t = Instant::now();
    let pairs = classify_pairs(a, b, &hits);
    timings.add("classify", t);
    Ok(IntersectReport {
        pairs,
        candidates,
        timings,
    })
}
