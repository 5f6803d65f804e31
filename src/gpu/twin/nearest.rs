//! Twin of `shaders/nearest.wgsl`: the same walks, run one thread after another, with the
//! bound the threads share (`counters.min_dist_bits`) as one variable. The GPU's threads run at
//! once, so which pairs they emit depends on when each saw the bound; the minimum does not, and
//! every pair within the band of it is emitted on both ([`walk`]). [`all_pairs`] is the brute
//! force both are held to.

use super::common::{a_into_b, axis_bound, box_box_gap, box_gap, box_into_b, leaf_range};
use super::common::{local_tri, plane_bound, span_gap, span_with, to_local, tri_dist};
use super::common::{CarriedBox, EMPTY_SPAN};
use super::{v3, INF};
use crate::gpu::layout::{Hit, Query, NEAREST_SAMPLE, UNSURE};
use crate::mesh::TriRecord;
use crate::octree::{OctreeNode, NO_CHILD};
use glam::Vec3;

/// What the stage reads: both parts' records and nodes, and the threads per leaf of A.
pub struct Parts<'a> {
    pub tris_a: &'a [TriRecord],
    pub tris_b: &'a [TriRecord],
    pub nodes_a: &'a [OctreeNode],
    pub nodes_b: &'a [OctreeNode],
    pub walkers: u32,
}

/// `nearest.wgsl::Walker`: one thread's share of a leaf of A.
struct Walker {
    hi: u32,
    first: u32,
    bx: CarriedBox,
    slack: f32,
    origin: Vec3,
    axis: Vec3,
    span_a: Vec3,
    use_axis: bool,
}

/// `nearest.wgsl::walker`: thread `t`'s walker, `None` when it has no triangles in the chunk.
fn walker(q: &Query, s: &Parts, t: u32) -> Option<Walker> {
    let leaf = s.nodes_a.get((t / s.walkers) as usize)?;
    let (lo, hi) = leaf_range(leaf, q.chunk_start, q.chunk_end);
    if lo >= hi {
        return None;
    }
    let first_tri = &s.tris_a[lo as usize];
    let n = v3(first_tri.normal);
    let axis = Vec3::new(v3(q.a[0]).dot(n), v3(q.a[1]).dot(n), v3(q.a[2]).dot(n));
    let origin = to_local(&q.a, v3(first_tri.v[0]));
    let first = lo + t % s.walkers;
    let mut span_a = EMPTY_SPAN;
    for pos in (first..hi).step_by(s.walkers as usize) {
        for v in s.tris_a[pos as usize].v {
            span_a = span_with(span_a, to_local(&q.a, v3(v)) - origin, axis);
        }
    }
    Some(Walker {
        hi,
        first,
        bx: box_into_b(q, leaf),
        slack: q.tol[1] + q.tol[3],
        origin,
        axis,
        span_a,
        use_axis: axis.dot(axis) > 0.0 && span_a.x <= span_a.y,
    })
}

/// The bound the threads share, and the pairs they emitted.
struct Shared {
    min: f32,
    hits: Vec<Hit>,
}

/// `nearest.wgsl::visit_leaf`: the walker's triangles against B's leaf `node`.
fn visit_leaf(
    q: &Query,
    s: &Parts,
    w: &Walker,
    node: &OctreeNode,
    best: &mut f32,
    sh: &mut Shared,
    emit: bool,
) {
    let range_b = node.tri_start..node.tri_start + node.tri_count;
    if w.use_axis {
        let mut span_b = EMPTY_SPAN;
        for k in range_b.clone() {
            for v in s.tris_b[k as usize].v {
                span_b = span_with(span_b, to_local(&q.b, v3(v)) - w.origin, w.axis);
            }
        }
        if span_gap(w.span_a, span_b) > *best + w.slack {
            return;
        }
    }
    for i in (w.first..w.hi).step_by(s.walkers as usize) {
        let sa = s.tris_a[i as usize].sphere;
        let (c, r) = (a_into_b(q, v3(sa)), sa[3]);
        if box_gap(node, c).length() - r > *best + w.slack {
            continue;
        }
        let p = local_tri(&q.a, &s.tris_a[i as usize]);
        for j in range_b.clone() {
            let sj = s.tris_b[j as usize].sphere;
            if (v3(sj) - c).length() - r - sj[3] > *best + w.slack {
                continue;
            }
            let t = local_tri(&q.b, &s.tris_b[j as usize]);
            if plane_bound(&p, t).max(axis_bound(&p, &t)) > *best + w.slack {
                continue;
            }
            let dd = tri_dist(&p, &t);
            if emit && dd <= *best + 3.0 * q.tol[3] {
                let hit = Hit {
                    a: i,
                    b: j,
                    flag: UNSURE,
                    dist_bits: dd.to_bits(),
                };
                sh.hits.push(hit);
            }
            if dd < *best {
                *best = dd;
                sh.min = sh.min.min(dd);
            }
        }
    }
}

/// `nearest.wgsl::sample`: sampled walkers, nearest child first, without emitting.
fn sample(q: &Query, s: &Parts, sh: &mut Shared) {
    let threads = (s.nodes_a.len() as u32 * s.walkers).div_ceil(NEAREST_SAMPLE);
    for t in 0..threads {
        let thread = (t / s.walkers) * NEAREST_SAMPLE * s.walkers + t % s.walkers;
        let Some(w) = walker(q, s, thread) else {
            continue;
        };
        let (mut best, mut stack) = (INF, vec![0u32]);
        while let Some(n) = stack.pop() {
            best = best.min(sh.min);
            let node = &s.nodes_b[n as usize];
            if box_box_gap(node, &w.bx).length() > best + w.slack {
                continue;
            }
            if node.first_child == NO_CHILD {
                visit_leaf(q, s, &w, node, &mut best, sh, false);
                continue;
            }
            // Farthest first onto the stack, so that the nearest is opened first.
            let mut kids: Vec<(f32, u32)> = (0..node.child_count)
                .map(|k| node.first_child + k)
                .map(|c| (box_box_gap(&s.nodes_b[c as usize], &w.bx).length(), c))
                .collect();
            kids.sort_by(|x, y| y.0.total_cmp(&x.0));
            stack.extend(kids.iter().filter(|k| k.0 <= best + w.slack).map(|k| k.1));
        }
    }
}

/// `nearest.wgsl::main`: every walker by the escapes, pruned by the bound as it stands when a
/// node is reached; emits.
fn main(q: &Query, s: &Parts, sh: &mut Shared) {
    for t in 0..s.nodes_a.len() as u32 * s.walkers {
        let Some(w) = walker(q, s, t) else {
            continue;
        };
        let (mut best, mut at) = (INF, 0u32);
        while at != NO_CHILD {
            best = best.min(sh.min);
            let node = &s.nodes_b[at as usize];
            if box_box_gap(node, &w.bx).length() > best + w.slack {
                at = node.escape;
                continue;
            }
            if node.first_child != NO_CHILD {
                at = node.first_child;
                continue;
            }
            visit_leaf(q, s, &w, node, &mut best, sh, true);
            at = node.escape;
        }
    }
}

/// `sample` then `main` over A's triangles at positions `q.chunk_start .. q.chunk_end`,
/// unbounded (no pauses, no capacity): the smallest f32 distance and the pairs emitted.
pub fn walk(q: &Query, s: &Parts) -> (f32, Vec<Hit>) {
    let mut sh = Shared {
        min: INF,
        hits: Vec::new(),
    };
    sample(q, s, &mut sh);
    main(q, s, &mut sh);
    (sh.min, sh.hits)
}

/// What `nearest.wgsl` must find, by brute force over A's triangles at positions
/// `q.chunk_start .. q.chunk_end` of its octree order and all of B: every pair's f32 distance
/// (`tri_dist`), as `(distance, i, j)`.
pub fn all_pairs(
    q: &Query,
    tris_a: &[TriRecord],
    index_a: &[u32],
    tris_b: &[TriRecord],
) -> Vec<(f32, u32, u32)> {
    let mut out = Vec::new();
    for &i in &index_a[q.chunk_start as usize..q.chunk_end as usize] {
        let p = local_tri(&q.a, &tris_a[i as usize]);
        for (j, tb) in tris_b.iter().enumerate() {
            out.push((tri_dist(&p, &local_tri(&q.b, tb)), i, j as u32));
        }
    }
    out
}
