//! `shaders/nearest.wgsl`: the smallest f32 distance between the parts, and every pair within
//! three bands of the bound at the time it was evaluated. `sample` seeds the bound from every
//! `NEAREST_SAMPLE`-th node; `main` walks B's octree for each leaf of A (`LEAF_WALKERS` threads a
//! leaf), pausing after `WALK_STEPS` iterations. Twin: [`crate::gpu::twin::nearest`].

use super::{bind, binding, dispatch, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
use crate::gpu::layout::{Counters, Hit, OctreeNode, Query, TriRecord, NEAREST_SAMPLE};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<Query>(0, "q", Uniform),
    binding::<TriRecord>(1, "tris_a", Read),
    binding::<TriRecord>(2, "tris_b", Read),
    binding::<OctreeNode>(3, "nodes_a", Read),
    binding::<OctreeNode>(4, "nodes_b", Read),
    binding::<u32>(6, "progress", ReadWrite),
    binding::<Counters>(7, "counters", ReadWrite),
    binding::<Hit>(8, "hits", ReadWrite),
];

pub const STAGE: Stage = Stage {
    name: "nearest",
    source: shaders::NEAREST,
    entries: &[
        Entry {
            name: "sample",
            bindings: BINDINGS,
        },
        Entry {
            name: "main",
            bindings: BINDINGS,
        },
    ],
    twin: "gpu::twin::nearest",
};

pub struct Nearest {
    layout: wgpu::BindGroupLayout,
    sample: wgpu::ComputePipeline,
    main: wgpu::ComputePipeline,
    /// Threads walking B's octree for each leaf of A.
    pub walkers: u32,
}

impl Nearest {
    pub fn new(ctx: &GpuContext, walkers: u32, walk_steps: u32) -> Result<Nearest> {
        let layout = layout(ctx, STAGE.name, BINDINGS);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        let constants = [
            ("LEAF_WALKERS", walkers as f64),
            ("WALK_STEPS", walk_steps.max(1) as f64),
        ];
        let pipeline =
            |entry| ctx.compute_pipeline_with(STAGE.name, &module, entry, &layout, &constants);
        Ok(Nearest {
            sample: pipeline("sample")?,
            main: pipeline("main")?,
            layout,
            walkers,
        })
    }

    /// `sample` (in a round's first pass, `first`), then `main`, over A's `nodes_a` nodes.
    /// `buffers` in [`BINDINGS`] order.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 8],
        nodes_a: u32,
        first: bool,
    ) {
        let group = bind(ctx, &self.layout, BINDINGS, &buffers);
        pass.set_bind_group(0, &group, &[]);
        let threads = nodes_a * self.walkers;
        if first {
            pass.set_pipeline(&self.sample);
            dispatch(pass, threads.div_ceil(NEAREST_SAMPLE));
        }
        pass.set_pipeline(&self.main);
        dispatch(pass, threads);
    }
}
