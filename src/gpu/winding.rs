//! Winding numbers of a resident mesh around batches of points. `winding.wgsl` gives each
//! point's ray crossings with the mesh and its caps, or says it is unsure; the host turns a sure
//! count into the winding number exactly as the CPU does (the integer less the caps' solid
//! angles, in f64), and answers the unsure points on the CPU: the values equal the CPU's to
//! the bit.

use super::layout::{row, WindingOut, WindingQuery};
use super::{GpuBackend, GpuMesh};
use crate::error::Result;
use crate::geom::DVec3;
use crate::query::closest::{in_given_order, morton_order};
use crate::query::containment::{containment_with, first_inside, pick, pick_every, Coverage};
use crate::query::{inside_by_parity, winding_number, Containment, Inside, Posed, Winding};
use rayon::prelude::*;

/// One batch of `winding.wgsl`: its query (`None`: beyond f32, nothing dispatched), the points
/// and cap corners in the record frame, and the answers.
pub struct WindingRun {
    pub query: Option<WindingQuery>,
    pub points: Vec<[f32; 4]>,
    pub caps: Vec<[f32; 4]>,
    pub out: Vec<WindingOut>,
}

/// Points per dispatch: 16 MiB of them, within every adapter's storage binding.
const BATCH: usize = 1 << 20;

/// The rays' direction: off every axis and diagonal (a CAD mesh's faces and edges mostly are).
const DIR: [f32; 3] = [0.5773, 0.5781, 0.5766];

impl GpuBackend {
    /// The winding number of `m` (posed) around each of `points` ([`winding_number`]). The
    /// points go to the GPU in Morton order ([`morton_order`]), so that neighbouring threads
    /// cross the same triangles (lavapipe, igea, 100k points: 136 -> about 100 ms); the
    /// answers come back in theirs.
    pub fn winding_numbers(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        points: &[DVec3],
    ) -> Result<Vec<Winding>> {
        let order = morton_order(points);
        let sorted: Vec<DVec3> = order.iter().map(|&i| points[i]).collect();
        let answers = self.winding_numbers_in_order(m, gm, &sorted)?;
        Ok(in_given_order(&order, answers))
    }

    /// [`GpuBackend::winding_numbers`], the points in the order given.
    fn winding_numbers_in_order(
        &self,
        m: &Posed,
        gm: &GpuMesh,
        points: &[DVec3],
    ) -> Result<Vec<Winding>> {
        let mut all = Vec::with_capacity(points.len());
        for chunk in points.chunks(BATCH) {
            if crate::stop::requested() {
                // Stopped (Python's Ctrl-C): no more dispatches, the rest answered by nothing.
                all.extend(std::iter::repeat_n(Winding::STOPPED, chunk.len()));
                continue;
            }
            let run = self.winding_counts(m, gm, chunk)?;
            if run.out.len() != chunk.len() {
                return Err(crate::error::Error::Gpu(format!(
                    "the winding stage answered {} of {} points",
                    run.out.len(),
                    chunk.len()
                )));
            }
            all.par_extend(chunk.par_iter().zip(run.out).map(|(&p, c)| {
                if c.unsure != 0 {
                    winding_number(p, m)
                } else {
                    crate::query::winding_from_integer(p, m, c.crossings as i64)
                }
            }));
        }
        Ok(all)
    }

    /// The stage's inputs and outputs for `points` (at most a batch): what
    /// [`GpuBackend::winding_numbers`] reads, and what the stage tests hold to the twin.
    pub fn winding_counts(&self, m: &Posed, gm: &GpuMesh, points: &[DVec3]) -> Result<WindingRun> {
        let caps = cap_corners(m, gm);
        let mut local: Vec<[f32; 4]> = points
            .iter()
            .map(|&p| row(m.pose.unapply(p) - gm.center))
            .collect();
        let query = query(m, gm, points, &local);
        if let Some(q) = &query {
            ways_out(m, gm, q, &mut local);
        }
        let out = match query {
            Some(q) => self.winding_batch(gm, q, &local, &caps)?,
            // Beyond what f32 holds: every point on the CPU.
            None => vec![
                WindingOut {
                    crossings: 0,
                    unsure: 1
                };
                points.len()
            ],
        };
        Ok(WindingRun {
            query,
            points: local,
            caps,
            out,
        })
    }

    /// One dispatch per part over `points` (the caps with the first), read back.
    fn winding_batch(
        &self,
        gm: &GpuMesh,
        q: WindingQuery,
        points: &[[f32; 4]],
        caps: &[[f32; 4]],
    ) -> Result<Vec<WindingOut>> {
        let d = &self.ctx.device;
        let storage = |label, bytes: &[u8], extra| {
            self.ctx
                .buffer_with(label, bytes, wgpu::BufferUsages::STORAGE | extra)
        };
        let none = wgpu::BufferUsages::empty();
        let pts = storage("winding points", bytemuck::cast_slice(points), none);
        // A binding is never empty: one unused corner where there are no caps.
        let corners = if caps.is_empty() {
            &[[0.0; 4]][..]
        } else {
            caps
        };
        let capb = storage("winding caps", bytemuck::cast_slice(corners), none);
        let zeros = vec![WindingOut::default(); points.len()];
        let out = storage(
            "winding out",
            bytemuck::cast_slice(&zeros),
            wgpu::BufferUsages::COPY_SRC,
        );
        let uniforms: Vec<wgpu::Buffer> = (0..gm.parts.len())
            .map(|k| {
                let part = WindingQuery {
                    caps: if k == 0 { q.caps } else { 0 },
                    ..q
                };
                self.ctx.buffer_with(
                    "winding query",
                    bytemuck::bytes_of(&part),
                    wgpu::BufferUsages::UNIFORM,
                )
            })
            .collect();
        let mut enc = d.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for (part, qb) in gm.parts.iter().zip(&uniforms) {
                let buffers = [qb, &part.tris, &part.nodes, &pts, &capb, &out];
                self.stages
                    .winding
                    .encode(&self.ctx, &mut pass, &buffers, points.len() as u32);
            }
        }
        self.ctx.read_via(enc, &out, points.len(), None)
    }
}

/// The caps' corners in the record frame, three per cap triangle: their vertices rounded as the
/// records' are (so that caps and mesh share their boundary edges exactly in f32), their apexes
/// rounded likewise.
fn cap_corners(m: &Posed, gm: &GpuMesh) -> Vec<[f32; 4]> {
    let caps = m.prep.caps();
    let f = |v: DVec3| row(v - gm.center);
    caps.triangles
        .iter()
        .flat_map(|&(l, u, v)| {
            let mesh = &m.prep.mesh;
            [
                f(caps.apexes[l as usize]),
                f(mesh.vertex(u)),
                f(mesh.vertex(v)),
            ]
        })
        .collect()
}

/// Each row's ray, in its `w`: the shorter way out of the mesh's box along `DIR` or against it
/// (negative), with room for every rounding (the walk's cost is the length of the ray inside
/// the mesh: about half, on points spread through the box). A crossing counts the side of the
/// triangle the point is on, so both ways give the same winding number, summed over parts.
/// Where the mesh has caps, every ray takes the query's length along `DIR`: their apexes are
/// not held to the box.
fn ways_out(m: &Posed, gm: &GpuMesh, q: &WindingQuery, local: &mut [[f32; 4]]) {
    let longest = q.dir[3];
    if q.caps > 0 {
        local.iter_mut().for_each(|r| r[3] = longest);
        return;
    }
    let root = m.prep.octree.nodes[0].aabb();
    let scale = (longest as f64 - 1.0) / 4.0;
    let room = 4.0 * q.delta as f64 + scale / (1u64 << 20) as f64;
    let (lo, hi) = (root.min - gm.center - room, root.max - gm.center + room);
    let dir = DVec3::new(q.dir[0] as f64, q.dir[1] as f64, q.dir[2] as f64);
    let out = |p: DVec3, d: DVec3| {
        (0..3)
            .map(|k| match d[k] {
                x if x > 0.0 => (hi[k] - p[k]) / x,
                x if x < 0.0 => (lo[k] - p[k]) / x,
                _ => f64::INFINITY,
            })
            .fold(f64::INFINITY, f64::min)
            .max(0.0)
    };
    local.par_iter_mut().for_each(|r| {
        let p = DVec3::new(r[0] as f64, r[1] as f64, r[2] as f64);
        let (ahead, behind) = (out(p, dir), out(p, -dir));
        let len = (ahead.min(behind) * (1.0 + 1.0 / 1024.0) + room).min(longest as f64);
        let len = len as f32;
        r[3] = if behind < ahead { -len } else { len };
    });
}

/// The dispatch's query for `points` (world) at `local` (record frame), or `None` where f32
/// cannot hold them. `delta`, how near a triangle a point is unsure, covers every rounding
/// between the CPU's geometry and this frame's: points and vertices rounded to f32 (2^-24 of
/// the frame's scale each, the caps' apexes likewise), and the CPU's posed f64 coordinates
/// (an ulp of the world's magnitude), each with room.
fn query(m: &Posed, gm: &GpuMesh, points: &[DVec3], local: &[[f32; 4]]) -> Option<WindingQuery> {
    let (scale, world) = gm.batch_scale(m, points, local)?;
    let delta = gm.delta(m, scale, world);
    let dir = glam::Vec3::from(DIR).normalize();
    Some(WindingQuery {
        dir: [dir.x, dir.y, dir.z, (4.0 * scale + 1.0) as f32],
        points: points.len() as u32,
        caps: m.prep.caps().triangles.len() as u32,
        delta: delta as f32,
        _pad: 0,
    })
}

impl GpuBackend {
    /// [`crate::query::containment`] with each part's probes answered in one batch here. A
    /// closed mesh whose triangles are not consistently oriented is answered by parity, on the
    /// CPU ([`crate::query::point_inside`]).
    pub fn containment(
        &self,
        a: &Posed,
        ga: &GpuMesh,
        b: &Posed,
        gb: &GpuMesh,
    ) -> Result<(Option<Containment>, bool)> {
        containment_with(a, b, |part, (witnesses, coverage), m| {
            let g = if std::ptr::eq(m, a) { ga } else { gb };
            if inside_by_parity(m) {
                return Ok(first_inside(part, (witnesses, coverage), m));
            }
            let points: Vec<DVec3> = witnesses.iter().map(|x| x.2).collect();
            let w = self.winding_numbers(m, g, &points)?;
            if coverage == Coverage::Every {
                return Ok(pick_every(part, m, witnesses, w));
            }
            let answers = witnesses
                .into_iter()
                .zip(w)
                .map(|(witness, w)| (witness, Inside::of(&w)));
            Ok(pick(answers, coverage))
        })
    }
}
