//! `meshclash spheres`: spheres standing (rows of 4) or moving (rows of 7) against one placed
//! mesh, on the GPU where there is one (nearest points and winding numbers; moving spheres
//! step together) but for `--contacts`, which is answered on the CPU in parallel.

use crate::points::{summary, Job};
use crate::progress;
use crate::table::{self, Column};
use crate::{choose_backend, load};
use meshclash::query::{self, sweep_tolerance, Posed, Timings};
use meshclash::{DVec3, Error};
use rayon::prelude::*;
use serde_json::json;
use std::time::Instant;

pub fn spheres(job: Job, contacts: bool, tolerance: Option<f64>) -> Result<(), Error> {
    // Before the rows: a table of none would not look at it (a review's helper).
    if let Some(tol) = tolerance.filter(|&t| !(t > 0.0 && t.is_finite())) {
        return Err(Error::Argument(format!(
            "--tolerance must be finite and > 0, got {tol}"
        )));
    }
    let rows = table::read_widths(job.points, &[4, 7])?;
    if let Some(i) = (0..rows.len()).find(|&i| rows.row(i)[3] < 0.0) {
        return Err(Error::Syntax {
            path: job.points.to_path_buf(),
            line: rows.line(i),
            message: format!("row {i} has a negative radius"),
        });
    }
    // An option for the other kind of row would be ignored: say so rather than answer
    // another question than the one asked (a `.npy` of no rows tells its width too).
    let refuse = |option: &str, takes: &str| {
        Err(Error::Argument(format!(
            "{option} is for {takes}; {} has rows of {}",
            job.points.display(),
            rows.width
        )))
    };
    if rows.width_given && rows.width == 7 && contacts {
        return refuse("--contacts", "standing spheres (rows of 4)");
    }
    if rows.width_given && rows.width == 4 && tolerance.is_some() {
        return refuse("--tolerance", "moving spheres (rows of 7)");
    }
    // A move whose end is beyond f64 could only come back undecided: say so, as rays and
    // points whose reach overflows are refused.
    let ends_beyond = |i: usize| {
        let r = rows.row(i);
        (0..3).any(|k| !(r[k] + r[4 + k]).is_finite())
    };
    let beyond = (rows.width == 7).then(|| (0..rows.len()).find(|&i| ends_beyond(i)));
    if let Some(i) = beyond.flatten() {
        return Err(Error::Syntax {
            path: job.points.to_path_buf(),
            line: rows.line(i),
            message: format!("row {i}: the move's end (centre plus displacement) is beyond f64"),
        });
    }
    let m = load(job.mesh)?;
    let backend = choose_backend(job.kind)?;
    let posed = Posed::new(&m, job.pose);
    let t = Instant::now();
    // The backend that answered: the CPU for `--contacts`.
    let mut answered_by = "cpu";
    let (n, cols, fields) = if rows.width == 4 && contacts {
        touched(&rows, &posed)?
    } else if rows.width == 4 {
        let spheres: Vec<_> = (0..rows.len()).map(|i| sphere(rows.row(i))).collect();
        answered_by = backend.name();
        let found = progress::during("spheres", || {
            backend.sphere_contacts(&m, job.pose, &spheres)
        })?;
        // Every finite centre has a nearest point on a mesh with triangles, unless its
        // distance is beyond f64: not an answer of "no contact".
        if let Some(i) = meshclash::query::first_beyond_f64(&m, &found) {
            return Err(Error::PointBeyondF64 {
                what: format!("{}:{}: row {i}", job.points.display(), rows.line(i)),
            });
        }
        standing(found)
    } else {
        let spheres: Vec<_> = (0..rows.len())
            .map(|i| {
                let (c, r) = sphere(rows.row(i));
                (c, r, DVec3::from_slice(&rows.row(i)[4..]))
            })
            .collect();
        // Each sphere's own, unless one is given.
        let tols: Vec<f64> = spheres
            .iter()
            .map(|&s| sweep_tolerance(&posed, s, tolerance))
            .collect();
        answered_by = backend.name();
        moving(
            progress::during("sphere sweeps", || {
                backend.sphere_sweeps(&m, job.pose, &spheres, tolerance)
            })?,
            &tols,
        )
    };
    let mut timings = Timings::default();
    timings.add("query", t);
    if let Some(out) = &job.out {
        table::write(out, n, &cols)?;
    }
    summary(&job, fields, answered_by, &timings);
    Ok(())
}

type Table = (usize, Vec<(&'static str, Column)>, serde_json::Value);

fn sphere(r: &[f64]) -> (DVec3, f64) {
    (DVec3::from_slice(&r[..3]), r[3])
}

/// `--contacts`: one row per (sphere, triangle) it touches.
fn touched(rows: &table::Rows, m: &Posed) -> Result<Table, Error> {
    let n = rows.len();
    let spheres: Vec<(DVec3, f64)> = (0..n).map(|i| sphere(rows.row(i))).collect();
    let pairs = query::spheres_touching(&spheres, m)?;
    // Touching as without --contacts: a sphere wholly inside the solid meets no triangle but
    // touches (it penetrates).
    let touching = (spheres.par_iter())
        .filter(|&&(c, r)| query::sphere_contact(c, r, m).is_some_and(|s| s.touches))
        .count();
    let column =
        |k: fn(&(u32, u32)) -> u32| Column::I64(pairs.iter().map(|p| Some(k(p) as i64)).collect());
    let cols = vec![("sphere", column(|p| p.0)), ("triangle", column(|p| p.1))];
    let fields = json!({"count": n, "touching": touching, "contacts": pairs.len()});
    Ok((pairs.len(), cols, fields))
}

fn standing(found: Vec<Option<query::SphereContact>>) -> Table {
    let n = found.len();
    let f = |g: &dyn Fn(&query::SphereContact) -> f64| {
        Column::F64(found.iter().map(|c| c.as_ref().map(g)).collect())
    };
    let cols = vec![
        ("sphere", Column::I64((0..n as i64).map(Some).collect())),
        (
            "touches",
            Column::Bool(found.iter().map(|c| c.is_some_and(|c| c.touches)).collect()),
        ),
        ("gap", f(&|c| c.gap)),
        (
            "triangle",
            Column::I64(found.iter().map(|c| c.map(|c| c.triangle as i64)).collect()),
        ),
        ("x", f(&|c| c.point.x)),
        ("y", f(&|c| c.point.y)),
        ("z", f(&|c| c.point.z)),
    ];
    let touching = found.iter().flatten().filter(|c| c.touches).count();
    (n, cols, json!({"count": n, "touching": touching}))
}

fn moving(sweeps: Vec<query::SphereSweep>, tols: &[f64]) -> Table {
    let n = sweeps.len();
    let decided: Vec<bool> = sweeps
        .iter()
        .map(|s| !matches!(s, query::SphereSweep::Undecided { .. }))
        .collect();
    let found: Vec<Option<query::SweepContact>> =
        sweeps.iter().map(|s| s.contact().copied()).collect();
    let f = |g: &dyn Fn(&query::SweepContact) -> f64| {
        Column::F64(found.iter().map(|c| c.as_ref().map(g)).collect())
    };
    let cols = vec![
        ("sphere", Column::I64((0..n as i64).map(Some).collect())),
        (
            "contact",
            Column::Bool(found.iter().map(Option::is_some).collect()),
        ),
        // False: the advancement could not decide (steps ran out or stalled); never "clear".
        ("decided", Column::Bool(decided.clone())),
        ("toi", f(&|c| c.toi)),
        (
            "triangle",
            Column::I64(found.iter().map(|c| c.map(|c| c.triangle as i64)).collect()),
        ),
        ("x", f(&|c| c.point.x)),
        ("y", f(&|c| c.point.y)),
        ("z", f(&|c| c.point.z)),
        (
            "tolerance",
            Column::F64(tols.iter().map(|&t| Some(t)).collect()),
        ),
    ];
    let hit = found.iter().flatten().count();
    let undecided = decided.iter().filter(|&&d| !d).count();
    // The largest: the one given, or the default where every sphere has the mesh's; none
    // (null) for a batch of no spheres, which had none (it said 0).
    let tol = tols.iter().copied().reduce(f64::max);
    let fields = json!({"count": n, "contact": hit, "undecided": undecided, "tolerance": tol});
    (n, cols, fields)
}
