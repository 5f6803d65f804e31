//! CPU twins of the WGSL stages, one module per `shaders/<stage>.wgsl` under the same name: the
//! same functions in `f32`, line by line (loops where the shaders write them out), so that the
//! stage tests can hold each GPU stage equal to its twin at every stage boundary: the leaf
//! pairs, the kept leaf pairs, the candidates, the narrow stage's hits, the nearest stage's
//! minimum and emissions. GPU compilers may fuse a multiply and an add, so a value can differ in
//! its last bit; the tests allow exactly that and nothing more: a pair may be certain on one
//! side and unsure on the other, never certain both ways.

pub mod closest;
pub mod common;
pub mod cull_leaves;
pub mod cull_pairs;
pub mod narrow;
pub mod nearest;
pub mod poses;
pub mod rays;
pub mod winding;

pub use common::{axis_bound, frame_bound, local_tri, plane_bound, seg_seg, to_local, tri_dist};
pub use cull_pairs::leaf_bound;
pub use narrow::{narrow_intersect, orient, tri_tri};

use crate::gpu::layout::{Pair, Query};
use crate::gpu::HostPart;
use glam::Vec3;

/// `common.wgsl`'s unit roundoff, 2^-24.
const U: f32 = 5.960_464_5e-8;
/// `common.wgsl::INF`.
const INF: f32 = f32::MAX;

/// The shaders' `!(lower > upper)`: a bound that is not a number keeps its triangle or pair.
fn within(lower: f32, upper: f32) -> bool {
    lower.partial_cmp(&upper) != Some(std::cmp::Ordering::Greater)
}

fn v3(v: [f32; 4]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// The whole cull, `cull_leaves` then `cull_pairs::far` and `main`, for A's triangles at
/// positions `q.chunk_start .. q.chunk_end`: the candidate pairs of positions (records are in
/// octree order in a part), in no particular order on the GPU: compare as sets.
pub fn cull(q: &Query, a: &HostPart, b: &HostPart) -> Vec<Pair> {
    let leaves = cull_leaves::leaf_pairs(q, &a.nodes, &b.nodes);
    let live = cull_pairs::far(q, &a.records, &b.records, &leaves);
    cull_pairs::main(q, &a.records, &b.records, &live)
}
