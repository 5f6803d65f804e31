//! # meshclash
//!
//! Clash detection between triangle meshes: do two parts intersect, and where; how far apart
//! are they and between which points; which triangle pairs come closer than a clearance; does a
//! mesh cut itself. A scalar `f64` CPU library with exact predicates is the reference; a wgpu
//! backend runs the same stages as WGSL compute shaders.
//!
//! ```no_run
//! use meshclash::mesh::{Mesh, Pose};
//! let a = Mesh::load("part_a.stl")?;
//! let info = a.info();
//! println!("{} triangles, closed: {}", info.triangles, info.closed);
//! # Ok::<(), meshclash::Error>(())
//! ```

pub mod bench;
pub mod error;
pub mod geom;
pub mod gpu;
pub mod mesh;
pub mod octree;
pub mod query;

pub use error::{Error, Result};
