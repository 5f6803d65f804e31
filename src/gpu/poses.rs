//! Many poses of B against a resident A in one dispatch: `poses.wgsl` walks both hierarchies
//! per pose and either proves the surfaces apart and keeps the few leaf pairs that may hold
//! the nearest pair, or says the pose is unsure (a pair may touch, a list ran out). The host
//! measures the kept leaves' triangle pairs in f64 as the CPU does, and tests the vertices for containment as the CPU does
//! (the surfaces proved apart, in the same order); the unsure poses, and those the f32 frame
//! cannot hold, are answered on the CPU. Every answer is the CPU's to the bit.

use super::layout::{PoseItem, PoseOut, PosesQuery, POSE_DONE};
use super::mesh::{LARGEST_PAIR_SCALE, SMALLEST_SCALE};
use super::twin::poses::POSE_STACK;
use super::{GpuBackend, GpuMesh, PoseWalk};
use crate::error::Result;
use crate::geom::tritri;
use crate::mesh::{Pose, PreparedMesh};
use crate::query::distance::{report, Best};
use crate::query::oriented::pairs_within;
use crate::query::solid::{solid_distance_apart, solid_distance_serial};
use crate::query::{PoseAnswer, Posed, Timings};
use rayon::prelude::*;
use std::time::Instant;

/// One dispatch of `poses.wgsl`: which poses were sent (indices into the caller's), their
/// items, and what came back for each.
pub struct PosesRun {
    pub query: PosesQuery,
    pub sent: Vec<usize>,
    pub items: Vec<PoseItem>,
    pub out: Vec<PoseOut>,
}

/// Poses per dispatch: 66 MiB of answers, within every adapter's storage binding (128 MiB).
const BATCH: usize = 1 << 15;

/// Parts whose boxes are farther apart than this many of their combined diagonals go to the
/// CPU: few pairs can be nearest there (the CPU's search ends near the roots), and the f32
/// frame's bands grow with the gap.
const FAR: f64 = 64.0;

/// The unit roundoff of f32.
const U: f64 = 1.0 / (1u64 << 24) as f64;

impl GpuBackend {
    /// Each of `poses` of B against A ([`crate::query::poses`]): the same answers.
    pub fn poses(
        &self,
        (a, ga): (&Posed, &GpuMesh),
        (b, gb): (&PreparedMesh, &GpuMesh),
        poses: &[Pose],
        clearance_d: Option<f64>,
    ) -> Result<Vec<PoseAnswer>> {
        let mut done: Vec<Option<PoseOut>> = vec![None; poses.len()];
        for (k, chunk) in poses.chunks(BATCH).enumerate() {
            if crate::stop::requested() {
                break; // Python's Ctrl-C: no more dispatches (the rest are stopped below)
            }
            let run = self.poses_run((a, ga), (b, gb), chunk)?;
            for (&i, o) in run.sent.iter().zip(run.out) {
                // None kept cannot be an answer (bounds that overflowed): the CPU's.
                done[k * BATCH + i] = (o.status == POSE_DONE && o.count > 0).then_some(o);
            }
        }
        Ok(poses
            .par_iter()
            .zip(&done)
            .map(|(&pose, out)| {
                if crate::stop::requested() {
                    return PoseAnswer::STOPPED;
                }
                let pb = Posed::new(b, pose);
                let solid = match out {
                    Some(o) => solid_distance_apart(a, &pb, |a, b| nearest_of(a, b, o)),
                    None => solid_distance_serial(a, &pb),
                };
                PoseAnswer {
                    solid,
                    clearance_pairs: clearance_d.map(|d| pairs_within(a, &pb, d)),
                }
            })
            .collect())
    }

    /// The stage's inputs and outputs for `poses` (at most a batch): what
    /// [`GpuBackend::poses`] reads, and what the stage test holds to the twin.
    pub fn poses_run(
        &self,
        (a, ga): (&Posed, &GpuMesh),
        (b, gb): (&PreparedMesh, &GpuMesh),
        poses: &[Pose],
    ) -> Result<PosesRun> {
        let depth = a.prep.bvh().depth() + b.bvh().depth();
        let deep = self.pose_walk == PoseWalk::Thread && depth + 2 > POSE_STACK;
        let (sent, items): (Vec<usize>, Vec<PoseItem>) = if deep {
            (Vec::new(), Vec::new())
        } else {
            poses
                .par_iter()
                .enumerate()
                .filter_map(|(i, &p)| item(a, ga, &Posed::new(b, p), gb).map(|it| (i, it)))
                .unzip()
        };
        let query = PosesQuery {
            poses: items.len() as u32,
            _pad: [0; 3],
        };
        let out = if items.is_empty() {
            Vec::new()
        } else {
            self.poses_batch((a, ga), (&Posed::new(b, Pose::IDENTITY), gb), query, &items)?
        };
        Ok(PosesRun {
            query,
            sent,
            items,
            out,
        })
    }

    /// One dispatch over `items`, read back.
    fn poses_batch(
        &self,
        (a, ga): (&Posed, &GpuMesh),
        (b, gb): (&Posed, &GpuMesh),
        q: PosesQuery,
        items: &[PoseItem],
    ) -> Result<Vec<PoseOut>> {
        let (ha, oa) = (self.resident_bvh(a, ga)?, self.resident_obbs(a, ga)?);
        let (hb, ob) = (self.resident_bvh(b, gb)?, self.resident_obbs(b, gb)?);
        let d = &self.ctx.device;
        let init = |label, bytes: &[u8], usage| self.ctx.buffer_with(label, bytes, usage);
        use wgpu::BufferUsages as Us;
        let n = items.len();
        let uniform = init("poses query", bytemuck::bytes_of(&q), Us::UNIFORM);
        let items_buf = init("poses items", bytemuck::cast_slice(items), Us::STORAGE);
        // Unsure until the shader says otherwise: a pose a cut-short dispatch never reached.
        let full = vec![PoseOut::FULL; n];
        let out = init(
            "poses out",
            bytemuck::cast_slice(&full),
            Us::STORAGE | Us::COPY_SRC,
        );
        let mut enc = d.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let buffers = [
                &uniform,
                &ha.nodes,
                &ha.corners,
                &*oa,
                &hb.nodes,
                &hb.corners,
                &*ob,
                &items_buf,
                &out,
            ];
            match self.pose_walk {
                PoseWalk::Thread => self
                    .stages
                    .poses
                    .encode(&self.ctx, &mut pass, &buffers, q.poses),
                PoseWalk::Group => self
                    .poses_group()?
                    .encode_groups(&self.ctx, &mut pass, &buffers, q.poses),
            }
        }
        self.ctx.read_via(enc, &out, n, None)
    }
}

impl GpuBackend {
    /// The pipeline [`GpuBackend::pose_walk`] runs, made now rather than in the first query.
    pub fn prepare_pose_walk(&self) -> Result<()> {
        match self.pose_walk {
            PoseWalk::Thread => Ok(()),
            PoseWalk::Group => self.poses_group().map(|_| ()),
        }
    }

    /// `poses.wgsl`'s `group` pipeline, made on first use.
    fn poses_group(&self) -> Result<&super::stages::OneEntry> {
        let (made, rounds) = &self.stages.poses_group;
        if let Some(p) = made.get() {
            return Ok(p);
        }
        let p = self
            .stages
            .poses
            .sibling(&self.ctx, "group", &[("WALK_STEPS", *rounds as f64)])?;
        Ok(made.get_or_init(|| p))
    }
}

/// The distance report of the smallest `(distance², a, b)` over every triangle pair of the
/// leaf pairs `o` kept, measured as the CPU measures: the CPU's report. Leaf pairs are taken
/// by their lower bounds, least first, and those whose bound passes the least distance
/// measured are not measured: the bound holds every pair of theirs within the band of the f64
/// distance, as the stage's own pruning does (and a hair more, for the f64 evaluation), so
/// none of them can be nearer or tie.
fn nearest_of(a: &Posed, b: &Posed, o: &PoseOut) -> crate::query::DistanceReport {
    let t = Instant::now();
    let (ta, tb) = (a.prep.bvh(), b.prep.bvh());
    let mut kept = o.pairs[..o.count as usize].to_vec();
    kept.sort_unstable_by(|x, y| x.lower.total_cmp(&y.lower));
    let mut best: Best = None;
    let mut measured = 0;
    for p in &kept {
        if best.is_some_and(|(d2, ..)| f64::from(p.lower) > d2.sqrt() * (1.0 + 1e-9)) {
            break;
        }
        for sa in ta.nodes[p.a as usize].slots() {
            for sb in tb.nodes[p.b as usize].slots() {
                let (i, j) = (ta.tris[sa], tb.tris[sb]);
                let d = tritri::separated_distance(&a.tri(i), &b.tri(j)).distance;
                measured += 1;
                if best.is_none_or(|l| (d * d, i, j) < l) {
                    best = Some((d * d, i, j));
                }
            }
        }
    }
    report(a, b, &[(measured, best)], Timings::default(), t)
}

/// The pose's item, or `None` where the CPU answers: an empty part, parts far apart for their
/// size, parts below [`SMALLEST_SCALE`] or beyond [`LARGEST_PAIR_SCALE`].
///
/// B's record frame goes into A's by `x = M y + s`, `M` the relative rotation and
/// `s = M c_B + t − c_A`. A point there may lie `delta` from where the CPU's f64 geometry puts
/// it: f32 rounding of corners, rows and their product (2^-19 of the frame's scale, with room),
/// the CPU's posed coordinates (an ulp of the world's magnitude, with room), and each rotation's
/// defect from orthonormal, as the CPU's own walk pads it (six times its unapply error). A
/// pair's f32 distance is within `band` of the f64 one: twice `delta` for its points, and the
/// evaluation's error, as the narrow stage's band (`gpu::query::frame_from`). A box bound
/// grows by `delta` for each box's points, and its f32 evaluation and the carried boxes are
/// off by less than 2^-16 of the scale (a review counted 30 units).
fn item(a: &Posed, ga: &GpuMesh, b: &Posed, gb: &GpuMesh) -> Option<PoseItem> {
    if a.prep.mesh.triangles.is_empty() || b.prep.mesh.triangles.is_empty() {
        return None;
    }
    let (ba, bb) = (a.node_box(0), b.node_box(0));
    // Not a negated `<`: a NaN gap goes to the CPU as well.
    let near = ba.distance(&bb) < FAR * (ba.diagonal() + bb.diagonal());
    if !near {
        return None;
    }
    let rel = a.pose.relative(&b.pose);
    let s = rel.apply(gb.center) - ga.center;
    let scale = ga.radius + s.length() + gb.radius;
    let world = a.frame_magnitude().max(b.frame_magnitude());
    if !(SMALLEST_SCALE < scale && scale < LARGEST_PAIR_SCALE && world.is_finite()) {
        return None;
    }
    let magnitude =
        scale.max(world) + ga.center.abs().max_element() + gb.center.abs().max_element();
    let delta = scale * 2f64.powi(-19)
        + 64.0 * f64::EPSILON * world
        + 6.0 * (a.pose.unapply_error(magnitude) + b.pose.unapply_error(magnitude));
    let band = 8.0 * delta + 64.0 * U * scale;
    let grow = 2.0 * delta + scale * 2f64.powi(-16);
    let r = rel.rotation;
    let row = |i: usize| [r[i][0] as f32, r[i][1] as f32, r[i][2] as f32, s[i] as f32];
    // Rounded up: a tolerance must not shrink in f32.
    let up = |x: f64| (x * (1.0 + 1e-6)) as f32;
    Some(PoseItem {
        rows: [row(0), row(1), row(2)],
        tol: [up(delta), up(band), up(grow), 0.0],
    })
}
