//! Rays against a mesh, watertight: every triangle is decided by exact orientation predicates
//! (the ray's line against the triangle's plane and its three edges), and a ray through an edge
//! or a vertex shared by several triangles is one hit, never none and never two. A hit through a
//! triangle's inside is its own; one on an edge or at a vertex is named by that edge's or
//! vertex's welded indices, and the triangles reporting the same one are merged into one hit,
//! the smallest triangle index standing for it. A ray lying in a triangle's plane meets it along
//! its boundary only: the triangles around that it passes into decide.

use super::Posed;
use crate::bvh::STACK;
use crate::geom::crossing::{crossing_bounds, crossing_order};
use crate::geom::predicates::orient3d;
use crate::geom::ray::SegmentSlabs;
use crate::geom::{DVec3, Tri};
use std::cmp::Ordering;

/// Which hits a ray asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hits {
    /// The nearest.
    First,
    /// Whether there is one (occlusion): the first found, not necessarily the nearest.
    Any,
    /// Every one, by `t`.
    All,
}

/// Where a ray meets a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The hit is at `origin + t · direction`.
    pub t: f64,
    pub triangle: u32,
    /// Barycentric: `point ≈ (1 − u − v) V0 + u V1 + v V2`.
    pub u: f64,
    pub v: f64,
    pub point: DVec3,
    /// The ray meets the triangle's front: `direction · normal < 0`.
    pub front: bool,
}

/// What the ray's line meets of one triangle, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Feature {
    Inside(u32),
    Edge(u32, u32),
    Vertex(u32),
}

/// The hits of the ray from `o` along `d` up to `o + max_t · d` (`f64::INFINITY`: no limit).
/// `d` must be non-zero and finite; a ray whose segment past the mesh cannot be held in f64
/// (an origin beyond about 1e307) meets nothing ([`ray_segment_end`] says which). An origin on
/// the surface is a hit at `t = 0`; `max_t` bounds the segment tested, whose end is rounded.
pub fn ray_hits(o: DVec3, d: DVec3, m: &Posed, max_t: f64, hits: Hits) -> Vec<RayHit> {
    let Some((q, t_end)) = ray_segment_end(o, d, m, max_t) else {
        return Vec::new();
    };
    let mut found: Vec<(Feature, u32)> = Vec::new();
    // Nearest leaves first. For the first hit, a rigorous bound on where the nearest hit so
    // far lies (a fraction of oq): a node entered past it holds nothing nearer. Triangles that
    // share that hit's edge or vertex are in leaves entered at or before it. For any hit, the
    // first ends the walk.
    let mut bound = f64::INFINITY;
    let bvh = m.prep.bvh();
    walk_segment(o, q, m, |slots| {
        if hits == Hits::Any && !found.is_empty() {
            return f64::NEG_INFINITY;
        }
        for s in slots {
            let (t, tri) = (bvh.tris[s], m.slot_tri(s));
            let Some(f) = feature(o, q, &tri, m.prep.mesh.triangles[t as usize]) else {
                continue;
            };
            let f = if f == Feature::Inside(u32::MAX) {
                Feature::Inside(t)
            } else {
                f
            };
            found.push((f, t));
            match hits {
                Hits::Any => return f64::NEG_INFINITY,
                Hits::First => bound = bound.min(crossing_bounds(o, q, &tri).1),
                Hits::All => {}
            }
        }
        bound
    });
    // One hit per feature, the smallest triangle standing for it.
    found.sort_unstable();
    found.dedup_by_key(|x| x.0);
    if hits == Hits::First {
        return nearest(o, q, m, &found)
            .map(|t| hit(o, d, q, t_end, t, &m.tri(t)))
            .into_iter()
            .collect();
    }
    let mut out: Vec<RayHit> = found
        .iter()
        .map(|&(_, t)| hit(o, d, q, t_end, t, &m.tri(t)))
        .collect();
    out.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.triangle.cmp(&b.triangle)));
    if hits != Hits::All {
        out.truncate(1);
    }
    out
}

/// The triangle (standing for its feature) whose crossing of segment `oq` is nearest `o`,
/// exactly; ties to the smaller index. Crossings are told apart by their bounds where those
/// do not overlap ([`crossing_bounds`]), and compared exactly where they do.
fn nearest(o: DVec3, q: DVec3, m: &Posed, found: &[(Feature, u32)]) -> Option<u32> {
    let places: Vec<(u32, Tri, (f64, f64))> = found
        .iter()
        .map(|&(_, t)| {
            let tri = m.tri(t);
            (t, tri, crossing_bounds(o, q, &tri))
        })
        .collect();
    let reach = places.iter().map(|x| x.2 .1).fold(f64::INFINITY, f64::min);
    // Only crossings that may lie at or before the nearest's far bound can be the nearest (a
    // bound that is not a number keeps its crossing).
    let mut contenders: Vec<&(u32, Tri, (f64, f64))> = places
        .iter()
        .filter(|x| x.2 .0.partial_cmp(&reach) != Some(Ordering::Greater))
        .collect();
    contenders.sort_by_key(|x| x.0);
    contenders
        .into_iter()
        .reduce(|best, x| {
            // Exactly only where the bounds do not already tell.
            let order = if x.2 .1 < best.2 .0 {
                Ordering::Less
            } else if x.2 .0 > best.2 .1 {
                Ordering::Greater
            } else {
                crossing_order(o, q, &x.1, &best.1)
            };
            match order {
                Ordering::Less => x,
                _ => best, // ties keep the smaller index, met first
            }
        })
        .map(|x| x.0)
}

/// The leaves of the hierarchy whose boxes segment `pq` meets, nearest entry first at every
/// node, given to `visit` by their slots; `visit` answers how far the walk must still go (a
/// fraction of `pq`): a node entered past that is passed over. Boxes are culled in the mesh's
/// own frame ([`Posed::cull_pad`]).
fn walk_segment(
    p: DVec3,
    q: DVec3,
    m: &Posed,
    mut visit: impl FnMut(std::ops::Range<usize>) -> f64,
) {
    let nodes = &m.prep.bvh().nodes;
    let pad = m.cull_pad(&[p, q]);
    let seg = SegmentSlabs::new(m.pose.unapply(p), m.pose.unapply(q));
    let entry = |n: usize| seg.entry(&nodes[n].aabb().padded(pad));
    let mut bound = f64::INFINITY;
    // Pending nodes with their entries; one per level at most (`bvh::STACK`).
    let mut stack = [(0.0, 0usize); STACK];
    let mut top = 0;
    if let Some(e) = entry(0) {
        stack[0] = (e, 0);
        top = 1;
    }
    while top > 0 {
        top -= 1;
        let (e, n) = stack[top];
        if e > bound {
            continue;
        }
        let node = &nodes[n];
        if node.is_leaf() {
            bound = bound.min(visit(node.slots()));
            continue;
        }
        let (a, b) = (node.index as usize, node.index as usize + 1);
        match (entry(a), entry(b)) {
            (Some(ea), Some(eb)) => {
                // The nearer last, so it is taken first.
                let (near, far) = if ea <= eb {
                    ((ea, a), (eb, b))
                } else {
                    ((eb, b), (ea, a))
                };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
            }
            (Some(ea), None) => {
                stack[top] = (ea, a);
                top += 1;
            }
            (None, Some(eb)) => {
                stack[top] = (eb, b);
                top += 1;
            }
            (None, None) => {}
        }
    }
}

/// The first ray (origin, direction) whose segment past the mesh is not finite in `f64`: it
/// would meet nothing, so callers refuse it by row rather than answer "no hit".
pub fn first_unbounded_ray(rays: &[(DVec3, DVec3)], m: &Posed, max_t: f64) -> Option<usize> {
    (0..rays.len()).find(|&i| ray_segment_end(rays[i].0, rays[i].1, m, max_t).is_none())
}

/// The answers as table rows: for `First` and `Any` one row per ray (its hit, or none); for
/// `All` one row per hit, with its ray's index.
pub fn hit_rows(found: &[Vec<RayHit>], hits: Hits) -> Vec<(usize, Option<&RayHit>)> {
    let per_ray = found.iter().enumerate();
    if hits == Hits::All {
        per_ray
            .flat_map(|(i, h)| h.iter().map(move |x| (i, Some(x))))
            .collect()
    } else {
        per_ray.map(|(i, h)| (i, h.first())).collect()
    }
}

/// The far end of the segment a ray is tested as (past the mesh's box from anywhere, or at
/// `max_t`), and its `t`; `None` where it is not finite. `d`'s length is taken scaled, so a
/// direction of tiny components is not a zero one.
pub fn ray_segment_end(o: DVec3, d: DVec3, m: &Posed, max_t: f64) -> Option<(DVec3, f64)> {
    let root = m.node_box(0);
    let reach = (root.diagonal() + o.distance(root.center())) / crate::geom::length(d) * 2.0 + 1.0;
    let t_end = max_t.min(reach);
    if t_end.is_nan() || t_end < 0.0 {
        return None;
    }
    let q = o + d * t_end;
    q.is_finite().then_some((q, t_end))
}

/// What segment `oq` meets of triangle `tri` (welded vertices `ids`), by exact signs: `None`
/// when it misses, lies in its plane, or the triangle has no area.
fn feature(o: DVec3, q: DVec3, tri: &Tri, ids: [u32; 3]) -> Option<Feature> {
    // Boxes apart on an axis: no contact, by comparisons alone (most triangles of the leaves a
    // ray passes through are beside it).
    let (lo, hi) = (o.min(q), o.max(q));
    let (tlo, thi) = (
        tri[0].min(tri[1]).min(tri[2]),
        tri[0].max(tri[1]).max(tri[2]),
    );
    if (hi.cmplt(tlo) | thi.cmplt(lo)).any() {
        return None;
    }
    let op = orient3d(tri[0], tri[1], tri[2], o);
    let oq = orient3d(tri[0], tri[1], tri[2], q);
    if op * oq > 0 || (op == 0 && oq == 0) {
        return None;
    }
    let s = [
        orient3d(o, q, tri[0], tri[1]),
        orient3d(o, q, tri[1], tri[2]),
        orient3d(o, q, tri[2], tri[0]),
    ];
    if s.iter().any(|&x| x > 0) && s.iter().any(|&x| x < 0) {
        return None;
    }
    let zero: Vec<usize> = (0..3).filter(|&k| s[k] == 0).collect();
    let edge = |k: usize| {
        let (a, b) = (ids[k], ids[(k + 1) % 3]);
        Feature::Edge(a.min(b), a.max(b))
    };
    match zero[..] {
        [] => Some(Feature::Inside(u32::MAX)), // named by its triangle below
        [k] => Some(edge(k)),
        // Edges k and k + 1 share vertex k + 1; edges 0 and 2 share vertex 0.
        [0, 1] => Some(Feature::Vertex(ids[1])),
        [1, 2] => Some(Feature::Vertex(ids[2])),
        [0, 2] => Some(Feature::Vertex(ids[0])),
        _ => None, // a triangle with no area seen along the ray
    }
}

/// The hit of segment `oq` (`o + t d`, `t` up to `t_end`) on triangle `t`, in f64: the one
/// computation of a hit's values, whichever backend found the triangle.
pub(crate) fn hit(o: DVec3, d: DVec3, q: DVec3, t_end: f64, t: u32, tri: &Tri) -> RayHit {
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    let den = n.dot(q - o);
    let s = if den != 0.0 {
        (n.dot(tri[0] - o) / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let point = o + (q - o) * s;
    let (u, v) = super::closest::barycentric(point, tri);
    RayHit {
        t: s * t_end,
        triangle: t,
        u,
        v,
        point,
        front: d.dot(n) < 0.0,
    }
}
