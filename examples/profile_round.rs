//! The GPU stages of each query kind on the benchmark scenes, in rounds as the queries run them:
//! wall time, the GPU's own time (timestamp queries), rounds, candidates and pairs read back.
//! Where the time of a query goes, apart from the CPU's share.
//!
//! ```sh
//! cargo run --release --example profile_round -- 1000000
//! cargo run --release --example profile_round -- 300000 "near miss"
//! ```
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
    // The scenes whose names start with the second argument: all by default.
    let only = std::env::args().nth(2).unwrap_or_default();
    let g = match GpuContext::new().and_then(GpuBackend::new) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("profile_round: no GPU: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "{} ({}), capacity {} pairs per round, timestamps: {}",
        g.ctx.info.name,
        g.ctx.info.backend,
        g.capacity,
        g.ctx.timestamp_period.is_some()
    );
    println!(
        "{:<12} {:<10} {:>9} {:>9} {:>7} {:>11} {:>9}",
        "scene", "stage", "wall ms", "gpu ms", "rounds", "candidates", "pairs"
    );
    for sc in scenes(n) {
        if !sc.name.starts_with(&only) {
            continue;
        }
        let (ga, gb) = (g.upload(&sc.a).unwrap(), g.upload(&sc.b).unwrap());
        // Where the adapter's bindings hold fewer triangles than a mesh (lavapipe at 1M), the
        // queries run every pair of parts in turn; the rows add them up.
        let parts = ga.parts.len() * gb.parts.len();
        if parts > 1 {
            println!(
                "{}: {} x {} parts on this adapter; rows sum their {parts} pairs",
                sc.name,
                ga.parts.len(),
                gb.parts.len()
            );
        }
        let (pa, pb) = (Posed::new(&sc.a, sc.pose_a), Posed::new(&sc.b, sc.pose_b));
        for (what, d, mode, narrow) in [
            ("intersect", 0.0, MODE_INTERSECT, Narrow::Main),
            ("clearance", sc.clearance, MODE_CLEARANCE, Narrow::Main),
            ("nearest", 0.0, MODE_DISTANCE, Narrow::Nearest),
        ] {
            let mut f = frame(&pa, &ga, &pb, &gb, d, mode).unwrap();
            f.query.capacity = g.capacity;
            // The second of two runs: the first may compile pipelines and warm caches.
            for run in 0..2 {
                let (r0, t0) = g.stats();
                let t = std::time::Instant::now();
                let (mut hits, mut candidates) = (0, 0);
                for pa in &ga.parts {
                    for pb in &gb.parts {
                        let found = g.rounds(pa, pb, &f.query, narrow, u64::MAX).unwrap();
                        hits += found.hits.len();
                        candidates += found.candidates;
                    }
                }
                let wall = t.elapsed().as_secs_f64() * 1e3;
                let (r1, t1) = g.stats();
                if run == 1 {
                    println!(
                        "{:<12} {:<10} {:>9.2} {:>9.2} {:>7} {:>11} {:>9}",
                        sc.name,
                        what,
                        wall,
                        t1 - t0,
                        r1 - r0,
                        candidates,
                        hits
                    );
                }
            }
        }
    }
}
