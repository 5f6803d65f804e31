//! `shaders/narrow.wgsl`: one thread per candidate pair. `main` decides intersection (and the
//! neighbour rule of self-intersection, and clearance's f32 distance filter); `distance` and
//! `band` find the pairs whose f32 distance may hold the minimum. Twin:
//! [`crate::gpu::twin::narrow`].

use super::{bind, binding, layout, Access::*, Binding, Entry, Stage};
use crate::error::Result;
use crate::gpu::context::GpuContext;
use crate::gpu::layout::{Counters, Hit, Pair, Query, TriRecord};
use crate::gpu::shaders;

pub const BINDINGS: &[Binding] = &[
    binding::<Query>(0, "q", Uniform),
    binding::<TriRecord>(1, "tris_a", Read),
    binding::<TriRecord>(2, "tris_b", Read),
    binding::<Pair>(3, "pairs", Read),
    binding::<Counters>(4, "counters", ReadWrite),
    binding::<Hit>(5, "hits", ReadWrite),
    binding::<f32>(6, "dists", ReadWrite),
    binding::<u32>(7, "vidx_a", Read),
    binding::<u32>(8, "vidx_b", Read),
];

pub const STAGE: Stage = Stage {
    name: "narrow",
    source: shaders::NARROW,
    entries: &[
        Entry {
            name: "main",
            bindings: BINDINGS,
        },
        Entry {
            name: "distance",
            bindings: BINDINGS,
        },
        Entry {
            name: "band",
            bindings: BINDINGS,
        },
    ],
    twin: "gpu::twin::narrow",
};

/// Which narrow entry points a round runs after the cull.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `main`: intersect, clearance, self (per `Query::mode`).
    Main,
    /// `distance`: f32 distances and their minimum (counters only).
    Distance,
    /// `distance` then `band` with threshold `Query::tol.w`.
    Band,
}

pub struct NarrowStage {
    layout: wgpu::BindGroupLayout,
    main: wgpu::ComputePipeline,
    distance: wgpu::ComputePipeline,
    band: wgpu::ComputePipeline,
}

impl NarrowStage {
    pub fn new(ctx: &GpuContext) -> Result<NarrowStage> {
        let layout = layout(ctx, STAGE.name, BINDINGS);
        let module = ctx.shader_module(STAGE.name, STAGE.source)?;
        let pipeline = |entry| ctx.compute_pipeline(STAGE.name, &module, entry, &layout);
        Ok(NarrowStage {
            main: pipeline("main")?,
            distance: pipeline("distance")?,
            band: pipeline("band")?,
            layout,
        })
    }

    /// The entry points of `mode` over the candidates (dispatched from `args`, which
    /// `cull_pairs::finish` wrote). `buffers` in [`BINDINGS`] order.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: [&wgpu::Buffer; 9],
        args: &wgpu::Buffer,
        mode: Mode,
    ) {
        let group = bind(ctx, &self.layout, BINDINGS, &buffers);
        pass.set_bind_group(0, &group, &[]);
        let pipelines: &[&wgpu::ComputePipeline] = match mode {
            Mode::Main => &[&self.main],
            Mode::Distance => &[&self.distance],
            Mode::Band => &[&self.distance, &self.band],
        };
        for p in pipelines {
            pass.set_pipeline(p);
            pass.dispatch_workgroups_indirect(args, 0);
        }
    }
}
