//! Meshes resident on the GPU: triangle records and flattened octrees uploaded once, in the
//! mesh's record frame (its own coordinates less a centre `c`), and reused by every query and
//! pose. Coordinates relative to `c` keep f32 precise for parts modelled far from the origin.
//!
//! Records are stored in their part's octree order, so that a leaf's triangles are one
//! contiguous run whatever order the file lists them in (the stages read them leaf by leaf) and
//! a node's `tri_start .. tri_start + tri_count` are its records' positions: the part's
//! `tri_index` is the identity and is not uploaded. Each part's `ids` gives the mesh's own
//! numbers back.
//!
//! A mesh whose records would not fit one storage binding is split into parts: runs of its
//! triangles in octree order (so each part is spatially compact), each with an octree of its
//! own; queries run over the pairs of parts that can interact.

use super::GpuContext;
use crate::error::{Error, Result};
use crate::geom::{Aabb, DVec3};
use crate::mesh::PreparedMesh;
use crate::mesh::{Mesh, TriRecord};
use crate::octree::{down, up, Octree, OctreeNode};
use rayon::prelude::*;
use wgpu::util::DeviceExt;

/// What one part sends to the GPU, built on the host (also what the stage tests give the twins).
pub struct HostPart {
    /// Global index of each of the part's triangles.
    pub ids: Vec<u32>,
    pub records: Vec<TriRecord>,
    /// The part's octree, nodes in the record frame; `tri_index` is the identity (records are in
    /// its order).
    pub octree: Octree,
    pub nodes: Vec<OctreeNode>,
    /// Welded (global) vertex indices, three per triangle: self-intersection tells neighbours
    /// by them.
    pub vidx: Vec<u32>,
    /// The part's box in the mesh's own coordinates.
    pub bounds: Aabb,
}

/// A mesh's host-side arrays, split into parts of at most `part_limit` triangles.
pub struct HostArrays {
    pub center: DVec3,
    pub radius: f64,
    pub parts: Vec<HostPart>,
}

impl HostArrays {
    pub fn new(prep: &PreparedMesh, part_limit: usize) -> HostArrays {
        let m = &prep.mesh;
        let center = m.bounding_box().center().as_vec3().as_dvec3();
        let radius = (0..m.vertices.len() as u32)
            .map(|i| m.vertex(i).distance(center))
            .fold(0.0, f64::max);
        let order = &prep.octree.tri_index;
        let parts = if order.len() <= part_limit {
            vec![part(m, order.to_vec(), Some(&prep.octree), center)]
        } else {
            order
                .chunks(part_limit.max(1))
                .map(|ids| part(m, ids.to_vec(), None, center))
                .collect()
        };
        HostArrays {
            center,
            radius,
            parts,
        }
    }
}

/// The part of `m` over the triangles `ids`, records in the order of the part's octree: the
/// mesh's own (`whole`, when `ids` is its order) or one built over `ids`.
fn part(m: &Mesh, ids: Vec<u32>, whole: Option<&Octree>, center: DVec3) -> HostPart {
    let nodes = match whole {
        Some(t) => t.nodes.clone(),
        None => {
            let sub = Mesh {
                source: m.source.clone(),
                vertices: m.vertices.clone(),
                triangles: ids.iter().map(|&i| m.triangles[i as usize]).collect(),
                unit: None,
            };
            let t = Octree::build(&sub);
            let ids: Vec<u32> = t.tri_index.iter().map(|&k| ids[k as usize]).collect();
            return part(m, ids, Some(&t), center);
        }
    };
    let octree = Octree {
        nodes,
        tri_index: (0..ids.len() as u32).collect(),
        // The GPU's copy is walked by the stages and their twins, which break no ties by it.
        min_tri: Vec::new(),
    };
    let records = ids
        .par_iter()
        .map(|&i| TriRecord::new(&m.triangle(i as usize).map(|v| v - center)))
        .collect();
    let nodes = octree
        .nodes
        .par_iter()
        .map(|n| {
            let (min, max) = record_bounds(&n.aabb(), center);
            OctreeNode { min, max, ..*n }
        })
        .collect();
    let vidx = ids.iter().flat_map(|&i| m.triangles[i as usize]).collect();
    let bounds = octree.nodes[0].aabb();
    HostPart {
        ids,
        records,
        octree,
        nodes,
        vidx,
        bounds,
    }
}

/// A node's box in the record frame (`center` taken off), rounded outward to f32: what the
/// shaders cull by, for both trees.
pub(crate) fn record_bounds(b: &Aabb, center: DVec3) -> ([f32; 3], [f32; 3]) {
    (
        (b.min - center).to_array().map(down),
        (b.max - center).to_array().map(up),
    )
}

/// One part on the GPU.
pub struct GpuPart {
    pub ids: Vec<u32>,
    pub bounds: Aabb,
    pub triangles: u32,
    pub node_count: u32,
    pub tris: wgpu::Buffer,
    pub nodes: wgpu::Buffer,
    pub vidx: wgpu::Buffer,
}

pub struct GpuMesh {
    /// The record frame's origin in the mesh's own coordinates (an f32-representable point).
    pub center: DVec3,
    /// Largest distance of a vertex from `center`.
    pub radius: f64,
    pub triangles: u32,
    pub parts: Vec<GpuPart>,
    /// The hierarchy rays walk, uploaded by the first batch of rays ([`super::rays`]).
    pub(crate) bvh: std::sync::Mutex<Option<std::sync::Arc<super::hierarchy::GpuBvh>>>,
    /// Its nodes' oriented boxes, uploaded by the first batch of nearest points.
    pub(crate) obbs: std::sync::Mutex<Option<std::sync::Arc<wgpu::Buffer>>>,
}

/// The smallest frame the GPU stages take (2^-14, about 6e-5 across). Their margins are
/// relative to the frame, and f32's rounding stops being relative below its normal range:
/// squares of lengths under about 1e-19, and, in the batch stages, the squared cross product
/// of a triangle's edges where twice its area is under about 1e-19 (flushed to zero by most
/// drivers, which drops the face from its distance: an error up to its inradius, 1e-10, which
/// the band covers from this size on; the pair kernels scale it first, `pow2_scale`). A torus
/// 1e-20 across got wrong nearest points and lost clearance pairs. Such a mesh's queries are
/// the CPU's.
pub(crate) const SMALLEST_SCALE: f64 = 1.0 / (1u64 << 14) as f64;

/// The largest frame the batch stages (nearest points, winding numbers, rays) take: they take
/// products of three lengths (orientations), which must stay below f32's 3.4e38 with room
/// (about 30 S^3; from 1.6e12 a product overflows to infinity, which a bound then takes for a
/// certain sign; a torus 1e20 across got no nearest point for half its points). Such a batch is
/// the CPU's.
pub(crate) const LARGEST_SCALE: f64 = 1e12;

/// The largest frame the pair stages (`check`, `self`, poses) take: their distance kernels take
/// fourth powers of lengths (the squared cross product of two edges, about 144 m^4), which
/// must stay below f32's 3.4e38 (2^29, about 5.4e8; a review's f32 emulation found an edge-edge
/// distance 300 times too large from 4.3e9 on). Beyond it `check`, `self` and poses are the
/// CPU's.
pub(crate) const LARGEST_PAIR_SCALE: f64 = (1u64 << 29) as f64;

impl GpuMesh {
    /// How far a point or a corner may lie, in this mesh's record frame, from where the CPU's
    /// f64 geometry puts it, for coordinates up to `scale` in the frame and `world` in world
    /// coordinates: rounding to f32 (2^-24 of the scale, with room: 2^-19), the CPU's posed
    /// f64 coordinates (an ulp of the world's magnitude, with room), and `Rᵀ` taken for the
    /// inverse of a rotation a little off orthonormal. The batch stages' one tolerance.
    pub(crate) fn delta(&self, m: &crate::query::Posed, scale: f64, world: f64) -> f64 {
        scale * 2f64.powi(-19)
            + 64.0 * f64::EPSILON * world
            + m.pose
                .unapply_error(scale.max(world) + self.center.abs().max_element())
    }

    /// For a batch of points (`points` in the world, `local` in the record frame): the
    /// frame's scale (the farthest point or vertex) and the world's magnitude, or `None` where
    /// the frame is outside [`SMALLEST_SCALE`] and [`LARGEST_SCALE`].
    pub(crate) fn batch_scale(
        &self,
        m: &crate::query::Posed,
        points: &[DVec3],
        local: &[[f32; 4]],
    ) -> Option<(f64, f64)> {
        let far = local
            .iter()
            .flat_map(|p| p[..3].iter())
            .fold(0.0f64, |a, &x| a.max((x as f64).abs()));
        let scale = far + self.radius;
        let world = points
            .iter()
            .fold(m.frame_magnitude(), |a, p| a.max(p.abs().max_element()));
        (SMALLEST_SCALE < scale && scale < LARGEST_SCALE && world.is_finite())
            .then_some((scale, world))
    }
}

/// Most triangles whose records (and octree) fit one storage binding of this adapter.
pub fn part_limit(ctx: &GpuContext) -> usize {
    let per_tri = std::mem::size_of::<TriRecord>() as u64;
    let binding = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    (binding / per_tri).max(1) as usize
}

impl GpuMesh {
    pub fn upload(ctx: &GpuContext, prep: &PreparedMesh, part_limit: usize) -> Result<GpuMesh> {
        let host = HostArrays::new(prep, part_limit);
        let limit = ctx
            .limits
            .max_storage_buffer_binding_size
            .min(ctx.limits.max_buffer_size);
        let buf = |label: &str, bytes: &[u8]| -> Result<wgpu::Buffer> {
            if bytes.len() as u64 > limit {
                return Err(Error::Gpu(format!(
                    "{}: {label} need {} bytes, over this adapter's storage binding limit of {limit} bytes",
                    prep.mesh.source.display(),
                    bytes.len()
                )));
            }
            Ok(ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytes,
                    usage: wgpu::BufferUsages::STORAGE,
                }))
        };
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let parts = host
            .parts
            .into_iter()
            .map(|p| {
                Ok(GpuPart {
                    triangles: p.ids.len() as u32,
                    node_count: p.nodes.len() as u32,
                    tris: buf("tri records", bytemuck::cast_slice(&p.records))?,
                    nodes: buf("octree nodes", bytemuck::cast_slice(&p.nodes))?,
                    vidx: buf("vertex indices", bytemuck::cast_slice(&p.vidx))?,
                    ids: p.ids,
                    bounds: p.bounds,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!(
                "{}: uploading the mesh: {e}",
                prep.mesh.source.display()
            )));
        }
        // The copies run at the next submission: wait for them here, so that the upload is
        // timed as the upload and not as the first query's work.
        ctx.queue.submit([]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("uploading the mesh: {e}")))?;
        Ok(GpuMesh {
            center: host.center,
            radius: host.radius,
            triangles: prep.mesh.triangles.len() as u32,
            parts,
            bvh: Default::default(),
            obbs: Default::default(),
        })
    }
}
