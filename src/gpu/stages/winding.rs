//! `shaders/winding.wgsl`: for each point, the signed crossings of a ray with one part of a
//! mesh and with its caps, or unsure. Twin: [`crate::gpu::twin::winding`].

use super::{bind, binding, dispatch, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
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

pub struct WindingStage {
    layout: wgpu::BindGroupLayout,
    main: wgpu::ComputePipeline,
}

impl WindingStage {
    pub fn new(ctx: &GpuContext) -> Result<WindingStage> {
        let layout = layout(ctx, STAGE.name, BINDINGS);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        Ok(WindingStage {
            main: ctx.compute_pipeline(STAGE.name, &module, "main", &layout)?,
            layout,
        })
    }

    /// `main` over `points` points; `buffers` in [`BINDINGS`] order.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 6],
        points: u32,
    ) {
        let group = bind(ctx, &self.layout, BINDINGS, &buffers);
        pass.set_bind_group(0, &group, &[]);
        pass.set_pipeline(&self.main);
        dispatch(pass, points);
    }
}
