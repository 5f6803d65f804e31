//! Twin of `shaders/cull_pairs.wgsl`: `far` keeps the leaf pairs `leaf_bound` cannot settle;
//! `main` tests each kept pair's triangles by spheres and the plane, axis and frame bounds.

use super::common::{a_into_b, axis_bound, frame_bound, plane_bound, span_gap, span_with};
use super::common::{unit_or_zero, EMPTY_SPAN};
use super::v3;
use crate::gpu::layout::{LeafPair, Pair, Query, MODE_SELF};
use crate::mesh::TriRecord;
use glam::Vec3;

/// The positions of a leaf pair's A and B triangles.
fn ranges(pr: &LeafPair) -> (Vec<u32>, Vec<u32>) {
    (
        (pr[0]..pr[0] + pr[1]).collect(),
        (pr[2]..pr[2] + pr[3]).collect(),
    )
}

/// `cull_pairs.wgsl::far` over every leaf pair: those [`leaf_far`] does not settle, in order.
pub fn far(
    q: &Query,
    tris_a: &[TriRecord],
    tris_b: &[TriRecord],
    leaves: &[LeafPair],
) -> Vec<LeafPair> {
    leaves
        .iter()
        .filter(|pr| !leaf_far(q, tris_a, tris_b, pr))
        .copied()
        .collect()
}

/// `cull_pairs.wgsl::leaf_far`: the leaf pair's triangles certainly farther apart than `d`, by
/// [`leaf_bound`].
fn leaf_far(q: &Query, tris_a: &[TriRecord], tris_b: &[TriRecord], pr: &LeafPair) -> bool {
    let (ia, ib) = ranges(pr);
    !ib.is_empty() && leaf_bound(q, tris_a, &ia, tris_b, &ib) > q.tol[0] + q.tol[1]
}

/// `cull_pairs.wgsl::main` over every live leaf pair, unbounded (nothing deferred): the
/// candidate pairs of positions, in order.
pub fn main(q: &Query, tris_a: &[TriRecord], tris_b: &[TriRecord], live: &[LeafPair]) -> Vec<Pair> {
    let reach = q.tol[0] + q.tol[1];
    let mut out = Vec::new();
    for pr in live {
        let (ia, ib) = ranges(pr);
        for &i in &ia {
            let s = tris_a[i as usize].sphere;
            let ci = a_into_b(q, v3(s));
            let r_i = s[3] + reach;
            let p = tris_a[i as usize].v.map(|v| a_into_b(q, v3(v)));
            for &j in &ib {
                if q.mode == MODE_SELF && j <= i {
                    continue; // each unordered pair once
                }
                let sj = tris_b[j as usize].sphere;
                let d = v3(sj) - ci;
                let r = r_i + sj[3];
                if d.dot(d) > r * r {
                    continue;
                }
                let t = tris_b[j as usize].v.map(v3);
                if !(plane_bound(&p, t).max(axis_bound(&p, &t)) > reach
                    || frame_bound(&p, &t) > reach)
                {
                    out.push([i, j]);
                }
            }
        }
    }
    out
}

/// `cull_pairs.wgsl::leaf_bound`: a lower bound on the distance between the A triangles `ia`
/// and the B triangles `ib` (B's record frame), from the normal of B's first triangle and the
/// direction between the first triangles' sphere centres across it. `ib` is not empty.
pub fn leaf_bound(
    q: &Query,
    tris_a: &[TriRecord],
    ia: &[u32],
    tris_b: &[TriRecord],
    ib: &[u32],
) -> f32 {
    let first = &tris_b[ib[0] as usize];
    let (n, origin) = (v3(first.normal), v3(first.v[0]));
    let dc = a_into_b(q, v3(tris_a[ia[0] as usize].sphere)) - v3(first.sphere);
    let u1 = unit_or_zero(dc - dc.dot(n) * n);
    let u2 = unit_or_zero(u1 - u1.dot(n) * n);
    let u = if u2.dot(n).abs() <= 1e-6 {
        u2
    } else {
        Vec3::ZERO
    };
    let (mut sa, mut sb, mut ta, mut tb) = (EMPTY_SPAN, EMPTY_SPAN, EMPTY_SPAN, EMPTY_SPAN);
    for &i in ia {
        for v in tris_a[i as usize].v {
            let v = a_into_b(q, v3(v)) - origin;
            sa = span_with(sa, v, n);
            ta = span_with(ta, v, u);
        }
    }
    for &j in ib {
        for v in tris_b[j as usize].v {
            let v = v3(v) - origin;
            sb = span_with(sb, v, n);
            tb = span_with(tb, v, u);
        }
    }
    if n.dot(n) > 0.0 {
        let (gn, gu) = (span_gap(sa, sb).max(0.0), span_gap(ta, tb).max(0.0));
        (gn * gn + gu * gu).sqrt() * (1.0 - 1e-5)
    } else {
        0.0 // B's first triangle has no area: no frame
    }
}
