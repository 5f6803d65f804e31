//! The mesh queries, one API: [`intersect`], [`containment`], [`distance`], [`clearance`],
//! [`self_intersections`], [`interferes`] (yes/no, early exit), [`solid_distance`] (0 for parts
//! that interfere, early exit), and [`check`] which runs what a clash review needs in one call.
//!
//! A [`PreparedMesh`] is built once per mesh (welded mesh, octree, topology) and reused for any
//! number of queries and poses; a [`Posed`] is a prepared mesh placed by a pose for one query
//! (world vertices, bounding spheres and node boxes, posed on demand).
//!
//! Booleans and pair sets are exact (see [`crate::geom::predicates`]): the culls are
//! conservative and every surviving pair is decided by exact predicates on the posed `f64`
//! coordinates. Distances are `f64`.

pub(crate) mod check;
pub(crate) mod clearance;
pub(crate) mod closest;
pub(crate) mod containment;
pub(crate) mod distance;
mod far;
pub(crate) mod interferes;
pub(crate) mod intersect;
mod motion;
pub(crate) mod oriented;
pub(crate) mod ray;
pub(crate) mod self_intersect;
pub(crate) mod solid;
pub(crate) mod spheres;
mod winding;

pub use check::{check, check_at_most, CheckOptions, CheckReport};
pub use clearance::{
    check_clearance, clearance, clearance_at_most, pairs_within_at_least, ClearancePair,
    ClearanceReport, Listing, TooMany, MAX_PAIRS,
};
pub use closest::{closest_point, closest_points, first_beyond_f64, Closest};
pub use containment::{
    containment, inside_by_parity, inside_given, point_inside, Containment, Inside,
};
pub use distance::{distance, distance_with_budget, DistanceReport};
pub use interferes::{interference, interference_and_certainty, interferes, Interference};
pub use intersect::{intersect, intersect_at_most, IntersectReport, PairContact};
pub use motion::{
    evidence, first_half_turn, first_unbounded_segment, half_turn_message, path_tolerance, poses,
    sweep, PoseAnswer, SweepHit, SweepReport,
};
pub use ray::{first_unbounded_ray, hit_rows, ray_hits, ray_segment_end, HitCount, Hits, RayHit};
pub use self_intersect::{
    self_intersections, self_intersections_at_most, shared_vertex_meets_elsewhere,
    shared_vertex_meets_elsewhere_by_edges, SelfKind, SelfPair, SelfReport,
};
pub use solid::{solid_distance, SolidDistance};
pub use spheres::{
    sphere_contact, sphere_sweep, sphere_triangles, spheres_touching, sweep_tolerance,
    SphereContact, SphereSweep, SweepContact,
};
pub use winding::{winding_from_integer, winding_number, Winding};

use crate::geom::{tritri, Aabb, DVec3, Sphere, Tri};
use crate::mesh::{Pose, PreparedMesh};
use crate::octree::{world_box, Octree};
use crate::once::get_or_collect;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// A prepared mesh under a pose, for one query: everything in world coordinates, posed on
/// demand. A query that touches most of the mesh asks for whole arrays ([`Posed::verts`],
/// [`Posed::boxes`], [`Posed::spheres`]: made once, in parallel, or in order by a task of a
/// parallel query where they are few, [`crate::once`]); one that stops early (yes/no,
/// a ray, a far-apart distance) poses only the vertices and nodes it visits. Either way each
/// value is computed by the same function, so answers do not depend on which was used.
pub struct Posed<'a> {
    pub prep: &'a PreparedMesh,
    pub pose: Pose,
    verts: OnceLock<Vec<DVec3>>,
    boxes: OnceLock<Vec<Aabb>>,
    spheres: OnceLock<Vec<Sphere>>,
    caps: OnceLock<Vec<Tri>>,
    slots: OnceLock<Vec<Tri>>,
    frame: OnceLock<Frame>,
}

/// What every ray or point of a batch asks of the pose: the mesh's box in world coordinates
/// ([`Posed::root_box`]), [`Posed::frame_magnitude`], [`Posed::local_magnitude`] and
/// [`Pose::unapply_rate`].
struct Frame {
    root: Aabb,
    magnitude: f64,
    local: f64,
    unapply_rate: f64,
}

impl<'a> Posed<'a> {
    /// Free: nothing is posed until a query asks.
    pub fn new(prep: &'a PreparedMesh, pose: Pose) -> Posed<'a> {
        Posed {
            prep,
            pose,
            verts: OnceLock::new(),
            boxes: OnceLock::new(),
            spheres: OnceLock::new(),
            caps: OnceLock::new(),
            slots: OnceLock::new(),
            frame: OnceLock::new(),
        }
    }

    /// Every triangle, posed, in the order of the hierarchy's slots ([`crate::bvh::Bvh`]): a
    /// batch of rays or points reads a leaf's triangles from one place instead of through two
    /// indirections each. Made once, as [`Posed::verts`] is.
    pub fn slot_tris(&self) -> &[Tri] {
        self.verts();
        let tris = &self.prep.bvh().tris;
        get_or_collect(&self.slots, tris.len(), |s| self.tri(tris[s]))
    }

    /// Make [`Posed::slot_tris`] for a batch of `queries` rays or points: each reads a few dozen
    /// triangles, so past a sixteenth of the triangles posing them all once is the cheaper.
    pub fn slots_for(&self, queries: usize) {
        if queries.saturating_mul(16) >= self.prep.mesh.triangles.len() {
            self.slot_tris();
        }
    }

    /// Corners in the mesh's own coordinates, posed: [`Posed::tri`]'s value for a triangle
    /// with these corners.
    pub fn pose_corners(&self, corners: &[[f32; 3]; 3]) -> Tri {
        let at = |c: [f32; 3]| glam::Vec3::from(c).as_dvec3();
        // `apply`'s value where the pose moves nothing and the corners are finite (asked
        // here, not once: `pose` is a public field): a ray's walk poses a few triangles, and
        // posing them was an eighth of a batch of rays' samples on an unmoved mesh.
        let finite = || corners.iter().flatten().all(|v| v.is_finite());
        if self.pose.moves_nothing() && finite() {
            return corners.map(|c| at(c) + DVec3::ZERO);
        }
        corners.map(|c| self.pose.apply(at(c)))
    }

    /// The mesh's oriented boxes ([`crate::obb`]), four to a node, for a batch of `queries`
    /// nearest points: [`PreparedMesh::oriented_for`].
    pub fn oriented_for(&self, queries: usize) {
        self.prep.oriented_for(queries);
    }

    /// The triangle in slot `s` of the hierarchy, posed: from [`Posed::slot_tris`] when made,
    /// else posed on the spot. Either way [`Posed::tri`]'s value.
    pub fn slot_tri(&self, s: usize) -> Tri {
        match self.slots.get() {
            Some(t) => t[s],
            None => self.tri(self.prep.bvh().tris[s]),
        }
    }

    /// The padding the mesh's own boxes need for culling `points` (a segment's ends, or a
    /// point) carried into its frame by [`Pose::unapply`]: both roundings (the points' then,
    /// the vertices' when posed) are absorbed by 1e-12 of the world coordinates' magnitude,
    /// plus how far `Rᵀ` is from the inverse of a rotation accepted a little off orthonormal,
    /// which grows with the points' coordinates in the mesh's frame, not the world's.
    pub(crate) fn cull_pad(&self, points: &[DVec3]) -> f64 {
        let frame = self.frame();
        let t = self.pose.translation;
        let (world, carried) = points.iter().fold((frame.magnitude, 0.0f64), |(w, c), p| {
            (
                w.max(p.abs().max_element()),
                c.max((*p - t).abs().max_element()),
            )
        });
        let local = frame.local.max(in_frame(carried));
        1e-12 * world + frame.unapply_rate * local + f64::MIN_POSITIVE
    }

    /// The largest coordinate of the mesh's own box, in its own frame.
    pub(crate) fn local_magnitude(&self) -> f64 {
        let root = self.prep.octree.nodes[0].aabb();
        root.min.abs().max(root.max.abs()).max_element()
    }

    fn frame(&self) -> &Frame {
        self.frame.get_or_init(|| Frame {
            root: world_box(&self.prep.octree.nodes[0].aabb(), &self.pose),
            magnitude: self.frame_magnitude(),
            local: self.local_magnitude(),
            unapply_rate: self.pose.unapply_rate(),
        })
    }

    /// The mesh's box in world coordinates: [`Posed::node_box`] of the root, made once.
    pub fn root_box(&self) -> Aabb {
        self.frame().root
    }

    /// The cap triangles that close the mesh's boundary ([`PreparedMesh::caps`]), posed: their
    /// apexes carried by the pose as the vertices are.
    pub fn caps(&self) -> &[Tri] {
        self.caps.get_or_init(|| {
            let caps = self.prep.caps();
            caps.triangles
                .iter()
                .map(|&(l, u, v)| {
                    let apex = self.pose.apply(caps.apexes[l as usize]);
                    [apex, self.vertex(u), self.vertex(v)]
                })
                .collect()
        })
    }

    /// Every vertex in world coordinates.
    pub fn verts(&self) -> &[DVec3] {
        let m = &self.prep.mesh;
        get_or_collect(&self.verts, m.vertices.len(), |i| {
            self.pose.apply(m.vertex(i as u32))
        })
    }

    /// Vertex `v` in world coordinates: from [`Posed::verts`] when made, else posed on the spot.
    pub fn vertex(&self, v: u32) -> DVec3 {
        match self.verts.get() {
            Some(vs) => vs[v as usize],
            None => self.pose.apply(self.prep.mesh.vertex(v)),
        }
    }

    /// Every octree node's box in world coordinates ([`world_box`]).
    pub fn boxes(&self) -> &[Aabb] {
        let nodes = &self.prep.octree.nodes;
        get_or_collect(&self.boxes, nodes.len(), |n| {
            world_box(&nodes[n].aabb(), &self.pose)
        })
    }

    /// Node `n`'s box of [`Posed::boxes`]: from the cache when made, else posed on the spot.
    pub fn node_box(&self, n: usize) -> Aabb {
        match self.boxes.get() {
            Some(b) => b[n],
            None => world_box(&self.prep.octree.nodes[n].aabb(), &self.pose),
        }
    }

    /// The largest world coordinate the pose can produce from the mesh's own box, less its
    /// rotation: the scale of the pose's rounding, for the padding of boxes culled in the
    /// mesh's own frame.
    pub(crate) fn frame_magnitude(&self) -> f64 {
        let t = self.pose.translation.abs().max_element();
        self.local_magnitude().max(t)
    }

    /// Make [`Posed::verts`] when about `uses` triangles will be read: posing a vertex on the
    /// spot costs about what reading it does, so beyond a quarter of the vertices the parallel
    /// whole is cheaper than posing shared vertices again and again.
    pub fn verts_for(&self, uses: usize) {
        if uses >= self.prep.mesh.vertices.len() / 4 {
            self.verts();
        }
    }

    /// Nathan (2015) bounding spheres (centroid, farthest vertex), radius padded by a relative 1e-9
    /// so that rounding can never cull a touching pair.
    pub fn spheres(&self) -> &[Sphere] {
        self.verts();
        get_or_collect(&self.spheres, self.prep.mesh.triangles.len(), |i| {
            padded_sphere(&self.tri(i as u32))
        })
    }

    /// Triangle `i`'s sphere of [`Posed::spheres`]: from the cache when it is made, else
    /// computed on the spot (for queries that touch few triangles).
    pub fn sphere(&self, i: u32) -> Sphere {
        match self.spheres.get() {
            Some(s) => s[i as usize],
            None => padded_sphere(&self.tri(i)),
        }
    }

    /// Leaf `n`'s triangles with their spheres, into `out` (cleared first): posed once here,
    /// where a leaf pair reads each of them once per triangle of the other leaf.
    pub fn leaf_tris(&self, n: u32, out: &mut Vec<(u32, Tri, Sphere)>) {
        out.clear();
        let cached = self.spheres.get();
        out.extend(self.node_tris(n).iter().map(|&i| {
            let t = self.tri(i);
            let s = cached.map_or_else(|| padded_sphere(&t), |s| s[i as usize]);
            (i, t, s)
        }));
    }

    pub fn tri(&self, i: u32) -> Tri {
        self.prep.mesh.triangles[i as usize].map(|v| self.vertex(v))
    }

    pub fn tree(&self) -> &Octree {
        &self.prep.octree
    }

    /// Triangle indices of node `n`.
    pub fn node_tris(&self, n: u32) -> &[u32] {
        let t = self.tree();
        &t.tri_index[t.nodes[n as usize].tris()]
    }
}

/// Nathan's bounding sphere of `t` (centroid, farthest vertex), its radius padded by a
/// relative 1e-9 so that rounding can never cull a touching pair.
fn padded_sphere(t: &Tri) -> Sphere {
    let s = crate::geom::triangle_bounding_sphere(t);
    Sphere {
        center: s.center,
        radius: s.radius * (1.0 + 1e-9) + 1e-300,
    }
}

/// A lower bound on the distance between any triangle of one leaf and any of the other: their
/// gap along each leaf's first normal. A leaf's triangles face about one way, so where two
/// surfaces face each other across a gap this settles the leaf pair before its 64 pairs.
pub(crate) fn leaf_gap(leaf_a: &[(u32, Tri, Sphere)], leaf_b: &[(u32, Tri, Sphere)]) -> f64 {
    let (Some(fa), Some(fb)) = (leaf_a.first(), leaf_b.first()) else {
        return f64::NEG_INFINITY;
    };
    let normal = |t: &Tri| (t[1] - t[0]).cross(t[2] - t[0]);
    let (sa, sb) = (
        || leaf_a.iter().map(|l| &l.1),
        || leaf_b.iter().map(|l| &l.1),
    );
    tritri::gap_between(sa(), sb(), normal(&fa.1)).max(tritri::gap_between(
        sa(),
        sb(),
        normal(&fb.1),
    ))
}

/// A bound on the coordinates, in a mesh's frame, of a world point `x` from its translation
/// (`|p − t|`, largest coordinate) carried there: `|R⁻¹ x|` is at most √3 `|x|` for a rotation
/// up to [`Pose::RIGID_TOLERANCE`] (2e-6) off orthonormal, as poses are accepted, with room.
pub(crate) fn in_frame(x: f64) -> f64 {
    3f64.sqrt() * x * (1.0 + 1e-4)
}

/// What [`Pose::unapply_error`] is taken of where B's coordinates are carried into A's frame
/// (`A⁻¹B`): A's own box, and B's points there, within √3 of B's box and the poses'
/// translations apart. Not the world's magnitude: parts placed a few metres apart at UTM
/// coordinates (5.4e6) by a rotation written to six digits (1e-6 off orthonormal) were padded
/// by 20 cm, more than the parts, and `check --quick` visited every pair (a hunt's helper).
pub(crate) fn carried_magnitude(a: &Posed, b: &Posed) -> f64 {
    let apart = (b.pose.translation - a.pose.translation)
        .abs()
        .max_element();
    a.local_magnitude()
        .max(in_frame(b.local_magnitude() + apart))
}

/// Pairs of leaves whose world boxes are within `d`. The roots are compared first, posed
/// alone, so that parts far apart never pose their trees.
pub(crate) fn posed_leaf_pairs(a: &Posed, b: &Posed, d: f64) -> Vec<(u32, u32)> {
    if a.node_box(0).distance_squared(&b.node_box(0)) > d * d {
        return Vec::new();
    }
    crate::octree::leaf_pairs(a.tree(), a.boxes(), b.tree(), b.boxes(), d)
}

/// A leaf's triangles, posed, with their spheres ([`Posed::leaf_tris`]).
pub(crate) type LeafTris = [(u32, Tri, Sphere)];

/// `pair` over every leaf pair of `leaves` on rayon's threads, given both leaves' posed
/// triangles (buffers reused per job) and a count and an output to add to: each job's count
/// and output, in no particular order ([`concatenated`] gathers them; callers sort).
pub(crate) fn over_leaf_pairs_by_job<T: Send>(
    a: &Posed,
    b: &Posed,
    leaves: &[(u32, u32)],
    pair: impl Fn(&LeafTris, &LeafTris, &mut u64, &mut Vec<T>) + Sync,
) -> Vec<(u64, Vec<T>)> {
    par_outputs_by_job(
        leaves,
        |&(la, lb), (leaf_a, leaf_b): &mut (Vec<_>, Vec<_>), count, out| {
            a.leaf_tris(la, leaf_a);
            b.leaf_tris(lb, leaf_b);
            pair(leaf_a, leaf_b, count, out);
        },
    )
}

/// `work` over `items` on rayon's threads, each job with scratch of its own and one output that
/// every item appends to: each job's count and output, in no particular order
/// ([`concatenated`] gathers them).
///
/// Not an output per item: the near-miss clearance at 1M triangles has 7.7M leaf pairs with 1.5
/// pairs each, and a vector per leaf pair took 0.7–1.0 s of its 7 s (two cores) to allocate,
/// gather into one and free, against 0.17 s for a vector per job.
pub(crate) fn par_outputs_by_job<I: Sync, S: Default + Send, T: Send>(
    items: &[I],
    work: impl Fn(&I, &mut S, &mut u64, &mut Vec<T>) + Sync,
) -> Vec<(u64, Vec<T>)> {
    items
        .par_iter()
        .fold(
            || (0, Vec::new(), S::default()),
            |(mut count, mut out, mut scratch), item| {
                // Stopped (Python's Ctrl-C, `crate::stop`): the items left are passed over.
                if !crate::stop::requested() {
                    work(item, &mut scratch, &mut count, &mut out);
                }
                (count, out, scratch)
            },
        )
        .map(|(count, out, _)| (count, out))
        .collect()
}

/// What the jobs of a search have listed, for one that stops past `most` ([`MAX_PAIRS`]): each
/// job asks [`Listed::full`] before an item and adds what it pushed; the caller refuses the
/// query where [`Listed::over`], before the jobs' lists are gathered (which would hold them
/// twice).
pub(crate) struct Listed {
    n: AtomicU64,
    most: u64,
}

impl Listed {
    pub(crate) fn new(most: u64) -> Listed {
        Listed {
            n: Default::default(),
            most,
        }
    }

    pub(crate) fn full(&self) -> bool {
        self.n.load(Ordering::Relaxed) > self.most
    }

    pub(crate) fn add(&self, pushed: usize) {
        self.n.fetch_add(pushed as u64, Ordering::Relaxed);
    }

    /// More than `most` listed: the query is refused ([`TooMany`] of `what`).
    pub(crate) fn over(&self, what: Listing) -> Result<(), TooMany> {
        match self.full() {
            true => Err(TooMany {
                what,
                most: self.most,
            }),
            false => Ok(()),
        }
    }
}

/// The jobs' counts summed and their outputs in one vector.
pub(crate) fn concatenated<T>(per_job: Vec<(u64, Vec<T>)>) -> (u64, Vec<T>) {
    let count = per_job.iter().map(|(n, _)| n).sum();
    let mut all = Vec::with_capacity(per_job.iter().map(|(_, o)| o.len()).sum());
    for (_, out) in per_job {
        all.extend(out);
    }
    (count, all)
}

/// Both meshes' vertices and spheres as whole arrays, in parallel, when `needed` (a cull found
/// leaf pairs, and most of them will be read); a query with nothing to test leaves them unmade.
pub(crate) fn spheres_if(needed: bool, a: &Posed, b: &Posed) {
    if needed {
        a.spheres();
        b.spheres();
    }
}

/// Time per stage, in milliseconds, in the order the stages ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings(pub Vec<(String, f64)>);

/// The GPU's own time inside a query's GPU stages (timestamp queries), apart from submission
/// and readback: not a stage of its own, so [`Timings::total`] leaves it out.
pub const GPU_BUSY: &str = "gpu_busy";

impl Timings {
    pub fn add(&mut self, stage: &str, start: Instant) {
        self.0.push((stage.to_string(), ms(start)));
    }

    pub fn extend(&mut self, other: &Timings) {
        self.0.extend(other.0.iter().cloned());
    }

    pub fn total(&self) -> f64 {
        self.0
            .iter()
            .filter(|(k, _)| k != GPU_BUSY)
            .map(|(_, t)| t)
            .sum()
    }
}

pub(crate) fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    /// Two parts 0.25 apart at UTM coordinates, placed by a rotation written to six digits
    /// (1e-6 off orthonormal): what carrying coordinates into a part's frame can be off by is
    /// that defect times the parts' size and separation, not times 5.4e6 (the pads were 20 cm,
    /// more than the parts, and every pair was visited); at the origin, what it was.
    #[test]
    fn a_rotations_defect_is_taken_at_the_coordinates_it_carries() {
        let m = PreparedMesh::new(generate::torus(0.1, 0.03, 24, 12));
        let (c, s) = (0.796530, 0.604599);
        let placed = |x: f64, y: f64| {
            let rows = [
                c, -s, 0.0, x, s, c, 0.0, y, 0.0, 0.0, 1.0, 312.345, 0.0, 0.0, 0.0, 1.0,
            ];
            Pose::from_matrix(&rows).expect("six digits are rigid enough")
        };
        let (a, b) = (
            Posed::new(&m, placed(450123.456, 5400789.012)),
            Posed::new(&m, placed(450123.706, 5400789.012)),
        );
        let carried = carried_magnitude(&a, &b);
        assert!((0.13..0.7).contains(&carried), "{carried}");
        assert!(a.pose.unapply_error(carried) < 1e-5);
        let near = a.pose.apply(DVec3::new(0.2, 0.0, 0.0));
        let pad = a.cull_pad(&[near]);
        assert!(pad < 1e-5 && pad > 1e-12 * 5.4e6, "{pad}");
        // Near the origin, by the parts' own magnitude.
        let at_origin = Posed::new(&m, placed(0.0, 0.0));
        let rate = at_origin.pose.unapply_rate();
        let pad = at_origin.cull_pad(&[at_origin.pose.apply(DVec3::new(0.2, 0.0, 0.0))]);
        assert!(
            pad >= rate * 0.2 && pad < rate * 0.5 + 1e-12 * 312.5,
            "{pad} against {rate}"
        );
    }
}
