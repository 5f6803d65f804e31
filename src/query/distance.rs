//! Minimum distance between two surfaces: branch and bound over the two octrees, pruned by the
//! best distance found so far (shared between threads), with Nathan's pair distance at the
//! leaves. The reported pair is the smallest `(distance², a, b)`, so ties resolve the same way
//! for any thread count.

use super::{leaf_gap, ClearanceReport, IntersectReport, Posed, Timings};
use crate::geom::{tritri, Aabb, DVec3};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Clone, Debug, PartialEq)]
pub struct DistanceReport {
    /// 0 when the surfaces intersect, and only then (surfaces apart by less than rounding can
    /// measure read as the least positive f64).
    pub distance: f64,
    pub point_a: DVec3,
    pub point_b: DVec3,
    /// From B to A: `point_a − point_b` (Nathan (2015): "from triangle 2 to triangle 1").
    pub separation: DVec3,
    pub triangle_a: u32,
    pub triangle_b: u32,
    /// Triangle pairs whose distance was computed.
    pub candidates: u64,
    pub timings: Timings,
}

/// The best pair a task found: `(distance², a, b)`, compared in that order.
pub(crate) type Best = Option<(f64, u32, u32)>;

/// Non-negative `f64`s order like their bit patterns: an atomic minimum without locks.
fn fetch_min(a: &AtomicU64, v: f64) {
    a.fetch_min(v.to_bits(), Ordering::Relaxed);
}

fn load(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Ordering::Relaxed))
}

/// Open the node pair `(x, y)`: the larger node (or the one that is not a leaf) is split and
/// each child paired with the other node, with the squared gap of their boxes. Boxes are posed
/// as visited, so a search that ends near the roots (parts far apart) poses few of them.
fn open_pair(a: &Posed, b: &Posed, x: u32, y: u32, out: &mut Vec<Pair>) {
    let mut boxed = Vec::with_capacity(8);
    let boxes = (a.node_box(x as usize), b.node_box(y as usize));
    open_boxed(a, b, (x, y), boxes, &mut boxed);
    out.extend(boxed.iter().map(|p| p.0));
}

/// A node pair with its boxes, posed once: a pair opened in the search was a child of one
/// opened before it, whose children's boxes were posed then.
type Boxed = (Pair, (Aabb, Aabb));

/// [`open_pair`] given the pair's boxes, giving the children's.
fn open_boxed(
    a: &Posed,
    b: &Posed,
    (x, y): (u32, u32),
    (bx, by): (Aabb, Aabb),
    out: &mut Vec<Boxed>,
) {
    let (nx, ny) = (&a.tree().nodes[x as usize], &b.tree().nodes[y as usize]);
    if !nx.is_leaf() && (ny.is_leaf() || bx.diagonal() >= by.diagonal()) {
        out.extend(nx.children().map(|c| {
            let bc = a.node_box(c);
            ((bc.distance_squared(&by), c as u32, y), (bc, by))
        }));
    } else {
        out.extend(ny.children().map(|c| {
            let bc = b.node_box(c);
            ((bx.distance_squared(&bc), x, c as u32), (bx, bc))
        }));
    }
}

/// Minimum distance between the surfaces of `a` and `b`. `hits` is the intersection report of
/// the same pair: when it has pairs, the distance is 0 at a common point of its first pair.
pub fn distance(a: &Posed, b: &Posed, hits: &IntersectReport) -> DistanceReport {
    distance_with_budget(a, b, hits, SERIAL_BUDGET)
}

/// [`distance`], searching on the calling thread until `serial_budget` node pairs opened plus
/// triangle pairs measured, then on all threads (0: on all threads from the start). The answer
/// is the same for any budget; tests use this to reach both searches.
pub fn distance_with_budget(
    a: &Posed,
    b: &Posed,
    hits: &IntersectReport,
    serial_budget: u64,
) -> DistanceReport {
    let mut timings = Timings::default();
    let t = Instant::now();
    if let Some(p) = hits.pairs.first() {
        let d = tritri::distance(&a.tri(p.a), &b.tri(p.b));
        timings.add("distance", t);
        return DistanceReport {
            distance: 0.0,
            point_a: d.point_1,
            point_b: d.point_2,
            separation: DVec3::ZERO,
            triangle_a: p.a,
            triangle_b: p.b,
            candidates: 0,
            timings,
        };
    }
    // Parts so far apart that rounding outgrows their size: no bound prunes there.
    if let Some(r) = far_apart(a, b, Timings::default(), t) {
        return r;
    }
    // No pair intersects, so every pair is disjoint and Nathan's vertex–face / edge–edge
    // minimum is exact for each of them.
    // First on this thread, within a budget: parts far apart (or small ones) are settled in
    // microseconds, where starting threads would cost more than the search.
    let (best, root, first, finished) = on_one_thread(a, b, serial_budget);
    if finished {
        return report(a, b, &[first], timings, t);
    }
    // Else everything again on the threads, pruned by the bound found so far (a pair's
    // distance, kept in the results). A search this size visits nodes and leaves many times
    // over: pose the boxes, vertices and spheres once, in parallel, rather than at every visit
    // (the same values either way).
    for p in [a, b] {
        p.boxes();
        p.spheres();
    }
    let (ta, tb) = (a.tree(), b.tree());
    // Enough independent subtrees for the threads, opened nearest-first.
    let target = rayon::current_num_threads() * 16;
    let mut frontier = vec![root];
    while frontier.len() < target
        && frontier
            .iter()
            .any(|&(_, x, y)| !(ta.nodes[x as usize].is_leaf() && tb.nodes[y as usize].is_leaf()))
    {
        let mut next = Vec::new();
        for (d2, x, y) in frontier {
            if ta.nodes[x as usize].is_leaf() && tb.nodes[y as usize].is_leaf() {
                next.push((d2, x, y));
            } else {
                open_pair(a, b, x, y, &mut next);
            }
        }
        frontier = next;
    }
    frontier.sort_by(|p, q| p.0.total_cmp(&q.0));
    let mut results: Vec<(u64, Best)> = frontier
        .par_iter()
        .map(|&start| search(a, b, start, (&best, first.1), None).0)
        .collect();
    results.push(first);
    report(a, b, &results, timings, t)
}

/// [`distance`]'s answer when the search on the calling thread settles it within its budget
/// (parts far apart, small meshes), else `None`: the GPU backend asks this first, since a GPU
/// round costs more than such a search.
pub(crate) fn settled_on_one_thread(a: &Posed, b: &Posed) -> Option<DistanceReport> {
    let t = Instant::now();
    if let Some(r) = far_apart(a, b, Timings::default(), t) {
        return Some(r);
    }
    let (_, _, found, finished) = on_one_thread(a, b, SERIAL_BUDGET);
    finished.then(|| report(a, b, &[found], Timings::default(), t))
}

/// [`distance`]'s answer read off a clearance search's pairs, where it is certainly among them:
/// when some listed pair's `distance²` is below `d²` (rounded), no pair left out (distance
/// `≥ d`, so `distance² ≥ d²` rounded the same way) can equal or beat it, and the smallest
/// `(distance², a, b)` listed is the search's answer to the bit. `None` when the list is empty,
/// holds an intersecting pair (the distance is 0 there, at [`distance`]'s point), or only pairs
/// at the rounding edge of `d`.
pub(crate) fn closest_listed(a: &Posed, b: &Posed, c: &ClearanceReport) -> Option<DistanceReport> {
    // Parts far apart are measured at their support pair, which a list need not name first.
    if super::far::support_pair(a, b).is_some() {
        return None;
    }
    let t = Instant::now();
    // One pass, chunks of plain loops: the two rayon passes this was (any intersecting pair,
    // then the smallest) ran 4 to 21 ms over 2.3M pairs depending on how the build inlined
    // their closures.
    let smaller = |x: Best, y: Best| match (x, y) {
        (Some(p), Some(q)) => Some(if q < p { q } else { p }),
        (p, q) => p.or(q),
    };
    let (meets, best) = c
        .pairs
        .par_chunks(1 << 14)
        .map(|chunk| {
            let mut best: Best = None;
            for p in chunk {
                if p.intersects {
                    return (true, None);
                }
                best = smaller(best, Some((p.distance * p.distance, p.a, p.b)));
            }
            (false, best)
        })
        .reduce(|| (false, None), |x, y| (x.0 || y.0, smaller(x.1, y.1)));
    if meets {
        return None;
    }
    let best = best.filter(|p| p.0 < c.clearance * c.clearance)?;
    // Candidates 0: the distance search did not run (the clearance report counts its own).
    Some(report(a, b, &[(0, Some(best))], Timings::default(), t))
}

/// The search from the roots on the calling thread within `budget`: the bound it leaves, the
/// roots' pair, what it found, and whether it finished.
fn on_one_thread(a: &Posed, b: &Posed, mut budget: u64) -> (AtomicU64, Pair, (u64, Best), bool) {
    let best = AtomicU64::new(f64::INFINITY.to_bits());
    let root = (a.node_box(0).distance_squared(&b.node_box(0)), 0u32, 0u32);
    let (found, finished) = search(a, b, root, (&best, None), Some(&mut budget));
    (best, root, found, finished)
}

/// A node pair with the squared gap of its boxes.
type Pair = (f64, u32, u32);

/// Node pairs opened plus triangle pairs measured before [`distance`] gives its search on the
/// calling thread up for the parallel one.
const SERIAL_BUDGET: u64 = 4096;

/// Depth first from the node pair `start`, nearest pair first (the smaller indices first among
/// equals), pruned by the shared `best` and by `local` (which starts at `seed`, a pair found
/// before): the triangle pairs measured and the smallest `(distance², a, b)` among them, and
/// whether the search finished before `budget` ran out.
///
/// Pruned by index too: a node pair whose gap equals the best distance can only win the tie
/// with a smaller pair of indices, and the smallest it holds is its nodes' smallest triangles.
/// Parts so far apart that every distance rounds to the same `f64` (1e18 apart, at unit size)
/// are then settled by one path down the trees, not by every pair.
fn search(
    a: &Posed,
    b: &Posed,
    start: Pair,
    (best, seed): (&AtomicU64, Best),
    mut budget: Option<&mut u64>,
) -> ((u64, Best), bool) {
    let (ta, tb) = (a.tree(), b.tree());
    let mut local: Best = seed;
    let order = |&(d2, x, y): &Pair| (d2, ta.min_tri[x as usize], tb.min_tri[y as usize]);
    let mut tested = 0u64;
    let start_boxes = (a.node_box(start.1 as usize), b.node_box(start.2 as usize));
    let mut stack: Vec<Boxed> = vec![(start, start_boxes)];
    let mut kids = Vec::with_capacity(8);
    let mut scratch = LeafScratch::default();
    while let Some(((d2, x, y), boxes)) = stack.pop() {
        if d2 > load(best) || local.is_some_and(|l| order(&(d2, x, y)) >= l) {
            continue;
        }
        let (nx, ny) = (&ta.nodes[x as usize], &tb.nodes[y as usize]);
        let work = if nx.is_leaf() && ny.is_leaf() {
            // u64: a leaf that cannot be split may hold many triangles.
            nx.tri_count as u64 * ny.tri_count as u64
        } else {
            1
        };
        if let Some(left) = budget.as_deref_mut() {
            match left.checked_sub(work) {
                Some(l) => *left = l,
                None => return ((tested, local), false),
            }
        }
        if nx.is_leaf() && ny.is_leaf() {
            tested += leaf_pair(a, b, (x, y), &mut scratch, best, &mut local);
            continue;
        }
        open_boxed(a, b, (x, y), boxes, &mut kids);
        // Nearest last, so it is popped first.
        kids.sort_by(|p, q| {
            let (p, q) = (order(&p.0), order(&q.0));
            q.0.total_cmp(&p.0).then((q.1, q.2).cmp(&(p.1, p.2)))
        });
        stack.append(&mut kids);
    }
    ((tested, local), true)
}

/// A leaf pair's triangles and their spans, reused from one leaf pair to the next.
#[derive(Default)]
struct LeafScratch {
    leaf_a: Vec<(u32, crate::geom::Tri, crate::geom::Sphere)>,
    leaf_b: Vec<(u32, crate::geom::Tri, crate::geom::Sphere)>,
    span_a: Vec<(f64, f64)>,
    span_b: Vec<(f64, f64)>,
}

/// The triangle pairs of leaves `x` of A and `y` of B that no bound settles, their distances
/// lowering `local` and `best`: how many were computed.
fn leaf_pair(
    a: &Posed,
    b: &Posed,
    (x, y): (u32, u32),
    scratch: &mut LeafScratch,
    best: &AtomicU64,
    local: &mut Best,
) -> u64 {
    let mut tested = 0;
    let LeafScratch {
        leaf_a,
        leaf_b,
        span_a,
        span_b,
    } = scratch;
    a.leaf_tris(x, leaf_a);
    b.leaf_tris(y, leaf_b);
    let lb = leaf_gap(leaf_a, leaf_b);
    if lb > 0.0 && lb * lb > load(best) {
        return 0;
    }
    // Each triangle's span along the line between the leaves (their first triangles'
    // centres): where the parts are apart, that line is close to the direction of
    // their distance, and the spans' gap settles most pairs for a subtraction, before
    // the spheres and the three-axis bound.
    let (Some(fa), Some(fb)) = (leaf_a.first(), leaf_b.first()) else {
        return 0; // no pairs
    };
    let u = (fb.2.center - fa.2.center).normalize_or_zero();
    let mut magnitude = 0.0f64;
    let mut spans = |leaf: &super::LeafTris, out: &mut Vec<(f64, f64)>| {
        out.clear();
        out.extend(leaf.iter().map(|(_, t, _)| {
            let x = t.map(|p| {
                magnitude = magnitude.max(p.abs().max_element());
                p.dot(u)
            });
            (x[0].min(x[1]).min(x[2]), x[0].max(x[1]).max(x[2]))
        }));
    };
    spans(leaf_a, span_a);
    spans(leaf_b, span_b);
    // Rounding of the projections, as in tritri::gap_between.
    let margin = 1e-12 * magnitude;
    for (&(i, t1, sa), &(lo_a, hi_a)) in leaf_a.iter().zip(span_a.iter()) {
        for (&(j, t2, sb), &(lo_b, hi_b)) in leaf_b.iter().zip(span_b.iter()) {
            let gap = (lo_b - hi_a).max(lo_a - hi_b) - margin;
            if gap > 0.0 && gap * gap > load(best) {
                continue;
            }
            let gap = sa.center.distance(sb.center) - sa.radius - sb.radius;
            if gap > 0.0 && gap * gap > load(best) {
                continue;
            }
            let lb = tritri::separation_bound(&t1, &t2, sb.center - sa.center);
            if lb > 0.0 && lb * lb > load(best) {
                continue;
            }
            tested += 1;
            let d = tritri::separated_distance(&t1, &t2);
            let d2 = d.distance * d.distance;
            if local.is_none_or(|l| (d2, i, j) < l) {
                *local = Some((d2, i, j));
                fetch_min(best, d2);
            }
        }
    }
    tested
}

/// The report for parts so far apart that their support pair is the answer
/// ([`super::far::support_pair`]), or `None` when they are nearer.
pub(crate) fn far_apart(
    a: &Posed,
    b: &Posed,
    timings: Timings,
    t: Instant,
) -> Option<DistanceReport> {
    let (i, j) = super::far::support_pair(a, b)?;
    Some(report(a, b, &[(1, Some((0.0, i, j)))], timings, t))
}

/// The report for the smallest pair of the searches' `results`.
pub(crate) fn report(
    a: &Posed,
    b: &Posed,
    results: &[(u64, Best)],
    mut timings: Timings,
    t: Instant,
) -> DistanceReport {
    let candidates = results.iter().map(|r| r.0).sum();
    let (_, i, j) = results
        .iter()
        .filter_map(|r| r.1)
        .min_by(|p, q| p.partial_cmp(q).unwrap_or(std::cmp::Ordering::Equal))
        .unwrap_or((f64::INFINITY, 0, 0));
    timings.add("distance", t);
    apart_report(a, b, (i, j), candidates, timings)
}

/// The f64 distance `d` of triangles that do not meet (decided exactly), at least the least
/// positive f64: 0 is reported only for triangles that meet.
pub(crate) fn apart(d: f64) -> f64 {
    if d == 0.0 {
        f64::from_bits(1)
    } else {
        d
    }
}

/// The report for triangles `i` of `a` and `j` of `b`, the nearest pair of surfaces that do not
/// meet (decided exactly): its distance is at least the least positive f64, so that 0 is
/// reported only where the surfaces meet. Rounding can take a distance far below the
/// coordinates' ulp to 0 (a review's helper found 6e-19 between parts about 0.03 from the
/// origin, whose ulp is 3.5e-18, reported as `intersects: false` with `min_distance` 0).
pub(crate) fn apart_report(
    a: &Posed,
    b: &Posed,
    (i, j): (u32, u32),
    candidates: u64,
    timings: Timings,
) -> DistanceReport {
    let d = tritri::distance(&a.tri(i), &b.tri(j));
    DistanceReport {
        distance: apart(d.distance),
        point_a: d.point_1,
        point_b: d.point_2,
        separation: d.separation,
        triangle_a: i,
        triangle_b: j,
        candidates,
        timings,
    }
}
