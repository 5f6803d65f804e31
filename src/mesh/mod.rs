//! Meshes: loading, welding, validation, topology, and the per-triangle records of Nathan (2015).

mod boundary;
pub mod generate;
mod pose;
mod prepared;
pub mod read;
mod record;

pub use boundary::{BoundaryReport, Caps};
pub use pose::Pose;
pub use prepared::PreparedMesh;
pub use record::TriRecord;

use crate::error::{Error, Result};
use crate::geom::{predicates, Aabb, DVec3, Tri};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Triangle indices are `u32` on the GPU; one index is kept back as a sentinel.
pub const MAX_TRIANGLES: u64 = u32::MAX as u64 - 1;

/// An indexed triangle mesh in its own coordinates (single precision, as STL stores it).
///
/// Vertices are welded: bit-identical positions share one index, so two triangles share an edge
/// exactly when they share two vertex indices. A pose is applied at query time; the mesh is
/// never moved.
#[derive(Clone, Debug)]
pub struct Mesh {
    /// Where it came from (a path, or a label for generated meshes), for messages.
    pub source: PathBuf,
    pub vertices: Vec<[f32; 3]>,
    pub triangles: Vec<[u32; 3]>,
    /// The length unit the file declares (3MF, glTF), if any: reported, never applied.
    pub unit: Option<String>,
}

/// A mesh whose coordinates float32 holds coarsely for its size ([`Mesh::coarse_float32`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coarse {
    /// The largest coordinate, in magnitude.
    pub reach: f64,
    /// The float32 spacing there: how far apart the values it can hold are.
    pub spacing: f64,
    /// The diagonal of the mesh's box.
    pub size: f64,
}

impl std::fmt::Display for Coarse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "its coordinates reach {:.3e}, where float32 (how meshes are stored, as binary STL stores them) holds them only to {:.3e}, ",
            self.reach, self.spacing
        )?;
        match self.size > 0.0 {
            true => write!(
                f,
                "{:.1e} of its size ({:.3e})",
                self.spacing / self.size,
                self.size
            )?,
            false => write!(
                f,
                "and it is a single point there (if it was not made as one, float32 has collapsed it)"
            )?,
        }
        write!(
            f,
            ": move it near the origin in its file and place it with its pose (float64)"
        )
    }
}

impl Mesh {
    /// Load a mesh file: STL, OBJ, PLY, 3MF, glTF or GLB (see [`read::read_file`]).
    pub fn load(path: impl AsRef<Path>) -> Result<Mesh> {
        let path = path.as_ref();
        let loaded = read::read_file_with_unit(path)?;
        let mut mesh = Mesh::from_soup(path, loaded.soup)?;
        mesh.unit = loaded.unit;
        Ok(mesh)
    }

    /// Build from a triangle soup: check every coordinate is finite and the mesh non-empty, weld.
    pub fn from_soup(source: impl Into<PathBuf>, soup: read::Soup) -> Result<Mesh> {
        let source = source.into();
        if soup.is_empty() {
            return Err(Error::Empty { path: source });
        }
        if soup.len() as u64 > MAX_TRIANGLES {
            return Err(Error::TooLarge {
                path: source,
                count: soup.len() as u64,
                limit: MAX_TRIANGLES,
            });
        }
        for (i, t) in soup.iter().enumerate() {
            if let Some(&value) = t.iter().flatten().find(|v| !v.is_finite()) {
                return Err(Error::NonFinite {
                    path: source,
                    triangle: i,
                    value,
                });
            }
        }
        let mut index: foldhash::HashMap<[u32; 3], u32> =
            HashMap::with_capacity_and_hasher(soup.len() / 2 + 3, Default::default());
        let mut vertices = Vec::with_capacity(soup.len() / 2 + 3);
        let triangles = soup
            .iter()
            .map(|t| {
                t.map(|v| {
                    // +0.0 and −0.0 are the same point.
                    let key = v.map(|c| if c == 0.0 { 0u32 } else { c.to_bits() });
                    *index.entry(key).or_insert_with(|| {
                        vertices.push(v);
                        (vertices.len() - 1) as u32
                    })
                })
            })
            .collect();
        Ok(Mesh {
            source,
            vertices,
            triangles,
            unit: None,
        })
    }

    /// What the queries need of a mesh built field by field: no more triangles than this build
    /// indexes, each naming vertices the mesh has, and every vertex's coordinates finite (used
    /// or not: bounds and sweeps read them all). A mesh of no triangles passes (queries on it
    /// alone find nothing; two parts refuse it). It does not weld: equal vertices given twice
    /// stay two, and their triangles are not neighbours, as [`Mesh::from_soup`] would make
    /// them. [`PreparedMesh::try_new`](crate::PreparedMesh::try_new) asks it.
    pub fn validate(&self) -> Result<()> {
        let path = || self.source.clone();
        if self.triangles.len() as u64 > MAX_TRIANGLES {
            return Err(Error::TooLarge {
                path: path(),
                count: self.triangles.len() as u64,
                limit: MAX_TRIANGLES,
            });
        }
        let n = self.vertices.len();
        for (i, t) in self.triangles.iter().enumerate() {
            if let Some(&v) = t.iter().find(|&&v| v as usize >= n) {
                return Err(Error::Format {
                    path: path(),
                    format: "mesh",
                    message: format!("triangle {i} names vertex {v}, but there are {n}"),
                });
            }
        }
        match self
            .vertices
            .iter()
            .position(|p| p.iter().any(|c| !c.is_finite()))
        {
            Some(v) => Err(Error::Format {
                path: path(),
                format: "mesh",
                message: format!(
                    "vertex {v} has a non-finite coordinate ({:?})",
                    self.vertices[v]
                ),
            }),
            None => Ok(()),
        }
    }

    /// Where float32, as meshes are stored (binary STL's, and every file's once read), holds
    /// this mesh's coordinates more coarsely than 1e-4 of its size: parts at georeferenced
    /// coordinates (a 0.4 m column at UTM 5.4e6, held to 0.5 m) come out moved and reshaped,
    /// and a 2 mm gap read as touching (a hunt's helper). Poses are float64: such a part
    /// belongs near the origin in its file, placed by its pose. The command line and Python
    /// say so; nothing else changes.
    pub fn coarse_float32(&self) -> Option<Coarse> {
        let b = self.bounding_box();
        // Exact: every coordinate is a float32.
        let reach = b.min.abs().max(b.max.abs()).max_element() as f32;
        let size = b.diagonal();
        // The gap from the largest coordinate to the next float32.
        let spacing = (f32::from_bits(reach.to_bits() + 1) - reach) as f64;
        // A part float32 collapses to one point (a 1 cm cube at ECEF coordinates, a review
        // found) has no size left: coarse as well.
        (reach.is_finite() && reach > 0.0 && spacing > 1e-4 * size).then_some(Coarse {
            reach: reach as f64,
            spacing,
            size,
        })
    }

    /// This mesh's declared unit and `other`'s where both declare one and they differ (any
    /// case): coordinates are never converted, so the command line and Python say so.
    /// Names of one unit are one: any case, plural or abbreviated ("mm", "millimeters",
    /// "Millimeter"), as trimesh and files write them.
    pub fn units_differ<'a>(&'a self, other: &'a Mesh) -> Option<(&'a str, &'a str)> {
        match (&self.unit, &other.unit) {
            (Some(a), Some(b)) if unit_name(a) != unit_name(b) => Some((a, b)),
            _ => None,
        }
    }

    pub fn vertex(&self, i: u32) -> DVec3 {
        let v = self.vertices[i as usize];
        DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
    }

    /// Triangle `i` in the mesh's own coordinates.
    pub fn triangle(&self, i: usize) -> Tri {
        self.triangles[i].map(|v| self.vertex(v))
    }

    /// All vertices under `pose`, in `f64`.
    pub fn posed_vertices(&self, pose: &Pose) -> Vec<DVec3> {
        (0..self.vertices.len() as u32)
            .map(|i| pose.apply(self.vertex(i)))
            .collect()
    }

    pub fn bounding_box(&self) -> Aabb {
        Aabb::from_points((0..self.vertices.len() as u32).map(|i| self.vertex(i)))
    }

    /// Zero-area triangles, decided exactly (in parallel: a 10M-triangle mesh has 10M of them
    /// to decide).
    pub fn zero_area_flags(&self) -> Vec<bool> {
        (0..self.triangles.len())
            .into_par_iter()
            .map(|i| predicates::is_degenerate(&self.triangle(i)))
            .collect()
    }

    /// The per-triangle records of Nathan (2015), in the GPU layout.
    pub fn records(&self) -> Vec<TriRecord> {
        (0..self.triangles.len())
            .map(|i| TriRecord::new(&self.triangle(i)))
            .collect()
    }

    /// Triangles, vertices, bounds, zero-area count and topology.
    pub fn info(&self) -> MeshInfo {
        self.info_with(&self.zero_area_flags())
    }

    /// [`Mesh::info`] with the zero-area flags already decided.
    pub fn info_with(&self, zero_area: &[bool]) -> MeshInfo {
        self.info_and_open_vertices(zero_area).0
    }

    /// [`Mesh::info_with`], and the vertices with an edge not shared by exactly two triangles
    /// (none when the mesh is closed): what [`Mesh::bodies`] needs to tell open bodies.
    pub fn info_and_open_vertices(&self, zero_area: &[bool]) -> (MeshInfo, Vec<u32>) {
        let bbox = self.bounding_box();
        let (open, oriented) = self.topology();
        let info = MeshInfo {
            triangles: self.triangles.len(),
            vertices: self.vertices.len(),
            bbox_min: bbox.min.to_array(),
            bbox_max: bbox.max.to_array(),
            zero_area_triangles: zero_area.iter().filter(|&&z| z).count(),
            closed: open.is_empty(),
            oriented,
        };
        (info, open)
    }

    /// The bodies (connected components: triangles sharing a vertex belong to one body), in
    /// the order of their first triangles. `open_vertices`: those with an edge not shared by
    /// exactly two triangles ([`Mesh::info_and_open_vertices`]); their bodies are open.
    pub fn bodies(&self, open_vertices: &[u32]) -> Bodies {
        let nv = self.vertices.len();
        let mut parent: Vec<u32> = (0..nv as u32).collect();
        fn root(parent: &mut [u32], mut v: u32) -> u32 {
            while parent[v as usize] != v {
                let up = parent[parent[v as usize] as usize];
                parent[v as usize] = up; // path halving
                v = up;
            }
            v
        }
        for t in &self.triangles {
            let r0 = root(&mut parent, t[0]);
            for &k in &t[1..] {
                let r = root(&mut parent, k);
                if r != r0 {
                    parent[r.max(r0) as usize] = r.min(r0);
                }
            }
        }
        // Bodies numbered by first triangle; each one's probe is the first vertex of its
        // middle triangle, found by counting.
        const NONE: u32 = u32::MAX;
        let mut body_of_root = vec![NONE; nv];
        let mut sizes: Vec<usize> = Vec::new();
        let of_triangle: Vec<u32> = self
            .triangles
            .iter()
            .map(|t| {
                let r = root(&mut parent, t[0]) as usize;
                if body_of_root[r] == NONE {
                    body_of_root[r] = sizes.len() as u32;
                    sizes.push(0);
                }
                let b = body_of_root[r];
                sizes[b as usize] += 1;
                b
            })
            .collect();
        let mut seen = vec![0usize; sizes.len()];
        let mut probes = vec![0u32; sizes.len()];
        for (t, &b) in self.triangles.iter().zip(&of_triangle) {
            let b = b as usize;
            if seen[b] == sizes[b] / 2 {
                probes[b] = t[0];
            }
            seen[b] += 1;
        }
        // An edge's two ends are in its body: one open vertex makes its body open.
        let mut closed = vec![true; sizes.len()];
        for &v in open_vertices {
            let b = body_of_root[root(&mut parent, v) as usize];
            if b != NONE {
                closed[b as usize] = false;
            }
        }
        // Per vertex: its body (u32::MAX for a vertex no triangle uses).
        let of_vertex: Vec<u32> = (0..nv as u32)
            .map(|v| body_of_root[root(&mut parent, v) as usize])
            .collect();
        let mut vertex_counts = vec![0usize; sizes.len()];
        for &b in of_vertex.iter().filter(|&&b| b != NONE) {
            vertex_counts[b as usize] += 1;
        }
        Bodies {
            probes,
            closed,
            of_triangle,
            of_vertex,
            vertex_counts,
        }
    }

    /// The open vertices (an edge of theirs is not shared by exactly two triangles; closed: none)
    /// and `oriented`: no directed edge is used twice, i.e. neighbours traverse their shared edge
    /// in opposite directions.
    ///
    /// Directed edges grouped by their first vertex (a counting sort, linear), each group sorted
    /// (a handful of edges per vertex): counting an edge either way is then a search in one
    /// small group. At 1M triangles about 4x faster than sorting all the edges as keys.
    fn topology(&self) -> (Vec<u32>, bool) {
        let nv = self.vertices.len();
        let mut start = vec![0usize; nv + 1];
        for t in &self.triangles {
            for &a in t {
                start[a as usize + 1] += 1;
            }
        }
        for i in 0..nv {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut to = vec![0u32; start[nv]];
        for t in &self.triangles {
            for k in 0..3 {
                let a = t[k] as usize;
                to[fill[a]] = t[(k + 1) % 3];
                fill[a] += 1;
            }
        }
        let mut groups: Vec<&mut [u32]> = Vec::with_capacity(nv);
        let mut rest = to.as_mut_slice();
        for v in 0..nv {
            let (head, tail) = rest.split_at_mut(start[v + 1] - start[v]);
            groups.push(head);
            rest = tail;
        }
        groups.par_iter_mut().for_each(|g| g.sort_unstable());
        let to = &to;
        let group = |a: u32| &to[start[a as usize]..start[a as usize + 1]];
        // Edges a -> b: a run in a's sorted group.
        let count = |a: u32, b: u32| {
            let g = group(a);
            g.partition_point(|&x| x <= b) - g.partition_point(|&x| x < b)
        };
        // Edges from a vertex to itself (a triangle with a repeated corner: a needle, or a
        // point) bound nothing and are left out, as the boundary report leaves them out (a
        // review's helper: a closed cube with a point triangle read "not closed, not oriented"
        // with no boundary edge, a needle "closed" beside one).
        let oriented = (0..nv as u32)
            .into_par_iter()
            .all(|a| group(a).windows(2).all(|w| w[0] != w[1] || w[0] == a));
        let open = (0..nv as u32)
            .into_par_iter()
            .filter(|&a| {
                let paired = |&b: &u32| b == a || count(a, b) + count(b, a) == 2;
                !group(a).iter().all(paired)
            })
            .collect();
        (open, oriented)
    }
}

/// A mesh's bodies: [`Mesh::bodies`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bodies {
    /// Per body: one of its vertices, the first of its middle triangle (not of its first: a
    /// mesh from a latitude–longitude grid starts at a pole, where thin triangles crowd).
    pub probes: Vec<u32>,
    /// Per body: closed (every edge shared by exactly two of its triangles).
    pub closed: Vec<bool>,
    /// Per triangle: its body.
    pub of_triangle: Vec<u32>,
    /// Per vertex: its body, `u32::MAX` for a vertex no triangle uses.
    pub of_vertex: Vec<u32>,
    /// Per body: how many vertices it has.
    pub vertex_counts: Vec<usize>,
}

/// What `meshclash info` reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeshInfo {
    pub triangles: usize,
    pub vertices: usize,
    pub bbox_min: [f64; 3],
    pub bbox_max: [f64; 3],
    pub zero_area_triangles: usize,
    pub closed: bool,
    pub oriented: bool,
}

/// A unit's name, lower case and singular, abbreviations spelt out: names of one unit are
/// one.
pub fn unit_name(unit: &str) -> String {
    let u = unit.trim().to_ascii_lowercase().replace("metre", "meter");
    let singular = match u.as_str() {
        "inches" => "inch",
        "feet" => "foot",
        _ => u.strip_suffix('s').unwrap_or(&u),
    };
    let name = match singular {
        "mm" => "millimeter",
        "cm" => "centimeter",
        "m" => "meter",
        "um" | "µm" | "micrometer" => "micron",
        "in" => "inch",
        "ft" => "foot",
        other => other,
    };
    name.to_string()
}

#[cfg(test)]
mod unit_tests {
    #[test]
    fn names_of_one_unit_are_one() {
        let same = [
            ("millimeter", "MM"),
            ("millimeters", "Millimetre"),
            ("inch", "inches"),
            ("in", "Inch"),
            ("micron", "micrometers"),
        ];
        for (a, b) in same {
            assert_eq!(super::unit_name(a), super::unit_name(b), "{a} {b}");
        }
        assert_ne!(super::unit_name("millimeter"), super::unit_name("inch"));
        assert_ne!(super::unit_name("m"), super::unit_name("mm"));
    }
}
