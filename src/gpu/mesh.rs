//! Meshes resident on the GPU: triangle records and the flattened octree uploaded once, in the
//! mesh's record frame (its own coordinates less a centre `c`), and reused by every query and
//! pose. Coordinates relative to `c` keep f32 precise for parts modelled far from the origin.

use super::GpuContext;
use crate::error::{Error, Result};
use crate::geom::DVec3;
use crate::mesh::TriRecord;
use crate::octree::{down, up, OctreeNode};
use crate::query::PreparedMesh;
use wgpu::util::DeviceExt;

pub struct GpuMesh {
    /// The record frame's origin in the mesh's own coordinates (an f32-representable point).
    pub center: DVec3,
    /// Largest distance of a vertex from `center`.
    pub radius: f64,
    pub triangles: u32,
    pub tris: wgpu::Buffer,
    pub nodes: wgpu::Buffer,
    pub index: wgpu::Buffer,
    /// Welded vertex indices, three per triangle (self-intersection tells neighbours by them).
    pub vidx: wgpu::Buffer,
}

/// What [`GpuMesh::upload`] sends, built on the host: also what the stage tests give the twins.
pub struct HostArrays {
    pub center: DVec3,
    pub radius: f64,
    pub records: Vec<TriRecord>,
    pub nodes: Vec<OctreeNode>,
    pub vidx: Vec<u32>,
}

impl HostArrays {
    pub fn new(prep: &PreparedMesh) -> HostArrays {
        let m = &prep.mesh;
        let bb = m.bounding_box();
        let center = bb.center().as_vec3().as_dvec3();
        let radius = (0..m.vertices.len() as u32)
            .map(|i| m.vertex(i).distance(center))
            .fold(0.0, f64::max);
        let records: Vec<TriRecord> = (0..m.triangles.len())
            .map(|i| TriRecord::new(&m.triangle(i).map(|v| v - center)))
            .collect();
        let nodes: Vec<OctreeNode> = prep
            .octree
            .nodes
            .iter()
            .map(|n| {
                let b = n.aabb();
                OctreeNode {
                    min: (b.min - center).to_array().map(down),
                    max: (b.max - center).to_array().map(up),
                    ..*n
                }
            })
            .collect();
        let vidx: Vec<u32> = m.triangles.iter().flatten().copied().collect();
        HostArrays {
            center,
            radius,
            records,
            nodes,
            vidx,
        }
    }
}

impl GpuMesh {
    pub fn upload(ctx: &GpuContext, prep: &PreparedMesh) -> Result<GpuMesh> {
        let m = &prep.mesh;
        let HostArrays {
            center,
            radius,
            records,
            nodes,
            vidx,
        } = HostArrays::new(prep);
        let limit = ctx.limits.max_storage_buffer_binding_size;
        let need = std::mem::size_of_val(records.as_slice()) as u64;
        if need > limit || need > ctx.limits.max_buffer_size {
            return Err(Error::Gpu(format!(
                "{}: {} triangles need {need} bytes of records, over this adapter's storage binding limit of {limit} bytes (splitting a mesh across bindings is not implemented; use --backend cpu)",
                m.source.display(),
                m.triangles.len()
            )));
        }
        let buf = |label: &str, bytes: &[u8]| {
            ctx.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytes,
                    usage: wgpu::BufferUsages::STORAGE,
                })
        };
        Ok(GpuMesh {
            center,
            radius,
            triangles: m.triangles.len() as u32,
            tris: buf("tri records", bytemuck::cast_slice(&records)),
            nodes: buf("octree nodes", bytemuck::cast_slice(&nodes)),
            index: buf(
                "octree triangle index",
                bytemuck::cast_slice(&prep.octree.tri_index),
            ),
            vidx: buf("vertex indices", bytemuck::cast_slice(&vidx)),
        })
    }
}
