//! The GPU backend: one context (instance, adapter, device, queue), the stages' pipelines
//! compiled once (`stages/`, one module per `shaders/<stage>.wgsl`, each with a CPU twin in
//! `twin/` of the same name), meshes uploaded once and kept resident, and the round that runs
//! the stages in passes (`pass.rs`, `rounds.rs`). The queries (`query.rs`) answer in the CPU
//! path's own types with the same values.

mod backend;
mod closest;
mod context;
mod hierarchy;
pub mod layout;
mod mesh;
mod pass;
mod poses;
pub mod query;
mod rays;
mod resident;
mod rounds;
pub mod smoke;
pub mod stages;
pub mod twin;
mod winding;

pub use backend::{GpuBackend, Narrow, PoseWalk, WalkSteps};
pub use closest::ClosestRun;
pub use context::{GpuContext, GpuInfo};
pub use hierarchy::{bvh_arrays, obb_nodes};
pub use mesh::{GpuMesh, HostArrays, HostPart};
pub use poses::PosesRun;
pub use rays::RayRun;
pub use resident::Resident;
pub use rounds::Found;
pub use winding::WindingRun;

/// The WGSL sources, by stage name. `common` holds the structs shared by the stages.
pub mod shaders {
    pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
    pub const SMOKE: &str = include_str!("../../shaders/smoke.wgsl");
    pub const CULL_LEAVES: &str = include_str!("../../shaders/cull_leaves.wgsl");
    pub const CULL_PAIRS: &str = include_str!("../../shaders/cull_pairs.wgsl");
    pub const NEAREST: &str = include_str!("../../shaders/nearest.wgsl");
    pub const NARROW: &str = include_str!("../../shaders/narrow.wgsl");
    pub const WINDING: &str = include_str!("../../shaders/winding.wgsl");
    pub const RAYS: &str = include_str!("../../shaders/rays.wgsl");
    pub const CLOSEST: &str = include_str!("../../shaders/closest.wgsl");
    pub const POSES: &str = include_str!("../../shaders/poses.wgsl");
    /// Every stage file, for validation without a GPU (`tests/layout.rs`).
    pub const ALL: &[(&str, &str)] = &[
        ("common.wgsl", COMMON),
        ("smoke.wgsl", SMOKE),
        ("cull_leaves.wgsl", CULL_LEAVES),
        ("cull_pairs.wgsl", CULL_PAIRS),
        ("nearest.wgsl", NEAREST),
        ("narrow.wgsl", NARROW),
        ("winding.wgsl", WINDING),
        ("rays.wgsl", RAYS),
        ("closest.wgsl", CLOSEST),
        ("poses.wgsl", POSES),
    ];
}
