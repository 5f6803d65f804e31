//! `shaders/rays.wgsl`: for each ray, the triangle it certainly meets first, or unsure. Twin:
//! [`crate::gpu::twin::rays`].

use super::{bind, binding, dispatch, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
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

pub struct RaysStage {
    layout: wgpu::BindGroupLayout,
    main: wgpu::ComputePipeline,
}

impl RaysStage {
    pub fn new(ctx: &GpuContext) -> Result<RaysStage> {
        let layout = layout(ctx, STAGE.name, BINDINGS);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        Ok(RaysStage {
            main: ctx.compute_pipeline(STAGE.name, &module, "main", &layout)?,
            layout,
        })
    }

    /// `main` over `rays` rays; `buffers` in [`BINDINGS`] order.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 6],
        rays: u32,
    ) {
        let group = bind(ctx, &self.layout, BINDINGS, &buffers);
        pass.set_bind_group(0, &group, &[]);
        pass.set_pipeline(&self.main);
        dispatch(pass, rays);
    }
}
