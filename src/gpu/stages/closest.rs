//! `shaders/closest.wgsl`: for each point, the triangles that may be the nearest, or unsure. Twin:
//! [`crate::gpu::twin::closest`].

use super::{binding, Access::*, Binding, Entry, Stage};
use crate::gpu::layout::{BvhNode, ClosestQuery, ObbNode, SlotsOut};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<ClosestQuery>(0, "cq", Uniform),
    binding::<BvhNode>(1, "bvh", Read),
    binding::<[f32; 4]>(2, "corners", Read),
    binding::<[f32; 4]>(3, "points", Read),
    binding::<SlotsOut>(4, "closest_out", ReadWrite),
    binding::<ObbNode>(5, "obbs", Read),
];

pub const STAGE: Stage = Stage {
    name: "closest",
    source: shaders::CLOSEST,
    entries: &[Entry {
        name: "main",
        bindings: BINDINGS,
    }],
    twin: "gpu::twin::closest",
};
