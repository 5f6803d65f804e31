//! The hierarchy rays and nearest points walk ([`crate::bvh`]) on the GPU: its nodes and its
//! triangles' corners in slot order, in the record frame, uploaded by the first batch that
//! needs them and kept with the mesh.

use super::layout::{row, BvhNode};
use super::mesh::record_bounds;
use super::{GpuBackend, GpuMesh};
use crate::error::{Error, Result};
use crate::query::Posed;
use rayon::prelude::*;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// The hierarchy on the GPU: its nodes and its triangles' corners in slot order, both in the
/// record frame.
pub struct GpuBvh {
    pub nodes: wgpu::Buffer,
    pub corners: wgpu::Buffer,
}

/// The hierarchy's nodes (boxes rounded outward) and its slots' corners (rounded as the
/// triangle records' are) in the record frame of `gm`: what the GPU walks, and the twin.
pub fn bvh_arrays(m: &Posed, gm: &GpuMesh) -> (Vec<BvhNode>, Vec<[f32; 4]>) {
    let (prep, center) = (m.prep, gm.center);
    let bvh = prep.bvh();
    let nodes = bvh
        .nodes
        .par_iter()
        .map(|n| {
            let (min, max) = record_bounds(&n.aabb(), center);
            BvhNode { min, max, ..*n }
        })
        .collect();
    let corners = bvh
        .tris
        .par_iter()
        .flat_map_iter(|&t| prep.mesh.triangle(t as usize).map(|v| row(v - center)))
        .collect();
    (nodes, corners)
}

impl GpuBackend {
    /// The mesh's hierarchy on the GPU, uploaded on first use and kept with the mesh.
    pub(super) fn resident_bvh(&self, m: &Posed, gm: &GpuMesh) -> Result<Arc<GpuBvh>> {
        let mut slot = gm.bvh.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = slot.as_ref() {
            return Ok(b.clone());
        }
        let (nodes, corners) = bvh_arrays(m, gm);
        let limit = self
            .ctx
            .limits
            .max_storage_buffer_binding_size
            .min(self.ctx.limits.max_buffer_size);
        let buf = |label: &str, bytes: &[u8]| -> Result<wgpu::Buffer> {
            if bytes.len() as u64 > limit {
                return Err(Error::Gpu(format!(
                    "{}: {label} need {} bytes, over this adapter's storage binding limit of {limit} bytes",
                    m.prep.mesh.source.display(),
                    bytes.len()
                )));
            }
            Ok(self
                .ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytes,
                    usage: wgpu::BufferUsages::STORAGE,
                }))
        };
        let b = Arc::new(GpuBvh {
            nodes: buf("hierarchy nodes", bytemuck::cast_slice(&nodes))?,
            corners: buf("hierarchy corners", bytemuck::cast_slice(&corners))?,
        });
        *slot = Some(b.clone());
        Ok(b)
    }
}
