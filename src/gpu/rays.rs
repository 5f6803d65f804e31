//! Rays against a resident mesh. `rays.wgsl` walks the mesh's hierarchy ([`crate::bvh`],
//! uploaded once, beside the mesh) and names, per ray, the triangle it certainly meets first
//! through its inside, or says it is unsure; the host computes a sure hit's values in f64 by
//! the CPU's own function ([`crate::query::ray::hit`]) and answers the unsure rays on the CPU:
//! the answers equal the CPU's to the bit. Every hit through an edge or a vertex is unsure, so
//! watertightness is the CPU's exact predicates'.

use super::layout::{row, RayOut, RayQuery, SlotsOut, NO_HIT, RAYS_ALL, RAYS_ANY, RAYS_FIRST};
use super::mesh::{LARGEST_SCALE, SMALLEST_SCALE};
use super::{GpuBackend, GpuMesh};
use crate::error::{Error, Result};
use crate::geom::ray::segment_aabb;
use crate::geom::{Aabb, DVec3};
use crate::query::closest::morton_order_in_groups;
use crate::query::ray::{hit, hits_in_order};
use crate::query::{ray_hits, ray_segment_end, HitCount, Hits, Posed, RayHit, TooMany};
use rayon::prelude::*;

/// One batch of `rays.wgsl`: its query (`None`: beyond f32, nothing dispatched), each ray's
/// segment end and `t` there ([`ray_segment_end`]), its ends in the record frame (two rows a
/// ray), and the answers: `out` for the first hit and any hit, `all` for all hits (the other
/// empty).
pub struct RayRun {
    pub query: Option<RayQuery>,
    pub ends: Vec<Option<(DVec3, f64)>>,
    pub rays: Vec<[f32; 4]>,
    pub out: Vec<RayOut>,
    pub all: Vec<SlotsOut>,
}

/// Rays per dispatch: 32 MiB of ends, within every adapter's storage binding.
const BATCH: usize = 1 << 20;

impl GpuBackend {
    /// The hits of each ray on `m` ([`ray_hits`]). For the first hit and for all hits, the
    /// triangles the GPU certifies, their values computed here by the CPU's function; for any
    /// hit, the certain misses (a ray that may hit is answered by the CPU, whose walk names the
    /// hit). The rest on the CPU.
    pub fn ray_hits(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        rays: &[(DVec3, DVec3)],
        max_t: f64,
        hits: Hits,
    ) -> Result<Vec<Vec<RayHit>>> {
        // The CPU's tree, built here rather than by the first ray that needs it inside the
        // parallel loops below: its build is parallel too, and a worker waiting on it could
        // take another ray that waits on the same lock.
        m.prep.wide();
        m.slots_for(rays.len());
        let mut all: Vec<Vec<RayHit>> = Vec::new();
        for chunk in rays.chunks(BATCH) {
            if crate::stop::requested() {
                // Stopped (Python's Ctrl-C): no more dispatches, the rest answered by nothing.
                all.extend(std::iter::repeat_with(Vec::new).take(chunk.len()));
                continue;
            }
            let answers = self.batch_hits(m, gm, chunk, max_t, hits)?;
            // The first batch is the answer as it is (most are one): not copied into another.
            match all.is_empty() {
                true => all = answers,
                false => all.extend(answers),
            }
        }
        Ok(all)
    }

    /// [`GpuBackend::ray_hits`] for a batch. The rays go to the GPU in another order than
    /// theirs, by the octant of their direction and then along a Morton curve through their
    /// origins ([`morton_order_in_groups`]): neighbouring threads then walk the same nodes, and
    /// diverge less (lavapipe, igea, 1M random rays: 2 040 -> 1 500-1 600 ms in that order).
    /// Each ray's answer is made from its row of the run, not sorted back after: moving a
    /// `Vec` a ray back into the rays' order cost more than the GPU's walk (H200, 1M rays:
    /// 60-96 ms sorted back, 27-50 placed, against 7-9 for the walk and its readback).
    fn batch_hits(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        rays: &[(DVec3, DVec3)],
        max_t: f64,
        hits: Hits,
    ) -> Result<Vec<Vec<RayHit>>> {
        let origins: Vec<DVec3> = rays.par_iter().map(|r| r.0).collect();
        let octant = |i: usize| {
            let d = rays[i].1;
            (d.x < 0.0) as u8 * 4 + (d.y < 0.0) as u8 * 2 + (d.z < 0.0) as u8
        };
        let order = morton_order_in_groups(&origins, octant);
        let sorted: Vec<(DVec3, DVec3)> = order.par_iter().map(|&i| rays[i]).collect();
        let run = self.ray_run(m, gm, &sorted, max_t, hits)?;
        let answered = match hits {
            Hits::All => run.all.len(),
            _ => run.out.len(),
        };
        if answered != rays.len() || run.ends.len() != rays.len() {
            return Err(Error::Gpu(format!(
                "the rays stage answered {answered} of {} rays",
                rays.len()
            )));
        }
        // Each ray's row in the run.
        let mut rows = vec![0; rays.len()];
        for (k, &i) in order.iter().enumerate() {
            rows[i] = k;
        }
        let on_cpu = |&(o, d): &(DVec3, DVec3)| ray_hits(o, d, m, max_t, hits);
        Ok(match hits {
            Hits::All => all_hits(m, rays, &rows, &run, on_cpu)?,
            _ => first_hits(m, &sorted, &rows, &run, on_cpu),
        })
    }

    /// The stage's inputs and outputs for `rays` (at most a batch): what
    /// [`GpuBackend::ray_hits`] reads, and what the stage tests hold to the twin. A ray whose
    /// segment is not finite is unsure (the CPU refuses it).
    pub fn ray_run(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        rays: &[(DVec3, DVec3)],
        max_t: f64,
        hits: Hits,
    ) -> Result<RayRun> {
        let ends: Vec<Option<(DVec3, f64)>> = rays
            .par_iter()
            .map(|&(o, d)| ray_segment_end(o, d, m, max_t))
            .collect();
        let Some(query) = query(m, gm, rays, &ends, hits, self.walk_room) else {
            // Beyond what f32 holds: every ray on the CPU.
            let out = vec![RayOut::UNSURE; rays.len()];
            let all = vec![SlotsOut::UNSURE; rays.len()];
            return Ok(RayRun {
                query: None,
                ends,
                rays: Vec::new(),
                out,
                all,
            });
        };
        let local = clipped_ends(m, gm, rays, &ends, query.delta as f64);
        let (mut out, mut all) = self.rays_batch(m, gm, query, &local)?;
        for (i, end) in ends.iter().enumerate() {
            if end.is_none() {
                if let Some(o) = out.get_mut(i) {
                    o.unsure = 1;
                }
                if let Some(o) = all.get_mut(i) {
                    o.unsure = 1;
                }
            }
        }
        Ok(RayRun {
            query: Some(query),
            ends,
            rays: local,
            out,
            all,
        })
    }

    /// One dispatch over `local` (two rows a ray), read back: the first or any hits, or (the
    /// query's mode [`RAYS_ALL`]) all hits; the other output is one unused row.
    fn rays_batch(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        q: RayQuery,
        local: &[[f32; 4]],
    ) -> Result<(Vec<RayOut>, Vec<SlotsOut>)> {
        let bvh = self.resident_bvh(m, gm)?;
        let d = &self.ctx.device;
        let init = |label, bytes: &[u8], usage| self.ctx.buffer_with(label, bytes, usage);
        use wgpu::BufferUsages as U;
        let every = q.mode == RAYS_ALL;
        let (n_first, n_all) = match every {
            true => (1, q.rays as usize),
            false => (q.rays as usize, 1),
        };
        let uniform = init("rays query", bytemuck::bytes_of(&q), U::UNIFORM);
        let rays = init("rays", bytemuck::cast_slice(local), U::STORAGE);
        // Unsure until the shader says otherwise.
        let first = init(
            "rays out",
            bytemuck::cast_slice(&vec![RayOut::UNSURE; n_first]),
            U::STORAGE | U::COPY_SRC,
        );
        let all = init(
            "rays all out",
            bytemuck::cast_slice(&vec![SlotsOut::UNSURE; n_all]),
            U::STORAGE | U::COPY_SRC,
        );
        let mut enc = d.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let buffers = [&uniform, &bvh.nodes, &bvh.corners, &rays, &first, &all];
            self.stages
                .rays
                .encode(&self.ctx, &mut pass, &buffers, q.rays);
        }
        Ok(match every {
            true => (Vec::new(), self.ctx.read_via(enc, &all, n_all, None)?),
            false => (self.ctx.read_via(enc, &first, n_first, None)?, Vec::new()),
        })
    }
}

/// Every hit of each ray, from its row of the run (`rows`), in the rays' order: the
/// triangles the GPU names where it is sure, else `on_cpu`'s.
fn all_hits(
    m: &Posed,
    rays: &[(DVec3, DVec3)],
    rows: &[usize],
    run: &RayRun,
    on_cpu: impl Fn(&(DVec3, DVec3)) -> Vec<RayHit> + Sync,
) -> std::result::Result<Vec<Vec<RayHit>>, TooMany> {
    let all = |(ray, &k): (&(DVec3, DVec3), &usize)| match (run.all.get(k), run.ends.get(k)) {
        (Some(r), Some(&Some(end))) if r.unsure == 0 => r
            .slots
            .get(..r.count as usize)
            .and_then(|slots| hits_through(m, ray, end, slots))
            .unwrap_or_else(|| on_cpu(ray)),
        _ => on_cpu(ray),
    };
    let count = HitCount::default();
    let found = rays
        .par_iter()
        .zip(rows)
        .map(|ray| count.keep(|| all(ray)))
        .collect();
    count.checked(found)
}

/// The first (or any) hit of each ray: made in the run's order (`sorted`), where
/// neighbouring rays meet neighbouring triangles (1M rays on igea, 2 cores: 110-160 ms
/// against 183-228 in the rays' order), then given to each ray from its row (`rows`).
fn first_hits(
    m: &Posed,
    sorted: &[(DVec3, DVec3)],
    rows: &[usize],
    run: &RayRun,
    on_cpu: impl Fn(&(DVec3, DVec3)) -> Vec<RayHit> + Sync,
) -> Vec<Vec<RayHit>> {
    let tris = &m.prep.bvh().tris;
    let one = |ray: &(DVec3, DVec3), r: &RayOut, end: Option<(DVec3, f64)>| {
        let (o, d) = *ray;
        match (r.unsure, end, tris.get(r.slot as usize)) {
            (0, Some(_), _) if r.slot == NO_HIT => None,
            // The slot's triangle read whole from the posed slots, where a batch made them.
            (0, Some((_, t_end)), Some(&t)) => {
                Some(hit(o, d, t_end, t, &m.slot_tri(r.slot as usize)))
            }
            _ => on_cpu(ray).first().copied(),
        }
    };
    let firsts: Vec<Option<RayHit>> = sorted
        .par_iter()
        .zip(&run.out)
        .zip(&run.ends)
        .map(|((ray, r), end)| one(ray, r, *end))
        .collect();
    rows.par_iter()
        .map(|&k| firsts.get(k).copied().flatten().into_iter().collect())
        .collect()
}

/// The hits of the ray through the triangles in `slots` (the hierarchy's), in the order of
/// their crossings, as the CPU orders them; `None` for a slot the mesh does not have.
fn hits_through(
    m: &Posed,
    &(o, d): &(DVec3, DVec3),
    (_, t_end): (DVec3, f64),
    slots: &[u32],
) -> Option<Vec<RayHit>> {
    let tris = &m.prep.bvh().tris;
    let met = slots
        .iter()
        .map(|&s| tris.get(s as usize).map(|&t| (t, m.slot_tri(s as usize))))
        .collect::<Option<Vec<_>>>()?;
    Some(hits_in_order(o, d, t_end, &met))
}

/// Each ray's segment in the record frame (two rows), clipped to the mesh's box grown a little: the same line and direction, so the same orientations of the line against every
/// edge, and of every plane it crosses within the box; but short, so that the bounds on them
/// scale with the mesh, not with the ray's reach. A segment that passes the box by becomes a
/// point outside it, which meets nothing.
fn clipped_ends(
    m: &Posed,
    gm: &GpuMesh,
    rays: &[(DVec3, DVec3)],
    ends: &[Option<(DVec3, f64)>],
    delta: f64,
) -> Vec<[f32; 4]> {
    // Grown by a twentieth of its size too: an end on the box itself would lie in the plane
    // of a face on it (a cube's), where the orientation deciding the hit is in doubt.
    let bx = record_box(m, gm);
    let bx = bx.padded(0.05 * bx.diagonal() + 4.0 * delta);
    // Written in place, two rows a ray: a collected `flat_map` does not know its length and
    // cost as much as the clipping (1M rays).
    let mut local = vec![[0.0; 4]; 2 * rays.len()];
    local
        .par_chunks_mut(2)
        .zip(rays.par_iter().zip(ends))
        .for_each(|(two, (&(o, _), end))| {
            let Some((q, _)) = end else {
                return;
            };
            let (pl, ql) = (
                m.pose.unapply(o) - gm.center,
                m.pose.unapply(*q) - gm.center,
            );
            let clipped = segment_aabb(pl, ql, &bx).map(|(s0, s1)| (s0, s1, ql - pl));
            let (a, b) = match clipped {
                Some((s0, s1, d)) => (pl + d * s0, pl + d * s1),
                None => (pl, pl),
            };
            two.copy_from_slice(&[row(a), row(b)]);
        });
    local
}

/// The mesh's box in the record frame.
fn record_box(m: &Posed, gm: &GpuMesh) -> Aabb {
    let root = m.prep.bvh().nodes[0].aabb();
    Aabb {
        min: root.min - gm.center,
        max: root.max - gm.center,
    }
}

/// The dispatch's query, or `None` where the mesh's frame is outside [`SMALLEST_SCALE`] and
/// [`LARGEST_SCALE`] or the world's coordinates are not finite. `delta` covers every rounding
/// between the CPU's geometry and this frame's, as the winding stage's does: clipped ends and
/// corners rounded to f32 (the ends lie within the mesh's box, a few delta out), the CPU's
/// posed f64 coordinates and the rays' own (clipping is exact to an ulp of them), and `Rᵀ` for
/// the inverse of a rotation a little off orthonormal.
fn query(
    m: &Posed,
    gm: &GpuMesh,
    rays: &[(DVec3, DVec3)],
    ends: &[Option<(DVec3, f64)>],
    hits: Hits,
    kept: u32,
) -> Option<RayQuery> {
    let bx = record_box(m, gm);
    let scale = 2.0 * (bx.min.abs().max(bx.max.abs()).max_element() + gm.radius);
    let world = rays
        .iter()
        .zip(ends)
        .filter_map(|(r, e)| e.map(|(q, _)| r.0.abs().max(q.abs()).max_element()))
        .fold(m.frame_magnitude(), f64::max);
    if !(SMALLEST_SCALE < scale && scale < LARGEST_SCALE && world < 1e300) {
        return None;
    }
    let delta = gm.delta(m, scale, world);
    Some(RayQuery {
        rays: rays.len() as u32,
        delta: delta as f32,
        mode: match hits {
            Hits::First => RAYS_FIRST,
            Hits::Any => RAYS_ANY,
            Hits::All => RAYS_ALL,
        },
        kept: kept.min(super::twin::KEPT as u32),
    })
}
