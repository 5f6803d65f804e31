//! # meshclash
//!
//! Clash detection between triangle meshes: do two parts intersect, and where; is one inside
//! the other; how far apart are they and between which points; which triangle pairs come
//! closer than a clearance; does a mesh cut itself. A scalar `f64` CPU library with exact
//! predicates is the reference; a wgpu backend runs the same stages as WGSL compute shaders and
//! returns the same answers.
//!
//! A mesh is loaded ([`Mesh::load`]), prepared once ([`PreparedMesh`]: welded, octree,
//! topology) and queried under any number of rigid [`Pose`]s through a [`Backend`]:
//!
//! ```no_run
//! use meshclash::{Backend, CheckOptions, DVec3, Mesh, Pose, PreparedMesh};
//!
//! let a = PreparedMesh::new(Mesh::load("bracket.stl")?);
//! let b = PreparedMesh::new(Mesh::load("housing.stl")?);
//! let backend = Backend::auto();
//! let pose_b = Pose::from_euler_degrees([0.0, 0.0, 90.0], DVec3::new(10.0, 0.0, 0.0));
//! let opts = CheckOptions { clearance: Some(0.5) };
//! let report = backend.check(&a, Pose::IDENTITY, &b, pose_b, &opts)?;
//! println!("interferes: {}, min distance {}", report.interferes(), report.distance.distance);
//! # Ok::<(), meshclash::Error>(())
//! ```
//!
//! [`query`] holds the CPU queries themselves (on [`query::Posed`] meshes) and their report
//! types; [`geom`] the geometric primitives they are built from.

mod backend;
#[doc(hidden)]
pub mod bench;
pub mod bvh;
pub mod error;
pub mod geom;
#[doc(hidden)]
pub mod gpu;
pub mod json;
pub mod mesh;
pub mod nearest_tree;
pub mod obb;
#[doc(hidden)]
pub mod octree;
#[doc(hidden)]
pub mod once;
pub mod picture;
pub mod query;
pub mod save;
pub mod stop;
#[cfg(test)]
mod testing;
pub mod wide;

pub use backend::{Backend, BackendKind};
pub use error::{Error, Result};
pub use glam::DVec3;
pub use gpu::GpuInfo;
pub use mesh::{Mesh, MeshInfo, Pose, PreparedMesh};
pub use query::{
    CheckOptions, CheckReport, ClearancePair, ClearanceReport, Containment, DistanceReport,
    IntersectReport, PairContact, SelfKind, SelfPair, SelfReport, SolidDistance, Timings,
};
