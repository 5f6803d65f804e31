//! `meshclash poses` and `meshclash sweep`: many poses of B against A, and B moving along a
//! path. Poses on either backend (`Backend::poses`), the path on the CPU.

use crate::json::v3;
use crate::progress;
use crate::table::{self, Column};
use crate::{choose_backend, load_pair, points::summary_json};
use meshclash::query::{self, SolidDistance, Timings};
use meshclash::{BackendKind, Error, Pose};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The poses of a table of 4×4 row-major matrices, each checked rigid: rows of 16, or one
/// matrix as four rows of four (a single pose saved as it is written).
fn read_poses(path: &Path) -> Result<Vec<Pose>, Error> {
    let mut rows = table::read_widths(path, &[16, 4])?;
    if rows.width == 4 {
        if rows.len() != 4 {
            return Err(Error::Argument(format!(
                "{}: rows of 4 numbers, expected 16 (or one 4×4 matrix)",
                path.display()
            )));
        }
        rows.width = 16;
    }
    (0..rows.len())
        .map(|i| {
            Pose::from_matrix(rows.row(i)).map_err(|e| Error::Syntax {
                path: path.to_path_buf(),
                line: rows.line(i),
                message: format!("pose {i}: {e}"),
            })
        })
        .collect()
}

/// `meshclash poses`: the parts and the poses' file, A's pose, the clearance, where the rows
/// and the summary go, and the backend.
pub fn poses(
    (a, b, poses): (&Path, &Path, &Path),
    pose_a: Pose,
    clearance: Option<f64>,
    (out, json_out): (Option<PathBuf>, bool),
    kind: BackendKind,
) -> Result<(), Error> {
    let clearance = super::check::valid_clearance(clearance)?;
    if let Some(out) = &out {
        table::check_out(out, &[a, b, poses])?;
    }
    let ps = read_poses(poses)?;
    let (ma, mb) = load_pair(a, b)?;
    // Chosen once the inputs are read, as the other batch commands choose it: a bad input is
    // refused before a GPU is started.
    let backend = choose_backend(kind)?;
    // What every pose reuses is made first and timed apart, as loading is: the oriented boxes
    // the distance walks, the caps an open part's inside test needs, the GPU's uploads.
    let t = Instant::now();
    backend.prepare_poses(&ma, &mb)?;
    let prepare_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let answers = progress::during("poses", || backend.poses(&ma, pose_a, &mb, &ps, clearance))?;
    let mut timings = Timings::default();
    timings.add("query", t);
    // As `check` refuses it: a distance beyond f64 is no distance (JSON would say null).
    if let Some(k) = answers.iter().position(|a| !a.solid.distance().is_finite()) {
        return Err(Error::PartsBeyondF64 {
            what: format!("{}: pose {k}", poses.display()),
        });
    }
    if let Some(out) = out {
        table::write(&out, answers.len(), &columns(&answers))?;
    }
    let interfering = answers
        .iter()
        .filter(|x| matches!(x.solid, SolidDistance::Interfering(_)))
        .count();
    let fields =
        json!({"count": answers.len(), "interfering": interfering, "prepare_ms": prepare_ms});
    out!(
        "{}",
        summary_json(fields, backend.name(), &timings, json_out)
    );
    Ok(())
}

fn columns(answers: &[query::PoseAnswer]) -> Vec<(&'static str, Column)> {
    let apart = |x: &query::PoseAnswer| match &x.solid {
        SolidDistance::Apart { report, .. } => Some(report.clone()),
        SolidDistance::Interfering(_) => None,
    };
    let reports: Vec<_> = answers.iter().map(apart).collect();
    let f = |g: &dyn Fn(&meshclash::DistanceReport) -> f64| {
        Column::F64(reports.iter().map(|r| r.as_ref().map(g)).collect())
    };
    let i = |g: &dyn Fn(&meshclash::DistanceReport) -> u32| {
        Column::I64(
            reports
                .iter()
                .map(|r| r.as_ref().map(|r| g(r) as i64))
                .collect(),
        )
    };
    vec![
        (
            "pose",
            Column::I64((0..answers.len() as i64).map(Some).collect()),
        ),
        (
            "interferes",
            Column::Bool(reports.iter().map(Option::is_none).collect()),
        ),
        (
            "distance",
            Column::F64(answers.iter().map(|x| Some(x.solid.distance())).collect()),
        ),
        ("triangle_a", i(&|r| r.triangle_a)),
        ("triangle_b", i(&|r| r.triangle_b)),
        ("ax", f(&|r| r.point_a.x)),
        ("ay", f(&|r| r.point_a.y)),
        ("az", f(&|r| r.point_a.z)),
        ("bx", f(&|r| r.point_b.x)),
        ("by", f(&|r| r.point_b.y)),
        ("bz", f(&|r| r.point_b.z)),
        (
            "evidence",
            Column::Str(answers.iter().map(|x| query::evidence(&x.solid)).collect()),
        ),
        (
            "clearance_pairs",
            Column::I64(
                answers
                    .iter()
                    .map(|x| x.clearance_pairs.map(|n| n as i64))
                    .collect(),
            ),
        ),
        // Last: a column added after the others, which scripts may read by position.
        (
            "certain",
            Column::Bool(answers.iter().map(|x| x.solid.certain()).collect()),
        ),
    ]
}

fn parse_times(s: Option<String>, n: usize) -> Result<Vec<f64>, Error> {
    let Some(s) = s else { return Ok(Vec::new()) };
    let t: Result<Vec<f64>, _> = s.split(',').map(|x| x.trim().parse::<f64>()).collect();
    match t {
        Ok(t)
            if t.len() == n
                && t.first() == Some(&0.0)
                && t.last() == Some(&1.0)
                && t.windows(2).all(|w| w[0] < w[1]) =>
        {
            Ok(t)
        }
        _ => Err(Error::Argument(format!(
            "--times needs {n} increasing numbers from 0 to 1, one per waypoint, got {s:?}"
        ))),
    }
}

pub fn sweep(
    a: &Path,
    b: &Path,
    pose_a: Pose,
    path: &Path,
    times: Option<String>,
    tolerance: Option<f64>,
    json_out: bool,
) -> Result<(), Error> {
    let waypoints = read_poses(path)?;
    if waypoints.len() < 2 {
        return Err(Error::Argument(format!(
            "{}: a path needs at least two waypoints, got {}",
            path.display(),
            waypoints.len()
        )));
    }
    if let Some(i) = query::first_unbounded_segment(&waypoints) {
        return Err(Error::Argument(format!(
            "{}: the move from waypoint {i} to {} is beyond f64 (1.8e308)",
            path.display(),
            i + 1
        )));
    }
    if let Some(i) = query::first_half_turn(&waypoints) {
        return Err(Error::Argument(format!(
            "{}: {}",
            path.display(),
            query::half_turn_message(i)
        )));
    }
    let times = parse_times(times, waypoints.len())?;
    let (ma, mb) = load_pair(a, b)?;
    let tol = tolerance.unwrap_or_else(|| query::path_tolerance(&ma, &mb));
    if !(tol > 0.0 && tol.is_finite()) {
        return Err(Error::Argument(format!(
            "--tolerance must be finite and > 0, got {tol}"
        )));
    }
    let t = Instant::now();
    let r = progress::during("sweep", || {
        query::sweep(&ma, pose_a, &mb, &waypoints, &times, tol)
    });
    // As `poses` and `check` refuse it: a distance beyond f64 cannot be given, nor stepped by.
    if !r.min_distance.is_finite() {
        return Err(Error::PartsBeyondF64 {
            what: format!("{}: the path", path.display()),
        });
    }
    let mut timings = Timings::default();
    timings.add("query", t);
    let mut fields = json!({
        "contact": r.contact.is_some(),
        "tolerance": r.tolerance,
        "min_distance": r.min_distance,
        "min_time": r.min_time,
        "min_distance_bound": r.min_distance_bound,
        "complete": r.complete,
        "certain": r.certain,
        "steps": r.steps,
    });
    if let Some(h) = &r.contact {
        fields["time"] = json!(h.time);
        fields["segment"] = json!(h.segment);
        fields["segment_time"] = json!(h.segment_time);
        fields["pose"] = json!(h.pose.to_matrix());
        contact_fields(&mut fields, &h.solid);
    }
    out!("{}", summary_json(fields, "cpu", &timings, json_out));
    Ok(())
}

/// At contact: the evidence of interference, or the points and triangles within tolerance.
fn contact_fields(fields: &mut Value, s: &SolidDistance) {
    match s {
        SolidDistance::Interfering(i) => fields["evidence"] = json!(i.as_str()),
        SolidDistance::Apart { report, .. } => {
            fields["distance"] = json!(report.distance);
            fields["triangle_a"] = json!(report.triangle_a);
            fields["triangle_b"] = json!(report.triangle_b);
            fields["closest_point_a"] = v3(report.point_a);
            fields["closest_point_b"] = v3(report.point_b);
        }
    }
}
