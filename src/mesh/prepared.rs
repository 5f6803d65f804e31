//! A mesh prepared once for any number of queries and poses: welded, with its octree,
//! topology, bodies and zero-area flags.

use super::{Bodies, Caps, Mesh, MeshInfo};
use crate::bvh::Bvh;
use crate::error::Result;
use crate::gpu::Resident;
use crate::nearest_tree::NearestTree;
use crate::obb::Oriented;
use crate::octree::Octree;
use crate::once::Made;
use crate::wide::WideTree;
use std::time::Instant;

/// A mesh ready for queries: welded, with its octree, topology, bodies and zero-area flags.
pub struct PreparedMesh {
    pub mesh: Mesh,
    pub octree: Octree,
    pub info: MeshInfo,
    pub zero_area: Vec<bool>,
    /// Time to build the octree, milliseconds.
    pub octree_ms: f64,
    /// Its connected pieces, and which of them are closed ([`Mesh::bodies`]).
    pub bodies: Bodies,
    /// The caps that close its boundary for the winding number, made on first use.
    caps: Made<Caps>,
    /// The hierarchy rays and nearest points walk, made on first use.
    bvh: Made<Bvh>,
    /// The eight-wide tree the CPU's rays walk, made on first use (`None`: it failed its
    /// check, and rays walk [`Bvh`]).
    wide: Made<Option<WideTree>>,
    /// Oriented boxes around the hierarchy's nodes ([`crate::obb`]): for poses, long sweeps and
    /// batches of nearest points, made on first use.
    oriented: Made<Oriented>,
    /// Those boxes four to a node, for batches of nearest points on the CPU, made with them
    /// for such a batch.
    nearest: Made<NearestTree>,
    /// Its uploads to the GPU backends that have answered for it, kept for the next query.
    pub(crate) resident: Resident,
}

impl PreparedMesh {
    /// [`PreparedMesh::new`] of a mesh [`Mesh::validate`] accepts, else its error.
    pub fn try_new(mesh: Mesh) -> Result<PreparedMesh> {
        mesh.validate()?;
        Ok(PreparedMesh::new(mesh))
    }

    /// The mesh with its octree, topology and bodies.
    ///
    /// # Panics
    /// Where a triangle names a vertex the mesh does not have. A mesh from [`Mesh::load`] or
    /// [`Mesh::from_soup`] never does; one built field by field can be given to
    /// [`PreparedMesh::try_new`], which refuses it (and non-finite coordinates) instead.
    pub fn new(mesh: Mesh) -> PreparedMesh {
        let t = Instant::now();
        let octree = Octree::build(&mesh);
        let octree_ms = t.elapsed().as_secs_f64() * 1e3;
        let zero_area = mesh.zero_area_flags();
        let (info, open_vertices) = mesh.info_and_open_vertices(&zero_area);
        let bodies = mesh.bodies(&open_vertices);
        PreparedMesh {
            mesh,
            octree,
            info,
            zero_area,
            octree_ms,
            bodies,
            caps: Made::default(),
            bvh: Made::default(),
            wide: Made::default(),
            oriented: Made::default(),
            nearest: Made::default(),
            resident: Resident::default(),
        }
    }

    /// The hierarchy rays and nearest points walk ([`Bvh`]): built on first use, since pair
    /// queries never need it.
    pub fn bvh(&self) -> &Bvh {
        self.bvh.get_or_make(|| Bvh::build(&self.mesh))
    }

    /// The tree the CPU's rays walk ([`WideTree`]), built on first use; `None` where
    /// [`WideTree::build`] refuses the mesh (empty, or a tree too deep), and rays walk [`Bvh`].
    pub fn wide(&self) -> Option<&WideTree> {
        self.wide
            .get_or_make(|| WideTree::build(&self.mesh))
            .as_ref()
    }

    /// Each hierarchy node's oriented box and triangle count ([`crate::obb`]),
    /// made on first use.
    pub fn oriented(&self) -> &Oriented {
        let bvh = self.bvh();
        self.oriented
            .get_or_make(|| Oriented::build(bvh, &self.mesh))
    }

    /// Make the oriented boxes, and their four-wide tree ([`NearestTree`]), for a batch of
    /// `queries` nearest points: a point far from the surface reaches a few leaves through them
    /// where axis-aligned boxes let it reach hundreds. Worth building once a batch has an
    /// eighth as many points as the mesh has triangles (igea: 80 ms for the boxes and 35 for
    /// the tree; 100k points then take a quarter of the time, docs/performance.md).
    pub fn oriented_for(&self, queries: usize) {
        if queries.saturating_mul(8) >= self.mesh.triangles.len() {
            let (bvh, oriented) = (self.bvh(), self.oriented());
            self.nearest
                .get_or_make(|| NearestTree::build(bvh, oriented));
        }
    }

    /// The oriented boxes four to a node ([`NearestTree`]), if [`PreparedMesh::oriented_for`]
    /// has made them.
    pub fn nearest_tree_if_made(&self) -> Option<&NearestTree> {
        self.nearest.get()
    }

    /// [`PreparedMesh::oriented`] if it has been made.
    pub fn oriented_if_made(&self) -> Option<&Oriented> {
        self.oriented.get()
    }

    /// The caps that close its boundary ([`Caps`]): none for a closed, consistently oriented
    /// mesh, whose winding number an exact ray count gives alone.
    pub fn caps(&self) -> &Caps {
        self.caps.get_or_make(|| {
            if self.info.closed && self.info.oriented {
                Caps::default()
            } else {
                Caps::of(&self.mesh)
            }
        })
    }
}
