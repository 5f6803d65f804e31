//! `shaders/rays.wgsl`: for each ray, the triangle it certainly meets first, or unsure. Twin:
//! [`crate::gpu::twin::rays`].

use super::{binding, Access::*, Binding, Entry, Stage};
use crate::gpu::layout::{BvhNode, RayOut, RayQuery, SlotsOut};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<RayQuery>(0, "rq", Uniform),
    binding::<BvhNode>(1, "bvh", Read),
    binding::<[f32; 4]>(2, "corners", Read),
    binding::<[f32; 4]>(3, "rays", Read),
    binding::<RayOut>(4, "ray_out", ReadWrite),
    binding::<SlotsOut>(5, "ray_all", ReadWrite),
];

pub const STAGE: Stage = Stage {
    name: "rays",
    source: shaders::RAYS,
    entries: &[Entry {
        name: "main",
        bindings: BINDINGS,
    }],
    twin: "gpu::twin::rays",
};
