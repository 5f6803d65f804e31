//! `shaders/cull_pairs.wgsl`: the candidate pairs. `far` keeps the leaf pairs its bound cannot
//! settle; `main` tests each kept pair's triangles by spheres and the plane, axis and frame
//! bounds; each `*finish` writes the next stage's indirect dispatch. Twin:
//! [`crate::gpu::twin::cull_pairs`].

use super::{bind, binding, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
use crate::gpu::layout::{Counters, DispatchArgs, LeafPair, Pair, Query, TriRecord};
use crate::gpu::shaders;

/// `far` and `far_finish`: the listed leaf pairs in, the kept ones out.
pub const FAR: &[Binding] = &[
    binding::<Query>(0, "q", Uniform),
    binding::<TriRecord>(1, "tris_a", Read),
    binding::<TriRecord>(2, "tris_b", Read),
    binding::<LeafPair>(5, "leaf_pairs", Read),
    binding::<Counters>(7, "counters", ReadWrite),
    binding::<LeafPair>(9, "live_pairs", ReadWrite),
    binding::<DispatchArgs>(10, "args_main", ReadWrite),
];

/// `main`: the live leaf pairs in, candidates and the leaf pairs left for the next pass out.
pub const MAIN: &[Binding] = &[
    binding::<Query>(0, "q", Uniform),
    binding::<TriRecord>(1, "tris_a", Read),
    binding::<TriRecord>(2, "tris_b", Read),
    binding::<Pair>(6, "pairs", ReadWrite),
    binding::<Counters>(7, "counters", ReadWrite),
    binding::<DispatchArgs>(8, "args", ReadWrite),
    binding::<LeafPair>(9, "live_pairs", ReadWrite),
    binding::<LeafPair>(11, "deferred_pairs", ReadWrite),
];

/// `finish`: apart from main's group, since it writes main's next indirect dispatch, which
/// main's own dispatch may not hold as storage.
pub const FINISH: &[Binding] = &[
    binding::<Counters>(7, "counters", ReadWrite),
    binding::<DispatchArgs>(8, "args", ReadWrite),
    binding::<DispatchArgs>(10, "args_main", ReadWrite),
];

pub const STAGE: Stage = Stage {
    name: "cull_pairs",
    source: shaders::CULL_PAIRS,
    entries: &[
        Entry {
            name: "far",
            bindings: FAR,
        },
        Entry {
            name: "far_finish",
            bindings: FAR,
        },
        Entry {
            name: "main",
            bindings: MAIN,
        },
        Entry {
            name: "finish",
            bindings: FINISH,
        },
    ],
    twin: "gpu::twin::cull_pairs",
};

pub struct CullPairs {
    far_layout: wgpu::BindGroupLayout,
    main_layout: wgpu::BindGroupLayout,
    finish_layout: wgpu::BindGroupLayout,
    far: wgpu::ComputePipeline,
    far_finish: wgpu::ComputePipeline,
    main: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
}

impl CullPairs {
    pub fn new(ctx: &GpuContext) -> Result<CullPairs> {
        let far_layout = layout(ctx, "cull_pairs far", FAR);
        let main_layout = layout(ctx, "cull_pairs", MAIN);
        let finish_layout = layout(ctx, "cull_pairs finish", FINISH);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        let pipeline = |entry, layout| ctx.compute_pipeline(STAGE.name, &module, entry, layout);
        Ok(CullPairs {
            far: pipeline("far", &far_layout)?,
            far_finish: pipeline("far_finish", &far_layout)?,
            main: pipeline("main", &main_layout)?,
            finish: pipeline("finish", &finish_layout)?,
            far_layout,
            main_layout,
            finish_layout,
        })
    }

    /// `far` over the listed leaf pairs (dispatched from `args_far`), then `far_finish`.
    /// `buffers` in [`FAR`] order.
    pub fn encode_far(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 7],
        args_far: &wgpu::Buffer,
    ) {
        let group = bind(ctx, &self.far_layout, FAR, &buffers);
        pass.set_bind_group(0, &group, &[]);
        pass.set_pipeline(&self.far);
        pass.dispatch_workgroups_indirect(args_far, 0);
        pass.set_pipeline(&self.far_finish);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// `main` over the live leaf pairs (dispatched from `args_main`), then `finish`.
    /// `main_buffers` in [`MAIN`] order; `args_main` is [`FINISH`]'s last.
    pub fn encode_main(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        main_buffers: [&wgpu::Buffer; 8],
        args_main: &wgpu::Buffer,
    ) {
        let [_, _, _, _, counters, args, _, _] = main_buffers;
        let main = bind(ctx, &self.main_layout, MAIN, &main_buffers);
        let finish = bind(
            ctx,
            &self.finish_layout,
            FINISH,
            &[counters, args, args_main],
        );
        pass.set_bind_group(0, &main, &[]);
        pass.set_pipeline(&self.main);
        pass.dispatch_workgroups_indirect(args_main, 0);
        pass.set_bind_group(0, &finish, &[]);
        pass.set_pipeline(&self.finish);
        pass.dispatch_workgroups(1, 1, 1);
    }
}
