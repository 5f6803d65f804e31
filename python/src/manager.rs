//! The work under `meshclash.CollisionManager` (python/meshclash/collision.py): many placed
//! parts at once, pairs culled by their boxes, each pair decided with solid semantics, the GIL
//! released throughout.

use crate::convert::{backend_arg, err, pose, value_error};
use crate::mesh::Mesh;
use crate::pair::{vec3, SolidDistanceResult};
use crate::process::{interruptible_if, LONG_TRIANGLES};
use meshclash::geom::classify::Intersection;
use meshclash::geom::Aabb;
use meshclash::query::Posed;
use meshclash::{Backend, CheckOptions, DVec3, Error, Pose, PreparedMesh, SolidDistance};
use numpy::PyArray1;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::Arc;

/// Placed parts: their meshes, poses and world boxes (which hold every posed vertex).
struct Parts {
    meshes: Vec<Arc<PreparedMesh>>,
    poses: Vec<Pose>,
    boxes: Vec<Aabb>,
}

impl Parts {
    /// Whether a query over these parts (and `other`'s) may take long enough to want Ctrl-C
    /// ([`interruptible_if`]): many parts, or millions of triangles.
    fn long(&self, other: Option<&Parts>) -> bool {
        let sides = std::iter::once(self).chain(other);
        let parts: usize = sides.clone().map(|p| p.meshes.len()).sum();
        let triangles: usize = sides
            .flat_map(|p| &p.meshes)
            .map(|m| m.mesh.triangles.len())
            .sum();
        parts > 64 || triangles > LONG_TRIANGLES
    }

    fn new(
        py: Python<'_>,
        meshes: &[Bound<'_, PyAny>],
        transforms: &[Bound<'_, PyAny>],
    ) -> PyResult<Parts> {
        if meshes.len() != transforms.len() {
            return Err(value_error(format!(
                "{} meshes and {} transforms: one transform a mesh",
                meshes.len(),
                transforms.len()
            )));
        }
        let meshes = meshes
            .iter()
            .map(|m| Mesh::from_arg(py, m))
            .collect::<PyResult<Vec<_>>>()?;
        let poses = transforms
            .iter()
            .map(|t| pose(Some(t), "transform"))
            .collect::<PyResult<Vec<_>>>()?;
        let boxes = meshes
            .iter()
            .zip(&poses)
            .map(|(m, p)| Posed::new(m, *p).node_box(0))
            .collect();
        Ok(Parts {
            meshes,
            poses,
            boxes,
        })
    }

    /// A manager's own parts, and the other manager's where there is one (`*_other`).
    fn sides(
        py: Python<'_>,
        meshes_a: &[Bound<'_, PyAny>],
        transforms_a: &[Bound<'_, PyAny>],
        meshes_b: Option<Vec<Bound<'_, PyAny>>>,
        transforms_b: Option<Vec<Bound<'_, PyAny>>>,
    ) -> PyResult<(Parts, Option<Parts>)> {
        let a = Parts::new(py, meshes_a, transforms_a)?;
        let b = match (meshes_b, transforms_b) {
            (Some(m), Some(t)) => Some(Parts::new(py, &m, &t)?),
            (None, None) => None,
            _ => {
                return Err(value_error(
                    "meshes_b and transforms_b go together: both or neither",
                ))
            }
        };
        Ok((a, b))
    }
}

/// The parts' boxes in the order of their lower x, for a sweep along x: only boxes that x
/// does not put far apart are compared. Every pair of N parts was listed before, 72M of them
/// and 1.7 GB for 12 000 boxes on a grid (a review's helper).
struct ByLowerX<'a> {
    a: &'a Parts,
    /// The other list (`*_other`); pairs are then one part of each.
    b: Option<&'a Parts>,
    /// (lower x, of `b`, index)
    items: Vec<(f64, bool, usize)>,
}

impl<'a> ByLowerX<'a> {
    fn new(a: &'a Parts, b: Option<&'a Parts>) -> ByLowerX<'a> {
        let of = |list: &'a Parts, other: bool| {
            let boxes = list.boxes.iter().enumerate();
            boxes.map(move |(i, x)| (x.min.x, other, i))
        };
        let mut items: Vec<_> = of(a, false)
            .chain(b.into_iter().flat_map(|b| of(b, true)))
            .collect();
        items.sort_by(|x, y| x.0.total_cmp(&y.0));
        ByLowerX { a, b, items }
    }

    fn boxes(&self, other: bool) -> &'a [Aabb] {
        match (other, self.b) {
            (true, Some(b)) => &b.boxes,
            _ => &self.a.boxes,
        }
    }

    /// A pair `(i, j)` as the caller names it: `i < j` within one list, else `i` of `a`.
    fn named(
        &self,
        (x, side_x): (usize, bool),
        (y, _): (usize, bool),
        d: f64,
    ) -> (usize, usize, f64) {
        match (self.b.is_some(), side_x) {
            (false, _) => (x.min(y), x.max(y), d),
            (true, false) => (x, y, d),
            (true, true) => (y, x, d),
        }
    }

    /// The pairs whose boxes are within `r` of each other, with that distance (a lower bound
    /// on theirs), sorted by it and then by `(i, j)`.
    fn within(&self, r: f64) -> Vec<(usize, usize, f64)> {
        let mut out = Vec::new();
        for (k, &(_, side_i, i)) in self.items.iter().enumerate() {
            let bi = &self.boxes(side_i)[i];
            for &(lower, side_j, j) in &self.items[k + 1..] {
                // At most the boxes' distance as `Aabb::distance` rounds it (its x term is
                // this difference, exactly): every later box is farther along x.
                if lower - bi.max.x > r {
                    break;
                }
                if self.b.is_some() && side_i == side_j {
                    continue;
                }
                let d = bi.distance(&self.boxes(side_j)[j]);
                if d <= r {
                    out.push(self.named((i, side_i), (j, side_j), d));
                }
            }
        }
        out.sort_by(|x, y| x.2.total_cmp(&y.2).then((x.0, x.1).cmp(&(y.0, y.1))));
        out
    }

    /// A distance within which some pair's boxes lie: the least between neighbours in this
    /// order (of the two lists, where there are two). `None`: there is no pair.
    fn some_pair(&self) -> Option<f64> {
        let two = self.b.is_some();
        let mut last: [Option<usize>; 2] = [None; 2];
        let mut best: Option<f64> = None;
        for &(_, side, i) in &self.items {
            let other = two && !side;
            if let Some(o) = last[other as usize] {
                let d = self.boxes(side)[i].distance(&self.boxes(other)[o]);
                best = Some(best.map_or(d, |x| x.min(d)));
            }
            last[(two && side) as usize] = Some(i);
        }
        best
    }
}

/// The parts of a pair: `(mesh, pose)` of each.
fn pair<'a>(
    a: &'a Parts,
    b: Option<&'a Parts>,
    i: usize,
    j: usize,
) -> ((&'a PreparedMesh, Pose), (&'a PreparedMesh, Pose)) {
    let b = b.unwrap_or(a);
    ((&a.meshes[i], a.poses[i]), (&b.meshes[j], b.poses[j]))
}

/// The pairs `(i, j)` of parts that interfere as solids (surfaces meeting or one inside the
/// other), sorted; with `first_only`, at most one (any). Without `meshes_b`, pairs within `a`.
#[pyfunction]
#[pyo3(signature = (meshes_a, transforms_a, meshes_b, transforms_b, first_only, backend))]
pub fn interfering_pairs(
    py: Python<'_>,
    meshes_a: Vec<Bound<'_, PyAny>>,
    transforms_a: Vec<Bound<'_, PyAny>>,
    meshes_b: Option<Vec<Bound<'_, PyAny>>>,
    transforms_b: Option<Vec<Bound<'_, PyAny>>>,
    first_only: bool,
    backend: &Bound<'_, PyAny>,
) -> PyResult<Vec<(usize, usize)>> {
    let (a, b) = Parts::sides(py, &meshes_a, &transforms_a, meshes_b, transforms_b)?;
    let backend = backend_arg(backend)?;
    let b = b.as_ref();
    interruptible_if(py, a.long(b), || {
        let pairs: Vec<(usize, usize)> = ByLowerX::new(&a, b)
            .within(0.0)
            .into_iter()
            .map(|p| (p.0, p.1))
            .collect();
        let test = |&(i, j): &(usize, usize)| -> Result<bool, Error> {
            if meshclash::stop::requested() {
                return Ok(false); // stopped: the answer is thrown away
            }
            let ((ma, pa), (mb, pb)) = pair(&a, b, i, j);
            backend.interferes(ma, pa, mb, pb)
        };
        if first_only {
            // Errors are kept as hits, so that the search stops at one and reports it.
            let hit = pairs.par_iter().find_map_any(|p| match test(p) {
                Ok(false) => None,
                Ok(true) => Some(Ok(*p)),
                Err(e) => Some(Err(e)),
            });
            return hit.transpose().map(|h| h.into_iter().collect());
        }
        let hits: Vec<Result<Option<(usize, usize)>, Error>> = pairs
            .par_iter()
            .map(|p| test(p).map(|hit| hit.then_some(*p)))
            .collect();
        let mut hits: Vec<(usize, usize)> = hits
            .into_iter()
            .collect::<Result<Vec<_>, Error>>()?
            .into_iter()
            .flatten()
            .collect();
        hits.sort_unstable();
        Ok(hits)
    })?
    .map_err(err)
}

/// The nearest pair of parts as solids (0 when some interfere): `(i, j, answer)`, or None
/// with fewer than two parts. Pairs are visited by the distance of their boxes and the search
/// stops when a box pair is farther than the nearest found.
#[pyfunction]
#[pyo3(signature = (meshes_a, transforms_a, meshes_b, transforms_b, backend))]
pub fn nearest_pair(
    py: Python<'_>,
    meshes_a: Vec<Bound<'_, PyAny>>,
    transforms_a: Vec<Bound<'_, PyAny>>,
    meshes_b: Option<Vec<Bound<'_, PyAny>>>,
    transforms_b: Option<Vec<Bound<'_, PyAny>>>,
    backend: &Bound<'_, PyAny>,
) -> PyResult<Option<(usize, usize, SolidDistanceResult)>> {
    let (a, b) = Parts::sides(py, &meshes_a, &transforms_a, meshes_b, transforms_b)?;
    let backend = backend_arg(backend)?;
    let b = b.as_ref();
    let best = interruptible_if(py, a.long(b), || {
        // The pairs within the boxes' distance of some pair first, then those within the
        // nearest found (none nearer lies beyond it), each in the order of their boxes'
        // distance: as all pairs were visited before, without listing them all.
        let mut best: Option<(usize, usize, SolidDistance)> = None;
        let sweep = ByLowerX::new(&a, b);
        let Some(first) = sweep.some_pair() else {
            return Ok(None);
        };
        let mut within = first;
        let mut done = -1.0;
        loop {
            for (i, j, box_distance) in sweep.within(within) {
                if box_distance <= done {
                    continue; // measured in the round before
                }
                if meshclash::stop::requested() {
                    return Ok(best); // stopped: the answer is thrown away
                }
                if let Some((_, _, s)) = &best {
                    if box_distance > s.distance() || s.distance() == 0.0 {
                        return Ok(best);
                    }
                }
                let ((ma, pa), (mb, pb)) = pair(&a, b, i, j);
                let s = backend.solid_distance(ma, pa, mb, pb)?;
                if best
                    .as_ref()
                    .is_none_or(|(_, _, t)| s.distance() < t.distance())
                {
                    best = Some((i, j, s));
                }
            }
            let nearest = best.as_ref().map_or(f64::INFINITY, |b| b.2.distance());
            if nearest <= within || !nearest.is_finite() {
                break;
            }
            (done, within) = (within, nearest);
        }
        Ok::<_, Error>(best)
    })?
    .map_err(err)?;
    // As `solid_distance` refuses it: a distance beyond f64 is no distance (it came back inf,
    // which the manager's methods give only where there is nothing to measure).
    if let Some((_, _, s)) = &best {
        crate::pair::within_f64(s.distance())?;
    }
    Ok(best.map(|(i, j, solid)| (i, j, SolidDistanceResult { solid })))
}

/// A contact found, before its points become arrays.
type Found = (Option<u32>, Option<u32>, DVec3, Option<DVec3>);

/// A contact of two parts: `(triangle_a, triangle_b, point, normal)`; the triangles and the
/// normal are None for a part inside the other (the point is then its vertex found inside).
type Contact<'py> = (
    Option<u32>,
    Option<u32>,
    Bound<'py, PyArray1<f64>>,
    Option<Bound<'py, PyArray1<f64>>>,
);

/// The contacts of two placed parts, one per intersecting triangle pair (`check`'s pairs, on
/// the backend asked for): a point of their intersection (its midpoint or centroid) and B's
/// triangle's unit normal. A part inside the other: one contact at its vertex found inside.
#[pyfunction]
pub fn contacts<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    transform_a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    transform_b: &Bound<'py, PyAny>,
    backend: &Bound<'py, PyAny>,
) -> PyResult<Vec<Contact<'py>>> {
    let (ma, mb) = (Mesh::from_arg(py, a)?, Mesh::from_arg(py, b)?);
    let (pa, pb) = (
        pose(Some(transform_a), "transform")?,
        pose(Some(transform_b), "transform")?,
    );
    let backend: Arc<Backend> = backend_arg(backend)?;
    let long = ma.mesh.triangles.len() + mb.mesh.triangles.len() > LONG_TRIANGLES;
    let found = interruptible_if(py, long, || -> Result<_, Error> {
        let r = backend.check(&ma, pa, &mb, pb, &CheckOptions::default())?;
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        let mut out: Vec<Found> = r
            .intersect
            .pairs
            .iter()
            .map(|p| {
                let point = match &p.contact.intersection {
                    Intersection::Point(q) => *q,
                    Intersection::Segment(q, s) => (*q + *s) * 0.5,
                    Intersection::Area(poly) if !poly.is_empty() => {
                        poly.iter().copied().sum::<DVec3>() / poly.len() as f64
                    }
                    _ => xa.tri(p.a).iter().copied().sum::<DVec3>() / 3.0,
                };
                let t = xb.tri(p.b);
                let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
                (Some(p.a), Some(p.b), point, Some(normal))
            })
            .collect();
        if out.is_empty() && r.containment.is_some() {
            let s = backend.solid_distance(&ma, pa, &mb, pb)?;
            let evidence = SolidDistanceResult { solid: s }.evidence_vertex_point();
            let point = evidence.map_or(r.distance.point_a, |(_, p)| p);
            out.push((None, None, point, None));
        }
        Ok(out)
    })?
    .map_err(err)?;
    Ok(found
        .into_iter()
        .map(|(ta, tb, p, n)| (ta, tb, vec3(py, p), n.map(|n| vec3(py, n))))
        .collect())
}

/// A 4x4 transform checked rigid as ``--matrix`` is, as a float64 array of its own.
#[pyfunction]
pub fn rigid_transform<'py>(
    py: Python<'py>,
    transform: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    let m = pose(transform, "transform")?.to_matrix();
    let a = numpy::ndarray::Array2::from_shape_vec((4, 4), m.to_vec()).expect("16 entries");
    Ok(numpy::IntoPyArray::into_pyarray(a, py))
}
