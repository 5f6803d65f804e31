//! `shaders/winding.wgsl`: for each point, the signed crossings of a ray with one part of a
//! mesh and with its caps, or unsure. Twin: [`crate::gpu::twin::winding`].

use super::{binding, Access::*, Binding, Entry, Stage};
use crate::gpu::layout::{OctreeNode, TriRecord, WindingOut, WindingQuery};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<WindingQuery>(0, "wq", Uniform),
    binding::<TriRecord>(1, "tris", Read),
    binding::<OctreeNode>(2, "nodes", Read),
    binding::<[f32; 4]>(3, "points", Read),
    binding::<[f32; 4]>(4, "caps", Read),
    binding::<WindingOut>(5, "out", ReadWrite),
];

pub const STAGE: Stage = Stage {
    name: "winding",
    source: shaders::WINDING,
    entries: &[Entry {
        name: "main",
        bindings: BINDINGS,
    }],
    twin: "gpu::twin::winding",
};
