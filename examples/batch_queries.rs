//! Batches against one mesh, timed: winding numbers (inside or outside) of points on the CPU and
//! on the GPU (the answers compared to the bit), nearest points, and rays (first hit, 10x the
//! points). Points: a Halton sequence in the mesh's box; rays from them in Halton directions.
//! `cargo run --release --example batch_queries -- [MESH] [POINTS]` (default: the shared
//! igea.stl, 100 000 points).

use glam::DVec3;
use meshclash::mesh::{Mesh, Pose};
use meshclash::query::Hits;
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
    let t = Instant::now();
    let bvh = m.bvh();
    println!(
        "hierarchy for rays and nearest points: {:.1} ms, {} nodes, depth {}",
        t.elapsed().as_secs_f64() * 1e3,
        bvh.nodes.len(),
        bvh.depth()
    );
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
    let t = Instant::now();
    let near = Backend::cpu().closest_points(&m, Pose::IDENTITY, &points, f64::INFINITY)?;
    let tn = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "closest, cpu: {tn:.1} ms ({:.2} M points/s), {} found",
        n as f64 / tn / 1e3,
        near.iter().flatten().count()
    );
    let rays: Vec<(DVec3, DVec3)> = (1..=10 * n)
        .map(|i| {
            let o = b.min + (b.max - b.min) * DVec3::new(halton(i, 2), halton(i, 3), halton(i, 5));
            let (u, v) = (
                2.0 * halton(i, 7) - 1.0,
                std::f64::consts::TAU * halton(i, 11),
            );
            let r = (1.0 - u * u).sqrt();
            (o, DVec3::new(r * v.cos(), r * v.sin(), u))
        })
        .collect();
    let t = Instant::now();
    let hits = Backend::cpu().ray_hits(&m, Pose::IDENTITY, &rays, f64::INFINITY, Hits::First)?;
    let tr = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "rays (first hit), cpu: {tr:.1} ms ({:.2} M rays/s), {} hit",
        rays.len() as f64 / tr / 1e3,
        hits.iter().filter(|h| !h.is_empty()).count()
    );
    if let Ok(gpu) = Backend::new(BackendKind::Gpu) {
        let (g, tg) = time(&gpu)?;
        println!(
            "gpu: {tg:.1} ms ({:.2} M points/s), same answers: {}",
            n as f64 / tg / 1e3,
            g == cpu
        );
        // The first call uploads the hierarchy and compiles.
        gpu.ray_hits(&m, Pose::IDENTITY, &rays[..100], f64::INFINITY, Hits::First)?;
        let t = Instant::now();
        let g = gpu.ray_hits(&m, Pose::IDENTITY, &rays, f64::INFINITY, Hits::First)?;
        let tg = t.elapsed().as_secs_f64() * 1e3;
        println!(
            "rays (first hit), gpu: {tg:.1} ms ({:.2} M rays/s), same answers: {}",
            rays.len() as f64 / tg / 1e3,
            g == hits
        );
    }
    Ok(())
}
