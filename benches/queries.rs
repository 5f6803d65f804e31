//! Criterion benches: per-primitive throughput (triangle pairs per second) and mesh queries on
//! the four scenes at several sizes, ours on the CPU (and GPU when an adapter exists) against
//! parry3d on the same meshes and poses. Sizes: `MESHCLASH_BENCH_SIZES` (default
//! "1000,10000,100000"; add 1000000 for the large runs).

#[path = "support/parry_peer.rs"]
mod parry_peer;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use meshclash::bench::scenes;
use meshclash::geom::{tritri, DVec3};
use meshclash::gpu::{GpuBackend, GpuContext};
use meshclash::query::{self, Posed};

fn pairs(n: usize) -> Vec<([DVec3; 3], [DVec3; 3])> {
    // Fixed pseudo-random pairs in the unit cube (an LCG: deterministic, no dependency).
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut r = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut tri = || [0; 3].map(|_| DVec3::new(r(), r(), r()));
    (0..n).map(|_| (tri(), tri())).collect()
}

fn primitives(c: &mut Criterion) {
    let ps = pairs(4096);
    let mut g = c.benchmark_group("triangle pairs");
    g.throughput(Throughput::Elements(ps.len() as u64));
    g.bench_function("intersect (exact)", |b| {
        b.iter(|| ps.iter().filter(|(x, y)| tritri::intersect(x, y)).count())
    });
    g.bench_function("distance (Nathan (2015))", |b| {
        b.iter(|| {
            ps.iter()
                .map(|(x, y)| tritri::separated_distance(x, y).distance)
                .sum::<f64>()
        })
    });
    g.finish();
}

fn meshes(c: &mut Criterion) {
    let sizes: Vec<usize> = std::env::var("MESHCLASH_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let gpu = GpuContext::new().and_then(GpuBackend::new).ok();
    for n in sizes {
        for sc in scenes(n) {
            let mut g = c.benchmark_group(format!("{} {}", sc.name, n));
            g.sample_size(10);
            // Every run poses the meshes afresh, as parry3d does inside its queries: posing is
            // on demand, so each query pays for what it visits.
            let posed = || (Posed::new(&sc.a, sc.pose_a), Posed::new(&sc.b, sc.pose_b));
            g.bench_function(BenchmarkId::new("ours cpu", "interferes"), |b| {
                b.iter(|| {
                    let (pa, pb) = posed();
                    query::interferes(&pa, &pb)
                })
            });
            g.bench_function(BenchmarkId::new("ours cpu", "solid_distance"), |b| {
                b.iter(|| {
                    let (pa, pb) = posed();
                    query::solid_distance(&pa, &pb).distance()
                })
            });
            g.bench_function(BenchmarkId::new("ours cpu", "intersect+containment"), |b| {
                b.iter(|| {
                    let (pa, pb) = posed();
                    let h = query::intersect(&pa, &pb);
                    (h.intersects(), query::containment(&pa, &pb))
                })
            });
            g.bench_function(BenchmarkId::new("ours cpu", "intersect+distance"), |b| {
                b.iter(|| {
                    let (pa, pb) = posed();
                    query::distance(&pa, &pb, &query::intersect(&pa, &pb)).distance
                })
            });
            g.bench_function(BenchmarkId::new("ours cpu", "clearance"), |b| {
                b.iter(|| {
                    let (pa, pb) = posed();
                    query::clearance(&pa, &pb, sc.clearance).pairs.len()
                })
            });
            if let Some(gb) = &gpu {
                let (ga, gm) = (gb.upload(&sc.a).unwrap(), gb.upload(&sc.b).unwrap());
                g.bench_function(BenchmarkId::new("ours gpu", "check"), |b| {
                    b.iter(|| {
                        gb.check(
                            &sc.a,
                            &ga,
                            sc.pose_a,
                            &sc.b,
                            &gm,
                            sc.pose_b,
                            &Default::default(),
                        )
                        .unwrap()
                        .interferes()
                    })
                });
            }
            let (ma, mb) = (parry_peer::trimesh(&sc.a), parry_peer::trimesh(&sc.b));
            let (qa, qb) = (parry_peer::pose(&sc.pose_a), parry_peer::pose(&sc.pose_b));
            g.bench_function(BenchmarkId::new("parry3d", "intersection_test"), |b| {
                b.iter(|| {
                    parry3d::query::intersection_test(&qa, &ma, &qb, &mb)
                        .map(|r| r.intersecting)
                        .ok()
                })
            });
            g.bench_function(BenchmarkId::new("parry3d", "distance"), |b| {
                b.iter(|| {
                    parry3d::query::distance(&qa, &ma, &qb, &mb)
                        .map(|r| r.distance)
                        .ok()
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, primitives, meshes);
criterion_main!(benches);
