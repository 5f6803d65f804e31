//! One GPU round of each kind on the near-miss scene, with its counters and GPU time: where the
//! time of a query goes. `cargo run --release --example profile_round -- 100000`
use meshclash::bench::scenes;
use meshclash::gpu::layout::{MODE_CLEARANCE, MODE_DISTANCE, MODE_INTERSECT};
use meshclash::gpu::query::frame;
use meshclash::gpu::{GpuBackend, GpuContext, Narrow};
use meshclash::query::Posed;

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let g = GpuBackend::new(GpuContext::new().expect("a GPU")).expect("pipelines");
    for sc in scenes(n) {
        let (ga, gb) = (g.upload(&sc.a).unwrap(), g.upload(&sc.b).unwrap());
        let (pa, pb) = (Posed::new(&sc.a, sc.pose_a), Posed::new(&sc.b, sc.pose_b));
        for (what, d, mode, narrow) in [
            ("intersect", 0.0, MODE_INTERSECT, Narrow::Main),
            ("clearance", sc.clearance, MODE_CLEARANCE, Narrow::Main),
            ("nearest", 0.0, MODE_DISTANCE, Narrow::Nearest),
        ] {
            let mut f = frame(&pa, &ga, &pb, &gb, d, mode).unwrap();
            f.query.capacity = g.capacity;
            f.query.chunk_end = ga.triangles;
            for _ in 0..2 {
                let (r0, t0) = g.stats();
                let t = std::time::Instant::now();
                let r = g
                    .round(&ga.parts[0], &gb.parts[0], &f.query, narrow)
                    .unwrap();
                let (r1, t1) = g.stats();
                let c = r.as_ref().map(|x| x.0);
                println!(
                    "{:<12} {:<10} wall {:>8.2} ms gpu {:>8.2} ms rounds {} counters {:?}",
                    sc.name,
                    what,
                    t.elapsed().as_secs_f64() * 1e3,
                    t1 - t0,
                    r1 - r0,
                    c
                );
            }
        }
    }
}
