//! `shaders/poses.wgsl`: many poses of B against A, a thread per pose: each pose's candidate
//! triangle pairs, or unsure. Twin: [`crate::gpu::twin::poses`].

use super::{binding, Access::*, Binding, Entry, Stage};
use crate::gpu::layout::{BvhNode, ObbNode, PoseItem, PoseOut, PosesQuery};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<PosesQuery>(0, "pq", Uniform),
    binding::<BvhNode>(1, "a_nodes", Read),
    binding::<[f32; 4]>(2, "a_corners", Read),
    binding::<ObbNode>(3, "a_obbs", Read),
    binding::<BvhNode>(4, "b_nodes", Read),
    binding::<[f32; 4]>(5, "b_corners", Read),
    binding::<ObbNode>(6, "b_obbs", Read),
    binding::<PoseItem>(7, "items", Read),
    binding::<PoseOut>(8, "poses_out", ReadWrite),
];

pub const STAGE: Stage = Stage {
    name: "poses",
    source: shaders::POSES,
    entries: &[Entry {
        name: "main",
        bindings: BINDINGS,
    }],
    twin: "gpu::twin::poses",
};
