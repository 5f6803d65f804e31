//! `meshclash inside` and `meshclash closest`: batches of points against one placed mesh, read
//! from a table and answered into one (`table.rs`), with a summary on stdout.

use crate::args::BatchArgs;
use crate::progress;
use crate::table::{self, Column};
use crate::{choose_backend, load};
use meshclash::query::{Hits, RayHit, Timings};
use meshclash::{BackendKind, DVec3, Error, Pose};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What every point command shares: the mesh, its pose, the points, where the rows go.
pub struct Job<'a> {
    pub mesh: &'a Path,
    pub pose: Pose,
    pub points: &'a Path,
    pub out: Option<PathBuf>,
    pub json: bool,
    pub kind: BackendKind,
}

impl<'a> Job<'a> {
    pub fn new(mesh: &'a Path, rows: &'a Path, batch: BatchArgs) -> Result<Job<'a>, Error> {
        if let Some(out) = &batch.out {
            table::check_out(out, &[mesh, rows])?;
        }
        Ok(Job {
            mesh,
            pose: batch.pose.pose()?,
            points: rows,
            out: batch.out,
            json: batch.json,
            kind: batch.backend.kind(),
        })
    }
}

/// The points of a table, and the table, whose lines messages name.
fn points(path: &Path) -> Result<(table::Rows, Vec<DVec3>), Error> {
    let rows = table::read(path, 3)?;
    let points = (0..rows.len())
        .map(|i| DVec3::from_slice(rows.row(i)))
        .collect();
    Ok((rows, points))
}

/// The summary: one JSON object, or a few lines for a person.
pub fn summary(job: &Job, fields: serde_json::Value, backend: &str, t: &Timings) {
    out!("{}", summary_json(fields, backend, t, job.json));
}

/// How long `make` (building the trees a batch walks, uploading the mesh) took, before the
/// query's timer: `prepare_ms` in the summary, as `poses` has it.
fn prepare(make: impl FnOnce() -> Result<(), Error>) -> Result<f64, Error> {
    let t = Instant::now();
    make()?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// [`summary`]'s text: `fields` with the backend and the query's time, as one JSON object
/// (`json`) or a line per field.
pub fn summary_json(fields: serde_json::Value, backend: &str, t: &Timings, json: bool) -> String {
    let mut v = fields;
    v["backend"] = json!(backend);
    v["timings_ms"] = json!({"query": t.total(), "total": t.total()});
    if json {
        return v.to_string();
    }
    let mut lines: Vec<String> = v
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| *k != "timings_ms")
        .map(|(k, x)| match x {
            // A word as it is, not quoted as JSON would have it.
            serde_json::Value::String(s) => format!("{:<19} {s}", format!("{k}:")),
            _ => format!("{:<19} {x}", format!("{k}:")),
        })
        .collect();
    lines.push(format!("{:<19} {:.2}", "time (ms):", t.total()));
    lines.join("\n")
}

pub fn inside(job: Job) -> Result<(), Error> {
    let (m, (_, pts)) = (load(job.mesh)?, points(job.points)?);
    let backend = choose_backend(job.kind)?;
    let prepare_ms = prepare(|| backend.prepare_inside(&m))?;
    let t = Instant::now();
    let w = progress::during("inside", || backend.points_inside(&m, job.pose, &pts))?;
    let mut timings = Timings::default();
    timings.add("query", t);
    if let Some(out) = &job.out {
        let cols = [
            (
                "winding",
                Column::F64(w.iter().map(|w| Some(w.0.value)).collect()),
            ),
            (
                "inside",
                Column::Bool(w.iter().map(|w| w.1.inside).collect()),
            ),
            (
                "certain",
                Column::Bool(w.iter().map(|w| w.1.certain).collect()),
            ),
            // Last, added after the others: how far `winding` may be from the exact value
            // (a review's helper read 2.3e-4 off beside a cap's seam, within it).
            (
                "bound",
                Column::F64(w.iter().map(|w| Some(w.0.bound)).collect()),
            ),
        ];
        table::write(out, w.len(), &cols)?;
    }
    let fields = json!({
        "count": w.len(),
        "inside": w.iter().filter(|w| w.1.inside).count(),
        "uncertain": w.iter().filter(|w| !w.1.certain).count(),
        "prepare_ms": prepare_ms,
    });
    summary(&job, fields, backend.name(), &timings);
    Ok(())
}

pub fn closest(job: Job, signed: bool, max_distance: Option<f64>) -> Result<(), Error> {
    let limit = max_distance.unwrap_or(f64::INFINITY);
    if limit.is_nan() || limit < 0.0 {
        return Err(Error::Argument(format!(
            "--max-distance must be a distance >= 0, got {limit}"
        )));
    }
    let (m, (rows, pts)) = (load(job.mesh)?, points(job.points)?);
    let backend = choose_backend(job.kind)?;
    let prepare_ms = prepare(|| backend.prepare_closest(&m, pts.len()))?;
    let t = Instant::now();
    let found = progress::during("closest", || {
        backend.closest_points(&m, job.pose, &pts, limit)
    })?;
    // With no limit, every point of a mesh with triangles has a nearest one, unless its
    // distance is beyond f64: an answer of "none within reach" would be wrong, so say so.
    if limit == f64::INFINITY {
        if let Some(i) = meshclash::query::first_beyond_f64(&m, &found) {
            return Err(Error::PointBeyondF64 {
                what: format!("{}:{}: row {i}", job.points.display(), rows.line(i)),
            });
        }
    }
    let inside = if signed {
        Some(backend.points_inside(&m, job.pose, &pts)?)
    } else {
        None
    };
    let mut timings = Timings::default();
    timings.add("query", t);
    let sign = |i: usize| match &inside {
        Some(w) if w[i].1.inside => -1.0,
        _ => 1.0,
    };
    if let Some(out) = &job.out {
        let f = |g: &dyn Fn(&meshclash::query::Closest) -> f64| {
            Column::F64(found.iter().map(|c| c.as_ref().map(g)).collect())
        };
        let cols = [
            (
                "distance",
                Column::F64(
                    found
                        .iter()
                        .enumerate()
                        .map(|(i, c)| c.map(|c| sign(i) * c.distance))
                        .collect(),
                ),
            ),
            (
                "triangle",
                Column::I64(found.iter().map(|c| c.map(|c| c.triangle as i64)).collect()),
            ),
            ("x", f(&|c| c.point.x)),
            ("y", f(&|c| c.point.y)),
            ("z", f(&|c| c.point.z)),
            ("u", f(&|c| c.u)),
            ("v", f(&|c| c.v)),
        ];
        table::write(out, found.len(), &cols)?;
    }
    // The distances as the table reports them (signed with --signed).
    let within: Vec<f64> = (found.iter().enumerate())
        .filter_map(|(i, c)| c.map(|c| sign(i) * c.distance))
        .collect();
    let mut fields = json!({
        "count": found.len(),
        "found": within.len(),
        // In total order, so that -0 (on the surface, inside) is below +0 as the table has them
        // (f64::max may give either).
        "min_distance": within.iter().copied().min_by(f64::total_cmp),
        "max_distance": within.iter().copied().max_by(f64::total_cmp),
        "prepare_ms": prepare_ms,
    });
    if let Some(w) = &inside {
        fields["inside"] = json!(w.iter().filter(|w| w.1.inside).count());
        fields["uncertain"] = json!(w.iter().filter(|w| !w.1.certain).count());
    }
    summary(&job, fields, backend.name(), &timings);
    Ok(())
}

/// The rays of a table: origin and direction, the direction non-zero; and the table, whose
/// lines messages name.
fn rays(path: &Path) -> Result<(table::Rows, Vec<(DVec3, DVec3)>), Error> {
    let rows = table::read(path, 6)?;
    let rays = (0..rows.len())
        .map(|i| {
            let r = rows.row(i);
            let (o, d) = (DVec3::from_slice(&r[..3]), DVec3::from_slice(&r[3..]));
            if d == DVec3::ZERO {
                return Err(Error::Syntax {
                    path: path.to_path_buf(),
                    line: rows.line(i),
                    message: format!("row {i} has a zero direction"),
                });
            }
            Ok((o, d))
        })
        .collect::<Result<_, _>>()?;
    Ok((rows, rays))
}

pub fn ray(job: Job, hits: Hits, max_t: Option<f64>) -> Result<(), Error> {
    let max_t = max_t.unwrap_or(f64::INFINITY);
    if max_t.is_nan() || max_t < 0.0 {
        return Err(Error::Argument(format!(
            "--max-t must be >= 0, got {max_t}"
        )));
    }
    let (m, (rows, rs)) = (load(job.mesh)?, rays(job.points)?);
    // A ray whose segment past the mesh overflows f64 would meet nothing: say so instead.
    let posed = meshclash::query::Posed::new(&m, job.pose);
    if let Some(i) = meshclash::query::first_unbounded_ray(&rs, &posed, max_t) {
        return Err(Error::Syntax {
            path: job.points.to_path_buf(),
            line: rows.line(i),
            message: format!("row {i}: the ray's segment past the mesh is beyond f64"),
        });
    }
    let backend = choose_backend(job.kind)?;
    let prepare_ms = prepare(|| backend.prepare_rays(&m))?;
    let t = Instant::now();
    let found = progress::during("rays", || backend.ray_hits(&m, job.pose, &rs, max_t, hits))?;
    let mut timings = Timings::default();
    timings.add("query", t);
    if let Some(out) = &job.out {
        write_hits(out, &found, hits)?;
    }
    let fields = json!({
        "count": rs.len(),
        "hit": found.iter().filter(|h| !h.is_empty()).count(),
        "hits": found.iter().map(Vec::len).sum::<usize>(),
        "prepare_ms": prepare_ms,
    });
    summary(&job, fields, backend.name(), &timings);
    Ok(())
}

/// One row per ray (`first`, `any`: its hit or empty columns), or one per hit (`all`).
fn write_hits(out: &Path, found: &[Vec<RayHit>], hits: Hits) -> Result<(), Error> {
    let rows = meshclash::query::hit_rows(found, hits);
    let f = |g: &dyn Fn(&RayHit) -> f64| Column::F64(rows.iter().map(|r| r.1.map(g)).collect());
    let mut cols = vec![
        (
            "ray",
            Column::I64(rows.iter().map(|r| Some(r.0 as i64)).collect()),
        ),
        (
            "hit",
            Column::Bool(rows.iter().map(|r| r.1.is_some()).collect()),
        ),
    ];
    if hits != Hits::Any {
        cols.extend([
            ("t", f(&|h| h.t)),
            (
                "triangle",
                Column::I64(
                    rows.iter()
                        .map(|r| r.1.map(|h| h.triangle as i64))
                        .collect(),
                ),
            ),
            ("u", f(&|h| h.u)),
            ("v", f(&|h| h.v)),
            ("x", f(&|h| h.point.x)),
            ("y", f(&|h| h.point.y)),
            ("z", f(&|h| h.point.z)),
            (
                "front",
                Column::Bool(rows.iter().map(|r| r.1.is_some_and(|h| h.front)).collect()),
            ),
        ]);
    }
    table::write(out, rows.len(), &cols)
}
