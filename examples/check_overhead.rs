//! The Rust side of `python/bench/overhead.py`: two meshes loaded and prepared, then the same
//! `check` timed call after call, as the Python package makes it. Prints one JSON object with
//! each call's wall time in milliseconds (the warm-up calls, which upload to a GPU, left out).
//!
//! `cargo run --release --example check_overhead -- A.stl B.stl M00,...,M33 cpu|gpu CALLS`

use meshclash::{Backend, CheckOptions, Mesh, Pose, PreparedMesh};
use std::time::Instant;

fn main() -> Result<(), meshclash::Error> {
    let args: Vec<String> = std::env::args().collect();
    let usage = || {
        meshclash::Error::Argument(
            "usage: check_overhead A.stl B.stl M00,...,M33 cpu|gpu CALLS".into(),
        )
    };
    let [_, a, b, matrix, kind, calls] = args.as_slice() else {
        return Err(usage());
    };
    let m: Vec<f64> = matrix
        .split(',')
        .map(|x| x.trim().parse().map_err(|_| usage()))
        .collect::<Result<_, _>>()?;
    let pose_b = Pose::from_matrix(&m)?;
    let calls: usize = calls.parse().map_err(|_| usage())?;
    let (a, b) = (
        PreparedMesh::new(Mesh::load(a)?),
        PreparedMesh::new(Mesh::load(b)?),
    );
    let backend = Backend::new(kind.parse()?)?;
    let opts = CheckOptions::default();
    let mut pairs = 0;
    for _ in 0..3 {
        pairs = backend
            .check(&a, Pose::IDENTITY, &b, pose_b, &opts)?
            .intersect
            .pairs
            .len();
    }
    let ms: Vec<f64> = (0..calls)
        .map(|_| {
            let t = Instant::now();
            let r = backend.check(&a, Pose::IDENTITY, &b, pose_b, &opts);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            r.map(|_| ms)
        })
        .collect::<Result<_, _>>()?;
    println!(
        "{{\"backend\": \"{}\", \"pairs\": {pairs}, \"ms\": {ms:?}}}",
        backend.name()
    );
    Ok(())
}
