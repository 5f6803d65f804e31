//! A very large mesh end to end on the CPU: generate (default 10M triangles), prepare (weld,
//! octree), self-intersection, and a check against a moved copy. Run under `/usr/bin/time -v`
//! for the peak memory: `cargo run --release --example big_mesh -- 10000000`.

use glam::DVec3;
use meshclash::mesh::{generate, Pose};
use meshclash::query::{self, CheckOptions};
use meshclash::PreparedMesh;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let t = Instant::now();
    let (nu, nv) = generate::torus_grid(n, 4);
    let mesh = generate::torus(1.0, 0.3, nu, nv);
    println!(
        "generated {} triangles in {:.2} s",
        mesh.triangles.len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let prep = PreparedMesh::new(mesh);
    println!(
        "prepared (octree {:.2} s) in {:.2} s; closed {}",
        prep.octree_ms / 1e3,
        t.elapsed().as_secs_f64(),
        prep.info.closed
    );
    let t = Instant::now();
    let r = query::self_intersections(&prep);
    println!(
        "self-intersections: {} pairs in {:.2} s",
        r.pairs.len(),
        t.elapsed().as_secs_f64()
    );
    let link = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02));
    let t = Instant::now();
    let c = query::check(
        &prep,
        Pose::IDENTITY,
        &prep,
        link,
        &CheckOptions {
            clearance: Some(1e-3),
        },
    );
    println!(
        "check: {} intersecting pairs, containment {:?}, clearance 1e-3: {} pairs, in {:.2} s",
        c.intersect.pairs.len(),
        c.containment,
        c.clearance.map_or(0, |x| x.pairs.len()),
        t.elapsed().as_secs_f64()
    );
}
