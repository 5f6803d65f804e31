//! Batch queries, numpy in and numpy out: points (`winding_numbers`, `inside`,
//! `closest_points`), rays (`ray_hits`), spheres (`sphere_contacts`, `sphere_sweeps`), many
//! poses (`poses`) and a path (`sweep`). Each answers with a dict of arrays, one row per input
//! row, named as the command line's `--out` columns; a missing value is NaN (floats), -1
//! (triangles) or False.

use crate::convert::{err, f64_array, points, pose, poses as pose_list, value_error, Real};
use crate::mesh::{warn_units, Mesh};
use crate::pair::backend_of;
use crate::process::{interruptible, released};
use meshclash::query::{self, sweep_tolerance, Hits, Posed, SolidDistance, SphereSweep};
use meshclash::{DVec3, Error, PreparedMesh};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(winding_numbers, m)?)?;
    m.add_function(wrap_pyfunction!(inside, m)?)?;
    m.add_function(wrap_pyfunction!(closest_points, m)?)?;
    m.add_function(wrap_pyfunction!(ray_hits, m)?)?;
    m.add_function(wrap_pyfunction!(sphere_contacts, m)?)?;
    m.add_function(wrap_pyfunction!(sphere_touching, m)?)?;
    m.add_function(wrap_pyfunction!(sphere_sweeps, m)?)?;
    m.add_function(wrap_pyfunction!(self::poses, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    Ok(())
}

/// Columns being filled: each becomes a numpy array under its name.
struct Columns<'py> {
    py: Python<'py>,
    dict: Bound<'py, PyDict>,
}

impl<'py> Columns<'py> {
    fn new(py: Python<'py>) -> Self {
        Columns {
            py,
            dict: PyDict::new(py),
        }
    }

    fn f64(self, name: &str, v: impl Iterator<Item = Option<f64>>) -> PyResult<Self> {
        let v: Vec<f64> = v.map(|x| x.unwrap_or(f64::NAN)).collect();
        self.dict.set_item(name, PyArray1::from_vec(self.py, v))?;
        Ok(self)
    }

    fn i64(self, name: &str, v: impl Iterator<Item = Option<i64>>) -> PyResult<Self> {
        let v: Vec<i64> = v.map(|x| x.unwrap_or(-1)).collect();
        self.dict.set_item(name, PyArray1::from_vec(self.py, v))?;
        Ok(self)
    }

    fn bool(self, name: &str, v: impl Iterator<Item = bool>) -> PyResult<Self> {
        self.dict
            .set_item(name, PyArray1::from_vec(self.py, v.collect()))?;
        Ok(self)
    }

    /// Points as an (N, 3) array, NaN rows where missing.
    fn points(self, name: &str, v: impl Iterator<Item = Option<DVec3>>) -> PyResult<Self> {
        let flat: Vec<f64> = v
            .flat_map(|p| p.map_or([f64::NAN; 3], |p| p.to_array()))
            .collect();
        let a = Array2::from_shape_vec((flat.len() / 3, 3), flat).expect("three a point");
        self.dict.set_item(name, a.into_pyarray(self.py))?;
        Ok(self)
    }

    fn done(self) -> Bound<'py, PyDict> {
        self.dict
    }
}

/// The generalized winding number of the mesh around each point (an (N, 3) array), exact
/// where the mesh is closed: ``{"winding", "bound", "inside", "certain"}``, inside meaning
/// ``|winding| >= 1/2``, certain meaning the value is farther than its rounding bound from 1/2.
/// A closed mesh whose triangles are not consistently oriented is the exception: there inside
/// is the parity of a ray's crossings, as ``check``'s containment decides. As ``meshclash
/// inside``; on the GPU when the backend is one.
#[pyfunction]
#[pyo3(
    signature = (mesh, points, transform = None, backend = None),
    text_signature = "(mesh, points, transform=None, backend='auto')"
)]
pub fn winding_numbers<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    points: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (m, p, pts) = (
        Mesh::from_arg(py, mesh)?,
        pose(transform, "transform")?,
        self::points(points, "points")?,
    );
    let backend = backend_of(py, backend)?;
    let w = interruptible(py, || backend.points_inside(&m, p, &pts))?.map_err(err)?;
    Columns::new(py)
        .f64("winding", w.iter().map(|w| Some(w.0.value)))?
        .f64("bound", w.iter().map(|w| Some(w.0.bound)))?
        .bool("inside", w.iter().map(|w| w.1.inside))?
        .bool("certain", w.iter().map(|w| w.1.certain))
        .map(Columns::done)
}

/// Whether each point (an (N, 3) array) is inside the mesh: ``winding_numbers(...)["inside"]``.
#[pyfunction]
#[pyo3(
    signature = (mesh, points, transform = None, backend = None),
    text_signature = "(mesh, points, transform=None, backend='auto')"
)]
pub fn inside<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    points: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    winding_numbers(py, mesh, points, transform, backend)?
        .get_item("inside")?
        .ok_or_else(|| value_error("no inside column"))
}

/// The nearest point of the mesh to each point (an (N, 3) array), within ``max_distance``:
/// ``{"distance", "triangle", "point", "u", "v"}`` (``point`` (N, 3); ``u``, ``v``
/// barycentric on ``triangle``, a row of the faces). Points with nothing within
/// ``max_distance`` get NaN and -1. ``signed``: distances negative inside (as ``inside``).
/// As ``meshclash closest``.
#[pyfunction]
#[pyo3(
    signature = (mesh, points, transform = None, max_distance = Real(f64::INFINITY), signed = false, backend = None),
    text_signature = "(mesh, points, transform=None, max_distance=math.inf, signed=False, backend='auto')"
)]
pub fn closest_points<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    points: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    max_distance: Real,
    signed: bool,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let max_distance = max_distance.0;
    if max_distance.is_nan() || max_distance < 0.0 {
        return Err(value_error(format!(
            "max_distance must be a distance >= 0, got {max_distance}"
        )));
    }
    let (m, p, pts) = (
        Mesh::from_arg(py, mesh)?,
        pose(transform, "transform")?,
        self::points(points, "points")?,
    );
    let backend = backend_of(py, backend)?;
    let (found, inside) = interruptible(py, || {
        let found = backend.closest_points(&m, p, &pts, max_distance)?;
        let inside = match signed {
            true => Some(backend.points_inside(&m, p, &pts)?),
            false => None,
        };
        Ok((found, inside))
    })?
    .map_err(err)?;
    if max_distance == f64::INFINITY {
        reachable(&m, &found)?;
    }
    let sign = |i: usize| match &inside {
        Some(w) if w[i].1.inside => -1.0,
        _ => 1.0,
    };
    Columns::new(py)
        .f64(
            "distance",
            found
                .iter()
                .enumerate()
                .map(|(i, c)| c.map(|c| sign(i) * c.distance)),
        )?
        .i64(
            "triangle",
            found.iter().map(|c| c.map(|c| c.triangle as i64)),
        )?
        .points("point", found.iter().map(|c| c.map(|c| c.point)))?
        .f64("u", found.iter().map(|c| c.map(|c| c.u)))?
        .f64("v", found.iter().map(|c| c.map(|c| c.v)))
        .map(Columns::done)
}

/// With no limit on the distance, every point has a nearest one on a mesh with triangles,
/// unless its distance is beyond f64: refused by row, as ``meshclash closest`` and ``spheres``
/// refuse it, not answered as nothing within reach.
fn reachable<T>(m: &PreparedMesh, found: &[Option<T>]) -> PyResult<()> {
    match query::first_beyond_f64(m, found) {
        Some(i) => Err(err(Error::PointBeyondF64 {
            what: format!("row {i}"),
        })),
        None => Ok(()),
    }
}

/// Where each ray ``origins[i] + t * directions[i]``, ``0 <= t <= max_t``, meets the mesh,
/// watertight (a ray through a shared edge or vertex hits once). As ``meshclash ray``.
///
/// ``hits="first"`` (the nearest): one row per ray, ``{"hit", "t", "triangle", "u", "v",
/// "point", "front"}``. ``hits="any"`` (whether there is one): ``{"hit"}`` alone, as the
/// command line writes it. ``hits="all"``: one row per hit, by ray then in the exact order of
/// the crossings, with ``"ray"`` naming its ray.
#[pyfunction]
#[pyo3(
    signature = (mesh, origins, directions, transform = None, max_t = Real(f64::INFINITY), hits = "first", backend = None),
    text_signature = "(mesh, origins, directions, transform=None, max_t=math.inf, hits='first', backend='auto')"
)]
#[allow(clippy::too_many_arguments)]
pub fn ray_hits<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    origins: &Bound<'py, PyAny>,
    directions: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    max_t: Real,
    hits: &str,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let max_t = max_t.0;
    let which = match hits {
        "first" => Hits::First,
        "any" => Hits::Any,
        "all" => Hits::All,
        _ => {
            return Err(value_error(format!(
                "hits must be \"first\", \"any\" or \"all\", got {hits:?}"
            )))
        }
    };
    if max_t.is_nan() || max_t < 0.0 {
        return Err(value_error(format!("max_t must be >= 0, got {max_t}")));
    }
    let (m, p) = (Mesh::from_arg(py, mesh)?, pose(transform, "transform")?);
    let (o, d) = (
        self::points(origins, "origins")?,
        self::points(directions, "directions")?,
    );
    if o.len() != d.len() {
        return Err(value_error(format!(
            "origins and directions must have as many rows, got {} and {}",
            o.len(),
            d.len()
        )));
    }
    if let Some(i) = d.iter().position(|d| *d == DVec3::ZERO) {
        return Err(value_error(format!(
            "directions: row {i} has a zero direction"
        )));
    }
    let rays: Vec<(DVec3, DVec3)> = o.into_iter().zip(d).collect();
    let backend = backend_of(py, backend)?;
    let found = interruptible(py, || {
        let posed = Posed::new(&m, p);
        if let Some(i) = query::first_unbounded_ray(&rays, &posed, max_t) {
            return Err(meshclash::Error::Argument(format!(
                "row {i}: the ray's segment past the mesh is beyond f64"
            )));
        }
        backend.ray_hits(&m, p, &rays, max_t, which)
    })?
    .map_err(err)?;
    let rows = query::hit_rows(&found, which);
    let mut cols = Columns::new(py);
    // Occlusion alone: the hit found first is any one, and its columns read as the nearest
    // (a docs review's helper); the command line writes `ray,hit` alone too.
    if which == Hits::Any {
        return cols
            .bool("hit", rows.iter().map(|r| r.1.is_some()))
            .map(Columns::done);
    }
    if which == Hits::All {
        cols = cols.i64("ray", rows.iter().map(|r| Some(r.0 as i64)))?;
    }
    let f = |g: fn(&query::RayHit) -> f64| rows.iter().map(move |r| r.1.map(g));
    cols.bool("hit", rows.iter().map(|r| r.1.is_some()))?
        .f64("t", f(|h| h.t))?
        .i64(
            "triangle",
            rows.iter().map(|r| r.1.map(|h| h.triangle as i64)),
        )?
        .f64("u", f(|h| h.u))?
        .f64("v", f(|h| h.v))?
        .points("point", rows.iter().map(|r| r.1.map(|h| h.point)))?
        .bool("front", rows.iter().map(|r| r.1.is_some_and(|h| h.front)))
        .map(Columns::done)
}

/// Spheres as centres (N, 3) and radii (N,) (or one radius for all).
fn spheres(centers: &Bound<'_, PyAny>, radii: &Bound<'_, PyAny>) -> PyResult<Vec<(DVec3, f64)>> {
    let c = points(centers, "centers")?;
    if radii.is_none() {
        return Err(value_error(
            "radii must be a number or an array of shape (N,), got None",
        ));
    }
    // One radius a centre, or one for all: where neither fits, the first's message (the
    // scalar's, "must have shape ()", named a shape no one asked for).
    let r = match f64_array(radii, "radii", &[None]) {
        Ok(r) => r,
        Err(first) => f64_array(radii, "radii", &[]).map_err(|_| first)?,
    };
    // Lengths first: a broadcast array of radii costs no memory until it is copied.
    let r = r.as_array();
    if r.ndim() == 1 && r.len() != c.len() {
        return Err(value_error(format!(
            "centers and radii must have as many rows, got {} and {}",
            c.len(),
            r.len()
        )));
    }
    let r: Vec<f64> = match r.ndim() {
        0 => vec![r.iter().copied().next().unwrap_or(f64::NAN); c.len()],
        _ => r.iter().copied().collect(),
    };
    if let Some(i) = r.iter().position(|r| !r.is_finite()) {
        return Err(value_error(format!(
            "radii: row {i} holds {}, not a finite number",
            r[i]
        )));
    }
    if let Some(i) = r.iter().position(|r| *r < 0.0) {
        return Err(value_error(format!("row {i} has a negative radius")));
    }
    Ok(c.into_iter().zip(r).collect())
}

/// Every triangle each sphere touches (meets within its radius, exactly: a triangle exactly a
/// radius away is one): ``{"sphere", "triangle"}``, one row per pair, by sphere then triangle.
/// A sphere wholly inside the solid touches no triangle (``sphere_contacts`` says it
/// touches). As ``meshclash spheres --contacts``; on the CPU, in parallel.
#[pyfunction]
#[pyo3(signature = (mesh, centers, radii, transform = None))]
pub fn sphere_touching<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    centers: &Bound<'py, PyAny>,
    radii: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (m, p) = (Mesh::from_arg(py, mesh)?, pose(transform, "transform")?);
    let s = spheres(centers, radii)?;
    let pairs = released(py, || query::spheres_touching(&s, &Posed::new(&m, p)))?
        .map_err(|e| err(e.into()))?;
    Columns::new(py)
        .i64("sphere", pairs.iter().map(|q| Some(q.0 as i64)))?
        .i64("triangle", pairs.iter().map(|q| Some(q.1 as i64)))
        .map(Columns::done)
}

/// Each sphere against the mesh: ``{"touches", "gap", "triangle", "point"}``. ``gap``: the
/// centre's distance to the surface less the radius, and with the centre inside the solid,
/// minus the distance less the radius, in f64 (it may round to the other side of 0);
/// ``touches``: whether the sphere meets the surface or lies inside, decided exactly (decide by
/// it, not by ``gap``'s sign); ``point``: the surface point nearest the centre. As ``meshclash
/// spheres``.
#[pyfunction]
#[pyo3(
    signature = (mesh, centers, radii, transform = None, backend = None),
    text_signature = "(mesh, centers, radii, transform=None, backend='auto')"
)]
pub fn sphere_contacts<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    centers: &Bound<'py, PyAny>,
    radii: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (m, p) = (Mesh::from_arg(py, mesh)?, pose(transform, "transform")?);
    let s = spheres(centers, radii)?;
    let backend = backend_of(py, backend)?;
    let found = interruptible(py, || backend.sphere_contacts(&m, p, &s))?.map_err(err)?;
    reachable(&m, &found)?;
    Columns::new(py)
        .bool(
            "touches",
            found.iter().map(|c| c.is_some_and(|c| c.touches)),
        )?
        .f64("gap", found.iter().map(|c| c.map(|c| c.gap)))?
        .i64(
            "triangle",
            found.iter().map(|c| c.map(|c| c.triangle as i64)),
        )?
        .points("point", found.iter().map(|c| c.map(|c| c.point)))
        .map(Columns::done)
}

/// Each sphere moving from ``centers[i]`` to ``centers[i] + displacements[i]``: its first
/// contact, certified by conservative advancement (none before ``toi``, within ``tolerance``
/// of touching there): ``{"contact", "decided", "toi", "triangle", "point", "tolerance"}``.
/// ``decided`` False: the advancement could not decide (never reported clear). ``tolerance``
/// defaults, for each sphere, to 1e-9 of the mesh's bounding-box diagonal, and no less than
/// four times what that sphere's coordinates resolve (far from the origin); the one each
/// sphere had comes back. As ``meshclash spheres`` with displacements.
#[pyfunction]
#[pyo3(
    signature = (mesh, centers, radii, displacements, transform = None, tolerance = None, backend = None),
    text_signature = "(mesh, centers, radii, displacements, transform=None, tolerance=None, backend='auto')"
)]
#[allow(clippy::too_many_arguments)]
pub fn sphere_sweeps<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
    centers: &Bound<'py, PyAny>,
    radii: &Bound<'py, PyAny>,
    displacements: &Bound<'py, PyAny>,
    transform: Option<&Bound<'py, PyAny>>,
    tolerance: Option<Real>,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let tolerance = tolerance.map(|t| t.0);
    let (m, p) = (Mesh::from_arg(py, mesh)?, pose(transform, "transform")?);
    let s = spheres(centers, radii)?;
    let v = points(displacements, "displacements")?;
    if v.len() != s.len() {
        return Err(value_error(format!(
            "centers and displacements must have as many rows, got {} and {}",
            s.len(),
            v.len()
        )));
    }
    let moving: Vec<_> = s.iter().zip(&v).map(|(&(c, r), &v)| (c, r, v)).collect();
    // A move whose end is beyond float64 could only come back undecided, as the CLI says.
    if let Some(i) = moving.iter().position(|&(c, _, v)| !(c + v).is_finite()) {
        return Err(value_error(format!(
            "row {i}: the move's end (centre plus displacement) is beyond float64"
        )));
    }
    if let Some(tol) = tolerance.filter(|&t| !(t > 0.0 && t.is_finite())) {
        return Err(value_error(format!(
            "tolerance must be finite and > 0, got {tol}"
        )));
    }
    let posed = Posed::new(&m, p);
    let tols: Vec<f64> = moving
        .iter()
        .map(|&s| sweep_tolerance(&posed, s, tolerance))
        .collect();
    let backend = backend_of(py, backend)?;
    let found =
        interruptible(py, || backend.sphere_sweeps(&m, p, &moving, tolerance))?.map_err(err)?;
    let contact: Vec<_> = found.iter().map(|s| s.contact().copied()).collect();
    Columns::new(py)
        .bool("contact", contact.iter().map(Option::is_some))?
        .bool(
            "decided",
            found
                .iter()
                .map(|s| !matches!(s, SphereSweep::Undecided { .. })),
        )?
        .f64("toi", contact.iter().map(|c| c.map(|c| c.toi)))?
        .i64(
            "triangle",
            contact.iter().map(|c| c.map(|c| c.triangle as i64)),
        )?
        .points("point", contact.iter().map(|c| c.map(|c| c.point)))?
        .f64("tolerance", tols.iter().map(|&t| Some(t)))
        .map(Columns::done)
}

/// Many poses of B (a (K, 4, 4) array of rigid transforms) against A, in parallel: per pose
/// what ``solid_distance`` answers, ``{"interferes", "distance", "triangle_a", "triangle_b",
/// "point_a", "point_b", "evidence", "clearance_pairs", "certain"}`` (closest points and
/// triangles when apart, the evidence when not; ``clearance_pairs``: the pairs closer than
/// ``clearance``, -1 without one; ``certain``: False where the answer is the likelier one,
/// against a part that is not closed, as ``containment_certain``). As ``meshclash poses``; on
/// the GPU (every pose in one dispatch) when the backend is one: the same answers.
#[pyfunction]
#[pyo3(
    signature = (a, b, transforms_b, transform_a = None, clearance = None, backend = None),
    text_signature = "(a, b, transforms_b, transform_a=None, clearance=None, backend='auto')"
)]
pub fn poses<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    transforms_b: &Bound<'py, PyAny>,
    transform_a: Option<&Bound<'py, PyAny>>,
    clearance: Option<Real>,
    backend: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let clearance = crate::pair::clearance_arg(clearance)?;
    let (ma, mb) = (Mesh::from_arg(py, a)?, Mesh::from_arg(py, b)?);
    let pa = pose(transform_a, "transform_a")?;
    let ps = pose_list(transforms_b, "transforms_b")?;
    let backend = backend_of(py, backend)?;
    let answers =
        interruptible(py, || backend.poses(&ma, pa, &mb, &ps, clearance))?.map_err(err)?;
    // As the command line, `check` and `solid_distance` refuse it: no distance at all (it came
    // back inf with triangles and points filled in; a review's helper found it).
    if let Some(k) = answers.iter().position(|a| !a.solid.distance().is_finite()) {
        return Err(err(Error::PartsBeyondF64 {
            what: format!("pose {k}"),
        }));
    }
    warn_units(py, &ma, &mb)?;
    let apart: Vec<_> = answers
        .iter()
        .map(|x| match &x.solid {
            SolidDistance::Apart { report, .. } => Some(report),
            SolidDistance::Interfering(_) => None,
        })
        .collect();
    let evidence: Vec<Option<&str>> = answers.iter().map(|x| query::evidence(&x.solid)).collect();
    let d = Columns::new(py)
        .bool("interferes", apart.iter().map(Option::is_none))?
        .f64("distance", answers.iter().map(|x| Some(x.solid.distance())))?
        .i64(
            "triangle_a",
            apart.iter().map(|r| r.map(|r| r.triangle_a as i64)),
        )?
        .i64(
            "triangle_b",
            apart.iter().map(|r| r.map(|r| r.triangle_b as i64)),
        )?
        .points("point_a", apart.iter().map(|r| r.map(|r| r.point_a)))?
        .points("point_b", apart.iter().map(|r| r.map(|r| r.point_b)))?
        .i64(
            "clearance_pairs",
            answers.iter().map(|x| x.clearance_pairs.map(|n| n as i64)),
        )?
        .bool("certain", answers.iter().map(|x| x.solid.certain()))?
        .done();
    d.set_item("evidence", evidence)?;
    Ok(d)
}

/// B moving through waypoints (a (K, 4, 4) array, K >= 2; translation linear, rotation by
/// slerp) against A: its first contact, certified by conservative advancement (none before
/// ``time``, within ``tolerance`` of touching there), or how near it came. ``times``: the
/// waypoints' times, increasing from 0 to 1 (default evenly spaced). ``tolerance`` defaults to
/// 1e-6 of the parts' combined size, no finer than the posed coordinates resolve. Returns what
/// ``meshclash sweep --json`` prints, less ``backend`` and ``timings_ms``, with ``pose`` and
/// points as numpy arrays. On the CPU.
#[pyfunction]
#[pyo3(signature = (a, b, path, transform_a = None, times = None, tolerance = None))]
pub fn sweep<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    path: &Bound<'py, PyAny>,
    transform_a: Option<&Bound<'py, PyAny>>,
    times: Option<Vec<Real>>,
    tolerance: Option<Real>,
) -> PyResult<Bound<'py, PyDict>> {
    let tolerance = tolerance.map(|t| t.0);
    let times: Option<Vec<f64>> = times.map(|t| t.into_iter().map(|x| x.0).collect());
    let waypoints = pose_list(path, "path")?;
    if waypoints.len() < 2 {
        return Err(value_error(format!(
            "a path needs at least two waypoints, got {}",
            waypoints.len()
        )));
    }
    if let Some(i) = query::first_unbounded_segment(&waypoints) {
        return Err(value_error(format!(
            "path: the move from waypoint {i} to {} is beyond f64 (1.8e308)",
            i + 1
        )));
    }
    if let Some(i) = query::first_half_turn(&waypoints) {
        return Err(value_error(format!(
            "path: {}",
            query::half_turn_message(i)
        )));
    }
    let times = times.unwrap_or_default();
    let ok = times.is_empty()
        || (times.len() == waypoints.len()
            && times.first() == Some(&0.0)
            && times.last() == Some(&1.0)
            && times.windows(2).all(|w| w[0] < w[1]));
    if !ok {
        return Err(value_error(format!(
            "times needs {} increasing numbers from 0 to 1, one per waypoint, got {times:?}",
            waypoints.len()
        )));
    }
    let (ma, mb) = (Mesh::from_arg(py, a)?, Mesh::from_arg(py, b)?);
    let pa = pose(transform_a, "transform_a")?;
    let tol = tolerance.unwrap_or_else(|| query::path_tolerance(&ma, &mb));
    if !(tol > 0.0 && tol.is_finite()) {
        return Err(value_error(format!(
            "tolerance must be finite and > 0, got {tol}"
        )));
    }
    let r = interruptible(py, || query::sweep(&ma, pa, &mb, &waypoints, &times, tol))?;
    // As the command line refuses it: a distance beyond f64 cannot be given, nor stepped by.
    if !r.min_distance.is_finite() {
        return Err(err(Error::PartsBeyondF64 {
            what: "the path".into(),
        }));
    }
    warn_units(py, &ma, &mb)?;
    let d = PyDict::new(py);
    d.set_item("contact", r.contact.is_some())?;
    d.set_item("tolerance", r.tolerance)?;
    d.set_item("min_distance", r.min_distance)?;
    d.set_item("min_time", r.min_time)?;
    d.set_item("min_distance_bound", r.min_distance_bound)?;
    d.set_item("complete", r.complete)?;
    d.set_item("certain", r.certain)?;
    d.set_item("steps", r.steps)?;
    if let Some(h) = &r.contact {
        d.set_item("time", h.time)?;
        d.set_item("segment", h.segment)?;
        d.set_item("segment_time", h.segment_time)?;
        let m = Array2::from_shape_vec((4, 4), h.pose.to_matrix().to_vec()).expect("16");
        d.set_item("pose", m.into_pyarray(py))?;
        match &h.solid {
            SolidDistance::Interfering(i) => d.set_item("evidence", i.as_str())?,
            SolidDistance::Apart { report, .. } => {
                d.set_item("distance", report.distance)?;
                d.set_item("triangle_a", report.triangle_a)?;
                d.set_item("triangle_b", report.triangle_b)?;
                d.set_item("closest_point_a", crate::pair::vec3(py, report.point_a))?;
                d.set_item("closest_point_b", crate::pair::vec3(py, report.point_b))?;
            }
        }
    }
    Ok(d)
}
