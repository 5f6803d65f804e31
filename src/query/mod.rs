//! The mesh queries, one API: [`intersect`], [`containment`], [`distance`], [`clearance`],
//! [`self_intersections`], [`interferes`] (yes/no, early exit), and [`check`] which runs what a
//! clash review needs in one call.
//!
//! A [`PreparedMesh`] is built once per mesh (welded mesh, octree, topology) and reused for any
//! number of queries and poses; a [`Posed`] is a prepared mesh placed by a pose for one query
//! (world vertices, bounding spheres and node boxes, computed in parallel).
//!
//! Booleans and pair sets are exact (see [`crate::geom::predicates`]): the culls are
//! conservative and every surviving pair is decided by exact predicates on the posed `f64`
//! coordinates. Distances are `f64`.

pub(crate) mod check;
mod clearance;
mod containment;
mod distance;
mod interferes;
pub(crate) mod intersect;
pub(crate) mod self_intersect;

pub use check::{check, CheckOptions, CheckReport};
pub use clearance::{clearance, ClearancePair, ClearanceReport};
pub use containment::{containment, point_in_closed_mesh, Containment};
pub use distance::{distance, DistanceReport};
pub use interferes::interferes;
pub use intersect::{intersect, IntersectReport, PairContact};
pub use self_intersect::{self_intersections, SelfKind, SelfPair, SelfReport};

use crate::geom::{Aabb, DVec3, Sphere, Tri};
use crate::mesh::{Mesh, MeshInfo, Pose};
use crate::octree::{world_boxes, Octree};
use rayon::prelude::*;
use std::time::Instant;

/// A mesh ready for queries: welded, with its octree, topology and zero-area flags.
pub struct PreparedMesh {
    pub mesh: Mesh,
    pub octree: Octree,
    pub info: MeshInfo,
    pub zero_area: Vec<bool>,
    /// Time to build the octree, milliseconds.
    pub octree_ms: f64,
}

impl PreparedMesh {
    pub fn new(mesh: Mesh) -> PreparedMesh {
        let t = Instant::now();
        let octree = Octree::build(&mesh);
        let octree_ms = ms(t);
        let zero_area = mesh.zero_area_flags();
        let info = mesh.info_with(&zero_area);
        PreparedMesh {
            mesh,
            octree,
            info,
            zero_area,
            octree_ms,
        }
    }
}

/// A prepared mesh under a pose, for one query: everything in world coordinates.
pub struct Posed<'a> {
    pub prep: &'a PreparedMesh,
    pub pose: Pose,
    pub verts: Vec<DVec3>,
    /// Seed 000 bounding spheres, made at first use ([`Posed::spheres`]): the CPU's culls need
    /// them, the GPU path never does.
    spheres: std::sync::OnceLock<Vec<Sphere>>,
    pub boxes: Vec<Aabb>,
}

impl<'a> Posed<'a> {
    pub fn new(prep: &'a PreparedMesh, pose: Pose) -> Posed<'a> {
        let m = &prep.mesh;
        let verts: Vec<DVec3> = (0..m.vertices.len() as u32)
            .into_par_iter()
            .map(|i| pose.apply(m.vertex(i)))
            .collect();
        let boxes = world_boxes(&prep.octree, &pose);
        Posed {
            prep,
            pose,
            verts,
            spheres: std::sync::OnceLock::new(),
            boxes,
        }
    }

    /// Seed 000 bounding spheres (centroid, farthest vertex), radius padded by a relative 1e-9
    /// so that rounding can never cull a touching pair.
    pub fn spheres(&self) -> &[Sphere] {
        self.spheres.get_or_init(|| {
            (0..self.prep.mesh.triangles.len() as u32)
                .into_par_iter()
                .map(|i| self.compute_sphere(i))
                .collect()
        })
    }

    /// Triangle `i`'s sphere of [`Posed::spheres`]: from the cache when it is made, else
    /// computed on the spot (for queries that touch few triangles).
    pub fn sphere(&self, i: u32) -> Sphere {
        match self.spheres.get() {
            Some(s) => s[i as usize],
            None => self.compute_sphere(i),
        }
    }

    fn compute_sphere(&self, i: u32) -> Sphere {
        let s = crate::geom::triangle_bounding_sphere(&self.tri(i));
        Sphere {
            center: s.center,
            radius: s.radius * (1.0 + 1e-9) + 1e-300,
        }
    }

    pub fn tri(&self, i: u32) -> Tri {
        self.prep.mesh.triangles[i as usize].map(|v| self.verts[v as usize])
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

/// Both meshes' spheres when `needed` (a cull found leaf pairs), else empty slices: a query
/// with nothing to test leaves them unmade.
pub(crate) fn spheres_if<'s>(
    needed: bool,
    a: &'s Posed,
    b: &'s Posed,
) -> (&'s [Sphere], &'s [Sphere]) {
    if needed {
        (a.spheres(), b.spheres())
    } else {
        (&[], &[])
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
