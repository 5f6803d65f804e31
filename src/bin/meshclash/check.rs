//! `meshclash check`: two placed parts, in full or (`--quick`) only whether they interfere and
//! how far apart they are as solids.

use crate::args::PictureArgs;
use crate::{choose_backend, json, load_pair, progress, text};
use meshclash::picture::{self, Scene};
use meshclash::{BackendKind, CheckOptions, Error, Pose, Timings};
use std::path::Path;
use std::time::Instant;

/// How to print the answer, and the pictures to draw of it.
pub struct Output {
    pub pairs: bool,
    pub json: bool,
    pub pictures: PictureArgs,
}

/// `--clearance` as given, if a finite distance >= 0 (a `-0` as 0: it is echoed back).
pub fn valid_clearance(clearance: Option<f64>) -> Result<Option<f64>, Error> {
    match clearance {
        Some(d) if !(d.is_finite() && d >= 0.0) => Err(Error::Argument(format!(
            "--clearance must be a finite distance >= 0, got {d}"
        ))),
        _ => Ok(clearance.map(|d| d + 0.0)),
    }
}

pub fn check(
    a: &Path,
    b: &Path,
    (pa, pb): (Pose, Pose),
    clearance: Option<f64>,
    kind: BackendKind,
    out: Output,
) -> Result<(), Error> {
    let clearance = valid_clearance(clearance)?;
    out.pictures.check_paths(&[a, b])?;
    let (ma, mb) = load_pair(a, b)?;
    let backend = choose_backend(kind)?;
    let r = progress::during("checking", || {
        backend.check(&ma, pa, &mb, pb, &CheckOptions { clearance })
    })?;
    within_f64(r.distance.distance)?;
    // The answer first: a picture that cannot be written (a full disk) does not lose it.
    if out.json {
        crate::output::json(&json::check_json(&r, out.pairs, &backend));
    } else {
        text::print_check(a, b, &ma, &mb, &r, out.pairs, &backend);
    }
    let p = &out.pictures;
    if p.render.is_some() || p.glb.is_some() {
        let scene = Scene::of_check(&ma, pa, &mb, pb, &r);
        progress::during("drawing", || {
            picture::write(&scene, p.render.as_deref(), p.size, p.glb.as_deref())
        })?;
    }
    Ok(())
}

/// `--quick`: on the CPU, where the first evidence takes microseconds (less than an upload).
pub fn quick(
    a: &Path,
    b: &Path,
    (pa, pb): (Pose, Pose),
    kind: BackendKind,
    json: bool,
) -> Result<(), Error> {
    if kind == BackendKind::Gpu {
        return Err(Error::Argument(
            "--quick answers on the CPU; leave out --backend gpu".into(),
        ));
    }
    let (ma, mb) = load_pair(a, b)?;
    let t = Instant::now();
    let r = meshclash::Backend::cpu().solid_distance(&ma, pa, &mb, pb)?;
    within_f64(r.distance())?;
    let mut timings = Timings::default();
    timings.add("solid_distance", t);
    if json {
        out!("{}", json::quick_json(&r, &timings));
    } else {
        text::print_quick(a, b, &ma, &mb, &r, &timings);
    }
    Ok(())
}

/// The parts are farther apart than the largest `f64` (1.8e308): no distance to print, so a
/// clear error rather than `inf` (JSON has no infinity, and would say `null`).
fn within_f64(distance: f64) -> Result<(), Error> {
    if distance.is_finite() {
        return Ok(());
    }
    Err(Error::PartsBeyondF64 {
        what: "the pair of poses".into(),
    })
}
