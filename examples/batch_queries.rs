//! Batches against one mesh, timed (the median of `REPEAT` runs, 3 by default, after a first
//! call that builds the hierarchy, uploads and compiles): winding numbers (inside or outside),
//! nearest points and rays (first hit, 10x the points), on the CPU and, where there is one, on
//! the GPU, the answers compared to the bit. Points: a Halton sequence in the mesh's box; rays
//! from them in Halton directions.
//! `cargo run --release --example batch_queries -- [MESH] [POINTS] [QUERIES]` (default: the
//! shared igea.stl, 100 000 points, `inside,closest,rays`).

use glam::DVec3;
use meshclash::mesh::{Mesh, Pose};
use meshclash::query::Hits;
use meshclash::{Backend, BackendKind, PreparedMesh};
use std::time::Instant;

/// A fixed low-discrepancy sequence (Halton, prime `base`): the same points every run.
fn halton(mut i: usize, base: usize) -> f64 {
    let (mut f, mut r) = (1.0, 0.0);
    while i > 0 {
        f /= base as f64;
        r += f * (i % base) as f64;
        i /= base;
    }
    r
}

/// The answer of `run` and its median time in ms over `REPEAT` runs, after one untimed.
fn timed<T: PartialEq>(mut run: impl FnMut() -> T) -> (T, f64) {
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let first = run();
    let mut ms: Vec<f64> = (0..repeat.max(1))
        .map(|_| {
            let t = Instant::now();
            let again = run();
            assert!(again == first, "a repeated batch answered differently");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (first, ms[ms.len() / 2])
}

fn main() -> Result<(), meshclash::Error> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "../shared/cases/meshes/igea.stl".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let which = args.next().unwrap_or_else(|| "inside,closest,rays".into());
    let m = PreparedMesh::new(Mesh::load(&path)?);
    let b = m.octree.nodes[0].aabb();
    let t = Instant::now();
    let bvh = m.bvh();
    println!(
        "{path}: {} triangles, closed {}; hierarchy for rays and nearest points: {:.1} ms, {} nodes, depth {}",
        m.mesh.triangles.len(),
        m.info.closed,
        t.elapsed().as_secs_f64() * 1e3,
        bvh.nodes.len(),
        bvh.depth()
    );
    let points: Vec<DVec3> = (1..=n)
        .map(|i| b.min + (b.max - b.min) * DVec3::new(halton(i, 2), halton(i, 3), halton(i, 5)))
        .collect();
    let rays: Vec<(DVec3, DVec3)> = (1..=10 * n)
        .map(|i| {
            let (u, v) = (
                2.0 * halton(i, 7) - 1.0,
                std::f64::consts::TAU * halton(i, 11),
            );
            let r = (1.0 - u * u).sqrt();
            let o = b.min + (b.max - b.min) * DVec3::new(halton(i, 2), halton(i, 3), halton(i, 5));
            (o, DVec3::new(r * v.cos(), r * v.sin(), u))
        })
        .collect();
    let mut backends = vec![("cpu", Backend::cpu())];
    if let Ok(gpu) = Backend::new(BackendKind::Gpu) {
        backends.push(("gpu", gpu));
    }
    let id = Pose::IDENTITY;
    let rate = |count: usize, ms: f64| count as f64 / ms / 1e3;
    if which.contains("inside") {
        let mut cpu = None;
        for (name, be) in &backends {
            let (w, ms) = timed(|| be.winding_numbers(&m, id, &points).ok());
            let inside = w.iter().flatten().filter(|w| w.inside()).count();
            let same = cpu.get_or_insert_with(|| w.clone()) == &w;
            println!(
                "inside, {name}: {ms:.1} ms ({:.2} M points/s), {inside} inside, same answers: {same}",
                rate(n, ms)
            );
        }
    }
    if which.contains("closest") {
        let mut cpu = None;
        for (name, be) in &backends {
            let (c, ms) = timed(|| be.closest_points(&m, id, &points, f64::INFINITY).ok());
            let found = c.iter().flatten().flatten().count();
            let same = cpu.get_or_insert_with(|| c.clone()) == &c;
            println!(
                "closest, {name}: {ms:.1} ms ({:.2} M points/s), {found} found, same answers: {same}",
                rate(n, ms)
            );
        }
    }
    if which.contains("rays") {
        let mut cpu = None;
        for (name, be) in &backends {
            let (h, ms) = timed(|| be.ray_hits(&m, id, &rays, f64::INFINITY, Hits::First).ok());
            let hit = h.iter().flatten().filter(|h| !h.is_empty()).count();
            let same = cpu.get_or_insert_with(|| h.clone()) == &h;
            println!(
                "rays (first hit), {name}: {ms:.1} ms ({:.2} M rays/s), {hit} hit, same answers: {same}",
                rate(rays.len(), ms)
            );
        }
    }
    Ok(())
}
