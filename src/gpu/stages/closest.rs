//! `shaders/closest.wgsl`: for each point, the triangles that may be the nearest, or unsure. Twin:
//! [`crate::gpu::twin::closest`].

use super::{bind, binding, dispatch, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
use crate::gpu::layout::{BvhNode, ClosestQuery, SlotsOut};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<ClosestQuery>(0, "cq", Uniform),
    binding::<BvhNode>(1, "bvh", Read),
    binding::<[f32; 4]>(2, "corners", Read),
    binding::<[f32; 4]>(3, "points", Read),
    binding::<SlotsOut>(4, "closest_out", ReadWrite),
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

pub struct ClosestStage {
    layout: wgpu::BindGroupLayout,
    main: wgpu::ComputePipeline,
}

impl ClosestStage {
    pub fn new(ctx: &GpuContext) -> Result<ClosestStage> {
        let layout = layout(ctx, STAGE.name, BINDINGS);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        Ok(ClosestStage {
            main: ctx.compute_pipeline(STAGE.name, &module, "main", &layout)?,
            layout,
        })
    }

    /// `main` on `threads` threads (each takes `POINTS_PER_THREAD` points); `buffers` in
    /// [`BINDINGS`] order.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 5],
        threads: u32,
    ) {
        let group = bind(ctx, &self.layout, BINDINGS, &buffers);
        pass.set_bind_group(0, &group, &[]);
        pass.set_pipeline(&self.main);
        dispatch(pass, threads);
    }
}
