//! The hierarchy rays and nearest points walk ([`crate::bvh`]) on the GPU: its nodes and its
//! triangles' corners in slot order, and (for nearest points) its nodes' oriented boxes
//! ([`crate::obb`]), in the record frame, uploaded by the first batch that needs them and kept
//! with the mesh.

use super::layout::{row, BvhNode, ObbNode};
use super::mesh::record_bounds;
use super::{GpuBackend, GpuMesh};
use crate::error::{Error, Result};
use crate::geom::DVec3;
use crate::obb::Obb;
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

/// Each hierarchy node's oriented box ([`crate::obb`]) in the record frame of `gm`, in `f32`:
/// what `closest.wgsl` bounds a point's distance to a node by, and the twin.
pub fn obb_nodes(m: &Posed, gm: &GpuMesh) -> Vec<ObbNode> {
    let center = gm.center;
    m.prep
        .oriented()
        .boxes
        .par_iter()
        .map(|b| record_obb(b, center))
        .collect()
}

/// `b` in the record frame ([`Obb::rounded`] about the record centre).
fn record_obb(b: &Obb, center: DVec3) -> ObbNode {
    let r = b.rounded(center);
    let [x, y, z] = r.center;
    ObbNode {
        center: [x, y, z, 0.0],
        axes: std::array::from_fn(|k| {
            let [ax, ay, az] = r.axes[k];
            [ax, ay, az, r.half[k]]
        }),
    }
}

impl GpuBackend {
    /// A storage buffer of `bytes`, or an error naming `m` where the adapter cannot bind it.
    fn storage(&self, m: &Posed, label: &str, bytes: &[u8]) -> Result<wgpu::Buffer> {
        let limit = self
            .ctx
            .limits
            .max_storage_buffer_binding_size
            .min(self.ctx.limits.max_buffer_size);
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
    }

    /// The mesh's hierarchy uploaded now, with its oriented boxes where `boxes` (what nearest
    /// points and poses walk; rays walk the hierarchy alone), not by the first batch: a caller
    /// that times its batches, as the CLI's summaries do (`prepare_ms`), keeps the build and
    /// the upload out of them.
    pub fn make_resident_hierarchy(&self, m: &Posed, gm: &GpuMesh, boxes: bool) -> Result<()> {
        self.resident_bvh(m, gm)?;
        if boxes {
            self.resident_obbs(m, gm)?;
        }
        Ok(())
    }

    /// The mesh's hierarchy on the GPU, uploaded on first use and kept with the mesh.
    pub(super) fn resident_bvh(&self, m: &Posed, gm: &GpuMesh) -> Result<Arc<GpuBvh>> {
        let mut slot = gm.bvh.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = slot.as_ref() {
            return Ok(b.clone());
        }
        // Made in parallel while the lock is held: apart from rayon's pool, from a hierarchy
        // made before (crate::once).
        m.prep.bvh();
        let (nodes, corners) = crate::once::apart(|| bvh_arrays(m, gm));
        let b = Arc::new(GpuBvh {
            nodes: self.storage(m, "hierarchy nodes", bytemuck::cast_slice(&nodes))?,
            corners: self.storage(m, "hierarchy corners", bytemuck::cast_slice(&corners))?,
        });
        *slot = Some(b.clone());
        Ok(b)
    }

    /// The hierarchy's oriented boxes on the GPU ([`obb_nodes`]), uploaded by the first batch
    /// of nearest points and kept with the mesh.
    pub(super) fn resident_obbs(&self, m: &Posed, gm: &GpuMesh) -> Result<Arc<wgpu::Buffer>> {
        let mut slot = gm.obbs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = slot.as_ref() {
            return Ok(b.clone());
        }
        m.prep.oriented();
        let boxes = crate::once::apart(|| obb_nodes(m, gm));
        let b = Arc::new(self.storage(m, "hierarchy boxes", bytemuck::cast_slice(&boxes))?);
        *slot = Some(b.clone());
        Ok(b)
    }
}
