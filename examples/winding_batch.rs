//! Winding numbers (inside or outside) of a batch of points against a mesh, on the CPU and on
//! the GPU, timed, the answers compared to the bit. Points: uniform in the mesh's box.
//! `cargo run --release --example winding_batch -- [MESH] [POINTS]` (default: the shared
//! igea.stl, 100 000 points).

use glam::DVec3;
use meshclash::mesh::{Mesh, Pose};
use meshclash::{Backend, BackendKind, PreparedMesh};
use std::time::Instant;

fn main() -> Result<(), meshclash::Error> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "../shared/cases/meshes/igea.stl".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let m = PreparedMesh::new(Mesh::load(&path)?);
    let b = m.octree.nodes[0].aabb();
    // A fixed low-discrepancy sequence (Halton 2, 3, 5): the same points every run.
    let halton = |mut i: usize, base: usize| {
        let (mut f, mut r) = (1.0, 0.0);
        while i > 0 {
            f /= base as f64;
            r += f * (i % base) as f64;
            i /= base;
        }
        r
    };
    let points: Vec<DVec3> = (1..=n)
        .map(|i| b.min + (b.max - b.min) * DVec3::new(halton(i, 2), halton(i, 3), halton(i, 5)))
        .collect();
    println!(
        "{path}: {} triangles, closed {}, {n} points",
        m.mesh.triangles.len(),
        m.info.closed
    );
    let time = |be: &Backend| -> Result<_, meshclash::Error> {
        be.winding_numbers(&m, Pose::IDENTITY, &points[..n.min(100)])?; // upload, pipelines
        let t = Instant::now();
        let w = be.winding_numbers(&m, Pose::IDENTITY, &points)?;
        Ok((w, t.elapsed().as_secs_f64() * 1e3))
    };
    let (cpu, tc) = time(&Backend::cpu())?;
    let inside = cpu.iter().filter(|w| w.inside()).count();
    let unsure = cpu.iter().filter(|w| !w.certain()).count();
    println!(
        "cpu: {tc:.1} ms ({:.2} M points/s), {inside} inside, {unsure} uncertain",
        n as f64 / tc / 1e3
    );
    if let Ok(gpu) = Backend::new(BackendKind::Gpu) {
        let (g, tg) = time(&gpu)?;
        println!(
            "gpu: {tg:.1} ms ({:.2} M points/s), same answers: {}",
            n as f64 / tg / 1e3,
            g == cpu
        );
    }
    Ok(())
}
