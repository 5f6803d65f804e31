//! Pipelines compiled once, work buffers allocated once, and the round: cull, then the narrow
//! stage dispatched indirectly from the cull's count, in one submission, then one readback.

use super::layout::{
    Counters, DispatchArgs, Hit, Query, DISPATCH_ROW, FAULT_CUT_SHORT, FAULT_STACK, NEAREST_SAMPLE,
    WORKGROUP,
};
use super::mesh::GpuPart;
use super::GpuContext;
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What one round reads back in its one wait: the counters, the pass's two timestamps, and the
/// first hits, so that a round with few hits needs no second readback.
const REPORT_TIME: u64 = 256; // wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT
const REPORT_HITS: u64 = 512;
const REPORT_HIT_PREFIX: u64 = 16_384;

/// Which narrow-stage entry point a round runs after the cull.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    /// `narrow::main`: intersect, clearance, self (per `Query::mode`).
    Main,
    /// `narrow::distance`: f32 distances and their minimum (counters only).
    Distance,
    /// `narrow::distance` then `narrow::band` with threshold `Query::tol.w`.
    Band,
    /// `nearest::sample` then `nearest::main`: the smallest f32 distance, and the pairs within
    /// three bands of the bound (see `nearest.wgsl`).
    Nearest,
}

/// What a round over one pair of parts found, over all its passes.
#[derive(Debug)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Candidate pairs the narrow stage tested.
    pub candidates: u64,
    /// The smallest f32 distance the narrow (or nearest) stage computed: infinite for none.
    pub min_dist: f32,
}

impl Default for Found {
    fn default() -> Found {
        Found {
            hits: Vec::new(),
            candidates: 0,
            min_dist: f32::INFINITY,
        }
    }
}

/// Loop iterations one invocation of a walk may run in a pass (`WALK_STEPS` in
/// `shaders/common.wgsl`), per stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkSteps {
    /// `cull_leaves`: nodes of B one walk visits in a pass.
    pub leaves: u32,
    /// `nearest`: iterations of all its loops in a pass.
    pub nearest: u32,
}

impl WalkSteps {
    pub const UNBOUNDED: WalkSteps = WalkSteps {
        leaves: u32::MAX,
        nearest: u32::MAX,
    };

    /// Unbounded on a GPU. On a software adapter within lavapipe's 65535 loop iterations per
    /// SIMD group of 8 lanes (or 16): one loop's iterations count once per group, the most of
    /// any lane (`cull_leaves`: 16384 leaves 4x of margin); nested loops' can add up over the
    /// lanes (`nearest`: 3800, and at most 89 more once past it, times 16 lanes is 62 224).
    pub fn for_adapter(ctx: &GpuContext) -> WalkSteps {
        if ctx.software {
            WalkSteps {
                leaves: 16_384,
                nearest: 3_800,
            }
        } else {
            WalkSteps::UNBOUNDED
        }
    }
}

pub struct GpuBackend {
    pub ctx: GpuContext,
    /// Answer a distance on the CPU when its search on one thread settles it within a small
    /// budget (parts far apart, small meshes), where a GPU round's fixed cost is larger; the
    /// answer is the same. On by default; the tests of the GPU stages turn it off.
    pub settle_on_cpu: bool,
    leaves_layout: wgpu::BindGroupLayout,
    far_layout: wgpu::BindGroupLayout,
    pairs_layout: wgpu::BindGroupLayout,
    pairs_finish_layout: wgpu::BindGroupLayout,
    nearest_layout: wgpu::BindGroupLayout,
    narrow_layout: wgpu::BindGroupLayout,
    cull_leaves: wgpu::ComputePipeline,
    cull_leaves_finish: wgpu::ComputePipeline,
    cull_far: wgpu::ComputePipeline,
    cull_far_finish: wgpu::ComputePipeline,
    cull_pairs: wgpu::ComputePipeline,
    cull_pairs_finish: wgpu::ComputePipeline,
    nearest: wgpu::ComputePipeline,
    nearest_sample: wgpu::ComputePipeline,
    narrow_main: wgpu::ComputePipeline,
    narrow_distance: wgpu::ComputePipeline,
    narrow_band: wgpu::ComputePipeline,
    /// Candidate pairs one pass can hold; more are processed in further passes.
    pub capacity: u32,
    /// Most triangles of one part of a resident mesh (one storage binding's worth).
    pub part_limit: usize,
    uniform: wgpu::Buffer,
    leaf_pairs: wgpu::Buffer,
    pairs: wgpu::Buffer,
    hits: wgpu::Buffer,
    dists: wgpu::Buffer,
    counters: wgpu::Buffer,
    /// The leaf pairs `cull_pairs::far` keeps, `cull_pairs::main`'s input.
    live_pairs: wgpu::Buffer,
    /// Indirect dispatch sizes of cull_pairs' far and main stages and of narrow, each written
    /// by the stage before (apart: a dispatch may not read the buffer its own bind group
    /// writes).
    args_far: wgpu::Buffer,
    args_pairs: wgpu::Buffer,
    args_narrow: wgpu::Buffer,
    report: wgpu::Buffer,
    report_staging: wgpu::Buffer,
    hits_staging: wgpu::Buffer,
    timer: Option<wgpu::QuerySet>,
    /// Rounds run and the GPU's own nanoseconds in them, since the backend was made.
    rounds_run: AtomicU64,
    gpu_ns: AtomicU64,
    /// Held through each query's rounds: they share the buffers above, and a round's later
    /// passes read what its first left there.
    turn: Mutex<Scratch>,
}

/// Round state that grows with the parts queried, taken with the turn.
#[derive(Default)]
struct Scratch {
    /// Per node of A, how far its leaf walk got in the round's earlier passes
    /// (`cull_leaves.wgsl`).
    progress: Option<wgpu::Buffer>,
}

impl Scratch {
    fn progress(&mut self, ctx: &GpuContext, nodes: u32) -> &wgpu::Buffer {
        let size = 4 * nodes.max(1) as u64;
        if self.progress.as_ref().is_none_or(|b| b.size() < size) {
            self.progress = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("leaf walk progress"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        self.progress.as_ref().expect("made above")
    }
}

/// What one pass of a round runs.
#[derive(Clone, Copy, Debug)]
enum Pass {
    /// The round's first: every stage, each leaf walk from its start.
    First,
    /// The leaf walks the last pass deferred, from where they stopped; then every later stage.
    Walks,
    /// Only the `waiting` leaf pairs the last pass's per-triangle cull deferred, then the
    /// narrow stage. Main writes its deferrals to the list it does not read: `in_leaf_list`
    /// when they are in the leaf-pair buffer.
    Pairs { waiting: u32, in_leaf_list: bool },
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

/// `threads` threads of 64, in rows of at most `DISPATCH_ROW` workgroups (the 65535 per dimension every
/// adapter allows); the shaders number them with `thread_index`.
fn dispatch(pass: &mut wgpu::ComputePass, threads: u32) {
    let groups = threads.div_ceil(WORKGROUP);
    pass.dispatch_workgroups(groups.min(DISPATCH_ROW), groups.div_ceil(DISPATCH_ROW), 1);
}

/// Threads walking B's octree for each leaf of A in `nearest.wgsl` (`LEAF_WALKERS`). On a
/// software adapter one: its lanes run a few at a time, and 8 made the stage 1.2-5x slower on
/// lavapipe. On a GPU four: the walks of one leaf stay together and split the leaf's pairs.
/// Measured on an H100 at 1M x 1M, nearest stage ms for the overlapping / near-miss / far /
/// inside scenes: 1 walker 7.1 / 45 / 18 / 64; 4: 3.2 / 24 / 6.9 / 18; 8: 4.4 / 30 / 6.2 / 49;
/// 16: 6.0 / 39 / 5.9 / 36.
fn leaf_walkers(ctx: &GpuContext) -> u32 {
    if ctx.software {
        1
    } else {
        4
    }
}

/// The most candidates one pass holds: the indirect dispatch's workgroup count must stay within
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

    /// With passes of at most `capacity` candidate pairs (tests use a tiny one to force many
    /// passes).
    pub fn with_capacity(ctx: GpuContext, capacity: u32) -> Result<GpuBackend> {
        let steps = WalkSteps::for_adapter(&ctx);
        Self::with_walk_steps(ctx, capacity, steps)
    }

    /// With walks that pause after `steps` (tests use a few to force many pauses; walks that
    /// the driver cuts short must then report an error, not an answer).
    pub fn with_walk_steps(ctx: GpuContext, capacity: u32, steps: WalkSteps) -> Result<GpuBackend> {
        let capacity = capacity.clamp(1, max_capacity(&ctx));
        let d = &ctx.device;
        let q = std::mem::size_of::<Query>() as u64;
        let c = std::mem::size_of::<Counters>() as u64;
        let layout = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        let leaves_layout = layout(
            "cull_leaves",
            &[
                entry(0, UNIFORM, q),
                entry(1, RO, 48),
                entry(2, RO, 48),
                entry(3, RW, 16),
                entry(4, RW, c),
                entry(5, RW, 12),
                entry(6, RW, 4),
            ],
        );
        let far_layout = layout(
            "cull_pairs far",
            &[
                entry(0, UNIFORM, q),
                entry(1, RO, 192),
                entry(2, RO, 192),
                entry(5, RO, 16),
                entry(7, RW, c),
                entry(9, RW, 16),
                entry(10, RW, 12),
            ],
        );
        let pairs_layout = layout(
            "cull_pairs",
            &[
                entry(0, UNIFORM, q),
                entry(1, RO, 192),
                entry(2, RO, 192),
                entry(6, RW, 8),
                entry(7, RW, c),
                entry(8, RW, 12),
                entry(9, RW, 16),
                entry(11, RW, 16),
            ],
        );
        // Apart from main's: it writes main's next indirect dispatch, which main's own
        // dispatch may not hold as storage.
        let pairs_finish_layout = layout(
            "cull_pairs finish",
            &[entry(7, RW, c), entry(8, RW, 12), entry(10, RW, 12)],
        );
        let nearest_layout = layout(
            "nearest",
            &[
                entry(0, UNIFORM, q),
                entry(1, RO, 192),
                entry(2, RO, 192),
                entry(3, RO, 48),
                entry(4, RO, 48),
                entry(6, RW, 4),
                entry(7, RW, c),
                entry(8, RW, 16),
            ],
        );
        let narrow_layout = d.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("narrow"),
            entries: &[
                entry(0, UNIFORM, q),
                entry(1, RO, 192),
                entry(2, RO, 192),
                entry(3, RO, 8),
                entry(4, RW, c),
                entry(5, RW, 16),
                entry(6, RW, 4),
                entry(7, RO, 4),
                entry(8, RO, 4),
            ],
        });
        let lv = ctx.shader_module("cull_leaves", super::shaders::CULL_LEAVES)?;
        let pr = ctx.shader_module("cull_pairs", super::shaders::CULL_PAIRS)?;
        let ne = ctx.shader_module("nearest", super::shaders::NEAREST)?;
        let nw = ctx.shader_module("narrow", super::shaders::NARROW)?;
        // At least one step a pass, or a walk would never move on.
        let leaf_steps = [("WALK_STEPS", steps.leaves.max(1) as f64)];
        let cull_leaves =
            ctx.compute_pipeline_with("cull_leaves", &lv, "main", &leaves_layout, &leaf_steps)?;
        let cull_leaves_finish =
            ctx.compute_pipeline("cull_leaves", &lv, "finish", &leaves_layout)?;
        let cull_far = ctx.compute_pipeline("cull_pairs", &pr, "far", &far_layout)?;
        let cull_far_finish = ctx.compute_pipeline("cull_pairs", &pr, "far_finish", &far_layout)?;
        let cull_pairs = ctx.compute_pipeline("cull_pairs", &pr, "main", &pairs_layout)?;
        let cull_pairs_finish =
            ctx.compute_pipeline("cull_pairs", &pr, "finish", &pairs_finish_layout)?;
        let walkers = [
            ("LEAF_WALKERS", leaf_walkers(&ctx) as f64),
            ("WALK_STEPS", steps.nearest.max(1) as f64),
        ];
        let nearest =
            ctx.compute_pipeline_with("nearest", &ne, "main", &nearest_layout, &walkers)?;
        let nearest_sample =
            ctx.compute_pipeline_with("nearest", &ne, "sample", &nearest_layout, &walkers)?;
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
        let prefix = cap.min(REPORT_HIT_PREFIX);
        let report_size = REPORT_HITS + prefix * std::mem::size_of::<Hit>() as u64;
        let timer = ctx.timestamp_period.map(|_| {
            d.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("round time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            })
        });
        Ok(GpuBackend {
            report: d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("round report"),
                size: report_size,
                usage: wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::QUERY_RESOLVE,
                mapped_at_creation: false,
            }),
            report_staging: ctx.staging_buffer(report_size),
            hits_staging: ctx.staging_buffer(cap * std::mem::size_of::<Hit>() as u64),
            timer,
            rounds_run: AtomicU64::new(0),
            turn: Mutex::new(Scratch::default()),
            gpu_ns: AtomicU64::new(0),
            uniform: d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("query"),
                size: q,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            leaf_pairs: storage("leaf pairs", cap * 16, wgpu::BufferUsages::empty()),
            live_pairs: storage("live leaf pairs", cap * 16, wgpu::BufferUsages::empty()),
            pairs: storage("candidate pairs", cap * 8, wgpu::BufferUsages::empty()),
            hits: storage("hits", cap * 16, wgpu::BufferUsages::empty()),
            dists: storage("distances", cap * 4, wgpu::BufferUsages::empty()),
            counters: storage("counters", c, wgpu::BufferUsages::empty()),
            args_far: storage("cull_pairs far dispatch", 12, wgpu::BufferUsages::INDIRECT),
            args_pairs: storage("cull_pairs dispatch", 12, wgpu::BufferUsages::INDIRECT),
            args_narrow: storage("narrow dispatch", 12, wgpu::BufferUsages::INDIRECT),
            leaves_layout,
            far_layout,
            pairs_layout,
            pairs_finish_layout,
            nearest_layout,
            narrow_layout,
            cull_leaves,
            cull_leaves_finish,
            cull_far,
            cull_far_finish,
            cull_pairs,
            cull_pairs_finish,
            nearest,
            nearest_sample,
            narrow_main,
            narrow_distance,
            narrow_band,
            capacity,
            part_limit: super::mesh::part_limit(&ctx),
            settle_on_cpu: true,
            ctx,
        })
    }

    /// One round over A's triangles `query.chunk_start .. chunk_end` (positions in A's octree
    /// order, so that a chunk is a run of leaves), in one pass: the counters, and the hits the
    /// narrow stage wrote. `Ok(None)` when the pass deferred work to another, or its hits
    /// overflowed (what [`Self::rounds`] handles).
    pub fn round(
        &self,
        a: &GpuPart,
        b: &GpuPart,
        query: &Query,
        narrow: Narrow,
    ) -> Result<Option<(Counters, Vec<Hit>)>> {
        let mut scratch = self.take_turn();
        let (c, hits) = self.pass(
            &mut scratch,
            a,
            b,
            query,
            narrow,
            Pass::First,
            f32::INFINITY,
        )?;
        let whole = c.deferred == 0
            && c.deferred_leaves == 0
            && c.paused_walks == 0
            && c.hits <= self.capacity;
        Ok(whole.then_some((c, hits)))
    }

    /// One pass of a round: the counters, and the hits the narrow stage wrote. `bound` is the
    /// smallest f32 distance the round's earlier passes found: resumed nearest walks prune by it.
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        scratch: &mut Scratch,
        a: &GpuPart,
        b: &GpuPart,
        query: &Query,
        narrow: Narrow,
        kind: Pass,
        bound: f32,
    ) -> Result<(Counters, Vec<Hit>)> {
        let ctx = &self.ctx;
        // Main's live pairs: far's list in a pass that walks, the last pass's deferrals
        // otherwise; its deferrals go to the other list.
        let (walks, live, main_in, main_out) = match kind {
            Pass::Pairs {
                waiting,
                in_leaf_list: true,
            } => (false, waiting, &self.leaf_pairs, &self.live_pairs),
            Pass::Pairs { waiting, .. } => (false, waiting, &self.live_pairs, &self.leaf_pairs),
            _ => (true, 0, &self.live_pairs, &self.leaf_pairs),
        };
        ctx.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(query));
        let init = Counters {
            leaf_pairs: 0,
            candidates: 0,
            hits: 0,
            min_dist_bits: bound.to_bits(),
            walk_fault: 0,
            live_pairs: live,
            deferred: 0,
            deferred_leaves: 0,
            paused_walks: 0,
        };
        ctx.queue
            .write_buffer(&self.counters, 0, bytemuck::bytes_of(&init));
        let bind_at = |layout: &wgpu::BindGroupLayout, bufs: &[(u32, &wgpu::Buffer)]| {
            let entries: Vec<wgpu::BindGroupEntry> = bufs
                .iter()
                .map(|&(binding, b)| wgpu::BindGroupEntry {
                    binding,
                    resource: b.as_entire_binding(),
                })
                .collect();
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout,
                entries: &entries,
            })
        };
        // Bindings 0, 1, 2, ... in order.
        let bind = |layout: &wgpu::BindGroupLayout, bufs: &[&wgpu::Buffer]| {
            let numbered: Vec<(u32, &wgpu::Buffer)> = (0..).zip(bufs.iter().copied()).collect();
            bind_at(layout, &numbered)
        };
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        // The walks' progress, from nothing in a round's first pass: one per node of A for the
        // leaf walks, one per thread for the nearest.
        let walkers = if narrow == Narrow::Nearest {
            leaf_walkers(ctx)
        } else {
            1
        };
        let progress = walks.then(|| {
            let buf = scratch.progress(ctx, a.node_count * walkers);
            if matches!(kind, Pass::First) {
                enc.clear_buffer(buf, 0, None);
            }
            buf
        });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("round"),
                timestamp_writes: self
                    .timer
                    .as_ref()
                    .map(|set| wgpu::ComputePassTimestampWrites {
                        query_set: set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }),
            });
            if narrow == Narrow::Nearest {
                let bg = bind_at(
                    &self.nearest_layout,
                    &[
                        (0, &self.uniform),
                        (1, &a.tris),
                        (2, &b.tris),
                        (3, &a.nodes),
                        (4, &b.nodes),
                        (6, progress.expect("nearest passes walk")),
                        (7, &self.counters),
                        (8, &self.hits),
                    ],
                );
                pass.set_bind_group(0, &bg, &[]);
                let threads = a.node_count * walkers;
                if matches!(kind, Pass::First) {
                    pass.set_pipeline(&self.nearest_sample);
                    dispatch(&mut pass, threads.div_ceil(NEAREST_SAMPLE));
                }
                pass.set_pipeline(&self.nearest);
                dispatch(&mut pass, threads);
            } else {
                let pairs_bg = bind_at(
                    &self.pairs_layout,
                    &[
                        (0, &self.uniform),
                        (1, &a.tris),
                        (2, &b.tris),
                        (6, &self.pairs),
                        (7, &self.counters),
                        (8, &self.args_narrow),
                        (9, main_in),
                        (11, main_out),
                    ],
                );
                let pairs_finish_bg = bind_at(
                    &self.pairs_finish_layout,
                    &[
                        (7, &self.counters),
                        (8, &self.args_narrow),
                        (10, &self.args_pairs),
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
                // A pass that does not walk finds its live pairs, and main's dispatch, where the
                // last pass's main left them.
                if let Some(progress) = progress {
                    let leaves_bg = bind(
                        &self.leaves_layout,
                        &[
                            &self.uniform,
                            &a.nodes,
                            &b.nodes,
                            &self.leaf_pairs,
                            &self.counters,
                            &self.args_far,
                            progress,
                        ],
                    );
                    let far_bg = bind_at(
                        &self.far_layout,
                        &[
                            (0, &self.uniform),
                            (1, &a.tris),
                            (2, &b.tris),
                            (5, &self.leaf_pairs),
                            (7, &self.counters),
                            (9, &self.live_pairs),
                            (10, &self.args_pairs),
                        ],
                    );
                    pass.set_bind_group(0, &leaves_bg, &[]);
                    pass.set_pipeline(&self.cull_leaves);
                    dispatch(&mut pass, a.node_count);
                    pass.set_pipeline(&self.cull_leaves_finish);
                    pass.dispatch_workgroups(1, 1, 1);
                    pass.set_bind_group(0, &far_bg, &[]);
                    pass.set_pipeline(&self.cull_far);
                    pass.dispatch_workgroups_indirect(&self.args_far, 0);
                    pass.set_pipeline(&self.cull_far_finish);
                    pass.dispatch_workgroups(1, 1, 1);
                }
                pass.set_bind_group(0, &pairs_bg, &[]);
                pass.set_pipeline(&self.cull_pairs);
                pass.dispatch_workgroups_indirect(&self.args_pairs, 0);
                pass.set_bind_group(0, &pairs_finish_bg, &[]);
                pass.set_pipeline(&self.cull_pairs_finish);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_bind_group(0, &narrow_bg, &[]);
                match narrow {
                    Narrow::Main => {
                        pass.set_pipeline(&self.narrow_main);
                        pass.dispatch_workgroups_indirect(&self.args_narrow, 0);
                    }
                    Narrow::Distance | Narrow::Band => {
                        pass.set_pipeline(&self.narrow_distance);
                        pass.dispatch_workgroups_indirect(&self.args_narrow, 0);
                        if narrow == Narrow::Band {
                            pass.set_pipeline(&self.narrow_band);
                            pass.dispatch_workgroups_indirect(&self.args_narrow, 0);
                        }
                    }
                    Narrow::Nearest => {}
                }
            }
        }
        let hit_size = std::mem::size_of::<Hit>() as u64;
        let prefix = (self.report.size() - REPORT_HITS) / hit_size;
        let c_size = std::mem::size_of::<Counters>();
        enc.copy_buffer_to_buffer(&self.counters, 0, &self.report, 0, c_size as u64);
        enc.copy_buffer_to_buffer(&self.hits, 0, &self.report, REPORT_HITS, prefix * hit_size);
        if let Some(set) = &self.timer {
            enc.resolve_query_set(set, 0..2, &self.report, REPORT_TIME);
        }
        let report: Vec<u8> = ctx.read_via(
            enc,
            &self.report,
            self.report.size() as usize,
            Some(&self.report_staging),
        )?;
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("dispatch: {e:?}")));
        }
        ctx.take_error()?;
        self.rounds_run.fetch_add(1, Ordering::Relaxed);
        if let Some(period) = ctx.timestamp_period {
            let t = REPORT_TIME as usize;
            let [begin, end]: [u64; 2] = bytemuck::pod_read_unaligned(&report[t..t + 16]);
            let ticks = end.saturating_sub(begin);
            self.gpu_ns
                .fetch_add((ticks as f64 * period) as u64, Ordering::Relaxed);
        }
        let c: Counters = bytemuck::pod_read_unaligned(&report[..c_size]);
        if c.walk_fault & FAULT_STACK != 0 {
            return Err(Error::Gpu("octree traversal stack overflowed".into()));
        }
        if c.walk_fault & FAULT_CUT_SHORT != 0 {
            return Err(Error::Gpu(
                "the GPU driver ended a shader loop before its octree walk was done (a limit on \
                 loop iterations); its answer would be incomplete: use --backend cpu"
                    .into(),
            ));
        }
        // Main reserves only what fits, and narrow writes at most one hit per candidate; the
        // nearest stage's hits may overflow (the caller splits the round then).
        if c.candidates > self.capacity {
            return Err(Error::Gpu(format!(
                "a pass overflowed its capacity ({} candidates, capacity {})",
                c.candidates, self.capacity
            )));
        }
        if c.hits > self.capacity {
            return Ok((c, Vec::new()));
        }
        let n = c.hits.min(self.capacity) as u64;
        let hits = if n <= prefix {
            let at = REPORT_HITS as usize;
            bytemuck::pod_collect_to_vec(&report[at..at + (n * hit_size) as usize])
        } else {
            let enc = ctx.device.create_command_encoder(&Default::default());
            ctx.read_via(enc, &self.hits, n as usize, Some(&self.hits_staging))?
        };
        Ok((c, hits))
    }

    /// A panic in another query's turn left nothing to undo: every pass starts from fresh
    /// counters, and every round from its first pass.
    fn take_turn(&self) -> std::sync::MutexGuard<'_, Scratch> {
        self.turn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Rounds run and the GPU's own milliseconds in them (timestamp queries; 0 where the
    /// adapter has none), since the backend was made: callers take differences.
    pub fn stats(&self) -> (u64, f64) {
        (
            self.rounds_run.load(Ordering::Relaxed),
            self.gpu_ns.load(Ordering::Relaxed) as f64 * 1e-6,
        )
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

    /// Run a round over all of A's triangles, in as many passes as its leaf pairs, walks and
    /// candidates need: the hits of every pass, the total candidate count and smallest f32
    /// distance.
    pub fn rounds(&self, a: &GpuPart, b: &GpuPart, query: &Query, narrow: Narrow) -> Result<Found> {
        let mut scratch = self.take_turn();
        let mut todo = vec![(0u32, a.triangles)];
        let mut found = Found::default();
        // Leaf pairs listed and walks paused over a chunk's passes: no leaf pair is listed
        // twice, and a paused walk moves on, so more than these means the passes are not
        // converging (never seen; an error rather than a hang).
        let node_pairs = a.node_count as u64 * b.node_count as u64;
        let most_paused = node_pairs * leaf_walkers(&self.ctx) as u64;
        while let Some((start, end)) = todo.pop() {
            let q = Query {
                chunk_start: start,
                chunk_end: end,
                ..*query
            };
            let (kept, counted) = (found.hits.len(), found.candidates);
            let (mut kind, mut walks_left) = (Pass::First, false);
            let (mut listed, mut paused) = (0u64, 0u64);
            // None when the round is done; else into how many chunks to split it.
            let split = loop {
                let (c, h) = self.pass(&mut scratch, a, b, &q, narrow, kind, found.min_dist)?;
                if c.hits > self.capacity {
                    break Some((c.hits as u64).div_ceil(self.capacity as u64));
                }
                found.candidates += c.candidates as u64;
                found.min_dist = found.min_dist.min(f32::from_bits(c.min_dist_bits));
                found.hits.extend(h);
                paused += c.paused_walks as u64;
                if paused > most_paused {
                    return Err(Error::Gpu("the walks' passes did not converge".into()));
                }
                if narrow == Narrow::Nearest {
                    if c.paused_walks == 0 {
                        break None;
                    }
                    kind = Pass::Walks;
                    continue;
                }
                if let Pass::Pairs { waiting, .. } = kind {
                    if c.deferred >= waiting {
                        break Some(1);
                    }
                } else {
                    if c.leaf_pairs == 0 && c.deferred_leaves > 0 && c.paused_walks == 0 {
                        break Some(1);
                    }
                    walks_left = c.deferred_leaves > 0 || c.paused_walks > 0;
                    listed += c.leaf_pairs.min(self.capacity) as u64;
                    if listed > node_pairs {
                        return Err(Error::Gpu("the leaf walks' passes did not converge".into()));
                    }
                }
                kind = if c.deferred > 0 {
                    let in_leaf_list = !matches!(
                        kind,
                        Pass::Pairs {
                            in_leaf_list: true,
                            ..
                        }
                    );
                    Pass::Pairs {
                        waiting: c.deferred,
                        in_leaf_list,
                    }
                } else if walks_left {
                    Pass::Walks
                } else {
                    break None;
                };
            };
            // A pass that listed or tested nothing (one workgroup's candidates alone exceed
            // the capacity), or the nearest stage's hits overflowed: the chunk starts over in
            // smaller ones, without what it found so far; as many as the hits need, with half
            // again for unevenness.
            let Some(need) = split else {
                continue;
            };
            if end - start < 2 {
                return Err(Error::Gpu(format!(
                    "the pairs of one triangle do not fit in a pass ({} pairs); raise the capacity",
                    self.capacity
                )));
            }
            found.hits.truncate(kept);
            found.candidates = counted;
            let k = (need + need / 2 + 1).clamp(2, (end - start) as u64) as u32;
            let bounds: Vec<u32> = (0..=k)
                .map(|x| start + ((end - start) as u64 * x as u64 / k as u64) as u32)
                .collect();
            todo.extend(bounds.windows(2).rev().map(|w| (w[0], w[1])));
        }
        Ok(found)
    }
}

/// The indirect dispatches read three `u32`s each, written by `cull_leaves::finish`,
/// `cull_pairs::far_finish` and `cull_pairs::finish`.
const _: () = assert!(std::mem::size_of::<DispatchArgs>() == 12);
