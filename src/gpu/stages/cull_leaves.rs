//! `shaders/cull_leaves.wgsl`: the leaf pairs. One thread per node of A; each leaf of A in the
//! round's chunk walks B's octree by escapes and lists the leaves of B within reach. Twin:
//! [`crate::gpu::twin::cull_leaves`].

use super::{bind, binding, dispatch, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
use crate::gpu::layout::{Counters, DispatchArgs, LeafPair, OctreeNode, Query};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<Query>(0, "q", Uniform),
    binding::<OctreeNode>(1, "nodes_a", Read),
    binding::<OctreeNode>(2, "nodes_b", Read),
    binding::<LeafPair>(3, "leaf_pairs", ReadWrite),
    binding::<Counters>(4, "counters", ReadWrite),
    binding::<DispatchArgs>(5, "args", ReadWrite),
    binding::<u32>(6, "progress", ReadWrite),
];

pub const STAGE: Stage = Stage {
    name: "cull_leaves",
    source: shaders::CULL_LEAVES,
    entries: &[
        Entry {
            name: "main",
            bindings: BINDINGS,
        },
        Entry {
            name: "finish",
            bindings: BINDINGS,
        },
    ],
    twin: "gpu::twin::cull_leaves",
};

pub struct CullLeaves {
    layout: wgpu::BindGroupLayout,
    main: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
}

impl CullLeaves {
    /// With walks that pause after `walk_steps` nodes (`WALK_STEPS`; at least one, or a walk
    /// would never move on).
    pub fn new(ctx: &GpuContext, walk_steps: u32) -> Result<CullLeaves> {
        let layout = layout(ctx, STAGE.name, BINDINGS);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        let steps = [("WALK_STEPS", walk_steps.max(1) as f64)];
        Ok(CullLeaves {
            main: ctx.compute_pipeline_with(STAGE.name, &module, "main", &layout, &steps)?,
            finish: ctx.compute_pipeline(STAGE.name, &module, "finish", &layout)?,
            layout,
        })
    }

    /// `main` over A's `nodes_a` nodes, then `finish` (`cull_pairs::far`'s indirect dispatch).
    /// `buffers` in [`BINDINGS`] order.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 7],
        nodes_a: u32,
    ) {
        let group = bind(ctx, &self.layout, BINDINGS, &buffers);
        pass.set_bind_group(0, &group, &[]);
        pass.set_pipeline(&self.main);
        dispatch(pass, nodes_a);
        pass.set_pipeline(&self.finish);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
