//! The same two prepared meshes checked again and again through one `Backend` (as a planner or
//! the Python package would): the wall time of each call, the first included.
//!
//! `cargo run --release --example repeat_check -- [TRIANGLES] [CALLS] [cpu|gpu|auto]`

use meshclash::mesh::generate;
use meshclash::{Backend, BackendKind, CheckOptions, DVec3, Pose, PreparedMesh};
use std::time::Instant;

fn main() -> Result<(), meshclash::Error> {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let calls: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let kind: BackendKind = args.get(3).map_or(Ok(BackendKind::Gpu), |s| s.parse())?;
    let (nu, nv) = generate::torus_grid(n, 4);
    let a = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let b = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let pose = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02));
    let backend = Backend::new(kind)?;
    let opts = CheckOptions::default();
    println!(
        "{} triangles per mesh, backend {}",
        a.mesh.triangles.len(),
        backend.name()
    );
    for k in 0..calls {
        let t = Instant::now();
        let r = backend.check(&a, Pose::IDENTITY, &b, pose, &opts)?;
        println!(
            "call {k}: {:.1} ms wall ({:.1} ms in the query's stages), {} pairs",
            t.elapsed().as_secs_f64() * 1e3,
            r.timings.total(),
            r.intersect.pairs.len()
        );
    }
    Ok(())
}
