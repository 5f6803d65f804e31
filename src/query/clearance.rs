//! Every triangle pair closer than a clearance `d`: the interference check with a safety margin.

use super::{leaf_gap, over_leaf_pairs, posed_leaf_pairs, spheres_if, Posed, Timings};
use crate::geom::{spheres_within, tritri, DVec3, Tri};
use rayon::prelude::*;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClearancePair {
    pub a: u32,
    pub b: u32,
    /// 0 for intersecting pairs.
    pub distance: f64,
    /// The triangles intersect (touching counts), decided exactly.
    pub intersects: bool,
}

#[derive(Clone, Debug, Default)]
pub struct ClearanceReport {
    pub clearance: f64,
    /// Pairs with distance strictly below the clearance, sorted by `(a, b)`.
    pub pairs: Vec<ClearancePair>,
    pub candidates: u64,
    pub timings: Timings,
}

/// Pairs of `a` and `b` whose distance is `< d`. Culls: node boxes within `d`, then Nathan (2015)
/// step 1 with tolerance `d`: `(C2 − C1)·(C2 − C1) ≤ (R1 + R2 + d)²`.
pub fn clearance(a: &Posed, b: &Posed, d: f64) -> ClearanceReport {
    let mut timings = Timings::default();
    let t = Instant::now();
    // No distance is below 0: nothing to search.
    if d.is_nan() || d <= 0.0 {
        timings.add("clearance", t);
        return ClearanceReport {
            clearance: d,
            timings,
            ..Default::default()
        };
    }
    let leaves = posed_leaf_pairs(a, b, d);
    spheres_if(!leaves.is_empty(), a, b);
    let (candidates, mut pairs) = over_leaf_pairs(a, b, &leaves, |leaf_a, leaf_b, tested, out| {
        // Certainly apart by d or more (so disjoint, and their computed distances not below d):
        // neither exact tests nor distances are needed, for the leaves or a pair.
        if leaf_gap(leaf_a, leaf_b) >= d {
            return;
        }
        for &(i, ta, sa) in leaf_a {
            for &(j, tb, sb) in leaf_b {
                if !spheres_within(&sa, &sb, d) {
                    continue;
                }
                *tested += 1;
                if let Some((distance, intersects)) = within(&ta, &tb, sb.center - sa.center, d) {
                    out.push(ClearancePair {
                        a: i,
                        b: j,
                        distance,
                        intersects,
                    });
                }
            }
        }
    });
    pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
    timings.add("clearance", t);
    ClearanceReport {
        clearance: d,
        pairs,
        candidates,
        timings,
    }
}

/// Whether two posed triangles are closer than `d`, and if so their distance and whether they
/// meet: the decision every clearance count makes. `axis` is the caller's guess at the
/// direction between them (the line between their centroids), for the separation bound.
pub(crate) fn within(ta: &Tri, tb: &Tri, axis: DVec3, d: f64) -> Option<(f64, bool)> {
    let lb = tritri::separation_bound(ta, tb, axis);
    if lb >= d {
        return None;
    }
    // An intersecting pair can be far apart by the vertex/edge measures (an edge piercing a
    // face), so intersection is decided first, as in Nathan (2015); a positive bound has proved
    // the pair disjoint already.
    let meets = lb <= 0.0 && tritri::intersect(ta, tb);
    let distance = if meets {
        0.0
    } else {
        tritri::separated_distance(ta, tb).distance
    };
    (distance < d).then_some((distance, meets))
}
