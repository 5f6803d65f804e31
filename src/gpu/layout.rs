//! Every struct the shaders read or write, defined once here in `#[repr(C)]` `Pod` form. WGSL
//! twins live in `shaders/common.wgsl` (or in the one stage that reads them); `tests/layout.rs`
//! checks sizes and offsets through naga.
//! (`TriRecord` lives with the mesh it describes, `OctreeNode` with the octree.)

use bytemuck::{Pod, Zeroable};

pub use crate::bvh::BvhNode;
pub use crate::mesh::TriRecord;
pub use crate::octree::OctreeNode;

/// What one dispatch of every stage needs: both poses as f32 rows `[R | t]` into
/// the query's local frame, the tolerances, and the work range. WGSL twin: `struct Query`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Query {
    /// Rows of `[R_A | t_A]`: local = R_A · v_rel + t_A for A's record coordinates `v_rel`.
    pub a: [[f32; 4]; 3],
    /// The same for B.
    pub b: [[f32; 4]; 3],
    /// x: tolerance `d` (cull and clearance); y: cull padding; z: input error bound `e_in` of a
    /// local coordinate; w: distance band (f32 distances within it of a threshold go to the CPU),
    /// or, for `narrow::band`, the threshold itself.
    pub tol: [f32; 4],
    /// Triangles of A in this round: positions `chunk_start .. chunk_end` of its octree order.
    pub chunk_start: u32,
    pub chunk_end: u32,
    /// Capacity of the candidate list (and of the output list).
    pub capacity: u32,
    /// [`MODE_INTERSECT`], [`MODE_CLEARANCE`], [`MODE_DISTANCE`], [`MODE_SELF`],
    /// [`MODE_SELF_CROSS`].
    pub mode: u32,
}

pub const MODE_INTERSECT: u32 = 0;
pub const MODE_CLEARANCE: u32 = 1;
pub const MODE_DISTANCE: u32 = 2;
pub const MODE_SELF: u32 = 3;
/// Self-intersection between two different parts of one mesh: neighbour rules, every pair.
pub const MODE_SELF_CROSS: u32 = 4;

/// One output of `narrow.wgsl`: a pair, what the GPU could decide about it, and its f32
/// distance (bits) where the mode computes one. WGSL twin: `struct Hit`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, PartialOrd, Ord)]
pub struct Hit {
    pub a: u32,
    pub b: u32,
    /// [`CERTAIN`], [`UNSURE`] (re-decided on the CPU in exact arithmetic) or [`DISJOINT`].
    pub flag: u32,
    pub dist_bits: u32,
}

pub const CERTAIN: u32 = 1;
pub const UNSURE: u32 = 2;
/// Clearance: certainly disjoint (the CPU computes the distance without deciding intersection).
pub const DISJOINT: u32 = 3;

/// Counters shared by the stages of one query. WGSL twin: `struct Counters` (atomics).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct Counters {
    /// Leaf pairs the first half of the cull listed (past the capacity by the walks that found
    /// the list full: the first `capacity` are listed).
    pub leaf_pairs: u32,
    /// Candidate pairs the cull kept (at most the capacity: what does not fit is deferred).
    pub candidates: u32,
    /// Hits written by the narrow phase.
    pub hits: u32,
    /// Bits of the smallest f32 distance (distance mode).
    pub min_dist_bits: u32,
    /// [`FAULT_STACK`] if a traversal stack overflowed (impossible within the octree's depth
    /// limit), [`FAULT_CUT_SHORT`] if the driver ended a walk's loop before the walk did: either
    /// is reported as an error, never ignored.
    pub walk_fault: u32,
    /// Leaf pairs `cull_pairs::main` takes in this pass: those `cull_pairs::far` kept, or
    /// (in a pass that does not walk) those the last pass deferred.
    pub live_pairs: u32,
    /// Of those, the ones `cull_pairs::main` left for the round's next pass: the candidates of
    /// a workgroup's leaf pairs are kept only if they all fit in the pass's capacity.
    pub deferred: u32,
    /// Walks of `cull_leaves` (nodes of A) that found the leaf-pair list full, or did not start
    /// because it was: the round's next pass takes them up.
    pub deferred_leaves: u32,
    /// Walks (`cull_leaves`, `nearest::main`) that stopped at their step budget
    /// (`WALK_STEPS`): the round's next pass resumes them where they stopped.
    pub paused_walks: u32,
}

/// [`Counters::walk_fault`] bits (`FAULT_*` in `shaders/common.wgsl`).
pub const FAULT_STACK: u32 = 1;
pub const FAULT_CUT_SHORT: u32 = 2;

/// Indirect dispatch arguments written by the GPU for the next stage (`cull_pairs::far`,
/// `cull_pairs::main`, the narrow phase).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct DispatchArgs {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// A point of the record frame as the shaders read it: a `vec4<f32>` row, `w` unused.
pub fn row(v: glam::DVec3) -> [f32; 4] {
    [v.x as f32, v.y as f32, v.z as f32, 0.0]
}

/// A leaf pair of `cull_leaves.wgsl`'s list: A's triangle positions `[start, count]`, then B's
/// leaf's `[tri_start, tri_count]`. WGSL: `vec4<u32>`.
pub type LeafPair = [u32; 4];

/// A candidate pair of triangle positions (A's, B's). WGSL: `vec2<u32>`.
pub type Pair = [u32; 2];

/// Threads per workgroup of every stage (the WGSL files use the override `WG`).
pub const WORKGROUP: u32 = 64;

/// Workgroups per row of a dispatch (`ROW` in `shaders/common.wgsl`): rows keep every dimension
/// within the 65535 all adapters allow.
pub const DISPATCH_ROW: u32 = 32768;

/// `nearest::sample` takes every this many-th node (`SAMPLE` in `shaders/nearest.wgsl`).
pub const NEAREST_SAMPLE: u32 = 64;

/// What `winding.wgsl` needs for one part's dispatch. WGSL twin: `struct WindingQuery` there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct WindingQuery {
    /// The rays' direction (unit); `w` the longest length, past everything from any point
    /// (each point's row carries its own length in `w`: [`crate::gpu::winding`]).
    pub dir: [f32; 4],
    pub points: u32,
    /// Cap triangles in the caps buffer (0 but for a mesh's first part).
    pub caps: u32,
    /// How near a triangle a point is unsure: the rounding of points and vertices into the
    /// record frame, with room.
    pub delta: f32,
    pub _pad: u32,
}

/// One point's answer from `winding.wgsl`: its ray's signed crossings, and whether some sign
/// was in doubt. WGSL twin: `struct WindingOut`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct WindingOut {
    pub crossings: i32,
    pub unsure: u32,
}

/// What `rays.wgsl` needs for one dispatch. WGSL twin: `struct RayQuery` there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct RayQuery {
    pub rays: u32,
    /// How far the rays' ends and the triangles' corners may lie from where the CPU's exact
    /// geometry puts them, in the record frame (rounding into f32, with room).
    pub delta: f32,
    /// [`RAYS_FIRST`], [`RAYS_ANY`] or [`RAYS_ALL`].
    pub mode: u32,
    /// The farther children a ray's walk may keep for later ([`GpuBackend::walk_room`]).
    pub kept: u32,
}

/// The nearest hit, certified.
pub const RAYS_FIRST: u32 = 0;
/// Misses only, certified: a ray that may hit is handed to the CPU, whose answer names the
/// first triangle its own walk finds.
pub const RAYS_ANY: u32 = 1;
/// Every hit, certified: the triangles a ray meets, all through their insides (at most
/// [`CANDIDATES`]); a ray meeting an edge, a vertex or more is handed to the CPU.
pub const RAYS_ALL: u32 = 2;
/// `RayOut::slot` of a ray that certainly meets nothing.
pub const NO_HIT: u32 = u32::MAX;

/// One ray's answer from `rays.wgsl`: the slot of the triangle it certainly meets first through
/// its inside, or [`NO_HIT`]; `unsure` where that is in doubt (the CPU answers). WGSL twin:
/// `struct RayOut`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct RayOut {
    pub slot: u32,
    pub unsure: u32,
}

impl RayOut {
    /// What a ray's answer is until the shader says otherwise (and where it could not run).
    pub const UNSURE: RayOut = RayOut {
        slot: NO_HIT,
        unsure: 1,
    };
}

/// Slots a [`SlotsOut`] holds (`CANDIDATES` in `common.wgsl`).
pub const CANDIDATES: usize = 8;

/// A hierarchy node's oriented box ([`crate::obb`]) in the record frame, for `closest.wgsl` and
/// `poses.wgsl`:
/// its centre and three unit axes in `f32`, each half-extent in the `w` of its axis, grown so
/// that the box holds every point of the node although the axes are `f32`'s (not quite
/// orthonormal). WGSL twin: `struct ObbNode` in `common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ObbNode {
    pub center: [f32; 4],
    pub axes: [[f32; 4]; 3],
}

/// What `closest.wgsl` needs for one dispatch. WGSL twin: `struct ClosestQuery` there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct ClosestQuery {
    pub points: u32,
    /// How far points and corners may lie from where the CPU's geometry puts them, in the
    /// record frame: the boxes' growth.
    pub delta: f32,
    /// The widening of every triangle's distance bounds: `delta`'s effect and the f32
    /// evaluation's.
    pub err: f32,
    /// Consecutive points a thread takes, each search hinted by the one before.
    pub per_thread: u32,
    /// The farther children a point's walk may keep for later ([`GpuBackend::walk_room`]).
    pub kept: u32,
    pub _pad: [u32; 3],
}

/// Slots of the hierarchy, the first `count`, or `unsure` (more than [`CANDIDATES`], a sign in
/// doubt, a walk too deep or cut short: the CPU answers). `closest.wgsl`: the triangles that
/// may be a point's nearest; `rays.wgsl` asked for all hits: every triangle a ray meets.
/// WGSL twin: `struct SlotsOut` in `common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SlotsOut {
    pub count: u32,
    pub unsure: u32,
    pub slots: [u32; CANDIDATES],
}

impl SlotsOut {
    /// What an answer is until the shader says otherwise (and where it could not run).
    pub const UNSURE: SlotsOut = SlotsOut {
        count: 0,
        unsure: 1,
        slots: [0; CANDIDATES],
    };
}

/// What `poses.wgsl` needs for one dispatch. WGSL twin: `struct PosesQuery` there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct PosesQuery {
    pub poses: u32,
    pub _pad: [u32; 3],
}

/// One pose of `poses.wgsl`: rows `[M | s]` taking B's record frame into A's, and the pose's
/// tolerances: x, how far a point may lie from where the CPU's f64 geometry puts it; y, the
/// band that holds an f32 pair distance to the f64 one; z, a box bound's growth. WGSL twin:
/// `struct PoseItem` there.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PoseItem {
    pub rows: [[f32; 4]; 3],
    pub tol: [f32; 4],
}

/// A leaf pair a pose keeps: leaves of A's and B's hierarchies, and a lower bound on the
/// distance of their triangle pairs. WGSL twin: `struct PosePair` in `poses.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PosePair {
    pub a: u32,
    pub b: u32,
    pub lower: f32,
    pub _pad: u32,
}

/// Leaf pairs one pose keeps at most (`poses.wgsl::POSE_CANDIDATES`); a pose that needs more is
/// answered on the CPU.
pub const POSE_CANDIDATES: usize = 128;
/// `poses.wgsl` statuses: the candidates hold the answer; a pair may touch; a list ran out or
/// the walk was cut short.
pub const POSE_DONE: u32 = 0;
pub const POSE_NEAR: u32 = 1;
pub const POSE_FULL: u32 = 2;

/// One pose's answer from `poses.wgsl`: its status, the pairs kept (the first `count`), the
/// least upper bound on the distance and the walk's loop steps. WGSL twin: `struct PoseOut`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct PoseOut {
    pub status: u32,
    pub count: u32,
    pub upper: f32,
    pub steps: u32,
    pub pairs: [PosePair; POSE_CANDIDATES],
}

impl PoseOut {
    /// What an answer is until the shader says otherwise (and where it could not run).
    pub const FULL: PoseOut = PoseOut {
        status: POSE_FULL,
        count: 0,
        upper: f32::MAX,
        steps: 0,
        pairs: [PosePair {
            a: 0,
            b: 0,
            lower: 0.0,
            _pad: 0,
        }; POSE_CANDIDATES],
    };
}
