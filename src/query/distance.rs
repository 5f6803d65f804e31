//! Minimum distance between two surfaces: branch and bound over the two octrees, pruned by the
//! best distance found so far (shared between threads), with seed 000's pair distance at the
//! leaves. The reported pair is the smallest `(distance², a, b)`, so ties resolve the same way
//! for any thread count.

use super::{IntersectReport, Posed, Timings};
use crate::geom::{tritri, DVec3};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[derive(Clone, Debug, PartialEq)]
pub struct DistanceReport {
    /// 0 when the surfaces intersect.
    pub distance: f64,
    pub point_a: DVec3,
    pub point_b: DVec3,
    /// From B to A: `point_a − point_b` (seed 000: "from triangle 2 to triangle 1").
    pub separation: DVec3,
    pub triangle_a: u32,
    pub triangle_b: u32,
    /// Triangle pairs whose distance was computed.
    pub candidates: u64,
    pub timings: Timings,
}

/// The best pair a task found: `(distance², a, b)`, compared in that order.
type Best = Option<(f64, u32, u32)>;

/// Non-negative `f64`s order like their bit patterns: an atomic minimum without locks.
fn fetch_min(a: &AtomicU64, v: f64) {
    a.fetch_min(v.to_bits(), Ordering::Relaxed);
}

fn load(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Ordering::Relaxed))
}

/// A lower bound on the distance of two triangles: the gap between their projections on the
/// line joining their sphere centres (a separating-axis bound). Where two surfaces face each
/// other across a thin gap this axis is nearly their normal and the bound nearly exact, while
/// the spheres' bound is loose by their radii. Rounding is absorbed by a relative margin.
fn axis_gap(t1: &[DVec3; 3], t2: &[DVec3; 3], axis: DVec3) -> f64 {
    let len = axis.length();
    if len == 0.0 {
        return 0.0;
    }
    let u = axis / len;
    let hi1 = t1
        .iter()
        .map(|p| p.dot(u))
        .fold(f64::NEG_INFINITY, f64::max);
    let lo2 = t2.iter().map(|p| p.dot(u)).fold(f64::INFINITY, f64::min);
    let scale = hi1.abs().max(lo2.abs());
    (lo2 - hi1) - 1e-12 * scale
}

/// Open the node pair `(x, y)`: the larger node (or the one that is not a leaf) is split and
/// each child paired with the other node, with the squared gap of their boxes. Boxes are posed
/// as visited, so a search that ends near the roots (parts far apart) poses few of them.
fn open_pair(a: &Posed, b: &Posed, x: u32, y: u32, out: &mut Vec<(f64, u32, u32)>) {
    let (nx, ny) = (&a.tree().nodes[x as usize], &b.tree().nodes[y as usize]);
    let (bx, by) = (a.node_box(x as usize), b.node_box(y as usize));
    if !nx.is_leaf() && (ny.is_leaf() || bx.diagonal() >= by.diagonal()) {
        out.extend(
            nx.children()
                .map(|c| (a.node_box(c).distance_squared(&by), c as u32, y)),
        );
    } else {
        out.extend(
            ny.children()
                .map(|c| (bx.distance_squared(&b.node_box(c)), x, c as u32)),
        );
    }
}

/// Minimum distance between the surfaces of `a` and `b`. `hits` is the intersection report of
/// the same pair: when it has pairs, the distance is 0 at a common point of its first pair.
pub fn distance(a: &Posed, b: &Posed, hits: &IntersectReport) -> DistanceReport {
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
    // No pair intersects, so every pair is disjoint and seed 000's vertex–face / edge–edge
    // minimum is exact for each of them.
    let best = AtomicU64::new(f64::INFINITY.to_bits());
    let (ta, tb) = (a.tree(), b.tree());
    // Enough independent subtrees for the threads, opened nearest-first.
    let target = rayon::current_num_threads() * 16;
    let mut frontier = vec![(a.node_box(0).distance_squared(&b.node_box(0)), 0u32, 0u32)];
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
    let results: Vec<(u64, Best)> = frontier
        .par_iter()
        .map(|&(d2, x, y)| {
            let mut local: Best = None;
            let mut tested = 0u64;
            let mut stack = vec![(d2, x, y)];
            let (mut leaf_a, mut leaf_b) = (Vec::new(), Vec::new());
            while let Some((d2, x, y)) = stack.pop() {
                if d2 > load(&best) {
                    continue;
                }
                let (nx, ny) = (&ta.nodes[x as usize], &tb.nodes[y as usize]);
                if nx.is_leaf() && ny.is_leaf() {
                    a.leaf_tris(x, &mut leaf_a);
                    b.leaf_tris(y, &mut leaf_b);
                    for &(i, t1, sa) in &leaf_a {
                        for &(j, t2, sb) in &leaf_b {
                            let gap = sa.center.distance(sb.center) - sa.radius - sb.radius;
                            if gap > 0.0 && gap * gap > load(&best) {
                                continue;
                            }
                            let lb = axis_gap(&t1, &t2, sb.center - sa.center);
                            if lb > 0.0 && lb * lb > load(&best) {
                                continue;
                            }
                            tested += 1;
                            let d = tritri::separated_distance(&t1, &t2);
                            let d2 = d.distance * d.distance;
                            if local.is_none_or(|l| (d2, i, j) < l) {
                                local = Some((d2, i, j));
                                fetch_min(&best, d2);
                            }
                        }
                    }
                    continue;
                }
                let mut kids = Vec::with_capacity(8);
                open_pair(a, b, x, y, &mut kids);
                // Nearest last, so it is popped first.
                kids.sort_by(|p, q| q.0.total_cmp(&p.0));
                stack.extend(kids);
            }
            (tested, local)
        })
        .collect();
    let candidates = results.iter().map(|r| r.0).sum();
    let (_, i, j) = results
        .iter()
        .filter_map(|r| r.1)
        .min_by(|p, q| p.partial_cmp(q).unwrap_or(std::cmp::Ordering::Equal))
        .unwrap_or((f64::INFINITY, 0, 0));
    let d = tritri::distance(&a.tri(i), &b.tri(j));
    timings.add("distance", t);
    DistanceReport {
        distance: d.distance,
        point_a: d.point_1,
        point_b: d.point_2,
        separation: d.separation,
        triangle_a: i,
        triangle_b: j,
        candidates,
        timings,
    }
}
