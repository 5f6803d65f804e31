//! Every triangle pair closer than a clearance `d`: the interference check with a safety margin.

use super::{
    concatenated, leaf_gap, over_leaf_pairs_by_job, posed_leaf_pairs, spheres_if, Listed, Posed,
    Timings,
};
use crate::geom::closer::closer_than;
use crate::geom::{spheres_within, tritri, DVec3, Tri};
use rayon::prelude::*;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClearancePair {
    pub a: u32,
    pub b: u32,
    /// 0 for intersecting pairs, and only for them (a disjoint pair's distance that rounds to
    /// 0 reads as the least positive f64).
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

/// Pairs of `a` and `b` whose distance is `< d`, exactly ([`decide`]). Culls: node boxes within
/// `d`, then Nathan (2015) step 1 with tolerance `d`: `(C2 − C1)·(C2 − C1) ≤ (R1 + R2 + d)²`,
/// each grown by its rounding ([`reach`]). However many there are: [`clearance_at_most`] stops
/// at a number.
pub fn clearance(a: &Posed, b: &Posed, d: f64) -> ClearanceReport {
    match clearance_at_most(a, b, d, u64::MAX) {
        Ok(report) => report,
        Err(_) => unreachable!("no search finds more than u64::MAX pairs"),
    }
}

/// [`clearance`], refused ([`TooMany`]) once more than `most` pairs are found: it stops
/// there, so that a clearance in the wrong unit fills no memory. The guard before a query
/// ([`check_clearance`]) only sees node pairs wholly within `d`; a clearance a few triangles
/// wide on a fine mesh lies within no node, and igea against itself turned a little, at 0.01,
/// listed 777M pairs in 19 GB before this stopped it.
pub fn clearance_at_most(
    a: &Posed,
    b: &Posed,
    d: f64,
    most: u64,
) -> crate::Result<ClearanceReport, TooMany> {
    let mut timings = Timings::default();
    let t = Instant::now();
    // No distance is below 0: nothing to search.
    if d.is_nan() || d <= 0.0 {
        timings.add("clearance", t);
        return Ok(ClearanceReport {
            clearance: d,
            timings,
            ..Default::default()
        });
    }
    let reach = reach(a, b, d);
    let leaves = posed_leaf_pairs(a, b, reach);
    spheres_if(!leaves.is_empty(), a, b);
    let listed = Listed::new(most);
    let jobs = over_leaf_pairs_by_job(a, b, &leaves, |leaf_a, leaf_b, tested, out| {
        // Certainly apart by d or more (so disjoint, and their computed distances not below d):
        // neither exact tests nor distances are needed, for the leaves or a pair. Past `most`,
        // nothing more is looked at.
        if leaf_gap(leaf_a, leaf_b) >= reach || listed.full() {
            return;
        }
        let before = out.len();
        for &(i, ta, sa) in leaf_a {
            for &(j, tb, sb) in leaf_b {
                if !spheres_within(&sa, &sb, reach) {
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
        listed.add(out.len() - before);
    });
    listed.over(Listing::Clearance(d))?;
    let (candidates, mut pairs) = concatenated(jobs);
    pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
    timings.add("clearance", t);
    Ok(ClearanceReport {
        clearance: d,
        pairs,
        candidates,
        timings,
    })
}

/// More triangle pairs than a report may list ([`MAX_PAIRS`]): a clearance in another unit
/// than the meshes', or parts (a mesh) made of triangles repeated many times over.
#[derive(Clone, Copy, Debug, thiserror::Error)]
#[error("{what} more than the {most} triangle pairs a report lists ({})", what.likely())]
pub struct TooMany {
    pub what: Listing,
    pub most: u64,
}

/// What a [`TooMany`] report would have listed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Listing {
    /// The pairs within a clearance.
    Clearance(f64),
    /// Two parts' intersecting pairs.
    Intersecting,
    /// A mesh's self-intersecting pairs.
    SelfIntersecting,
    /// The pairs of a sphere and a triangle it touches.
    SphereContacts,
    /// The hits of rays, every one each ([`super::Hits::All`]).
    RayHits,
}

impl Listing {
    fn likely(&self) -> &'static str {
        match self {
            Listing::Clearance(_) => "is it in the meshes' unit?",
            Listing::SphereContacts => "are the radii in the mesh's unit?",
            Listing::RayHits => "fewer rays a batch, or the first hit alone?",
            Listing::Intersecting | Listing::SelfIntersecting => {
                "triangles repeated many times over?"
            }
        }
    }
}

impl std::fmt::Display for Listing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listing::Clearance(d) => write!(f, "a clearance of {d} holds"),
            Listing::Intersecting => write!(f, "the parts intersect in"),
            Listing::SelfIntersecting => write!(f, "the mesh cuts itself in"),
            Listing::SphereContacts => write!(f, "the spheres touch"),
            Listing::RayHits => write!(f, "the rays meet"),
        }
    }
}

/// The most triangle pairs a clearance report lists (24 bytes each: 3 GB). A clearance in the
/// wrong unit (1000 for 1 on parts of a few units) asks for every pair of the parts, billions
/// on large meshes: they filled the memory until the process was killed (a hunt's helper).
pub const MAX_PAIRS: u64 = 1 << 27;

/// Node pairs [`pairs_within_at_least`] opens at most, widest first: a clearance far larger
/// than the parts is seen at the roots, one a few leaves wide within these (about 30 ms).
const GUARD_OPENINGS: usize = 1 << 20;

/// A lower bound on the triangle pairs of `a` and `b` closer than `d`, or any number above
/// `limit` once it is passed: every pair of the node pairs whose boxes lie wholly within `d`
/// of each other (their farthest corners, less their rounding), found within
/// [`GUARD_OPENINGS`] openings from the roots, level by level.
pub fn pairs_within_at_least(a: &Posed, b: &Posed, d: f64, limit: u64) -> u64 {
    let (ta, tb) = (a.tree(), b.tree());
    let farthest = |x: &crate::geom::Aabb, y: &crate::geom::Aabb| {
        let span = (x.max - y.min).abs().max((y.max - x.min).abs());
        span.length()
    };
    // Boxes hold their triangles, so their farthest corners bound every pair's distance,
    // computed within the rounding `reach` allows for at these coordinates.
    let within = d - (reach(a, b, d) - d);
    let mut count = 0u64;
    let mut queue = std::collections::VecDeque::from([(0usize, 0usize)]);
    for _ in 0..GUARD_OPENINGS {
        let Some((x, y)) = queue.pop_front() else {
            break;
        };
        let (bx, by) = (a.node_box(x), b.node_box(y));
        if bx.distance_squared(&by) > d * d {
            continue;
        }
        let (nx, ny) = (&ta.nodes[x], &tb.nodes[y]);
        if farthest(&bx, &by) < within {
            count = count.saturating_add(nx.tri_count as u64 * ny.tri_count as u64);
            if count > limit {
                break;
            }
            continue;
        }
        if !nx.is_leaf() && (ny.is_leaf() || bx.diagonal() >= by.diagonal()) {
            queue.extend(nx.children().map(|c| (c, y)));
        } else if !ny.is_leaf() {
            queue.extend(ny.children().map(|c| (x, c)));
        }
    }
    count
}

/// [`pairs_within_at_least`] held to [`MAX_PAIRS`]: an error saying so where the clearance
/// would list more.
pub fn check_clearance(a: &Posed, b: &Posed, d: f64) -> crate::Result<()> {
    if pairs_within_at_least(a, b, d, MAX_PAIRS) <= MAX_PAIRS {
        return Ok(());
    }
    Err(TooMany {
        what: Listing::Clearance(d),
        most: MAX_PAIRS,
    }
    .into())
}

/// How far, relative to the coordinates' magnitude, an f64 distance or bound may be from the
/// exact one: its points are computed within a few roundings (2^-53) of it, so 1e-12 leaves a
/// factor of a thousand (the margin [`tritri::gap_along`] subtracts too).
const ROUNDING: f64 = 1e-12;

/// The distance the culls keep pairs within for a clearance `d`: `d` and the rounding of the
/// culls' boxes and spheres at both parts' coordinates, so that no pair closer than `d`,
/// exactly, is passed over.
pub(crate) fn reach(a: &Posed, b: &Posed, d: f64) -> f64 {
    let m = [a.node_box(0), b.node_box(0)]
        .iter()
        .map(|x| x.min.abs().max(x.max.abs()).max_element())
        .fold(0.0, f64::max);
    d + ROUNDING * (m + d)
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
    decide(ta, tb, meets, d)
}

/// [`within`] for a pair whose meeting is decided (exactly): `Some` with its f64 distance (0
/// where they meet) when it is closer than `d`, exactly. A pair exactly `d` apart is not,
/// whichever way its f64 distance rounds; a pair counted within a rounding of `d` may read `d`
/// or just above it.
pub(crate) fn decide(ta: &Tri, tb: &Tri, meets: bool, d: f64) -> Option<(f64, bool)> {
    if meets {
        return (d > 0.0).then_some((0.0, true));
    }
    let r = tritri::separated_distance(ta, tb);
    closer(ta, tb, &r, d).then_some((super::distance::apart(r.distance), false))
}

/// Whether disjoint `ta` and `tb`, whose f64 distance is `r`, are closer than `d`, exactly. The
/// f64 values settle all but a tie: `r`'s points lie on the triangles within a rounding, so
/// the exact distance is at most `r`'s and that; a separating axis bounds it from below. Far
/// from the origin, coordinates round at their magnitude rather than the triangles' size, so
/// the bounds are taken again about a corner. Only what they leave goes to integers.
fn closer(ta: &Tri, tb: &Tri, r: &tritri::TriTriDistance, d: f64) -> bool {
    let magnitude = |o: DVec3| {
        ta.iter()
            .chain(tb)
            .map(|p| (*p - o).abs().max_element())
            .fold(0.0, f64::max)
    };
    if r.distance < d - ROUNDING * (magnitude(DVec3::ZERO) + d) {
        return true;
    }
    // About ta's first corner, each coordinate within a rounding of its exact difference.
    let o = ta[0];
    let (la, lb) = (ta.map(|p| p - o), tb.map(|p| p - o));
    let band = ROUNDING * (magnitude(o) + d);
    if tritri::gap_along(&la, &lb, r.separation) >= d + band {
        return false;
    }
    if tritri::separated_distance(&la, &lb).distance < d - band {
        return true;
    }
    closer_than(ta, tb, d)
}
