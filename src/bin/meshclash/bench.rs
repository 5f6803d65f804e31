//! `meshclash bench`: every query on the CPU and on the GPU on generated scenes, the answers
//! checked equal.

use crate::choose_backend;
use crate::progress::note as progress;
use meshclash::{bench, BackendKind, Error};
use std::time::Instant;

/// `meshclash bench`: each scene's rows (or JSON line) as soon as it is done, a minute or more
/// apart at a million triangles. Backends that disagree are our bug: an error (exit 1) once
/// every scene has run, naming them. An output that cannot be written (a full disk) is an
/// error; a reader that stops reading ends the run by SIGPIPE (see `main`).
pub fn bench(triangles: usize, kind: BackendKind, json: bool) -> Result<(), Error> {
    crate::demo::check_triangles(triangles)?;
    let backend = choose_backend(kind)?;
    let gpu = backend.gpu_backend();
    let gpu = gpu.as_deref();
    let emit = |text: &str| crate::output::text(text).map_err(Error::Output);
    progress(&format!(
        "bench: building the scenes' meshes ({triangles} triangles each)"
    ));
    let t = Instant::now();
    let scenes = bench::scenes(triangles);
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    if !json {
        emit(&bench::header(&scenes, build_ms, gpu))?;
    }
    let mut disagree = Vec::new();
    for sc in &scenes {
        progress(&format!("bench: {} ...", sc.name));
        let runs = bench::run(sc, gpu)?;
        if !bench::agree(&runs) {
            disagree.push(sc.name);
        }
        let text = if json {
            format!("{}\n", bench::json(sc, &runs))
        } else {
            bench::rows(sc, &runs)
        };
        emit(&text)?;
    }
    if disagree.is_empty() {
        Ok(())
    } else {
        Err(Error::Gpu(format!(
            "the GPU's answers differ from the CPU's on: {}",
            disagree.join(", ")
        )))
    }
}
