//! One module per WGSL stage (`shaders/<stage>.wgsl`), each with its bind-group layouts, its
//! pipelines and an `encode` that binds in order and dispatches; its CPU twin sits in
//! `gpu::twin::<stage>` under the same name. [`STAGES`] pairs every shader with its entry
//! points, the bindings each reads and its twin: layouts are built from these tables and
//! `tests/layout.rs` holds them against the shaders through naga, so a binding is numbered,
//! typed and sized in one place.

pub mod closest;
pub mod cull_leaves;
pub mod cull_pairs;
pub mod narrow;
pub mod nearest;
pub mod poses;
pub mod rays;
pub mod winding;

use super::context::GpuContext;
use super::layout::{DISPATCH_ROW, WORKGROUP};

/// How a stage reaches a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Uniform,
    Read,
    ReadWrite,
}

/// One binding of a bind group: its slot, the WGSL variable's name, how it is reached and its
/// smallest size in bytes (one element of an array; the struct's size otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub slot: u32,
    pub name: &'static str,
    pub access: Access,
    pub size: u64,
}

/// A binding of `size_of::<T>()` bytes.
pub const fn binding<T>(slot: u32, name: &'static str, access: Access) -> Binding {
    Binding {
        slot,
        name,
        access,
        size: std::mem::size_of::<T>() as u64,
    }
}

/// An entry point of a stage and the bind group it runs with.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub name: &'static str,
    pub bindings: &'static [Binding],
}

/// A WGSL file: its entry points, and the module path of its CPU twin.
#[derive(Clone, Copy, Debug)]
pub struct Stage {
    pub name: &'static str,
    pub source: &'static str,
    pub entries: &'static [Entry],
    pub twin: &'static str,
}

/// Every stage: those a round runs, in the order it runs them, then the winding numbers', the
/// rays', the nearest points' and the poses'.
pub const STAGES: &[Stage] = &[
    cull_leaves::STAGE,
    cull_pairs::STAGE,
    narrow::STAGE,
    nearest::STAGE,
    winding::STAGE,
    rays::STAGE,
    closest::STAGE,
    poses::STAGE,
];

/// A stage's entry point (`main`, or `poses`' `group`) over one bind group: the batch stages
/// (`winding`, `rays`, `closest`, `poses`), which differ only in their table rows.
pub struct OneEntry {
    stage: &'static Stage,
    module: wgpu::ShaderModule,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl OneEntry {
    pub fn new(ctx: &GpuContext, stage: &'static Stage) -> crate::error::Result<OneEntry> {
        Self::with_constants(ctx, stage, &[])
    }

    /// [`OneEntry::new`] with values for the stage's `override` constants.
    pub fn with_constants(
        ctx: &GpuContext,
        stage: &'static Stage,
        constants: &[(&str, f64)],
    ) -> crate::error::Result<OneEntry> {
        let bindings = stage.entries[0].bindings;
        let layout = layout(ctx, stage.name, bindings);
        let module = ctx.shader_module(stage.name, stage.source)?;
        Ok(OneEntry {
            stage,
            pipeline: ctx.compute_pipeline_with(stage.name, &module, "main", &layout, constants)?,
            module,
            layout,
        })
    }

    /// The same stage's entry point `name` over the same bind group (`poses`' `group`), with
    /// values for its `override` constants: the module compiled and the layout made once.
    pub fn sibling(
        &self,
        ctx: &GpuContext,
        name: &str,
        constants: &[(&str, f64)],
    ) -> crate::error::Result<OneEntry> {
        let (stage, module, layout) = (self.stage, &self.module, &self.layout);
        Ok(OneEntry {
            stage,
            pipeline: ctx.compute_pipeline_with(stage.name, module, name, layout, constants)?,
            module: module.clone(),
            layout: layout.clone(),
        })
    }

    /// The entry point on `threads` threads; `buffers` in the order of the stage's bindings.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: &[&wgpu::Buffer],
        threads: u32,
    ) {
        self.set(ctx, pass, buffers);
        dispatch(pass, threads);
    }

    /// The entry point on `groups` workgroups ([`dispatch_groups`]).
    pub fn encode_groups(
        &self,
        ctx: &GpuContext,
        pass: &mut wgpu::ComputePass,
        buffers: &[&wgpu::Buffer],
        groups: u32,
    ) {
        self.set(ctx, pass, buffers);
        dispatch_groups(pass, groups);
    }

    /// `buffers` bound and the pipeline set, for a dispatch.
    fn set(&self, ctx: &GpuContext, pass: &mut wgpu::ComputePass, buffers: &[&wgpu::Buffer]) {
        let group = bind(ctx, &self.layout, self.stage.entries[0].bindings, buffers);
        pass.set_bind_group(0, &group, &[]);
        pass.set_pipeline(&self.pipeline);
    }
}

/// The bind-group layout of `bindings`, each with its minimum size.
pub(crate) fn layout(ctx: &GpuContext, label: &str, bindings: &[Binding]) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .map(|b| wgpu::BindGroupLayoutEntry {
            binding: b.slot,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match b.access {
                    Access::Uniform => wgpu::BufferBindingType::Uniform,
                    Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: std::num::NonZeroU64::new(b.size),
            },
            count: None,
        })
        .collect();
    ctx.device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &entries,
        })
}

/// A bind group giving `buffers[k]` to `bindings[k]`: the caller lists them in table order.
pub(crate) fn bind(
    ctx: &GpuContext,
    layout: &wgpu::BindGroupLayout,
    bindings: &[Binding],
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    debug_assert_eq!(bindings.len(), buffers.len(), "one buffer per binding");
    let entries: Vec<wgpu::BindGroupEntry> = bindings
        .iter()
        .zip(buffers)
        .map(|(b, buf)| wgpu::BindGroupEntry {
            binding: b.slot,
            resource: buf.as_entire_binding(),
        })
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout,
        entries: &entries,
    })
}

/// `threads` threads of [`WORKGROUP`], in rows of at most [`DISPATCH_ROW`] workgroups (the 65535
/// per dimension every adapter allows); the shaders number them with `thread_index`.
pub(crate) fn dispatch(pass: &mut wgpu::ComputePass, threads: u32) {
    dispatch_groups(pass, threads.div_ceil(WORKGROUP));
}

/// `groups` workgroups in rows of at most [`DISPATCH_ROW`], numbered
/// `workgroup_id.x + workgroup_id.y * num_workgroups.x`.
fn dispatch_groups(pass: &mut wgpu::ComputePass, groups: u32) {
    pass.dispatch_workgroups(groups.min(DISPATCH_ROW), groups.div_ceil(DISPATCH_ROW), 1);
}
