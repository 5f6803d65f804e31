//! `shaders/poses.wgsl`: many poses of B against A, a thread per pose (`main`) or a workgroup
//! per pose (`group`): each pose's candidate leaf pairs, or unsure. Twin:
//! [`crate::gpu::twin::poses`] (`main` and `group`).

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
    entries: &[
        Entry {
            name: "main",
            bindings: BINDINGS,
        },
        Entry {
            name: "group",
            bindings: BINDINGS,
        },
    ],
    twin: "gpu::twin::poses",
};
