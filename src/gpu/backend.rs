//! The GPU backend: the stages' pipelines compiled once and the work buffers allocated once,
//! shared by every query. A round runs in passes (`pass.rs`) driven by `rounds.rs`.

use super::layout::{Counters, Hit, LeafPair, Pair, Query, WORKGROUP};
use super::stages::{cull_leaves::CullLeaves, cull_pairs::CullPairs, narrow, nearest::Nearest};
use super::{GpuContext, GpuMesh};
use crate::error::Result;
use crate::mesh::PreparedMesh;
use std::mem::size_of;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// What one pass reads back in its one wait: the counters, the pass's two timestamps, and the
/// first hits, so that a pass with few hits needs no second readback.
pub(super) const REPORT_TIME: u64 = 256; // wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT
pub(super) const REPORT_HITS: u64 = 512;
const REPORT_HIT_PREFIX: u64 = 16_384;

/// Which narrow-stage entry points a round runs after the cull, or the nearest stage instead.
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

impl Narrow {
    /// The narrow stage's entry points, `None` for the nearest stage (which has no cull).
    pub(super) fn mode(self) -> Option<narrow::Mode> {
        match self {
            Narrow::Main => Some(narrow::Mode::Main),
            Narrow::Distance => Some(narrow::Mode::Distance),
            Narrow::Band => Some(narrow::Mode::Band),
            Narrow::Nearest => None,
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
    /// `poses`: steps of one pose's walk (node pairs and triangle pairs); a walk that needs
    /// more is answered on the CPU.
    pub poses: u32,
    /// `poses`' `group`: rounds of one pose's walk.
    pub pose_rounds: u32,
}

impl WalkSteps {
    pub const UNBOUNDED: WalkSteps = WalkSteps {
        leaves: u32::MAX,
        nearest: u32::MAX,
        poses: u32::MAX,
        pose_rounds: u32::MAX,
    };

    /// Unbounded on a GPU. On a software adapter within lavapipe's 65535 loop iterations per
    /// SIMD group of 8 lanes (or 16): one loop's iterations count once per group, the most of
    /// any lane (`cull_leaves`: 16384 leaves 4x of margin); nested loops' can add up over the
    /// lanes (`nearest`: 3800, and at most 89 more once past it, times 16 lanes is 62 224).
    /// `poses`: its walk's steps were seen to cost two iterations each, and one walk past the
    /// budget cuts short the output loops of every pose in its group. `pose_rounds`: a round
    /// runs about 25 iterations (a scan of 5, a leaf pair's triangle pairs 16 at most) and at
    /// times the first lane's 128 more (the candidates' compaction); a group walks the tests'
    /// poses in a few hundred (only the tests walk in groups on a software adapter).
    pub fn for_adapter(ctx: &GpuContext) -> WalkSteps {
        if ctx.software {
            WalkSteps {
                leaves: 16_384,
                nearest: 3_800,
                poses: POSE_STEPS_SOFTWARE,
                pose_rounds: 1_000,
            }
        } else {
            WalkSteps::UNBOUNDED
        }
    }
}

/// How `poses.wgsl` walks each pose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoseWalk {
    /// A thread per pose (`main`): the least work, each walk as long as its pose needs.
    Thread,
    /// A workgroup per pose (`group`): about 1.2 times the work in a seventieth of the
    /// longest walk's steps, where a GPU would otherwise wait on memory with few poses to
    /// run.
    Group,
}

impl PoseWalk {
    /// A workgroup per pose on a GPU; a thread on a software adapter, whose threads are a
    /// few cores' SIMD lanes and gain nothing from more of them.
    pub fn for_adapter(ctx: &GpuContext) -> PoseWalk {
        if ctx.software {
            PoseWalk::Thread
        } else {
            PoseWalk::Group
        }
    }
}

/// `WalkSteps::poses` on a software adapter: 12 000 steps, two loop iterations each, leave
/// room in lavapipe's 65535 for the output loops.
const POSE_STEPS_SOFTWARE: u32 = 12_000;

/// The stages' pipelines.
pub(super) struct Stages {
    pub cull_leaves: CullLeaves,
    pub cull_pairs: CullPairs,
    pub narrow: narrow::NarrowStage,
    pub nearest: Nearest,
    pub winding: super::stages::OneEntry,
    pub rays: super::stages::OneEntry,
    pub closest: super::stages::OneEntry,
    pub poses: super::stages::OneEntry,
    /// `poses`' `group`, made when first used (most backends never walk poses in groups), with
    /// its rounds' budget.
    pub poses_group: (std::sync::OnceLock<super::stages::OneEntry>, u32),
}

/// The work buffers every round reuses, sized for the backend's capacity.
pub(super) struct Buffers {
    pub uniform: wgpu::Buffer,
    /// `cull_leaves`' output, `cull_pairs::far`'s input; main's deferrals in alternate passes.
    pub leaf_pairs: wgpu::Buffer,
    /// The leaf pairs `cull_pairs::far` keeps, `cull_pairs::main`'s input.
    pub live_pairs: wgpu::Buffer,
    pub pairs: wgpu::Buffer,
    pub hits: wgpu::Buffer,
    pub dists: wgpu::Buffer,
    pub counters: wgpu::Buffer,
    /// Indirect dispatch sizes of cull_pairs' far and main stages and of narrow, each written
    /// by the stage before (apart: a dispatch may not read the buffer its own bind group
    /// writes).
    pub args_far: wgpu::Buffer,
    pub args_pairs: wgpu::Buffer,
    pub args_narrow: wgpu::Buffer,
    pub report: wgpu::Buffer,
    pub report_staging: wgpu::Buffer,
    pub hits_staging: wgpu::Buffer,
    pub timer: Option<wgpu::QuerySet>,
}

impl Buffers {
    fn new(ctx: &GpuContext, capacity: u32) -> Buffers {
        let d = &ctx.device;
        let storage = |label: &str, item: usize, extra: wgpu::BufferUsages| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: capacity as u64 * item as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | extra,
                mapped_at_creation: false,
            })
        };
        let one = |label: &str, size: usize, usage: wgpu::BufferUsages| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        let (none, copy) = (wgpu::BufferUsages::empty(), wgpu::BufferUsages::COPY_DST);
        let (st, ind) = (wgpu::BufferUsages::STORAGE, wgpu::BufferUsages::INDIRECT);
        let prefix = (capacity as u64).min(REPORT_HIT_PREFIX);
        let report_size = REPORT_HITS + prefix * size_of::<Hit>() as u64;
        let report_use = wgpu::BufferUsages::COPY_SRC | copy | wgpu::BufferUsages::QUERY_RESOLVE;
        Buffers {
            uniform: one(
                "query",
                size_of::<Query>(),
                wgpu::BufferUsages::UNIFORM | copy,
            ),
            leaf_pairs: storage("leaf pairs", size_of::<LeafPair>(), none),
            live_pairs: storage("live leaf pairs", size_of::<LeafPair>(), none),
            pairs: storage("candidate pairs", size_of::<Pair>(), none),
            hits: storage("hits", size_of::<Hit>(), none),
            dists: storage("distances", size_of::<f32>(), none),
            counters: one(
                "counters",
                size_of::<Counters>(),
                st | copy | wgpu::BufferUsages::COPY_SRC,
            ),
            args_far: one("cull_pairs far dispatch", 12, st | copy | ind),
            args_pairs: one("cull_pairs dispatch", 12, st | copy | ind),
            args_narrow: one("narrow dispatch", 12, st | copy | ind),
            report: one("round report", report_size as usize, report_use),
            report_staging: ctx.staging_buffer(report_size),
            hits_staging: ctx.staging_buffer(capacity as u64 * size_of::<Hit>() as u64),
            timer: ctx.timestamp_period.map(|_| {
                d.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("round time"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                })
            }),
        }
    }
}

pub struct GpuBackend {
    pub ctx: GpuContext,
    /// Unique per backend (and per part limit): the key of the meshes it keeps resident.
    id: u64,
    /// Answer a distance on the CPU when its search on one thread settles it within a small
    /// budget (parts far apart, small meshes), where a GPU round's fixed cost is larger; the
    /// answer is the same. On by default; the tests of the GPU stages turn it off.
    pub settle_on_cpu: bool,
    /// Candidate pairs one pass can hold; more are processed in further passes.
    pub capacity: u32,
    /// Most pairs an intersect, self-intersection or check lists
    /// ([`crate::query::MAX_PAIRS`]; the tests lower it).
    pub max_pairs: u64,
    /// Most triangles of one part of a resident mesh (one storage binding's worth).
    pub part_limit: usize,
    /// Consecutive points a thread of `closest.wgsl` takes, each search hinted by the one
    /// before ([`closest_per_thread`]).
    pub closest_per_thread: u32,
    /// The farther children a walk of `rays.wgsl` or `closest.wgsl` may keep for later, at most
    /// [`super::twin::KEPT`] (the room its registers hold): a walk that would keep more is
    /// unsure, and the CPU answers. Only the tests lower it, to reach that branch on meshes
    /// whose hierarchies are not 33 levels deep.
    pub walk_room: u32,
    /// How `poses.wgsl` walks a pose: a thread, or a workgroup ([`PoseWalk::for_adapter`]).
    pub pose_walk: PoseWalk,
    pub(super) stages: Stages,
    pub(super) bufs: Buffers,
    /// Rounds run and the GPU's own nanoseconds in them, since the backend was made.
    pub(super) rounds_run: AtomicU64,
    pub(super) gpu_ns: AtomicU64,
    /// Held through each query's rounds: they share the buffers above, and a round's later
    /// passes read what its first left there.
    turn: Mutex<Scratch>,
}

/// Round state that grows with the parts queried, taken with the turn.
#[derive(Default)]
pub(super) struct Scratch {
    /// Per node of A (times the nearest stage's walkers), how far its walk got in the round's
    /// earlier passes (`cull_leaves.wgsl`, `nearest.wgsl`).
    progress: Option<wgpu::Buffer>,
}

impl Scratch {
    pub(super) fn progress(&mut self, ctx: &GpuContext, walks: u32) -> &wgpu::Buffer {
        let size = 4 * walks.max(1) as u64;
        if self.progress.as_ref().is_none_or(|b| b.size() < size) {
            self.progress = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("walk progress"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        self.progress.as_ref().expect("made above")
    }
}

/// A new backend id.
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
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

/// Points a thread of `closest.wgsl` takes. On a software adapter eight, each search hinted
/// by the one before: its threads are its few cores, and the hint bounds a search from the
/// start. On a GPU one: a batch of a hundred thousand points is then as many threads.
fn closest_per_thread(ctx: &GpuContext) -> u32 {
    if ctx.software {
        8
    } else {
        1
    }
}

/// The most candidates one pass holds: the indirect dispatch's workgroup count must stay within
/// the 65535 every adapter allows, and the pair list within one storage binding.
fn max_capacity(ctx: &GpuContext) -> u32 {
    let by_dispatch =
        ctx.limits.max_compute_workgroups_per_dimension.min(65535) as u64 * WORKGROUP as u64;
    let by_binding = ctx.limits.max_storage_buffer_binding_size / size_of::<Hit>() as u64;
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
        let stages = Stages {
            cull_leaves: CullLeaves::new(&ctx, steps.leaves)?,
            cull_pairs: CullPairs::new(&ctx)?,
            narrow: narrow::NarrowStage::new(&ctx)?,
            nearest: Nearest::new(&ctx, leaf_walkers(&ctx), steps.nearest)?,
            winding: super::stages::OneEntry::new(&ctx, &super::stages::winding::STAGE)?,
            rays: super::stages::OneEntry::new(&ctx, &super::stages::rays::STAGE)?,
            closest: super::stages::OneEntry::new(&ctx, &super::stages::closest::STAGE)?,
            poses: super::stages::OneEntry::with_constants(
                &ctx,
                &super::stages::poses::STAGE,
                &[("WALK_STEPS", steps.poses as f64)],
            )?,
            poses_group: (std::sync::OnceLock::new(), steps.pose_rounds),
        };
        Ok(GpuBackend {
            id: next_id(),
            bufs: Buffers::new(&ctx, capacity),
            stages,
            capacity,
            part_limit: super::mesh::part_limit(&ctx),
            closest_per_thread: closest_per_thread(&ctx),
            walk_room: super::twin::KEPT as u32,
            pose_walk: PoseWalk::for_adapter(&ctx),
            settle_on_cpu: true,
            max_pairs: crate::query::MAX_PAIRS,
            rounds_run: AtomicU64::new(0),
            gpu_ns: AtomicU64::new(0),
            turn: Mutex::new(Scratch::default()),
            ctx,
        })
    }

    /// Split resident meshes into parts of at most `n` triangles (tests use a small one to force
    /// several parts; the default is what one storage binding holds).
    pub fn with_part_limit(mut self, n: usize) -> GpuBackend {
        self.part_limit = n.clamp(1, super::mesh::part_limit(&self.ctx));
        self.id = next_id(); // uploads split by the old limit are not this backend's
        self
    }

    /// A fresh upload of `prep`, not kept (the stage tests and benchmarks time and inspect it).
    pub fn upload(&self, prep: &PreparedMesh) -> Result<GpuMesh> {
        GpuMesh::upload(&self.ctx, prep, self.part_limit)
    }

    /// `prep` on this backend's device: uploaded at its first use, then kept with the mesh.
    pub fn resident(&self, prep: &PreparedMesh) -> Result<Arc<GpuMesh>> {
        prep.resident.get_or_upload(self.id, || self.upload(prep))
    }

    /// A panic in another query's turn left nothing to undo: every pass starts from fresh
    /// counters, and every round from its first pass.
    pub(super) fn take_turn(&self) -> MutexGuard<'_, Scratch> {
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

    /// The candidate list the last pass's cull wrote (`n` pairs): for the stage tests.
    pub fn last_candidates(&self, n: u32) -> Result<Vec<Pair>> {
        self.read_list(&self.bufs.pairs, n)
    }

    /// The leaf pairs the last first pass's `cull_leaves` listed (`n`, its counter): for the
    /// stage tests.
    pub fn last_leaf_pairs(&self, n: u32) -> Result<Vec<LeafPair>> {
        self.read_list(&self.bufs.leaf_pairs, n)
    }

    /// The leaf pairs the last first pass's `cull_pairs::far` kept (`n`, the `live_pairs`
    /// counter): for the stage tests.
    pub fn last_live_pairs(&self, n: u32) -> Result<Vec<LeafPair>> {
        self.read_list(&self.bufs.live_pairs, n)
    }

    fn read_list<T: bytemuck::Pod>(&self, buf: &wgpu::Buffer, n: u32) -> Result<Vec<T>> {
        let _turn = self.take_turn();
        self.ctx.read_buffer(buf, n.min(self.capacity) as usize)
    }
}

/// The indirect dispatches read three `u32`s each, written by `cull_leaves::finish`,
/// `cull_pairs::far_finish` and `cull_pairs::finish`.
const _: () = assert!(size_of::<super::layout::DispatchArgs>() == 12);
