//! Pipelines compiled once, work buffers allocated once, and the round: cull, then the narrow
//! stage dispatched indirectly from the cull's count, in one submission, then one readback.

use super::layout::{Counters, DispatchArgs, Hit, Query, WORKGROUP};
use super::mesh::GpuPart;
use super::GpuContext;
use crate::error::{Error, Result};

/// Which narrow-stage entry point a round runs after the cull.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    /// `narrow::main`: intersect, clearance, self (per `Query::mode`).
    Main,
    /// `narrow::distance`: f32 distances and their minimum (counters only).
    Distance,
    /// `narrow::distance` then `narrow::band` with threshold `Query::tol.w`.
    Band,
    /// `cull::nearest` alone: each triangle of A's nearest f32 distance, and their minimum.
    Nearest,
}

pub struct GpuBackend {
    pub ctx: GpuContext,
    cull_layout: wgpu::BindGroupLayout,
    narrow_layout: wgpu::BindGroupLayout,
    cull: wgpu::ComputePipeline,
    cull_finish: wgpu::ComputePipeline,
    cull_nearest: wgpu::ComputePipeline,
    narrow_main: wgpu::ComputePipeline,
    narrow_distance: wgpu::ComputePipeline,
    narrow_band: wgpu::ComputePipeline,
    /// Candidate pairs one round can hold; more are processed in further rounds.
    pub capacity: u32,
    /// Most triangles of one part of a resident mesh (one storage binding's worth).
    pub part_limit: usize,
    uniform: wgpu::Buffer,
    pairs: wgpu::Buffer,
    hits: wgpu::Buffer,
    dists: wgpu::Buffer,
    counters: wgpu::Buffer,
    args: wgpu::Buffer,
}

fn entry(binding: u32, ty: wgpu::BufferBindingType, min: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: std::num::NonZeroU64::new(min),
        },
        count: None,
    }
}

const RO: wgpu::BufferBindingType = wgpu::BufferBindingType::Storage { read_only: true };
const RW: wgpu::BufferBindingType = wgpu::BufferBindingType::Storage { read_only: false };
const UNIFORM: wgpu::BufferBindingType = wgpu::BufferBindingType::Uniform;

/// The most candidates one round holds: the indirect dispatch's workgroup count must stay within
/// the 65535 every adapter allows, and the pair list within one storage binding.
fn max_capacity(ctx: &GpuContext) -> u32 {
    let by_dispatch =
        ctx.limits.max_compute_workgroups_per_dimension.min(65535) as u64 * WORKGROUP as u64;
    let by_binding = ctx.limits.max_storage_buffer_binding_size / std::mem::size_of::<Hit>() as u64;
    by_dispatch.min(by_binding).min(1 << 22) as u32
}

impl GpuBackend {
    /// The backend with the largest round the adapter allows.
    pub fn new(ctx: GpuContext) -> Result<GpuBackend> {
        let cap = max_capacity(&ctx);
        Self::with_capacity(ctx, cap)
    }

    /// With rounds of at most `capacity` candidate pairs (tests use a tiny one to force many
    /// rounds).
    pub fn with_capacity(ctx: GpuContext, capacity: u32) -> Result<GpuBackend> {
        let capacity = capacity.clamp(1, max_capacity(&ctx));
        let d = &ctx.device;
        let q = std::mem::size_of::<Query>() as u64;
        let cull_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cull"),
            entries: &[
                entry(0, UNIFORM, q),
                entry(1, RO, 192),
                entry(2, RO, 192),
                entry(3, RO, 48),
                entry(4, RO, 4),
                entry(5, RW, 8),
                entry(6, RW, 16),
                entry(7, RW, 12),
            ],
        });
        let narrow_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("narrow"),
            entries: &[
                entry(0, UNIFORM, q),
                entry(1, RO, 192),
                entry(2, RO, 192),
                entry(3, RO, 8),
                entry(4, RW, 16),
                entry(5, RW, 16),
                entry(6, RW, 4),
                entry(7, RO, 4),
                entry(8, RO, 4),
            ],
        });
        let sh = ctx.shader_module("cull", super::shaders::CULL)?;
        let nw = ctx.shader_module("narrow", super::shaders::NARROW)?;
        let cull = ctx.compute_pipeline("cull", &sh, "main", &cull_layout)?;
        let cull_finish = ctx.compute_pipeline("cull", &sh, "finish", &cull_layout)?;
        let cull_nearest = ctx.compute_pipeline("cull", &sh, "nearest", &cull_layout)?;
        let narrow_main = ctx.compute_pipeline("narrow", &nw, "main", &narrow_layout)?;
        let narrow_distance = ctx.compute_pipeline("narrow", &nw, "distance", &narrow_layout)?;
        let narrow_band = ctx.compute_pipeline("narrow", &nw, "band", &narrow_layout)?;
        let storage = |label: &str, size: u64, extra: wgpu::BufferUsages| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | extra,
                mapped_at_creation: false,
            })
        };
        let cap = capacity as u64;
        Ok(GpuBackend {
            uniform: d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("query"),
                size: q,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            pairs: storage("candidate pairs", cap * 8, wgpu::BufferUsages::empty()),
            hits: storage("hits", cap * 16, wgpu::BufferUsages::empty()),
            dists: storage("distances", cap * 4, wgpu::BufferUsages::empty()),
            counters: storage("counters", 16, wgpu::BufferUsages::empty()),
            args: storage("dispatch args", 12, wgpu::BufferUsages::INDIRECT),
            cull_layout,
            narrow_layout,
            cull,
            cull_finish,
            cull_nearest,
            narrow_main,
            narrow_distance,
            narrow_band,
            capacity,
            part_limit: super::mesh::part_limit(&ctx),
            ctx,
        })
    }

    /// One round over A's triangles `query.chunk_start .. chunk_end`: the counters, and the hits
    /// when the narrow stage writes any. `Ok(None)` when the candidates overflowed the capacity
    /// (the caller splits the chunk).
    pub fn round(
        &self,
        a: &GpuPart,
        b: &GpuPart,
        query: &Query,
        narrow: Narrow,
    ) -> Result<Option<(Counters, Vec<Hit>)>> {
        let ctx = &self.ctx;
        ctx.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(query));
        let init = Counters {
            candidates: 0,
            hits: 0,
            min_dist_bits: f32::INFINITY.to_bits(),
            stack_overflow: 0,
        };
        ctx.queue
            .write_buffer(&self.counters, 0, bytemuck::bytes_of(&init));
        let bind = |layout: &wgpu::BindGroupLayout, bufs: &[&wgpu::Buffer]| {
            let entries: Vec<wgpu::BindGroupEntry> = bufs
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect();
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout,
                entries: &entries,
            })
        };
        let cull_bg = bind(
            &self.cull_layout,
            &[
                &self.uniform,
                &a.tris,
                &b.tris,
                &b.nodes,
                &b.index,
                &self.pairs,
                &self.counters,
                &self.args,
            ],
        );
        let narrow_bg = bind(
            &self.narrow_layout,
            &[
                &self.uniform,
                &a.tris,
                &b.tris,
                &self.pairs,
                &self.counters,
                &self.hits,
                &self.dists,
                &a.vidx,
                &b.vidx,
            ],
        );
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &cull_bg, &[]);
            let groups = (query.chunk_end - query.chunk_start).div_ceil(WORKGROUP);
            if narrow == Narrow::Nearest {
                pass.set_pipeline(&self.cull_nearest);
                pass.dispatch_workgroups(groups, 1, 1);
            } else {
                pass.set_pipeline(&self.cull);
                pass.dispatch_workgroups(
                    (query.chunk_end - query.chunk_start).div_ceil(WORKGROUP),
                    1,
                    1,
                );
                pass.set_pipeline(&self.cull_finish);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_bind_group(0, &narrow_bg, &[]);
                match narrow {
                    Narrow::Main => {
                        pass.set_pipeline(&self.narrow_main);
                        pass.dispatch_workgroups_indirect(&self.args, 0);
                    }
                    Narrow::Distance | Narrow::Band => {
                        pass.set_pipeline(&self.narrow_distance);
                        pass.dispatch_workgroups_indirect(&self.args, 0);
                        if narrow == Narrow::Band {
                            pass.set_pipeline(&self.narrow_band);
                            pass.dispatch_workgroups_indirect(&self.args, 0);
                        }
                    }
                    Narrow::Nearest => {}
                }
            }
        }
        let counters: Vec<Counters> = ctx.read_after(&mut enc, &self.counters, 1)?;
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("dispatch: {e}")));
        }
        ctx.take_error()?;
        let c = counters[0];
        if c.stack_overflow != 0 {
            return Err(Error::Gpu("octree traversal stack overflowed".into()));
        }
        if c.candidates > self.capacity {
            return Ok(None);
        }
        let hits = ctx.read_buffer(&self.hits, c.hits.min(self.capacity) as usize)?;
        Ok(Some((c, hits)))
    }

    /// Split resident meshes into parts of at most `n` triangles (tests use a small one to force
    /// several parts; the default is what one storage binding holds).
    pub fn with_part_limit(mut self, n: usize) -> GpuBackend {
        self.part_limit = n.clamp(1, super::mesh::part_limit(&self.ctx));
        self
    }

    /// The candidate list the last round's cull wrote (`n` pairs): for the stage tests.
    pub fn last_candidates(&self, n: u32) -> Result<Vec<[u32; 2]>> {
        self.ctx
            .read_buffer(&self.pairs, n.min(self.capacity) as usize)
    }

    /// Run rounds over all of A's triangles, splitting any chunk whose candidates overflow.
    /// Returns the hits of every round and the total candidate count and smallest f32 distance.
    pub fn rounds(
        &self,
        a: &GpuPart,
        b: &GpuPart,
        query: &Query,
        narrow: Narrow,
    ) -> Result<(Vec<Hit>, u64, f32)> {
        let mut todo = vec![(0u32, a.triangles)];
        let (mut hits, mut candidates, mut min_dist) = (Vec::new(), 0u64, f32::INFINITY);
        while let Some((start, end)) = todo.pop() {
            let q = Query {
                chunk_start: start,
                chunk_end: end,
                ..*query
            };
            match self.round(a, b, &q, narrow)? {
                Some((c, h)) => {
                    candidates += c.candidates as u64;
                    min_dist = min_dist.min(f32::from_bits(c.min_dist_bits));
                    hits.extend(h);
                }
                None if end - start > 1 => {
                    let mid = start + (end - start) / 2;
                    todo.push((mid, end));
                    todo.push((start, mid));
                }
                None => {
                    return Err(Error::Gpu(format!(
                        "triangle {start} alone has more candidate pairs than a round holds ({}); raise the capacity",
                        self.capacity
                    )))
                }
            }
        }
        Ok((hits, candidates, min_dist))
    }
}

/// The narrow stage's indirect dispatch reads three `u32`s written by `cull::finish`.
const _: () = assert!(std::mem::size_of::<DispatchArgs>() == 12);
