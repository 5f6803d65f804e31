//! `Mesh`: a mesh welded and prepared once (octree, topology, bodies), kept on the GPU after
//! its first GPU query.

use crate::convert::{asarray, check_shape, err, f64_array, json_to_py, room, value_error};
use crate::process::released;
use meshclash::mesh::BoundaryReport;
use meshclash::{Mesh as CoreMesh, PreparedMesh};
use numpy::ndarray::{Array2, ArrayViewD};
use numpy::{
    IntoPyArray, PyArray2, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PySequence, PyString};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// A triangle mesh, welded and prepared once for any number of queries.
///
/// ``Mesh(vertices, faces)`` from an (N, 3) float array and an (M, 3) integer array;
/// ``Mesh(obj)`` from anything with ``.vertices`` and ``.faces`` (a ``trimesh.Trimesh``);
/// ``load(path)`` from a file (STL, OBJ, PLY, 3MF, glTF or GLB).
///
/// Coordinates are stored as float32, as STL stores them: float64 input is rounded to the
/// nearest float32 here, once (poses stay float64, and every query computes in float64 with
/// exact predicates on the rounded coordinates). Vertices whose float32 coordinates are equal
/// are welded into one. Triangle ``i`` is row ``i`` of ``faces``, whatever the welding: every
/// triangle index a query returns is a row of the caller's ``faces``. Zero-area triangles are
/// kept (and counted by ``info()``); queries that cannot use them leave them out.
///
/// Its GPU buffers are made on its first GPU query and kept for the next.
#[pyclass(frozen, module = "meshclash")]
pub struct Mesh {
    pub prep: Arc<PreparedMesh>,
    edges: OnceLock<BoundaryReport>,
    /// The process that made it: see [`Drop`].
    pid: u32,
}

/// A mesh a forked child inherited is never freed there: its GPU buffers belong to the
/// parent's device (the child opens its own), and freeing them through the inherited one could
/// free the parent's (a review). The child's copy is left to the child's exit.
impl Drop for Mesh {
    fn drop(&mut self) {
        if self.pid != std::process::id() {
            std::mem::forget(self.prep.clone());
        }
    }
}

impl Mesh {
    /// Prepared, with a `UserWarning` where float32 holds its coordinates coarsely for its
    /// size ([`CoreMesh::coarse_float32`]), as the command line's notice.
    fn prepare(py: Python<'_>, mesh: CoreMesh) -> PyResult<Mesh> {
        if let Some(c) = mesh.coarse_float32() {
            let msg = format!("{}: {c}", mesh.source.display());
            let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
            PyErr::warn(py, &category, &std::ffi::CString::new(msg)?, 1)?;
        }
        Ok(Mesh {
            prep: Arc::new(released(py, || PreparedMesh::new(mesh))?),
            edges: OnceLock::new(),
            pid: std::process::id(),
        })
    }

    /// From arrays: vertices rounded to float32 (an error past float32's range), faces checked
    /// against the vertex count, then welded and prepared.
    fn from_arrays(
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        faces: &Bound<'_, PyAny>,
        source: &str,
    ) -> PyResult<Mesh> {
        Mesh::prepare(py, Mesh::welded(vertices, faces, source)?)
    }

    /// [`Mesh::from_arrays`]' mesh, welded, not yet prepared.
    fn welded(
        vertices: &Bound<'_, PyAny>,
        faces: &Bound<'_, PyAny>,
        source: &str,
    ) -> PyResult<CoreMesh> {
        // Refused as query rows are: booleans, complex numbers, strings (a review's helper:
        // the imaginary part was dropped, "0.5" parsed).
        let v = f64_array(vertices, "vertices", &[None, Some(3)])?;
        let f = asarray(faces, None)?;
        let f = f
            .cast::<PyUntypedArray>()
            .map_err(|_| value_error("faces must be an array of integers"))?;
        let kind = f.dtype().kind();
        // Booleans and floats are not vertex numbers: refuse them rather than truncate.
        let empty_floats = f.len() == 0 && kind == b'f';
        if !(kind == b'i' || kind == b'u' || empty_floats) {
            return Err(value_error(format!(
                "faces must be integers, got dtype {}",
                f.dtype()
            )));
        }
        let verts = float32_vertices(v.as_array(), source)?;
        // Unsigned indices are read as uint64 (int64 would wrap those from 2^63 on to negative
        // numbers, and the message would name a vertex the caller never gave).
        let soup = if kind == b'u' {
            let f = asarray(f, Some("uint64"))?
                .cast_into::<PyArrayDyn<u64>>()
                .map_err(|_| value_error("faces must be an array of integers"))?;
            check_shape(f.shape(), "faces", &[None, Some(3)])?;
            let f = f.readonly();
            gather(&verts, f.as_array(), source)?
        } else {
            let f = asarray(f, Some("int64"))?
                .cast_into::<PyArrayDyn<i64>>()
                .map_err(|_| value_error("faces must be an array of integers"))?;
            check_shape(f.shape(), "faces", &[None, Some(3)])?;
            let f = f.readonly();
            gather(&verts, f.as_array(), source)?
        };
        // Welding, most of the time a mesh takes before it is prepared, without the GIL (a
        // review's helper: another thread waited 0.8 s of 1.4 for 1.3M triangles).
        released(vertices.py(), || CoreMesh::from_soup(source, soup))?.map_err(err)
    }

    /// A `Mesh`, or anything with `.vertices` and `.faces` made into one (prepared anew).
    pub fn from_arg(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Arc<PreparedMesh>> {
        if let Ok(m) = obj.cast::<Mesh>() {
            return Ok(m.get().prep.clone());
        }
        Ok(Mesh::from_object(py, obj)?.prep.clone())
    }

    fn from_object(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Mesh> {
        // Only a missing attribute is the caller's type: another error raised by a property
        // (a lazily loaded mesh that fails) is theirs to see.
        let attr = |name: &str| match obj.getattr(name) {
            Ok(x) => Ok(Some(x)),
            Err(e) if e.is_instance_of::<PyAttributeError>(py) => Ok(None),
            Err(e) => Err(e),
        };
        let (Some(v), Some(f)) = (attr("vertices")?, attr("faces")?) else {
            let path = obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")?;
            let arrays = obj.hasattr("__array__")? || obj.is_instance_of::<PySequence>();
            return Err(value_error(match (path, arrays) {
                (true, _) => "a file is read by meshclash.load(path), not Mesh".to_string(),
                (_, true) => "Mesh(vertices) needs its faces too: Mesh(vertices, faces)".into(),
                _ => format!(
                    "expected a meshclash.Mesh or an object with .vertices and .faces, got {}",
                    obj.get_type().name()?
                ),
            }));
        };
        let source = format!("<{}>", obj.get_type().name()?);
        let mut mesh = Mesh::welded(&v, &f, &source)?;
        // trimesh keeps the unit its file declared (a 3MF's, as `load` reads it): kept, so
        // that parts in different units are warned of as files are (a review's helper).
        mesh.unit = match attr("units")? {
            Some(u) if u.is_instance_of::<PyString>() => Some(u.extract::<String>()?),
            _ => None,
        };
        Mesh::prepare(py, mesh)
    }
}

/// The vertices rounded to float32, refusing non-finite ones and those past float32's range.
fn float32_vertices(v: ArrayViewD<'_, f64>, source: &str) -> PyResult<Vec<[f32; 3]>> {
    let mut verts = room(v.shape()[0], "vertices")?;
    for (i, row) in v.outer_iter().enumerate() {
        let mut p = [0f32; 3];
        for k in 0..3 {
            let x = row[k];
            if !x.is_finite() {
                return Err(value_error(format!(
                    "{source}: vertex {i} has a non-finite coordinate ({x})"
                )));
            }
            p[k] = x as f32;
            if !p[k].is_finite() {
                return Err(value_error(format!(
                    "{source}: vertex {i} has coordinate {x:e}, beyond float32's range \
                     (meshclash stores coordinates as float32)"
                )));
            }
        }
        verts.push(p);
    }
    Ok(verts)
}

/// The triangle soup of `faces` (rows of indices into `verts`, signed or unsigned), each index
/// checked against the vertex count.
fn gather<T: Copy + Into<i128>>(
    verts: &[[f32; 3]],
    faces: ArrayViewD<'_, T>,
    source: &str,
) -> PyResult<Vec<[[f32; 3]; 3]>> {
    let n = verts.len();
    let mut soup = room(faces.shape()[0], "faces")?;
    for (t, row) in faces.outer_iter().enumerate() {
        let mut tri = [[0f32; 3]; 3];
        for k in 0..3 {
            let i: i128 = row[k].into();
            if i < 0 || i >= n as i128 {
                return Err(value_error(format!(
                    "{source}: face {t} refers to vertex {i}, but there are {n} vertices"
                )));
            }
            tri[k] = verts[i as usize];
        }
        soup.push(tri);
    }
    Ok(soup)
}

#[pymethods]
impl Mesh {
    #[new]
    #[pyo3(signature = (vertices, faces = None))]
    fn new(
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        faces: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Mesh> {
        match faces {
            Some(f) => Mesh::from_arrays(py, vertices, f, "<arrays>"),
            None => Mesh::from_object(py, vertices),
        }
    }

    /// The welded vertices, (V, 3) float64 (the stored float32 values, exactly).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let m = &self.prep.mesh;
        let flat = m.vertices.iter().flat_map(|p| p.map(f64::from)).collect();
        Array2::from_shape_vec((m.vertices.len(), 3), flat)
            .expect("three coordinates a vertex")
            .into_pyarray(py)
    }

    /// The triangles as rows of welded vertex indices, (M, 3) int64: row i is the caller's
    /// face i.
    #[getter]
    fn faces<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        let m = &self.prep.mesh;
        let flat = m.triangles.iter().flat_map(|t| t.map(i64::from)).collect();
        Array2::from_shape_vec((m.triangles.len(), 3), flat)
            .expect("three vertices a triangle")
            .into_pyarray(py)
    }

    /// Where the mesh came from, a ``str``: the path it was loaded from (as given to
    /// ``load``), or "<arrays>" / "<Trimesh>" (the type of the object it was made of).
    #[getter]
    fn source(&self) -> OsString {
        self.prep.mesh.source.clone().into_os_string()
    }

    /// The unit its file declares (as ``info()["unit"]``), or ``None``: meshes made of arrays,
    /// and formats that declare none.
    #[getter]
    fn unit(&self) -> Option<String> {
        self.prep.mesh.unit.clone()
    }

    /// What ``meshclash info --json`` prints: triangles, vertices (welded), bbox_min,
    /// bbox_max, zero_area_triangles, closed, oriented, bodies, closed_bodies, boundary_edges,
    /// boundary_edges_near_another, crack_tolerance, non_manifold_edges, unit.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let prep = &self.prep;
        // Made with the GIL released, and only then stored: inside `get_or_init` a thread
        // waiting to take the GIL back, while another holding it waits on that initializer,
        // hung both (two threads' first `info()` of one mesh; a review's helper found it).
        let edges = match self.edges.get() {
            Some(e) => e,
            None => {
                let made = released(py, || BoundaryReport::of(&prep.mesh))?;
                self.edges.get_or_init(|| made)
            }
        };
        json_to_py(
            py,
            &meshclash::json::info(&prep.info, &prep.bodies, edges, prep.mesh.unit.as_deref()),
        )
    }

    fn __len__(&self) -> usize {
        self.prep.mesh.triangles.len()
    }

    /// Pickled as its welded vertices and faces, its source and unit (a review's helper:
    /// `multiprocessing` with "spawn", macOS's and Windows's default, could not send one):
    /// unpickled, the same triangles in the same order, prepared anew.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let module = py.import("meshclash._meshclash")?;
        let args = (
            self.vertices(py),
            self.faces(py),
            self.source(),
            self.unit(),
        );
        Ok((
            module.getattr("_mesh_from_parts")?,
            args.into_pyobject(py)?.into_any(),
        ))
    }

    /// The same mesh: it never changes, so a copy is itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    fn __repr__(&self) -> String {
        format!(
            "meshclash.Mesh({} triangles, {} vertices, from {})",
            self.prep.mesh.triangles.len(),
            self.prep.mesh.vertices.len(),
            self.prep.mesh.source.display()
        )
    }
}

/// Load a mesh file and prepare it: STL (binary or ASCII), OBJ, PLY (ASCII or binary), 3MF,
/// glTF or GLB, chosen by the extension as the command line chooses (3MF components and build
/// items, glTF nodes placed by their transforms; ``info()["unit"]`` is the unit the file
/// declares). ``OSError`` when the file cannot be read, ``ValueError`` when it is not a valid
/// mesh (the command line's messages).
#[pyfunction]
pub fn load(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Mesh> {
    // A str, bytes or os.PathLike, as open() takes (a review's helper: bytes were refused,
    // though the message for another type named them).
    let os = py.import("os")?;
    let path: PathBuf = os
        .call_method1("fsdecode", (os.call_method1("fspath", (path,))?,))?
        .extract()?;
    let mesh = released(py, || CoreMesh::load(&path))?.map_err(err)?;
    Mesh::prepare(py, mesh)
}

/// A pickled `Mesh` made again ([`Mesh::__reduce__`]): its welded vertices and faces, its
/// source and unit.
#[pyfunction]
pub fn _mesh_from_parts(
    py: Python<'_>,
    vertices: &Bound<'_, PyAny>,
    faces: &Bound<'_, PyAny>,
    source: PathBuf,
    unit: Option<String>,
) -> PyResult<Mesh> {
    let mut mesh = Mesh::welded(vertices, faces, &source.to_string_lossy())?;
    mesh.unit = unit;
    mesh.source = source;
    Mesh::prepare(py, mesh)
}

/// A `UserWarning` where two parts' files declare different units, as the command line's
/// notice: coordinates are never converted. Given once the query has answered, so that a
/// refused call raises its own error alone.
pub fn warn_units(py: Python<'_>, a: &PreparedMesh, b: &PreparedMesh) -> PyResult<()> {
    if let Some((ua, ub)) = a.mesh.units_differ(&b.mesh) {
        let msg = format!(
            "a declares its unit as {ua} and b as {ub}; units are not converted, and a transform cannot scale: convert one part to the other's unit"
        );
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(py, &category, &std::ffi::CString::new(msg)?, 1)?;
    }
    Ok(())
}

/// A unit's name as the library compares them (lower case, singular, abbreviations spelt
/// out: "mm" is "millimeter"), for the collision manager's warnings.
#[pyfunction]
pub fn _unit_name(unit: &str) -> String {
    meshclash::mesh::unit_name(unit)
}
