//! Rays against a mesh, watertight: every triangle is decided by exact orientation predicates
//! (the ray's line against the triangle's plane and its three edges), and a ray through an edge
//! or a vertex shared by several triangles is one hit, never none and never two. A hit through a
//! triangle's inside is its own; one on an edge or at a vertex is named by that edge's or
//! vertex's welded indices, and the triangles reporting the same one are merged into one hit,
//! the smallest triangle index standing for it. A ray lying in a triangle's plane meets it along
//! its boundary only: the triangles around that it passes into decide.

use super::{Listing, Posed, TooMany, MAX_PAIRS};
use crate::bvh::STACK;
use crate::geom::crossing::{
    crosses_by, crossing_bounds, crossing_order, crossing_t, direction_side,
    orient3d_of_differences, orient_along, sign_within,
};
use crate::geom::predicates::orient3d;
use crate::geom::ray::SegmentSlabs;
use crate::geom::{DVec3, Tri};
use smallvec::SmallVec;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Which hits a ray asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hits {
    /// The nearest.
    First,
    /// Whether there is one (occlusion): the first found, not necessarily the nearest.
    Any,
    /// Every one, in the exact order of their crossings ([`hits_in_order`]).
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
/// the surface is a hit at `t = 0`. What the ray meets, and which hit is first, is decided on
/// its own line (`o` and `d` exactly); only the end of the segment tested, `o + max_t · d`, is
/// rounded.
pub fn ray_hits(o: DVec3, d: DVec3, m: &Posed, max_t: f64, hits: Hits) -> Vec<RayHit> {
    if crate::stop::requested() {
        return Vec::new();
    }
    let Some((q, t_end)) = ray_segment_end(o, d, m, max_t) else {
        return Vec::new();
    };
    // The segment ends at `max_t` where that comes before the far side of the mesh's box.
    let end = (t_end == max_t).then_some(t_end);
    let mut found: SmallVec<[Met; 4]> = SmallVec::new();
    // For the first hit, a rigorous bound on where the nearest hit so far lies (the ray's
    // `t`): a box entered past it holds nothing nearer. Triangles that share that hit's edge
    // or vertex have boxes entered at or before it. For any hit, the first ends the walk.
    let mut bound = f64::INFINITY;
    // The walks take it as a fraction of `oq`, rounded up; `q` is within a rounding of the
    // ray, far less than the pad their boxes are grown by.
    let fraction = |t: f64| match t / t_end * (1.0 + 4.0 * f64::EPSILON) {
        f if f.is_finite() => f,
        _ => f64::INFINITY,
    };
    // Each triangle the walk names, by its corners (and, only once met, its index).
    let take = |tri: &Tri, index: &dyn Fn() -> u32| {
        if hits == Hits::Any && !found.is_empty() {
            return f64::NEG_INFINITY;
        }
        let Some(part) = meets(o, d, (q, end), tri) else {
            return fraction(bound);
        };
        let t = index();
        let place = match hits {
            Hits::First => crossing_bounds(o, d, tri),
            _ => (f64::NAN, f64::NAN),
        };
        found.push(Met {
            feature: part.named(t, || m.prep.mesh.triangles[t as usize]),
            part,
            t,
            tri: *tri,
            place,
        });
        match hits {
            Hits::Any => return f64::NEG_INFINITY,
            Hits::First => bound = bound.min(place.1),
            Hits::All => {}
        }
        fraction(bound)
    };
    each_candidate(o, q, m, take);
    // One hit per feature, the smallest triangle standing for it.
    found.sort_unstable_by_key(|x| (x.feature, x.t));
    found.dedup_by_key(|x| x.feature);
    merge_edges_through_corners(&mut found);
    merge_edges_on_one_line(&mut found);
    if hits == Hits::First {
        return nearest(o, d, &found)
            .map(|x| hit(o, d, t_end, x.t, &x.tri))
            .into_iter()
            .collect();
    }
    let met: Vec<(u32, Tri)> = found.iter().map(|x| (x.t, x.tri)).collect();
    let mut out = hits_in_order(o, d, t_end, &met);
    if hits != Hits::All {
        out.truncate(1);
    }
    out
}

/// The hits a batch of rays has kept, to refuse one past [`MAX_PAIRS`] (`Hits::All` through a
/// mesh of many layers, millions of rays: a `Vec` of hits a ray filled the memory until the
/// process was killed) before it fills the memory, as clearance reports are refused.
pub struct HitCount {
    kept: AtomicU64,
    most: u64,
}

impl Default for HitCount {
    fn default() -> HitCount {
        HitCount::at_most(MAX_PAIRS)
    }
}

impl HitCount {
    /// A count refusing a batch past `most` hits.
    pub fn at_most(most: u64) -> HitCount {
        HitCount {
            kept: AtomicU64::new(0),
            most,
        }
    }

    /// One ray's `hits()`, counted; none, and nothing asked, once the batch is past the limit
    /// (it is refused then: [`HitCount::checked`]).
    pub fn keep(&self, hits: impl FnOnce() -> Vec<RayHit>) -> Vec<RayHit> {
        if self.kept.load(Relaxed) > self.most {
            return Vec::new();
        }
        let found = hits();
        self.kept.fetch_add(found.len() as u64, Relaxed);
        found
    }

    /// The batch's answers, or refused where it went past the limit.
    pub fn checked<T>(self, answers: T) -> Result<T, TooMany> {
        match self.kept.into_inner() > self.most {
            true => Err(TooMany {
                what: Listing::RayHits,
                most: self.most,
            }),
            false => Ok(answers),
        }
    }
}

/// The hits of the ray from `o` along `d` through `met` (each triangle, standing for what it
/// meets, and its posed corners), in the exact order of their crossings, ties by triangle:
/// told apart by their bounds where those do not overlap, else exactly ([`crossing_order`]),
/// as the first hit is. Their rounded `t` can tie, or disagree within its error, where two
/// crossings lie closer than f64 resolves (a review's helper: crossings 2e-158 apart at
/// t = 1, entering and leaving a cube, came out by triangle index, leaving first).
pub(crate) fn hits_in_order(o: DVec3, d: DVec3, t_end: f64, met: &[(u32, Tri)]) -> Vec<RayHit> {
    // One triangle, the first hit's usual case: nothing to order.
    if let [(t, tri)] = met {
        return vec![hit(o, d, t_end, *t, tri)];
    }
    let mut placed: Vec<(u32, &Tri, (f64, f64))> = met
        .iter()
        .map(|(t, tri)| (*t, tri, crossing_bounds(o, d, tri)))
        .collect();
    placed.sort_by(|x, y| crossed_before(o, d, (x.1, x.2), (y.1, y.2)).then(x.0.cmp(&y.0)));
    placed
        .iter()
        .map(|&(t, tri, _)| hit(o, d, t_end, t, tri))
        .collect()
}

/// Every triangle segment `oq` may meet, given to `take` by its posed corners and (asked for
/// only when met) its index; `take` answers how far the walk must still go, as
/// [`walk_segment`]'s visitor does. The eight-wide tree where the segment's rounding into the
/// mesh's frame is within its margins ([`crate::wide`]), else the binary one, nearest leaves
/// first; the binary one too after an eight-wide walk that could not finish, which may give
/// `take` a triangle twice (the hits are merged by feature after).
fn each_candidate(
    o: DVec3,
    q: DVec3,
    m: &Posed,
    mut take: impl FnMut(&Tri, &dyn Fn() -> u32) -> f64,
) {
    let pad = m.cull_pad(&[o, q]);
    let wide = m.prep.wide().filter(|w| pad <= w.slack());
    let walked = wide.is_some_and(|w| {
        let (a, b) = (m.pose.unapply(o), m.pose.unapply(q));
        w.walk(a, b, |s| {
            let slot = &w.slots()[s];
            take(&m.pose_corners(&slot.corners), &|| slot.triangle)
        })
    });
    if walked {
        return;
    }
    let bvh = m.prep.bvh();
    walk_segment(o, q, m, pad, |slots| {
        let mut reach = f64::INFINITY;
        for s in slots {
            reach = take(&m.slot_tri(s), &|| bvh.tris[s]);
            if reach == f64::NEG_INFINITY {
                break;
            }
        }
        reach
    });
}

/// A triangle a ray meets: what of it, which, its posed corners, and for the first hit the
/// bounds on where along the ray ([`crossing_bounds`]).
#[derive(Clone, Copy)]
struct Met {
    feature: Feature,
    part: Part,
    t: u32,
    tri: Tri,
    place: (f64, f64),
}

/// Edge hits at a corner another hit names, merged into it: at a T-junction (a vertex lying
/// inside another triangle's edge, which welding does not join, closed or not by a triangle of
/// no area) the ray through that vertex meets the edge there too, and was counted twice (a
/// review's helper). The ray's line passes through the corner `c` exactly (its two edge signs
/// are 0) and meets edge `ab` inside it exactly; where `c` lies inside segment `ab` exactly,
/// the line (not `ab`'s own: that would pass through `a` and `b`, corners) meets `ab`'s line
/// in one point, `c`: the same crossing. The smallest triangle stands for it, as for a feature.
fn merge_edges_through_corners(found: &mut SmallVec<[Met; 4]>) {
    let corners: SmallVec<[(Feature, DVec3); 4]> = found
        .iter()
        .filter_map(|x| match x.part {
            Part::Corner(k) => Some((x.feature, x.tri[k])),
            _ => None,
        })
        .collect();
    if corners.is_empty() {
        return;
    }
    let mut merged: SmallVec<[(Feature, Met); 2]> = SmallVec::new();
    found.retain(|x| {
        let Part::Edge(k) = x.part else {
            return true;
        };
        let (a, b) = (x.tri[k], x.tri[(k + 1) % 3]);
        match corners.iter().find(|c| strictly_between(c.1, a, b)) {
            Some(c) => {
                merged.push((c.0, *x));
                false
            }
            None => true,
        }
    });
    for (feature, x) in merged {
        if let Some(y) = found.iter_mut().find(|y| y.feature == feature && x.t < y.t) {
            *y = Met { feature, ..x };
        }
    }
}

/// Edge hits whose edges lie on one line, merged into one: at a T-junction the edges either
/// side of the junction's vertex lie along the edge of the triangle across it, which welding
/// does not split, and a ray through either met both, two features at one point (a review's
/// helper: three hits on a closed cube). The ray's line meets that common line once (it does
/// not run along it: it would lie in the faces' planes, where it meets neither), and meets each
/// edge there, inside it: the same crossing. The smallest triangle stands for it.
fn merge_edges_on_one_line(found: &mut SmallVec<[Met; 4]>) {
    let edge = |x: &Met| match x.part {
        Part::Edge(k) => Some((x.tri[k], x.tri[(k + 1) % 3])),
        _ => None,
    };
    let mut i = 0;
    while i < found.len() {
        if let Some((a, b)) = edge(&found[i]) {
            let mut j = i + 1;
            while j < found.len() {
                match edge(&found[j]) {
                    Some((c, d)) if on_line(c, a, b) && on_line(d, a, b) => {
                        let y = found.remove(j);
                        if y.t < found[i].t {
                            found[i] = y;
                        }
                    }
                    _ => j += 1,
                }
            }
        }
        i += 1;
    }
}

/// Whether `c` lies on segment `ab`, not at its ends, exactly: on its line and within its box.
fn strictly_between(c: DVec3, a: DVec3, b: DVec3) -> bool {
    on_line(c, a, b) && c != a && c != b && c.cmpge(a.min(b)).all() && c.cmple(a.max(b)).all()
}

/// Whether `c` lies on the line through `a` and `b` (distinct), exactly.
fn on_line(c: DVec3, a: DVec3, b: DVec3) -> bool {
    crate::geom::predicates::is_degenerate(&[a, b, c])
}

/// The triangle (standing for its feature) whose crossing of the ray from `o` along `d` is
/// nearest `o`, exactly; ties to the smaller index. Crossings are told apart by their bounds
/// where those do not overlap, and compared exactly where they do.
fn nearest(o: DVec3, d: DVec3, found: &[Met]) -> Option<&Met> {
    let reach = found
        .iter()
        .map(|x| x.place.1)
        .fold(f64::INFINITY, f64::min);
    // Only crossings that may lie at or before the nearest's far bound can be the nearest (a
    // bound that is not a number keeps its crossing).
    let mut contenders: SmallVec<[&Met; 4]> = found
        .iter()
        .filter(|x| x.place.0.partial_cmp(&reach) != Some(Ordering::Greater))
        .collect();
    contenders.sort_by_key(|x| x.t);
    contenders.into_iter().reduce(|best, x| {
        match crossed_before(o, d, (&x.tri, x.place), (&best.tri, best.place)) {
            Ordering::Less => x,
            _ => best, // ties keep the smaller index, met first
        }
    })
}

/// Which of two triangles the ray from `o` along `d` crosses first, each given with the bounds
/// on its crossing ([`crossing_bounds`]): by those where they do not overlap, else exactly
/// ([`crossing_order`]).
fn crossed_before(o: DVec3, d: DVec3, x: (&Tri, (f64, f64)), y: (&Tri, (f64, f64))) -> Ordering {
    if x.1 .1 < y.1 .0 {
        Ordering::Less
    } else if x.1 .0 > y.1 .1 {
        Ordering::Greater
    } else {
        crossing_order(o, d, x.0, y.0)
    }
}

/// The leaves of the hierarchy whose boxes segment `pq` meets, nearest entry first at every
/// node, given to `visit` by their slots; `visit` answers how far the walk must still go (a
/// fraction of `pq`): a node entered past that is passed over. Boxes are culled in the mesh's
/// own frame, grown by `pad` ([`Posed::cull_pad`] of `p` and `q`).
fn walk_segment(
    p: DVec3,
    q: DVec3,
    m: &Posed,
    pad: f64,
    mut visit: impl FnMut(std::ops::Range<usize>) -> f64,
) {
    let nodes = &m.prep.bvh().nodes;
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
    let root = m.root_box();
    // Lengths without squares: `o.distance` squared an origin of 1e155 to infinity and refused
    // a ray whose segment f64 holds (a review's helper).
    let from_centre = crate::geom::length(o - root.center());
    let reach = (root.diagonal() + from_centre) / crate::geom::length(d) * 2.0 + 1.0;
    let t_end = max_t.min(reach);
    if t_end.is_nan() || t_end < 0.0 {
        return None;
    }
    let q = o + d * t_end;
    q.is_finite().then_some((q, t_end))
}

/// Which part of a triangle a segment meets: its inside, edge `k` (corners `k` and `k + 1`),
/// or corner `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Inside,
    Edge(usize),
    Corner(usize),
}

impl Part {
    /// The feature it is of triangle `t` with welded corners `ids` (read only for an edge or a
    /// corner: a cache miss most hits do without).
    fn named(self, t: u32, ids: impl FnOnce() -> [u32; 3]) -> Feature {
        match self {
            Part::Inside => Feature::Inside(t),
            Part::Edge(k) => {
                let ids = ids();
                let (a, b) = (ids[k], ids[(k + 1) % 3]);
                Feature::Edge(a.min(b), a.max(b))
            }
            Part::Corner(k) => Feature::Vertex(ids()[k]),
        }
    }
}

/// What the ray from `o` along `d` meets of triangle `tri`, by exact signs: `None` when it
/// misses, lies in its plane, or the triangle has no area. `q` is the end of its segment,
/// rounded (past the mesh's box, or at `end`, the ray's `max_t`, where that comes first).
/// Everything is decided on the ray's own line, from `o` and `d` as given, and only `end`
/// limits it: the line through `q` can pass a corner the ray goes through exactly, beside it
/// (it then grazes one triangle's edge and crosses another's inside by the corner: two hits
/// where a concave corner has one), and `q`'s side of a plane the ray nearly lies in can be
/// the wrong one.
fn meets(o: DVec3, d: DVec3, (q, end): (DVec3, Option<f64>), tri: &Tri) -> Option<Part> {
    // Boxes apart on an axis: no contact, by comparisons alone (most triangles of the leaves a
    // ray passes through are beside it).
    // `q` is rounded: the box of the exact segment is within a few units of `o` and `q`.
    let grow = (o.abs() + q.abs()) * (4.0 * f64::EPSILON) + f64::MIN_POSITIVE;
    let (lo, hi) = (o.min(q) - grow, o.max(q) + grow);
    let (tlo, thi) = (
        tri[0].min(tri[1]).min(tri[2]),
        tri[0].max(tri[1]).max(tri[2]),
    );
    if (hi.cmplt(tlo) | thi.cmplt(lo)).any() {
        return None;
    }
    // The line against each edge first: most triangles left are beside the line, and the three
    // share their differences from `o` (each sign certain by Shewchuk's first bound, which
    // holds for `d` exact as for a rounded difference, else exact).
    let a = tri.map(|v| v - o);
    let mut s = [0i8; 3];
    // The direction's side of the plane, exact, made where an edge needs exact signs.
    let mut side = None;
    for k in 0..3 {
        let l = (k + 1) % 3;
        // The line's orientation against edge k: orient3d(o, o + d, a, b), which is
        // -(d . ((a - o) x (b - o))), an odd permutation of the differences' determinant.
        s[k] = -match sign_within(orient3d_of_differences(d, a[k], a[l])) {
            Some(x) => x,
            // A line this near an edge may lie in the plane (every edge's sign then 0), where
            // it meets nothing: one exact sign, the direction's, says so before three.
            None if *side.get_or_insert_with(|| direction_side(d, tri)) == 0 => return None,
            None => orient_along(o, d, tri[k], tri[l]),
        };
        if s[..=k].iter().any(|&x| x > 0) && s[..=k].iter().any(|&x| x < 0) {
            return None;
        }
    }
    // The line crosses the plane at t = op / dn: at `o` where `o` lies on it, else ahead of
    // `o` where the two agree in sign; not at all where `d` runs parallel to it (or the
    // triangle has no area). Decided on the ray's line, not by which side of the plane the
    // rounded end `q` lies: a ray nearly in the plane crosses it far from where `q`'s side
    // says (a review's helper: a ray from inside a closed tetrahedron met nothing).
    let op = sign_within(orient3d_of_differences(a[0], a[1], a[2]))
        .unwrap_or_else(|| orient3d(tri[0], tri[1], tri[2], o));
    let dn = side.unwrap_or_else(|| direction_side(d, tri));
    if dn == 0 || (op != 0 && op != dn) {
        return None;
    }
    if op != 0 && end.is_some_and(|t_end| !crosses_by(o, d, tri, t_end)) {
        return None;
    }
    // Three zero signs: the line lies in the plane (or the triangle has no area).
    let zero: SmallVec<[usize; 3]> = (0..3).filter(|&k| s[k] == 0).collect();
    match zero[..] {
        [] => Some(Part::Inside),
        [k] => Some(Part::Edge(k)),
        // Edges k and k + 1 share corner k + 1; edges 0 and 2 share corner 0.
        [0, 1] => Some(Part::Corner(1)),
        [1, 2] => Some(Part::Corner(2)),
        [0, 2] => Some(Part::Corner(0)),
        _ => None, // in the plane, or a triangle with no area seen along the ray
    }
}

/// The hit of the ray `o + t d` (`t` up to `t_end`) on triangle `t`, in f64: the one
/// computation of a hit's values, whichever backend found the triangle. `t` is where the ray
/// crosses the triangle's plane ([`crossing_t`]: within a few units of its last place, exact
/// where f64 cannot hold it so), held to `[0, t_end]`; `front` the exact sign of `d · n`.
pub(crate) fn hit(o: DVec3, d: DVec3, t_end: f64, t: u32, tri: &Tri) -> RayHit {
    let (at, side) = crossing_t(o, d, tri);
    let at = if at.is_nan() {
        0.0
    } else {
        at.clamp(0.0, t_end)
    };
    let point = o + d * at;
    let (u, v) = super::closest::barycentric(point, tri);
    RayHit {
        t: at,
        triangle: t,
        u,
        v,
        point,
        front: side < 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{generate, Pose, PreparedMesh};
    use crate::testing::{lcg, placed};

    /// A batch is refused once its rays have met more than the most a batch keeps, and rays
    /// after that are not asked.
    #[test]
    fn a_batch_past_its_hits_is_refused_and_stops_asking() {
        let one = RayHit {
            t: 1.0,
            triangle: 0,
            u: 0.0,
            v: 0.0,
            point: DVec3::ZERO,
            front: true,
        };
        let count = HitCount::at_most(5);
        assert_eq!(count.keep(|| vec![one; 3]).len(), 3);
        assert_eq!(count.keep(|| vec![one; 2]).len(), 2);
        let within = HitCount::at_most(5);
        within.keep(|| vec![one; 5]);
        assert!(within.checked(()).is_ok());
        assert_eq!(count.keep(|| vec![one; 1]).len(), 1); // 6: past
        assert!(count.keep(|| panic!("asked past the limit")).is_empty());
        let err = count.checked(()).unwrap_err();
        assert_eq!((err.what, err.most), (Listing::RayHits, 5));
        assert!(
            err.to_string().starts_with("the rays meet more than the 5"),
            "{err}"
        );
    }

    /// Corners posed by `pose_corners` are `apply`'s, bit for bit, whether or not it skips the
    /// pose (an unmoved mesh): zeros of both signs, a subnormal, corners that are not finite
    /// (a mesh built by hand skips the readers' check), and after the pose is changed in place.
    #[test]
    fn posed_corners_are_the_poses_own_bit_for_bit() {
        let prep = PreparedMesh::new(generate::sphere(1.0, 4, 6));
        let mut m = Posed::new(&prep, Pose::IDENTITY);
        let bits = |t: Tri| t.map(|v| v.to_array().map(f64::to_bits));
        let by_apply = |m: &Posed, c: &[[f32; 3]; 3]| {
            bits(c.map(|c| m.pose.apply(glam::Vec3::from(c).as_dvec3())))
        };
        let finite = [[-0.0, 0.0, 1e-45], [1.0, 1.0, -0.0], [-7.0, -2.5, 3.0]];
        let not_finite = [
            [-0.0, 0.0, 1e-45],
            [f32::INFINITY, 1.0, -0.0],
            [-7.0, -2.5, 3.0],
        ];
        for c in [finite, not_finite] {
            assert_eq!(bits(m.pose_corners(&c)), by_apply(&m, &c));
        }
        m.pose = Pose::translation(DVec3::new(10.0, 0.0, 0.0));
        assert_eq!(bits(m.pose_corners(&finite)), by_apply(&m, &finite));
        assert_eq!(m.pose_corners(&finite)[1][0], 11.0);
    }

    /// The eight-wide walk names every triangle the segment meets (exact signs over every
    /// triangle), whatever the pose, the mesh's scale and its distance from the origin: for
    /// segments from corners and edge midpoints (touching by construction), along the axes
    /// (reciprocals of zero components) and at random.
    #[test]
    fn the_wide_walk_names_every_triangle_a_segment_meets() {
        let sphere = generate::sphere(1.0, 8, 16);
        let cases = [
            (placed(&sphere, 1.0, [0.0; 3]), Pose::IDENTITY),
            (placed(&sphere, 1e-6, [0.0; 3]), Pose::IDENTITY),
            (placed(&sphere, 1.0, [1e5, -2e5, 3e4]), Pose::IDENTITY),
            (
                placed(&generate::torus(1.0, 0.3, 24, 12), 1.0, [0.0; 3]),
                Pose::from_euler_degrees([12.0, 34.0, 56.0], DVec3::new(5.0, -3.0, 1e3)),
            ),
        ];
        let mut rnd = lcg(7);
        for (mesh, pose) in cases {
            let prep = PreparedMesh::new(mesh);
            let m = Posed::new(&prep, pose);
            let w = prep.wide().expect("the tree passes its check");
            let n = prep.mesh.triangles.len() as u32;
            let size = m.root_box().diagonal();
            let mut met = 0;
            for i in 0..400 {
                let tri = m.tri(i % n);
                let start = match i % 4 {
                    0 => tri[(i / 4) as usize % 3],
                    1 => (tri[0] + tri[1]) * 0.5,
                    _ => m.root_box().center() + (DVec3::new(rnd(), rnd(), rnd()) - 0.5) * size,
                };
                let axis = [DVec3::X, DVec3::NEG_Y, DVec3::Z][(i / 3) as usize % 3];
                let d = match i % 3 {
                    0 => axis,
                    _ => DVec3::new(rnd(), rnd(), rnd()) - 0.5,
                };
                let o = start - d * size * rnd();
                let (q, _) = ray_segment_end(o, d, &m, f64::INFINITY).unwrap();
                assert!(m.cull_pad(&[o, q]) <= w.slack(), "the wide walk is taken");
                let mut named = vec![false; n as usize];
                let (a, b) = (m.pose.unapply(o), m.pose.unapply(q));
                assert!(w.walk(a, b, |s| {
                    named[w.slots()[s].triangle as usize] = true;
                    f64::INFINITY
                }));
                for t in 0..n {
                    if meets(o, d, (q, None), &m.tri(t)).is_some() {
                        met += 1;
                        assert!(named[t as usize], "{o} {d}: triangle {t} not named");
                    }
                }
            }
            // Not vacuous: half the segments start on a corner (about six triangles meet
            // there) or an edge's midpoint (two), so about 800 meetings.
            assert!(met > 400, "{met}");
        }
    }

    /// The ray from `o` along `d` (its segment `oq`) meets, `Hits::All`, exactly the triangles
    /// exact signs say it meets, over every triangle, once each (one for each edge or corner
    /// several share, the smallest index): how many.
    fn all_hits_equal_brute_force(o: DVec3, d: DVec3, q: DVec3, m: &Posed) -> usize {
        let mut met: Vec<(Feature, u32)> = (0..m.prep.mesh.triangles.len() as u32)
            .filter_map(|t| {
                let part = meets(o, d, (q, None), &m.tri(t))?;
                Some((part.named(t, || m.prep.mesh.triangles[t as usize]), t))
            })
            .collect();
        met.sort();
        met.dedup_by_key(|x| x.0);
        let mut want: Vec<u32> = met.iter().map(|x| x.1).collect();
        let mut got: Vec<u32> = ray_hits(o, d, m, f64::INFINITY, Hits::All)
            .iter()
            .map(|h| h.triangle)
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{o} {d}");
        want.len()
    }

    /// A pose a little off rigid puts segments beyond the eight-wide walk's margins: the
    /// binary walk answers them, and finds every triangle exact signs say the ray meets.
    #[test]
    fn rays_under_a_pose_off_rigid_take_the_binary_walk_and_miss_nothing() {
        let prep = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
        let mut pose = Pose::translation(DVec3::new(0.5, 0.0, 0.0));
        pose.rotation[0][0] = 1.0 + 5e-7; // within the tolerance a pose is accepted with
        let m = Posed::new(&prep, pose);
        let w = prep.wide().unwrap();
        let mut rnd = lcg(11);
        let mut met = 0;
        for _ in 0..300 {
            let o = DVec3::new(rnd(), rnd(), rnd()) * 3.0 - 1.5;
            let d = DVec3::new(rnd(), rnd(), rnd()) - 0.5;
            let (q, _) = ray_segment_end(o, d, &m, f64::INFINITY).unwrap();
            assert!(m.cull_pad(&[o, q]) > w.slack(), "the binary walk is taken");
            let hits = all_hits_equal_brute_force(o, d, q, &m);
            let first = ray_hits(o, d, &m, f64::INFINITY, Hits::First);
            assert_eq!(first.len(), hits.min(1));
            met += hits;
        }
        // Not vacuous: the brute force (not the walk) finds hits on some of the rays.
        assert!(met > 50, "{met}");
    }

    /// Walks that overflow their room for pending children (made small here, as a tree far
    /// deeper than igea's would make it) stop, and the binary walk answers, though the wide
    /// walk has given some triangles already: every triangle exact signs say the ray meets,
    /// once each, and the same first hit as with room to spare.
    #[test]
    fn rays_whose_wide_walk_overflows_miss_nothing_and_count_nothing_twice() {
        use crate::wide::{Pendings, TEST_ROOM};
        let prep = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
        let m = Posed::new(&prep, Pose::IDENTITY);
        let w = prep.wide().unwrap();
        let room = |r: usize| TEST_ROOM.with(|c| c.set(r));
        let mut rnd = lcg(13);
        let (mut overflowed, mut met) = (0, 0);
        for i in 0..300 {
            // From anywhere about the torus, towards one of its vertices: most rays hit.
            let o = DVec3::new(rnd(), rnd(), rnd()) * 3.0 - 1.5;
            let d = m.vertex(i * 7 % prep.mesh.vertices.len() as u32) - o;
            let (q, _) = ray_segment_end(o, d, &m, f64::INFINITY).unwrap();
            room(Pendings::ROOM);
            let first = ray_hits(o, d, &m, f64::INFINITY, Hits::First);
            room(0);
            let overflows = !w.walk(o, q, |_| f64::INFINITY);
            let hits = all_hits_equal_brute_force(o, d, q, &m);
            assert_eq!(ray_hits(o, d, &m, f64::INFINITY, Hits::First), first);
            if overflows && hits > 0 {
                overflowed += 1;
                met += hits;
            }
        }
        room(Pendings::ROOM);
        // Not vacuous: walks overflow a room of none, those of rays that hit among them.
        assert!(
            overflowed > 100 && met > 200,
            "{overflowed} overflowed, {met} met"
        );
    }
}
