//! Two placed parts (`check`, `interferes`, `solid_distance`) and one mesh against itself
//! (`self_intersections`), with their answers as Python objects.

use crate::convert::{backend_arg, err, json_to_py, pose, value_error, Real};
use crate::mesh::{warn_units, Mesh};
use crate::process::{interruptible, interruptible_if, released, LONG_TRIANGLES};
use meshclash::query::Interference;
use meshclash::GpuInfo;
use meshclash::{
    CheckOptions, CheckReport, DVec3, Error, Pose, PreparedMesh, SelfReport, SolidDistance,
};
use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use std::sync::Arc;

/// The adapter that answered, or `null` on the CPU (as the command line gives it); made only
/// when asked for.
fn adapter_value(a: &Option<GpuInfo>) -> Value {
    a.as_ref()
        .and_then(|a| serde_json::to_value(a).ok())
        .unwrap_or(Value::Null)
}

pub fn vec3<'py>(py: Python<'py>, v: DVec3) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, v.to_array().to_vec())
}

/// `(a, b)` index pairs as a (K, 2) int64 array.
fn pair_array<'py>(
    py: Python<'py>,
    pairs: impl ExactSizeIterator<Item = (u32, u32)>,
) -> Bound<'py, PyArray2<i64>> {
    let n = pairs.len();
    let flat = pairs.flat_map(|(a, b)| [a as i64, b as i64]).collect();
    Array2::from_shape_vec((n, 2), flat)
        .expect("two indices a pair")
        .into_pyarray(py)
}

/// What a clash review asks of two placed parts: the fields of ``meshclash check --json`` as
/// attributes (points, pairs and curves as numpy arrays), and ``to_dict()``.
///
/// Triangle indices are rows of each mesh's ``faces``. The pair arrays are filled whatever
/// ``pairs`` was; ``pairs=True`` only adds them to ``to_dict()``, as ``--pairs`` does.
#[pyclass(frozen, module = "meshclash")]
pub struct CheckResult {
    report: CheckReport,
    pairs: bool,
    backend: &'static str,
    adapter: Option<GpuInfo>,
}

#[pymethods]
impl CheckResult {
    /// The surfaces meet (touching counts).
    #[getter]
    fn intersects(&self) -> bool {
        self.report.intersects()
    }
    /// The parts share a point as solids: surfaces meeting, or one inside the other.
    #[getter]
    fn interferes(&self) -> bool {
        self.report.interferes()
    }
    /// "a_in_b", "b_in_a", or None (decided only when the surfaces do not meet).
    #[getter]
    fn containment(&self) -> Option<&'static str> {
        self.report.containment.map(|c| c.as_str())
    }
    /// False where a winding number was within its rounding bound of 1/2 (open meshes).
    #[getter]
    fn containment_certain(&self) -> bool {
        self.report.containment_certain
    }
    /// Intersecting triangle pairs, touching included.
    #[getter]
    fn pair_count(&self) -> usize {
        self.report.intersect.pairs.len()
    }
    #[getter]
    fn touching_pair_count(&self) -> usize {
        self.pair_count() - self.piercing_pair_count()
    }
    #[getter]
    fn piercing_pair_count(&self) -> usize {
        self.report.intersect.piercing_count()
    }
    /// Minimum distance between the surfaces (0 when they meet).
    #[getter]
    fn min_distance(&self) -> f64 {
        self.report.distance.distance
    }
    /// The closest point on A, world coordinates, (3,) float64.
    #[getter]
    fn closest_point_a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        vec3(py, self.report.distance.point_a)
    }
    /// The closest point on B, world coordinates, (3,) float64.
    #[getter]
    fn closest_point_b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        vec3(py, self.report.distance.point_b)
    }
    /// From B to A: ``closest_point_a - closest_point_b``, (3,) float64.
    #[getter]
    fn separation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        vec3(py, self.report.distance.separation)
    }
    /// The triangle of A (a row of A's faces) with the closest point.
    #[getter]
    fn triangle_a(&self) -> u32 {
        self.report.distance.triangle_a
    }
    /// The triangle of B (a row of B's faces) with the closest point.
    #[getter]
    fn triangle_b(&self) -> u32 {
        self.report.distance.triangle_b
    }
    /// The clearance asked for, or None.
    #[getter]
    fn clearance(&self) -> Option<f64> {
        self.report.clearance.as_ref().map(|c| c.clearance)
    }
    /// Triangle pairs closer than the clearance (None without one).
    #[getter]
    fn clearance_pair_count(&self) -> Option<usize> {
        self.report.clearance.as_ref().map(|c| c.pairs.len())
    }
    /// Pairs tested exactly per stage: {"intersect", "distance", "clearance"}.
    #[getter]
    fn candidate_pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.report;
        let d = PyDict::new(py);
        d.set_item("intersect", r.intersect.candidates)?;
        d.set_item("distance", r.distance.candidates)?;
        d.set_item("clearance", r.clearance.as_ref().map(|c| c.candidates))?;
        Ok(d)
    }
    /// The intersecting pairs, (K, 2) int64: row (i, j) is triangle i of A and j of B,
    /// sorted.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        pair_array(py, self.report.intersect.pairs.iter().map(|p| (p.a, p.b)))
    }
    /// Per intersecting pair: "point", "segment" or "area" (None where it could not be
    /// classified).
    #[getter]
    fn pair_classes(&self) -> Vec<Option<&'static str>> {
        let pairs = &self.report.intersect.pairs;
        pairs
            .iter()
            .map(|p| p.contact.class().map(|c| c.as_str()))
            .collect()
    }
    /// Per intersecting pair: both triangles in one plane, (K,) bool.
    #[getter]
    fn pair_coplanar<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let pairs = &self.report.intersect.pairs;
        PyArray1::from_vec(py, pairs.iter().map(|p| p.contact.coplanar).collect())
    }
    /// Per intersecting pair: it touches rather than pierces (every pair that does not pierce:
    /// coplanar ones included), (K,) bool.
    #[getter]
    fn pair_touching<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let pairs = &self.report.intersect.pairs;
        PyArray1::from_vec(py, pairs.iter().map(|p| p.contact.touching).collect())
    }
    /// The intersection curves as segments, (S, 2, 3) float64 (the crossing pairs').
    #[getter]
    fn curves<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f64>> {
        let segs = self.report.intersect.curve_segments();
        let n = segs.len();
        let flat = segs
            .iter()
            .flat_map(|(p, q)| p.to_array().into_iter().chain(q.to_array()))
            .collect();
        Array3::from_shape_vec((n, 2, 3), flat)
            .expect("two points a segment")
            .into_pyarray(py)
    }
    /// The pairs closer than the clearance, (C, 2) int64 (None without a clearance).
    #[getter]
    fn clearance_pairs<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray2<i64>>> {
        let c = self.report.clearance.as_ref()?;
        Some(pair_array(py, c.pairs.iter().map(|p| (p.a, p.b))))
    }
    /// Their distances, (C,) float64 (None without a clearance).
    #[getter]
    fn clearance_distances<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        let c = self.report.clearance.as_ref()?;
        Some(PyArray1::from_vec(
            py,
            c.pairs.iter().map(|p| p.distance).collect(),
        ))
    }
    /// Whether each of them intersects, (C,) bool (None without a clearance).
    #[getter]
    fn clearance_intersects<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<bool>>> {
        let c = self.report.clearance.as_ref()?;
        Some(PyArray1::from_vec(
            py,
            c.pairs.iter().map(|p| p.intersects).collect(),
        ))
    }
    /// Who answered: "gpu" or "cpu".
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }
    /// The GPU adapter that answered, or None.
    #[getter]
    fn adapter<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &adapter_value(&self.adapter))
    }
    /// Milliseconds per stage, and "total".
    #[getter]
    fn timings_ms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &meshclash::json::timings(&self.report.timings))
    }

    /// The same result: it never changes, so a copy is itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// What ``meshclash check --json`` prints (with ``--pairs`` when ``pairs=True``), less
    /// ``backend``, ``adapter`` and ``timings_ms``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &meshclash::json::check(&self.report, self.pairs))
    }
    fn __repr__(&self) -> String {
        let r = &self.report;
        format!(
            "meshclash.CheckResult(interferes={}, pair_count={}, containment={}, \
             min_distance={:?}, backend={:?})",
            py_bool(r.interferes()),
            r.intersect.pairs.len(),
            py_str(r.containment.map(|c| c.as_str())),
            r.distance.distance,
            self.backend
        )
    }
}

/// An optional string as Python writes it.
fn py_str(s: Option<&str>) -> String {
    s.map_or("None".into(), |s| format!("{s:?}"))
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The clearance as ``--clearance`` takes it.
pub(crate) fn clearance_arg(clearance: Option<Real>) -> PyResult<Option<f64>> {
    match clearance.map(|c| c.0) {
        Some(d) if !(d.is_finite() && d >= 0.0) => Err(value_error(format!(
            "clearance must be a finite distance >= 0, got {d}"
        ))),
        // -0 as 0: the result gives it back.
        c => Ok(c.map(|d| d + 0.0)),
    }
}

/// Everything a clash review asks of two placed parts: intersecting triangle pairs (exact,
/// touching included), containment, minimum distance with closest points, and the pairs
/// closer than ``clearance``. As ``meshclash check``.
///
/// ``a``, ``b``: ``Mesh`` (or anything with ``.vertices`` and ``.faces``, prepared anew on
/// every call). ``transform_a``, ``transform_b``: 4x4 rigid transforms (row-major, last row
/// 0 0 0 1; scaling, shear and reflections are refused, as ``--matrix`` refuses them), None for
/// the identity. ``backend``: "auto", "cpu", "gpu" or a ``Backend``; both backends give the same
/// answer to the last bit. The GIL is released while the query runs.
#[pyfunction]
#[pyo3(
    signature = (a, b, transform_a = None, transform_b = None, clearance = None, pairs = false, backend = None),
    text_signature = "(a, b, transform_a=None, transform_b=None, clearance=None, pairs=False, backend='auto')"
)]
#[allow(clippy::too_many_arguments)]
pub fn check(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transform_a: Option<&Bound<'_, PyAny>>,
    transform_b: Option<&Bound<'_, PyAny>>,
    clearance: Option<Real>,
    pairs: bool,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<CheckResult> {
    let clearance = clearance_arg(clearance)?;
    let (ma, pa, mb, pb, backend) = placed(py, a, b, transform_a, transform_b, backend)?;
    // A clearance may list millions of pairs, and so may parts of millions of triangles.
    let triangles = ma.mesh.triangles.len() + mb.mesh.triangles.len();
    let long = clearance.is_some() || triangles > LONG_TRIANGLES;
    let report = interruptible_if(py, long, || {
        backend.check(&ma, pa, &mb, pb, &CheckOptions { clearance })
    })?
    .map_err(err)?;
    within_f64(report.distance.distance)?;
    warn_units(py, &ma, &mb)?;
    Ok(CheckResult {
        report,
        pairs,
        backend: backend.name(),
        adapter: backend.adapter(),
    })
}

/// A pair query's parts, their poses and the backend, from its arguments.
type Placed = (
    Arc<PreparedMesh>,
    Pose,
    Arc<PreparedMesh>,
    Pose,
    Arc<meshclash::Backend>,
);

fn placed(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transform_a: Option<&Bound<'_, PyAny>>,
    transform_b: Option<&Bound<'_, PyAny>>,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<Placed> {
    let (pa, pb) = (
        pose(transform_a, "transform_a")?,
        pose(transform_b, "transform_b")?,
    );
    let (ma, mb) = (Mesh::from_arg(py, a)?, Mesh::from_arg(py, b)?);
    Ok((ma, pa, mb, pb, backend_of(py, backend)?))
}

/// The `backend=` argument, "auto" when left out.
pub fn backend_of(
    py: Python<'_>,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<std::sync::Arc<meshclash::Backend>> {
    match backend {
        Some(b) => backend_arg(b),
        None => Ok(crate::convert::backend(py, None)?.inner),
    }
}

/// The parts are farther apart than the largest float64: as the command line, an error.
pub(crate) fn within_f64(distance: f64) -> PyResult<()> {
    if distance.is_finite() {
        return Ok(());
    }
    Err(err(Error::PartsBeyondF64 {
        what: "the pair of poses".into(),
    }))
}

/// Whether the parts share a point as solids: surfaces meeting or touching, or one inside the
/// other (unlike FCL, a part swallowed whole by another interferes). Stops at the first
/// evidence; answered on the CPU whatever ``backend`` (an early exit takes microseconds).
#[pyfunction]
#[pyo3(
    signature = (a, b, transform_a = None, transform_b = None, backend = None),
    text_signature = "(a, b, transform_a=None, transform_b=None, backend='auto')"
)]
pub fn interferes(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transform_a: Option<&Bound<'_, PyAny>>,
    transform_b: Option<&Bound<'_, PyAny>>,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let (ma, pa, mb, pb, backend) = placed(py, a, b, transform_a, transform_b, backend)?;
    let yes = released(py, || backend.interferes(&ma, pa, &mb, pb))?.map_err(err)?;
    warn_units(py, &ma, &mb)?;
    Ok(yes)
}

/// How far apart two parts are as solids: what ``meshclash check --quick --json`` prints, as
/// attributes and ``to_dict()``.
#[pyclass(frozen, module = "meshclash")]
pub struct SolidDistanceResult {
    pub solid: SolidDistance,
}

#[pymethods]
impl SolidDistanceResult {
    /// The parts share a point (surfaces meeting, or one inside the other).
    #[getter]
    fn interferes(&self) -> bool {
        matches!(self.solid, SolidDistance::Interfering(_))
    }
    /// 0 when they interfere, else the minimum distance between the surfaces.
    #[getter]
    fn solid_distance(&self) -> f64 {
        self.solid.distance()
    }
    /// The same as ``solid_distance``.
    #[getter]
    fn distance(&self) -> f64 {
        self.solid.distance()
    }
    /// The first evidence found: "surfaces_meet", "vertex_of_a_in_b", "vertex_of_b_in_a", or
    /// None when apart.
    #[getter]
    fn evidence(&self) -> Option<&'static str> {
        meshclash::query::evidence(&self.solid)
    }
    /// False where a winding number was within its rounding bound of 1/2 (open meshes).
    #[getter]
    fn containment_certain(&self) -> bool {
        match &self.solid {
            SolidDistance::Interfering(i) => i.certain(),
            SolidDistance::Apart {
                containment_certain,
                ..
            } => *containment_certain,
        }
    }
    /// The vertex found inside the other part (an index into the welded ``vertices``), or
    /// None.
    #[getter]
    fn evidence_vertex(&self) -> Option<u32> {
        self.evidence_vertex_point().map(|(v, _)| v)
    }
    /// Where that vertex is, world coordinates, or None.
    #[getter]
    fn evidence_point<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.evidence_vertex_point().map(|(_, p)| vec3(py, p))
    }
    /// The closest point on A when apart, else None.
    #[getter]
    fn closest_point_a<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.apart().map(|d| vec3(py, d.point_a))
    }
    /// The closest point on B when apart, else None.
    #[getter]
    fn closest_point_b<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.apart().map(|d| vec3(py, d.point_b))
    }
    /// From B to A when apart: ``closest_point_a - closest_point_b``, else None.
    #[getter]
    fn separation<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.apart().map(|d| vec3(py, d.separation))
    }
    /// A's triangle (a row of its faces) with the closest point when apart, else None.
    #[getter]
    fn triangle_a(&self) -> Option<u32> {
        self.apart().map(|d| d.triangle_a)
    }
    /// B's triangle with the closest point when apart, else None.
    #[getter]
    fn triangle_b(&self) -> Option<u32> {
        self.apart().map(|d| d.triangle_b)
    }

    /// The same result: it never changes, so a copy is itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// What ``meshclash check --quick --json`` prints, less ``backend`` and ``timings_ms``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &meshclash::json::solid_distance(&self.solid))
    }
    fn __repr__(&self) -> String {
        format!(
            "meshclash.SolidDistanceResult(interferes={}, solid_distance={:?}, evidence={})",
            py_bool(self.interferes()),
            self.solid.distance(),
            py_str(self.evidence())
        )
    }
}

impl SolidDistanceResult {
    fn apart(&self) -> Option<&meshclash::DistanceReport> {
        match &self.solid {
            SolidDistance::Apart { report, .. } => Some(report),
            SolidDistance::Interfering(_) => None,
        }
    }

    pub fn evidence_vertex_point(&self) -> Option<(u32, DVec3)> {
        match self.solid {
            SolidDistance::Interfering(
                Interference::VertexOfAInB { vertex, point, .. }
                | Interference::VertexOfBInA { vertex, point, .. },
            ) => Some((vertex, point)),
            _ => None,
        }
    }
}

/// The distance between the parts as solids: 0 when they interfere (a part inside another
/// included), else the minimum distance between the surfaces, with the closest points. As
/// ``meshclash check --quick``: stops at the first evidence, on the CPU whatever ``backend``.
#[pyfunction]
#[pyo3(
    signature = (a, b, transform_a = None, transform_b = None, backend = None),
    text_signature = "(a, b, transform_a=None, transform_b=None, backend='auto')"
)]
pub fn solid_distance(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    transform_a: Option<&Bound<'_, PyAny>>,
    transform_b: Option<&Bound<'_, PyAny>>,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<SolidDistanceResult> {
    let (ma, pa, mb, pb, backend) = placed(py, a, b, transform_a, transform_b, backend)?;
    let solid = released(py, || backend.solid_distance(&ma, pa, &mb, pb))?.map_err(err)?;
    within_f64(solid.distance())?;
    warn_units(py, &ma, &mb)?;
    Ok(SolidDistanceResult { solid })
}

/// Where a mesh cuts itself: what ``meshclash self --json`` prints, as attributes and
/// ``to_dict()``.
#[pyclass(frozen, module = "meshclash")]
pub struct SelfResult {
    report: SelfReport,
    pairs: bool,
    backend: &'static str,
    adapter: Option<GpuInfo>,
}

#[pymethods]
impl SelfResult {
    #[getter]
    fn self_intersects(&self) -> bool {
        !self.report.pairs.is_empty()
    }
    #[getter]
    fn pair_count(&self) -> usize {
        self.report.pairs.len()
    }
    /// Pairs per kind (kinds with none left out): "disjoint_vertices", "shared_vertex",
    /// "shared_edge_foldover", "duplicate_face".
    #[getter]
    fn by_kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for k in meshclash::SelfKind::ALL {
            let n = self.report.count(k);
            if n > 0 {
                d.set_item(k.as_str(), n)?;
            }
        }
        Ok(d)
    }
    /// Zero-area triangles (left out of the test).
    #[getter]
    fn zero_area_triangles(&self) -> usize {
        self.report.zero_area_triangles
    }
    #[getter]
    fn candidate_pairs(&self) -> u64 {
        self.report.candidates
    }
    /// The self-intersecting pairs, (K, 2) int64, i < j, rows of the mesh's faces.
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        pair_array(py, self.report.pairs.iter().map(|p| (p.a, p.b)))
    }
    /// Per pair: its kind.
    #[getter]
    fn pair_kinds(&self) -> Vec<&'static str> {
        self.report.pairs.iter().map(|p| p.kind.as_str()).collect()
    }
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }
    #[getter]
    fn adapter<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &adapter_value(&self.adapter))
    }
    #[getter]
    fn timings_ms<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &meshclash::json::timings(&self.report.timings))
    }

    /// The same result: it never changes, so a copy is itself.
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }

    /// What ``meshclash self --json`` prints (with ``--pairs`` when ``pairs=True``), less
    /// ``backend``, ``adapter`` and ``timings_ms``.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(
            py,
            &meshclash::json::self_intersections(&self.report, self.pairs),
        )
    }
    fn __repr__(&self) -> String {
        format!(
            "meshclash.SelfResult(self_intersects={}, pair_count={}, backend={:?})",
            py_bool(self.self_intersects()),
            self.report.pairs.len(),
            self.backend
        )
    }
}

/// Every pair of triangles of ``mesh`` that meet other than along their shared edges and
/// vertices (CGAL's convention), as ``meshclash self``.
#[pyfunction]
#[pyo3(
    signature = (mesh, pairs = false, backend = None),
    text_signature = "(mesh, pairs=False, backend='auto')"
)]
pub fn self_intersections(
    py: Python<'_>,
    mesh: &Bound<'_, PyAny>,
    pairs: bool,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<SelfResult> {
    let m = Mesh::from_arg(py, mesh)?;
    let backend = backend_of(py, backend)?;
    let report = interruptible(py, || backend.self_intersections(&m))?.map_err(err)?;
    Ok(SelfResult {
        report,
        pairs,
        backend: backend.name(),
        adapter: backend.adapter(),
    })
}
