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
/// `common.wgsl::KEPT`: the values a walk keeps for later at most (`Kept`, in registers).
pub const KEPT: usize = 32;

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

/// The whole cull and the narrow stage at a clearance, run as drivers that flush subnormals
/// run them (`testing::flushing`), on parts about 1e-2 across (where f32's units in the last
/// place are near 1e-9) holding triangles a few of those units across: the same candidates and
/// the same hits, bit for bit, as run without flushing.
#[cfg(all(test, target_arch = "x86_64"))]
mod flushing_subnormals {
    use super::common::flushing_subnormals::small;
    use super::*;
    use crate::gpu::layout::{Hit, MODE_CLEARANCE};
    use crate::gpu::query::frame_from;
    use crate::gpu::HostArrays;
    use crate::mesh::{generate, Pose, PreparedMesh};
    use crate::query::Posed;
    use crate::testing::{flushing, lcg, placed};
    use glam::DVec3;
    use std::hint::black_box;

    /// A torus 1e-2 across with a small triangle at the centre of every fourth of its own.
    fn torus_with_small_triangles() -> PreparedMesh {
        let mut m = placed(&generate::torus(1.0, 0.3, 48, 16), 0.004, [0.0; 3]);
        let mut rnd = lcg(23);
        for t in m.triangles.clone().iter().step_by(4) {
            let c = t
                .map(|v| Vec3::from(m.vertices[v as usize]))
                .iter()
                .sum::<Vec3>()
                / 3.0;
            let at = m.vertices.len() as u32;
            m.vertices.extend(small(c, &mut rnd).map(|v| v.to_array()));
            m.triangles.push([at, at + 1, at + 2]);
        }
        PreparedMesh::new(m)
    }

    fn cull_and_narrow(q: &Query, a: &HostPart, b: &HostPart) -> (Vec<Pair>, Vec<Hit>) {
        fn side(p: &HostPart) -> narrow::Side<'_> {
            narrow::Side {
                tris: &p.records,
                vidx: &p.vidx,
            }
        }
        let pairs = cull(q, a, b);
        let hits = narrow::main(q, side(a), side(b), &pairs);
        (pairs, hits)
    }

    /// Two such tori stacked 2e-4 apart (no pair of triangles nearer, so no distance of theirs
    /// squares below f32's normal range), at a clearance of 1e-3.
    #[test]
    fn the_pair_stages_give_the_same_answers_whether_or_not_subnormals_flush() {
        let prep = torus_with_small_triangles();
        let host = HostArrays::new(&prep, usize::MAX);
        let a = Posed::new(&prep, Pose::IDENTITY);
        let b = Posed::new(&prep, Pose::translation(DVec3::new(0.0, 0.0, 2.6e-3)));
        let (c, r) = (host.center, host.radius);
        let mut q = frame_from(&a, c, r, &b, c, r, 1e-3, MODE_CLEARANCE)
            .unwrap()
            .query;
        let part = &host.parts[0];
        q.chunk_end = part.records.len() as u32;
        let want = black_box(cull_and_narrow(black_box(&q), part, part));
        let got = flushing(|| cull_and_narrow(black_box(&q), black_box(part), black_box(part)))
            .expect("FTZ and DAZ take");
        let differ = |x: &[Pair], y: &[Pair]| x.iter().filter(|p| !y.contains(p)).count();
        let (lost, gained) = (differ(&want.0, &got.0), differ(&got.0, &want.0));
        assert!(
            got.0 == want.0,
            "candidates: {lost} lost and {gained} gained of {}",
            want.0.len()
        );
        let keys = |h: &[Hit]| h.iter().map(|h| [h.a, h.b]).collect::<Vec<Pair>>();
        let (lost, gained) = (
            differ(&keys(&want.1), &keys(&got.1)),
            differ(&keys(&got.1), &keys(&want.1)),
        );
        assert!(
            got.1 == want.1,
            "hits: {lost} lost and {gained} gained of {}",
            want.1.len()
        );
        // Not vacuous: many of the pairs within the clearance hold a small triangle.
        let small = |i: u32| part.ids[i as usize] >= 48 * 16 * 2;
        let with_small = want.1.iter().filter(|h| small(h.a) || small(h.b)).count();
        assert!(with_small > 100, "{with_small} of {} hits", want.1.len());
    }
}
