//! GPU against CPU, and both against parry3d, on generated scenes or two mesh files:
//!
//! ```sh
//! cargo run --release --example compare_timings -- --triangles 100000
//! cargo run --release --example compare_timings -- a.stl b.stl
//! ```
//!
//! Prints, per scene: the time of each stage (upload, octree build, cull, narrow phase,
//! reduction, readback: as the stages report them) on each backend, GPU/CPU ratios, and
//! parry3d's `intersection_test` and `distance` on `TriMesh` shapes with the ratios to ours;
//! every GPU answer is checked equal to the CPU's, and parry3d's against ours.

#[path = "../benches/support/parry_peer.rs"]
mod parry_peer;

use meshclash::bench::{run, scenes, stages, Scene};
use meshclash::gpu::{GpuBackend, GpuContext};
use meshclash::mesh::{Mesh, Pose};
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;
use std::time::Instant;

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let v = f();
    (v, t.elapsed().as_secs_f64() * 1e3)
}

/// The median wall time of repeated runs of `f`, in ms, and its last answer: up to 31 runs
/// within about 300 ms, at least one.
fn median_time<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let (mut v, t) = time(&mut f);
    let mut times = vec![t];
    let mut spent = t;
    while times.len() < 31 && spent < 300.0 {
        let (w, t) = time(&mut f);
        v = w;
        times.push(t);
        spent += t;
    }
    times.sort_by(f64::total_cmp);
    (v, times[times.len() / 2])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gpu = GpuContext::new().and_then(GpuBackend::new).ok();
    let scenes: Vec<Scene> = if args.len() == 2 && !args[0].starts_with("--") {
        let load = |p: &str| PreparedMesh::new(Mesh::load(p).unwrap_or_else(|e| panic!("{e}")));
        vec![Scene {
            name: "files",
            a: load(&args[0]),
            pose_a: Pose::IDENTITY,
            b: load(&args[1]),
            pose_b: Pose::IDENTITY,
            clearance: 0.01,
        }]
    } else {
        let n = args
            .iter()
            .position(|a| a == "--triangles")
            .and_then(|i| args.get(i + 1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(100_000);
        scenes(n)
    };
    println!(
        "GPU: {}",
        gpu.as_ref().map_or("none".into(), |g| format!(
            "{} ({})",
            g.ctx.info.name, g.ctx.info.backend
        ))
    );
    for sc in &scenes {
        println!(
            "\n== {} ({} x {} triangles; octree build {:.1} + {:.1} ms)",
            sc.name,
            sc.a.mesh.triangles.len(),
            sc.b.mesh.triangles.len(),
            sc.a.octree_ms,
            sc.b.octree_ms
        );
        let runs = run(sc, gpu.as_ref()).expect("the GPU answers");
        for r in &runs {
            let st: Vec<String> = stages(&r.report.timings)
                .iter()
                .map(|(k, v)| format!("{k} {v:.1}"))
                .collect();
            println!(
                "  {:<4} total {:>9.1} ms (upload {:.1}): {}",
                r.backend,
                r.total_ms,
                r.upload_ms,
                st.join(", ")
            );
        }
        if runs.len() == 2 {
            assert!(
                meshclash::bench::same_answers(&runs[0].report, &runs[1].report),
                "GPU and CPU disagree"
            );
            println!(
                "  gpu/cpu: {:.2}x (answers identical)",
                runs[0].total_ms / runs[1].total_ms
            );
        }
        // Ours alone, query by query, against parry3d on the same meshes and poses. Each run
        // of ours poses the meshes afresh (posing is on demand, so a query pays for what it
        // visits), as parry3d applies its poses inside each query. Medians of repeated runs:
        // the yes/no answers take microseconds.
        let posed = || (Posed::new(&sc.a, sc.pose_a), Posed::new(&sc.b, sc.pose_b));
        let (hits, t_int) = median_time(|| {
            let (pa, pb) = posed();
            query::intersect(&pa, &pb)
        });
        let (cont, t_cont) = median_time(|| {
            let (pa, pb) = posed();
            let h = query::intersect(&pa, &pb);
            (!h.intersects())
                .then(|| query::containment(&pa, &pb).0)
                .flatten()
        });
        let (dist, t_dist) = median_time(|| {
            let (pa, pb) = posed();
            query::distance(&pa, &pb, &query::intersect(&pa, &pb))
        });
        let (quick, t_quick) = median_time(|| {
            let (pa, pb) = posed();
            query::interferes(&pa, &pb)
        });
        let (solid, t_solid) = median_time(|| {
            let (pa, pb) = posed();
            query::solid_distance(&pa, &pb)
        });
        let (ma, mb) = (parry_peer::trimesh(&sc.a), parry_peer::trimesh(&sc.b));
        let (qa, qb) = (parry_peer::pose(&sc.pose_a), parry_peer::pose(&sc.pose_b));
        // parry3d builds its BVH in TriMesh::new, as we build our octree in PreparedMesh::new.
        let (p_int, tp_int) = median_time(|| parry3d::query::intersection_test(&qa, &ma, &qb, &mb));
        let (p_dist, tp_dist) = median_time(|| parry3d::query::distance(&qa, &ma, &qb, &mb));
        let pi = p_int.map(|r| r.intersecting).map_err(|_| "unsupported");
        let pd = p_dist.map(|r| r.distance).map_err(|_| "unsupported");
        println!(
            "  ours:    intersect {:.3} ms ({}), + containment {:.3} ms ({:?}), intersect + distance {:.3} ms = {:.6}",
            t_int,
            hits.intersects(),
            t_cont,
            cont,
            t_dist,
            dist.distance
        );
        println!(
            "  parry3d: intersection_test {:.4} ms ({:?}), distance {:.3} ms = {:?}",
            tp_int, pi, tp_dist, pd
        );
        println!(
            "  ours:    interferes (yes/no, early exit) {:.4} ms = {}",
            t_quick, quick
        );
        println!(
            "  ours:    solid distance (0 when they interfere, early exit) {:.4} ms = {} ({})",
            t_solid,
            solid.distance(),
            match &solid {
                query::SolidDistance::Interfering(i) => i.as_str(),
                query::SolidDistance::Apart { .. } => "apart",
            }
        );
        println!(
            "  ours vs parry3d (median times, posing counted): yes/no {:.2}x, all pairs + containment {:.2}x, surface distance {:.2}x, solid distance {:.2}x faster",
            tp_int / t_quick,
            tp_int / t_cont,
            tp_dist / t_dist,
            tp_dist / t_solid
        );
        // A peer's distance between closed meshes is the solids' (0 for a part inside the other),
        // which ours reports as surfaces and containment apart: compare like with like.
        let interferes = hits.intersects() || cont.is_some();
        let solid_distance = if cont.is_some() { 0.0 } else { dist.distance };
        assert_eq!(interferes, quick, "interferes against the full check");
        assert_eq!(
            solid_distance,
            solid.distance(),
            "solid distance against the full check"
        );
        // parry3d's intersecting pair, when it names one the exact test calls disjoint.
        if let Ok(r) = &p_int {
            let (pa, pb) = posed();
            let (i, j) = (r.subshape1, r.subshape2);
            let named = (i as usize) < sc.a.mesh.triangles.len()
                && (j as usize) < sc.b.mesh.triangles.len();
            if r.intersecting
                && named
                && !meshclash::geom::tritri::intersect(&pa.tri(i), &pb.tri(j))
            {
                let gap = meshclash::geom::tritri::distance(&pa.tri(i), &pb.tri(j)).distance;
                println!(
                    "  NOTE: parry3d's intersecting pair (A {i}, B {j}) is disjoint by exact predicates, {gap:.6} apart"
                );
            }
        }
        if let (Ok(i), Ok(d)) = (pi, pd) {
            if i != interferes {
                println!(
                    "  NOTE: parry3d says intersecting = {i}; exact: interferes = {interferes}"
                );
            }
            let err = (d as f64 - solid_distance).abs();
            if err > 1e-6 * (1.0 + solid_distance) {
                println!(
                    "  NOTE: parry3d's distance {d} is off the exact {solid_distance} by {err:.3e}"
                );
            }
        }
    }
}
