//! Two 8 700-triangle tori placed near and far apart (1e12 to 1e300): `check` on the CPU and
//! on the GPU, each timed, their answers compared (the same pair, the same distance to the
//! bit). Far placements must cost about what a near one does: where every pair's distance
//! rounds to the same `f64`, the search settles the tie by index without visiting every pair.
//! `cargo run --release --example far_apart [triangles]`.

use glam::DVec3;
use meshclash::mesh::{generate, Pose};
use meshclash::{Backend, BackendKind, CheckOptions, PreparedMesh};
use std::time::Instant;

fn main() -> Result<(), meshclash::Error> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(8_700);
    let (nu, nv) = generate::torus_grid(n, 4);
    let a = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let b = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let cpu = Backend::cpu();
    let gpu = Backend::new(BackendKind::Gpu).ok();
    println!(
        "{} triangles each; GPU: {}",
        a.mesh.triangles.len(),
        gpu.is_some()
    );
    for x in [3.0, 1e6, 1e12, 1e15, 1e18, 1e30, 1e300] {
        let pose_b = Pose::from_euler_degrees([20.0, 30.0, 40.0], DVec3::new(x, 0.5, 0.25));
        let run = |be: &Backend| {
            let t = Instant::now();
            let r = be.check(&a, Pose::IDENTITY, &b, pose_b, &CheckOptions::default());
            (r, t.elapsed().as_secs_f64() * 1e3)
        };
        let (c, tc) = run(&cpu);
        let c = c?;
        let d = &c.distance;
        print!(
            "x = {x:>7.0e}: cpu {tc:>9.2} ms, distance {:.17e} (A {}, B {}, {} pairs measured)",
            d.distance, d.triangle_a, d.triangle_b, d.candidates
        );
        if let Some(g) = &gpu {
            let (r, tg) = run(g);
            let r = r?;
            let same = r.distance.distance.to_bits() == d.distance.to_bits()
                && (r.distance.triangle_a, r.distance.triangle_b) == (d.triangle_a, d.triangle_b);
            print!("; gpu {tg:>9.2} ms, same answer: {same}");
            if std::env::var_os("FAR_APART_STAGES").is_some() {
                print!("\n    gpu stages: {:?}", r.timings.0);
            }
        }
        println!();
    }
    Ok(())
}
