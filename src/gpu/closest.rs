//! Nearest points of a resident mesh. `closest.wgsl` walks the mesh's hierarchy (uploaded once,
//! [`super::hierarchy`]) and keeps, per point, every triangle whose distance may be the least;
//! the host decides among those few in f64 by the CPU's own comparison
//! ([`crate::query::closest::closest_among`]) and answers the unsure points on the CPU: the
//! answers equal the CPU's to the bit.

use super::layout::{row, ClosestQuery, SlotsOut};
use super::{GpuBackend, GpuMesh};
use crate::error::Result;
use crate::geom::DVec3;
use crate::query::closest::{closest_among, morton_order};
use crate::query::spheres::{contact_from, sweep_tolerance, Sweep};
use crate::query::{
    closest_point, closest_points, inside_by_parity, point_inside, Closest, Posed, SphereContact,
    SphereSweep,
};
use rayon::prelude::*;

/// One batch of `closest.wgsl`: its query (`None`: beyond f32, nothing dispatched), the order
/// the points were sent in (Morton order), the points in the record frame in that order, and
/// the answers in that order.
pub struct ClosestRun {
    pub query: Option<ClosestQuery>,
    pub order: Vec<usize>,
    pub points: Vec<[f32; 4]>,
    pub out: Vec<SlotsOut>,
}

/// Points per dispatch: 16 MiB of them, within every adapter's storage binding.
const BATCH: usize = 1 << 20;

impl GpuBackend {
    /// The nearest point of `m` to each of `points` within `max_distance`
    /// ([`crate::query::closest_point`]).
    pub fn closest_points(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        points: &[DVec3],
        max_distance: f64,
    ) -> Result<Vec<Option<Closest>>> {
        m.verts_for(points.len().saturating_mul(4));
        let tris = &m.prep.bvh().tris;
        let mut all = Vec::with_capacity(points.len());
        for chunk in points.chunks(BATCH) {
            if crate::stop::requested() {
                // Stopped (Python's Ctrl-C): no more dispatches, the rest answered by nothing.
                all.extend(std::iter::repeat_n(None, chunk.len()));
                continue;
            }
            let run = self.closest_run(m, gm, chunk)?;
            let mut answers: Vec<Option<&SlotsOut>> = vec![None; chunk.len()];
            for (o, &i) in run.out.iter().zip(&run.order) {
                answers[i] = (o.unsure == 0).then_some(o);
            }
            // The unsure points as one batch on the CPU (its searches bound each other).
            let unsure: Vec<DVec3> = chunk
                .iter()
                .zip(&answers)
                .filter(|(_, a)| a.is_none())
                .map(|(&p, _)| p)
                .collect();
            let mut on_cpu = closest_points(&unsure, m, max_distance).into_iter();
            let sure: Vec<Option<Option<Closest>>> = chunk
                .par_iter()
                .zip(&answers)
                .map(|(&p, a)| {
                    a.map(|o| {
                        let slots = o.slots[..o.count as usize].iter();
                        closest_among(p, m, max_distance, slots.map(|&s| tris[s as usize]))
                    })
                })
                .collect();
            all.extend(
                sure.into_iter()
                    .map(|s| s.unwrap_or_else(|| on_cpu.next().flatten())),
            );
        }
        Ok(all)
    }

    /// The stage's inputs and outputs for `points` (at most a batch): what
    /// [`GpuBackend::closest_points`] reads, and what the stage tests hold to the twin.
    pub fn closest_run(&self, m: &Posed, gm: &GpuMesh, points: &[DVec3]) -> Result<ClosestRun> {
        // In Morton order: neighbouring threads walk the same nodes, which a GPU's lanes (and a
        // software adapter's SIMD) run together, and each point's search starts from the
        // triangle nearest the point before it.
        let order = morton_order(points);
        let local: Vec<[f32; 4]> = order
            .par_iter()
            .map(|&i| row(m.pose.unapply(points[i]) - gm.center))
            .collect();
        let (per_thread, kept) = (self.closest_per_thread, self.walk_room);
        let (query, out) = match query(m, gm, points, &local, per_thread, kept) {
            Some(q) => (Some(q), self.closest_batch(m, gm, q, &local)?),
            None => (None, vec![SlotsOut::UNSURE; points.len()]),
        };
        Ok(ClosestRun {
            query,
            order,
            points: local,
            out,
        })
    }

    /// One dispatch over `local`, read back.
    fn closest_batch(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        q: ClosestQuery,
        local: &[[f32; 4]],
    ) -> Result<Vec<SlotsOut>> {
        let bvh = self.resident_bvh(m, gm)?;
        let obbs = self.resident_obbs(m, gm)?;
        let d = &self.ctx.device;
        let init = |label, bytes: &[u8], usage| self.ctx.buffer_with(label, bytes, usage);
        use wgpu::BufferUsages as U;
        let n = q.points as usize;
        let uniform = init("closest query", bytemuck::bytes_of(&q), U::UNIFORM);
        let points = init("closest points", bytemuck::cast_slice(local), U::STORAGE);
        // Unsure until the shader says otherwise: a point a cut-short loop never reached.
        let zeros = vec![SlotsOut::UNSURE; n];
        let out = init(
            "closest out",
            bytemuck::cast_slice(&zeros),
            U::STORAGE | U::COPY_SRC,
        );
        let mut enc = d.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let buffers = [&uniform, &bvh.nodes, &bvh.corners, &points, &out, &*obbs];
            let threads = q.points.div_ceil(q.per_thread.max(1));
            self.stages
                .closest
                .encode(&self.ctx, &mut pass, &buffers, threads);
        }
        self.ctx.read_via(enc, &out, n, None)
    }
}

/// The dispatch's query, or `None` where f32 cannot hold the points. `delta` covers every
/// rounding between the CPU's geometry and this frame's, as the winding stage's does; a
/// triangle's distance is 1-Lipschitz in each point, so moving them by `delta` moves it by
/// at most twice that (`delta` bounds a corner's displacement and a point's together), and
/// the f32 evaluation adds a few units of the frame's scale.
fn query(
    m: &Posed,
    gm: &GpuMesh,
    points: &[DVec3],
    local: &[[f32; 4]],
    per_thread: u32,
    kept: u32,
) -> Option<ClosestQuery> {
    let (scale, world) = gm.batch_scale(m, points, local)?;
    let delta = gm.delta(m, scale, world);
    // WGSL's sqrt (by inverseSqrt) and division may each be off by a few ulp: 32 units of
    // the frame's scale for the evaluation.
    let err = (2.0 * delta + 32.0 * 2f64.powi(-24) * scale) * (1.0 + 1e-6);
    Some(ClosestQuery {
        points: points.len() as u32,
        delta: delta as f32,
        err: err as f32,
        per_thread,
        kept: kept.min(super::twin::KEPT as u32),
        _pad: [0; 3],
    })
}

impl GpuBackend {
    /// Each sphere `(centre, radius)` against `m` ([`crate::query::sphere_contact`]): the
    /// centres' nearest points by [`GpuBackend::closest_points`], whether they are inside by
    /// the winding stage (by parity on the CPU for a closed mesh that is not consistently
    /// oriented, as [`crate::query::point_inside`] decides), put together as the CPU does.
    pub fn sphere_contacts(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        spheres: &[(DVec3, f64)],
    ) -> Result<Vec<Option<SphereContact>>> {
        let centres: Vec<DVec3> = spheres.iter().map(|s| s.0).collect();
        let near = self.closest_points(m, gm, &centres, f64::INFINITY)?;
        // A centre with no nearest point (not finite) has no contact, nor a winding number.
        let found: Vec<DVec3> = centres
            .iter()
            .zip(&near)
            .filter(|(_, n)| n.is_some())
            .map(|(&c, _)| c)
            .collect();
        let inside: Vec<bool> = if inside_by_parity(m) {
            found
                .par_iter()
                .map(|&c| point_inside(c, m).inside)
                .collect()
        } else {
            let w = self.winding_numbers(m, gm, &found)?;
            w.iter().map(|w| w.inside()).collect()
        };
        let mut inside = inside.into_iter();
        Ok(near
            .iter()
            .zip(spheres)
            .map(|(n, &(c, r))| {
                n.as_ref()
                    .map(|n| contact_from(c, r, n, inside.next().unwrap_or(false), m))
            })
            .collect())
    }
}

/// Lockstep rounds of moving spheres on the GPU; after them, or once fewer than
/// [`SWEEP_BATCH_MIN`] are still moving, the rest finish on the CPU.
const SWEEP_ROUNDS: usize = 256;
const SWEEP_BATCH_MIN: usize = 256;

impl GpuBackend {
    /// Each sphere `(centre, radius, displacement)` moving against `m`, within `tol` of touching
    /// or each sphere's own default ([`crate::query::sphere_sweep`], [`sweep_tolerance`]):
    /// every sphere still moving takes its next step at once, from nearest points found by
    /// [`GpuBackend::closest_points`] (the CPU's to the bit), so each takes the CPU's steps.
    /// The few that need many steps (paths grazing the surface) finish on the CPU from where
    /// they got to.
    pub fn sphere_sweeps(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        spheres: &[(DVec3, f64, DVec3)],
        tol: Option<f64>,
    ) -> Result<Vec<SphereSweep>> {
        let tols: Vec<f64> = spheres
            .iter()
            .map(|&s| sweep_tolerance(m, s, tol))
            .collect();
        let standing: Vec<(DVec3, f64)> = spheres.iter().map(|s| (s.0, s.1)).collect();
        let starts = self.sphere_contacts(m, gm, &standing)?;
        let mut out = vec![SphereSweep::Undecided { from: 0.0 }; spheres.len()];
        let mut moving: Vec<(usize, Sweep)> = Vec::new();
        for (i, start) in starts.iter().enumerate() {
            let (c, r, v) = spheres[i];
            match start.as_ref().map(|s| Sweep::start(s, (c, r, v), m)) {
                Some(Ok(sweep)) => moving.push((i, sweep)),
                Some(Err(done)) => out[i] = done,
                None => {} // a centre that is not finite: undecided from 0
            }
        }
        for _ in 0..SWEEP_ROUNDS {
            // Few left, or stopped: the rest on the CPU, which also stops.
            if moving.len() < SWEEP_BATCH_MIN || crate::stop::requested() {
                break;
            }
            let centres: Vec<DVec3> = moving
                .iter()
                .map(|(i, sw)| sw.centre(spheres[*i].0, spheres[*i].2))
                .collect();
            let near = self.closest_points(m, gm, &centres, f64::INFINITY)?;
            let mut still = Vec::with_capacity(moving.len());
            // The centres' winding numbers where the mesh is open, on the CPU, as its loop
            // takes them (the same numbers).
            let windings: Vec<_> = moving
                .par_iter()
                .map(|(i, sw)| sw.winding(spheres[*i].0, spheres[*i].2, m))
                .collect();
            for (((i, mut sw), near), w) in moving.into_iter().zip(near).zip(windings) {
                let (_, r, v) = spheres[i];
                match sw.step(near.as_ref(), w.as_ref(), r, v, tols[i]) {
                    Some(done) => out[i] = done,
                    None => still.push((i, sw)),
                }
            }
            moving = still;
        }
        let rest: Vec<(usize, SphereSweep)> = moving
            .into_par_iter()
            .map(|(i, mut sw)| {
                let (c, r, v) = spheres[i];
                loop {
                    let near = closest_point(sw.centre(c, v), m, f64::INFINITY);
                    let w = sw.winding(c, v, m);
                    if let Some(done) = sw.step(near.as_ref(), w.as_ref(), r, v, tols[i]) {
                        return (i, done);
                    }
                }
            })
            .collect();
        for (i, done) in rest {
            out[i] = done;
        }
        Ok(out)
    }
}
