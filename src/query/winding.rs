//! The generalized winding number of a mesh around a point (Jacobson, Kavan and
//! Sorkine-Hornung, 2013), for meshes as they come: open, cracked, inside out, soups.
//!
//! Summing every triangle's solid angle costs a pass over the mesh per point. Instead the mesh
//! is closed off by caps over its boundary loops ([`crate::mesh::Caps`]): the mesh plus its
//! caps is a closed oriented surface, whose winding number is the integer an exact ray count
//! gives (each crossing decided by exact predicates, as the containment test always did), and
//! the mesh's own winding number is that integer less the caps' solid angles. A mesh closed to
//! the eye has small caps: a point costs one ray through the octree and a sum over the
//! boundary edges, and the only rounding is the caps'. A closed oriented mesh has none: its
//! winding number is exact.
//!
//! Barill et al. (2018) approximate far-away nodes by their dipoles instead. Their error bound
//! (the node's unsigned area times its radius over the cube of the distance) adds up over the
//! levels of the tree to more than 1/2 at a point inside an ordinary part, so it could certify
//! next to nothing; the caps give the exact integer part and leave only a small sum.

use super::Posed;
use crate::geom::closest::distance_squared_point_segment;
use crate::geom::predicates::{is_degenerate, orient3d, point_in_triangle, segment_triangle};
use crate::geom::ray::SegmentSlabs;
use crate::geom::winding::winding_sum;
use crate::geom::{Aabb, DVec3, Tri};
use rayon::prelude::*;

/// A winding number with a bound on its error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Winding {
    pub value: f64,
    /// The true winding number lies within `value ± bound`; infinite where the point lies on
    /// the surface.
    pub bound: f64,
}

impl Winding {
    /// What a point left is answered once the work is to stop ([`crate::stop`]): nothing.
    pub(crate) const STOPPED: Winding = Winding {
        value: 0.0,
        bound: f64::INFINITY,
    };

    /// Inside by the nonzero rule for soups: |w| ≥ 1/2 (an inside-out body counts).
    pub fn inside(&self) -> bool {
        self.value.abs() >= 0.5
    }

    /// Whether [`Winding::inside`] is certain: |w| is farther from 1/2 than the bound.
    pub fn certain(&self) -> bool {
        (self.value.abs() - 0.5).abs() > self.bound
    }
}

/// Below this many triangles a sum of solid angles runs on the calling thread.
const PARALLEL_SUM: usize = 4096;

/// The winding number of `m` (posed) around `p`.
pub fn winding_number(p: DVec3, m: &Posed) -> Winding {
    if crate::stop::requested() {
        return Winding::STOPPED;
    }
    match ray_crossings(p, m, m.caps()) {
        Some((_, integer)) => winding_from_integer(p, m, integer),
        None => on_surface(p, m).unwrap_or_else(|| one_by_one(p, m)),
    }
}

/// How far `p`, whose winding number around `m` is `w`, may move before that could reach 1/2
/// in magnitude (where [`super::point_inside`] begins the inside of a mesh that is not closed),
/// the surface not crossed; or, as much, how far `m` may move (rigidly) about a fixed `p`.
/// Away from the surface the winding number changes only through the boundary (the edges its
/// caps close): its gradient is the Biot–Savart integral over it, each edge's field at most
/// `min(length / dist², 2 / dist) / 4π` (a straight wire's is at most an infinite one's
/// through it, `2 / dist`, where the nearest point is inside the edge, and below `1 / dist`
/// where it is an end). Moving at most half the distance to the nearest, every edge stays at
/// least half as far, so its field stays within `4 min(length / dist², 1 / dist) / 4π`, the
/// terms of `4 g`; half of what that allows, for the roundings. 0 where `w` is within its
/// bound of 1/2; infinite for a mesh with no boundary. The second term is new: the first
/// alone, near a long edge, was its length over twice the distance times too large (a review's
/// helper: a part sliding 1e-3 past an open box's rim took a million steps of half the
/// tolerance, and a sphere there was undecided).
pub fn inside_room(p: DVec3, w: &Winding, m: &Posed) -> f64 {
    let margin = (w.value.abs() - 0.5).abs() - w.bound;
    // Not a number (a point on the surface, its bound infinite) is no room either.
    if margin.is_nan() || margin <= 0.0 {
        return 0.0;
    }
    let (mut g, mut nearest_sq) = (0.0, f64::INFINITY);
    for cap in m.caps() {
        let (a, b) = (cap[1], cap[2]);
        let dist_sq = distance_squared_point_segment(p, a, b);
        g += ((b - a).length() / dist_sq).min(1.0 / dist_sq.sqrt());
        nearest_sq = nearest_sq.min(dist_sq);
    }
    let g = g / (4.0 * std::f64::consts::PI);
    (margin / (4.0 * g) / 2.0).min(nearest_sq.sqrt() / 2.0)
}

/// [`inside_room`] of `p`, its winding number around `m` asked here.
pub(crate) fn room(p: DVec3, m: &Posed) -> f64 {
    inside_room(p, &winding_number(p, m), m)
}

/// The winding number of `m` around `p` given the winding number of the mesh plus its caps
/// there (an exact count of a ray's crossings): that less the caps' solid angles. The GPU's
/// rays count that integer too, and their answers go through here, as the CPU's do.
pub fn winding_from_integer(p: DVec3, m: &Posed, integer: i64) -> Winding {
    let (w, bound) = sum(p, m.caps());
    if bound.is_finite() {
        return Winding {
            value: integer as f64 - w,
            bound,
        };
    }
    on_surface(p, m).unwrap_or_else(|| one_by_one(p, m))
}

/// The winding number of `m` around `p` lying on its surface, where it jumps (its bound
/// infinite): [`one_by_one`]'s value, every other triangle's solid angle summed (the principal
/// value), from one ray instead of a pass over the mesh (12 ms a point on igea, a review's
/// helper found). Just off `p` along the ray the mesh and its caps wind the integer of the
/// ray's signed crossings past `p`; the mesh's own winding number there is that less the caps'
/// solid angles, and, as the point comes back to `p`, less what the triangles holding `p`
/// subtend in the limit ([`held_from_above`]). The same value to rounding, not to the bit.
/// `None` where `p` lies on no triangle of the mesh (on a cap alone its winding number is
/// continuous, and summed with a finite bound), or no direction tried could be taken.
fn on_surface(p: DVec3, m: &Posed) -> Option<Winding> {
    for q in ray_ends(p, &m.root_box()) {
        let Some((integer, held)) = crossings_past(p, q, m) else {
            continue;
        };
        if !held.iter().any(|h| h.1) {
            return None;
        }
        let around = flat_fan(p, q, &held).or_else(|| {
            held.iter()
                .map(|h| held_from_above(p, q, &h.0))
                .sum::<Option<f64>>()
        });
        let Some(around) = around else {
            continue;
        };
        let caps: f64 = m
            .caps()
            .iter()
            .filter(|c| !point_in_triangle(p, c))
            .map(|c| crate::geom::winding::triangle_winding(p, c).0)
            .sum();
        return Some(Winding {
            value: integer as f64 - around - caps,
            bound: f64::INFINITY,
        });
    }
    None
}

/// The signed crossings of segment `pq` with the mesh and its caps past `p` ([`crossing`]),
/// and the triangles holding `p` with area (those of none subtend nothing and are crossed by
/// nothing), each with whether it is the mesh's (not a cap). `None` if a crossing is
/// ambiguous, or `pq` runs in the plane of one holding `p`.
fn crossings_past(p: DVec3, q: DVec3, m: &Posed) -> Option<(i64, Vec<(Tri, bool)>)> {
    let mut held = Vec::new();
    let mut w = 0;
    let leaves = leaves_on_segment(p, q, m);
    let surface = leaves
        .iter()
        .flat_map(|&n| m.node_tris(n).iter().map(|&t| (m.tri(t), true)));
    let caps = m.caps().iter().map(|&c| (c, false));
    for (t, on_mesh) in surface.chain(caps) {
        match crossing(p, q, &t) {
            Some(c) => w += c,
            None if !point_in_triangle(p, &t) => return None,
            None if is_degenerate(&t) => {}
            None if orient3d(t[0], t[1], t[2], q) == 0 => return None,
            None => held.push((t, on_mesh)),
        }
    }
    Some((w, held))
}

/// What triangle `t`, holding `p`, subtends (over 4π, [`crate::geom::winding::triangle_winding`]'s
/// sign) seen from `p + ε (q − p)` as ε goes to 0, `q` off its plane; `None` where rounding
/// could spoil it. Its sectors from `p` (`p` and each edge) all lie on `q`'s side alike: the
/// sign is `q`'s exact orientation. Holding `p` strictly inside, all three make the plane
/// around `p`, half the sphere, exactly (no angle near a half turn is measured: a review's
/// helper found 0.75 for 1/2 at 2^-54 from an edge). Else each sector of area (`p` on an edge
/// or at a corner) is the spherical triangle of the reversed ray and its two sides, by Van
/// Oosterom and Strackee's formula, taken only where its `tan` is far from 0/0 (a sector
/// nearly a half turn, a sliver's, or seen edge-on).
fn held_from_above(p: DVec3, q: DVec3, t: &Tri) -> Option<f64> {
    let side = orient3d(t[0], t[1], t[2], q) as f64;
    let sectors: Vec<usize> = (0..3)
        .filter(|&k| !is_degenerate(&[p, t[k], t[(k + 1) % 3]]))
        .collect();
    if sectors.len() == 3 {
        return Some(side / 2.0);
    }
    let w = unit(p - q);
    sectors
        .into_iter()
        .map(|k| {
            let (u, v) = (unit(t[k] - p), unit(t[(k + 1) % 3] - p));
            let det = w.dot(u.cross(v)).abs() * side;
            let den = 1.0 + w.dot(u) + w.dot(v) + u.dot(v);
            // Each within a few units of 1 of its value: the angle within 1e-12 of its own.
            (det.hypot(den) > 1e-3).then(|| det.atan2(den) / std::f64::consts::TAU)
        })
        .sum()
}

/// What the triangles holding `p` subtend seen from `p + ε (q − p)`, exactly, where they make
/// a flat disk around it (a face of a part, its point on a diagonal or at a vertex inside it):
/// all in one plane, all on `q`'s side alike, and each ray from `p` that bounds one's sector
/// bounding another's, run the other way (an edge `xy` through `p`, or from `p`, matched by a
/// `yx`). Such sectors tile the plane around `p` some whole number of times, each time half
/// the sphere: the sum of their angles, a multiple of 2π, says how many. A review's helper
/// found 0.4999999999999999 at a point on a cube face's diagonal, 1/2 beside it, summed sector
/// by sector. `None` otherwise (an edge or corner of a solid, a seam, a T-junction): the
/// sectors are summed.
fn flat_fan(p: DVec3, q: DVec3, held: &[(Tri, bool)]) -> Option<f64> {
    let (plane, _) = held.first()?;
    let side = orient3d(plane[0], plane[1], plane[2], q);
    let flat = held.iter().all(|(t, _)| {
        orient3d(t[0], t[1], t[2], q) == side
            && t.iter()
                .all(|&x| orient3d(plane[0], plane[1], plane[2], x) == 0)
    });
    if side == 0 || !flat {
        return None;
    }
    let mut rays: Vec<(DVec3, DVec3)> = Vec::with_capacity(2 * held.len());
    let mut angle = 0.0;
    for (t, _) in held {
        let (a, b) = match (0..3).find(|&k| t[k] == p) {
            // At a corner: the sector between the other two.
            Some(k) => (t[(k + 1) % 3], t[(k + 2) % 3]),
            None => match (0..3).find(|&k| is_degenerate(&[p, t[k], t[(k + 1) % 3]])) {
                // Inside an edge: a half turn, bounded by that edge.
                Some(k) => {
                    rays.push((t[k], t[(k + 1) % 3]));
                    angle += std::f64::consts::PI;
                    continue;
                }
                // Strictly inside: a whole turn.
                None => {
                    angle += std::f64::consts::TAU;
                    continue;
                }
            },
        };
        rays.extend([(p, a), (b, p)]);
        let (u, v) = (unit(a - p), unit(b - p));
        angle += u.cross(v).length().atan2(u.dot(v));
    }
    let matched = |&(x, y): &(DVec3, DVec3)| {
        let count = |e: (DVec3, DVec3)| rays.iter().filter(|&&r| r == e).count();
        count((x, y)) == count((y, x))
    };
    let turns = (angle / std::f64::consts::TAU).round();
    let whole = turns >= 1.0 && (angle - turns * std::f64::consts::TAU).abs() < 1e-6;
    (whole && rays.iter().all(matched)).then_some(side as f64 * turns / 2.0)
}

/// `v`'s direction, scaled first so that nothing squares out of range (a point 1e-170 from a
/// corner gave a direction not a number).
fn unit(v: DVec3) -> DVec3 {
    (v / v.abs().max_element()).normalize()
}

/// Every ray grazed an edge, or p lies on a cap: the mesh's own solid angles, one by one.
fn one_by_one(p: DVec3, m: &Posed) -> Winding {
    let tris: Vec<Tri> = (0..m.prep.mesh.triangles.len() as u32)
        .map(|t| m.tri(t))
        .collect();
    let (value, bound) = sum(p, &tris);
    Winding { value, bound }
}

fn sum(p: DVec3, tris: &[Tri]) -> (f64, f64) {
    if tris.len() < PARALLEL_SUM {
        return winding_sum(p, tris.iter().copied());
    }
    // Chunks summed in parallel, then added in order: rayon's reduce groups them as the
    // threads happen to split, and f64 sums grouped differently differ in their last bits.
    let parts: Vec<(f64, f64)> = tris
        .par_chunks(PARALLEL_SUM)
        .map(|c| winding_sum(p, c.iter().copied()))
        .collect();
    parts
        .into_iter()
        .fold((0.0, 0.0), |x, y| (x.0 + y.0, x.1 + y.1))
}

/// Ray directions on a golden-angle spiral over the sphere: none is parallel to an axis or a
/// diagonal (a CAD mesh's faces and edges mostly are), tried in turn until one ray meets no edge
/// or vertex.
fn direction(k: usize) -> DVec3 {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let z = 1.0 - (2 * k + 1) as f64 / 16.0 + 0.013;
    let r = (1.0 - z * z).max(0.0).sqrt();
    let phi = golden * (k as f64 + 0.37);
    DVec3::new(r * phi.cos(), r * phi.sin(), z)
}

/// The crossings of a ray from `p` out of the mesh's box with the mesh and `extra` (its caps),
/// exactly: their number, and their sum with signs (the winding number of a closed oriented
/// surface around `p`; [`crate::geom::winding::triangle_winding`]'s sign). `None` if every
/// direction tried grazed an edge or vertex (never seen on real meshes). `p` must not lie on
/// the surface. Outside the box there is nothing to cross (the caps' apexes are means of
/// vertices, so inside it too).
pub(crate) fn ray_crossings(p: DVec3, m: &Posed, extra: &[Tri]) -> Option<(u64, i64)> {
    let root = m.root_box();
    if (p.cmplt(root.min) | p.cmpgt(root.max)).any() {
        return Some((0, 0));
    }
    ray_ends(p, &root).find_map(|q| count_crossings(p, q, m, extra))
}

/// The far ends of the rays from `p` tried in turn, each past the root box from anywhere in it:
/// out through its nearest face first ([`out_nearest`]), then the spiral's ([`direction`]).
fn ray_ends(p: DVec3, root: &Aabb) -> impl Iterator<Item = DVec3> {
    let reach = 2.0 * (root.diagonal() + p.distance(root.center())) + 1.0;
    std::iter::once(out_nearest(p, root))
        .chain((0..16).map(direction))
        .map(move |dir| p + dir * reach)
}

/// The first direction tried: out through the root box's nearest face, tilted off the axis (a
/// CAD part's faces mostly are axis-aligned). The shortest way out crosses the fewest nodes: a
/// part 1 % inside another is left through the nearby wall, not across the whole part.
fn out_nearest(p: DVec3, root: &Aabb) -> DVec3 {
    let (c, h) = (root.center(), root.half_extent());
    let room = h - (p - c).abs();
    let axis = if room.x <= room.y && room.x <= room.z {
        0
    } else if room.y <= room.z {
        1
    } else {
        2
    };
    let mut out = DVec3::ZERO;
    out[axis] = if p[axis] < c[axis] { -1.0 } else { 1.0 };
    (out + 0.3 * direction(0)).normalize()
}

/// Below this many leaves a ray's crossings are counted on the calling thread.
const PARALLEL_LEAVES: usize = 64;

/// How segment `pq` crosses triangle `tri`: `Some(0)` not at all, `Some(±1)` properly through
/// its inside (+1 where `p` lies behind it), `None` through an edge or a vertex, or along its
/// plane across it (the count would be ambiguous).
fn crossing(p: DVec3, q: DVec3, tri: &Tri) -> Option<i64> {
    // Boxes apart on an axis: no crossing, decided by comparisons alone (most triangles of the
    // leaves a ray passes through are beside it).
    let (lo, hi) = (p.min(q), p.max(q));
    let (tlo, thi) = (
        tri[0].min(tri[1]).min(tri[2]),
        tri[0].max(tri[1]).max(tri[2]),
    );
    if (hi.cmplt(tlo) | thi.cmplt(lo)).any() {
        return Some(0);
    }
    // A degenerate triangle gives 0 at both ends, and is settled by the exact segment test
    // below, as is any triangle whose plane holds the segment.
    let op = orient3d(tri[0], tri[1], tri[2], p);
    let oq = orient3d(tri[0], tri[1], tri[2], q);
    if op * oq > 0 {
        return Some(0); // both ends on one side
    }
    if op == 0 && oq != 0 {
        // The start on the plane: beside the triangle the rest leaves the plane without
        // crossing; on it, p lies on the surface, where no ray's count is the answer (every
        // direction is refused, and the solid angles say the bound is infinite).
        return (!point_in_triangle(p, tri)).then_some(0);
    }
    if oq == 0 {
        // Ends on the surface, or runs in its plane across it.
        return (!segment_triangle(p, q, tri)).then_some(0);
    }
    let s = [
        orient3d(p, q, tri[0], tri[1]),
        orient3d(p, q, tri[1], tri[2]),
        orient3d(p, q, tri[2], tri[0]),
    ];
    if s.iter().any(|&x| x > 0) && s.iter().any(|&x| x < 0) {
        return Some(0); // passes beside the triangle
    }
    if s.contains(&0) {
        return None; // through an edge or a vertex
    }
    Some(op as i64)
}

/// Crossings of segment `pq` with the surface and `extra`: their count and signed sum
/// ([`crossing`]), `None` if any is ambiguous.
fn count_crossings(p: DVec3, q: DVec3, m: &Posed, extra: &[Tri]) -> Option<(u64, i64)> {
    let leaves = leaves_on_segment(p, q, m);
    let over = |tris: &mut dyn Iterator<Item = Tri>| -> Option<(u64, i64)> {
        tris.map(|t| crossing(p, q, &t))
            .try_fold((0, 0), |(n, w), c| c.map(|c| (n + c.unsigned_abs(), w + c)))
    };
    let leaf = |&n: &u32| over(&mut m.node_tris(n).iter().map(|&t| m.tri(t)));
    let add = |x: (u64, i64), y: (u64, i64)| (x.0 + y.0, x.1 + y.1);
    // A ray meets few leaves: threads would cost more than they save.
    let surface = if leaves.len() < PARALLEL_LEAVES {
        leaves
            .iter()
            .map(leaf)
            .try_fold((0, 0), |acc, c| c.map(|c| add(acc, c)))
    } else {
        leaves
            .par_iter()
            .map(leaf)
            .try_reduce(|| (0, 0), |x, y| Some(add(x, y)))
    }?;
    Some(add(surface, over(&mut extra.iter().copied())?))
}

/// The leaves whose boxes segment `pq` meets.
pub(crate) fn leaves_on_segment(p: DVec3, q: DVec3, m: &Posed) -> Vec<u32> {
    leaves_with_entry(p, q, m)
        .into_iter()
        .map(|l| l.1)
        .collect()
}

/// [`leaves_on_segment`], each with where the segment enters its box (a fraction of `pq`, a
/// lower bound: the boxes are padded).
pub(crate) fn leaves_with_entry(p: DVec3, q: DVec3, m: &Posed) -> Vec<(f64, u32)> {
    let mut leaves = Vec::new();
    walk_segment(p, q, m, |entry, leaf| {
        leaves.push((entry, leaf));
        f64::INFINITY
    });
    leaves
}

/// The leaves whose boxes segment `pq` meets, nearest entry first within each node, given to
/// `visit` with where the segment enters them (a fraction of `pq`, a lower bound: the boxes are
/// padded); `visit` answers how far the walk must still go: a node entered past that is passed
/// over (a first hit found ends the walk at its own distance).
pub(crate) fn walk_segment(p: DVec3, q: DVec3, m: &Posed, mut visit: impl FnMut(f64, u32) -> f64) {
    let tree = m.tree();
    // The nodes are culled in the mesh's own coordinates, the segment carried back there once,
    // rather than each node's box posed.
    let (pl, ql) = (m.pose.unapply(p), m.pose.unapply(q));
    let pad = m.cull_pad(&[p, q]);
    let seg = SegmentSlabs::new(pl, ql);
    let entry = |n: usize| seg.entry(&tree.nodes[n].aabb().padded(pad));
    let mut bound = f64::INFINITY;
    let mut stack: Vec<(f64, usize)> = entry(0).map(|e| (e, 0)).into_iter().collect();
    let mut kids = Vec::with_capacity(8);
    while let Some((e, n)) = stack.pop() {
        if e > bound {
            continue;
        }
        let node = &tree.nodes[n];
        if node.is_leaf() {
            bound = bound.min(visit(e, n as u32));
            continue;
        }
        kids.extend(node.children().filter_map(|c| entry(c).map(|e| (e, c))));
        // Nearest last, so it is popped first.
        kids.sort_by(|a, b| b.0.total_cmp(&a.0));
        stack.append(&mut kids);
    }
}
