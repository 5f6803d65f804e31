//! The timing comparison behind `meshclash bench` and `examples/compare_timings.rs`: generated
//! scenes of a requested size (fixed, seedless geometry), `check` on the CPU and on the GPU,
//! the answers checked equal, and the time of each stage side by side.

use crate::error::Result;
use crate::gpu::GpuBackend;
use crate::mesh::PreparedMesh;
use crate::mesh::{generate, Pose};
use crate::query::{self, CheckOptions, CheckReport, Timings};
use glam::DVec3;
use std::time::Instant;

/// Two placed meshes.
pub struct Scene {
    pub name: &'static str,
    pub a: PreparedMesh,
    pub pose_a: Pose,
    pub b: PreparedMesh,
    pub pose_b: Pose,
    /// The clearance asked for: just over the scene's distance, so the pair list stays small.
    pub clearance: f64,
}

/// The four scenes of the benchmarks at about `n` triangles per mesh: overlapping tori, a near
/// miss (concentric spheres 1 % apart, B shifted off-centre so the minimum is unique), far apart,
/// and one mesh inside another.
pub fn scenes(n: usize) -> Vec<Scene> {
    let (nu, nv) = generate::torus_grid(n, 4);
    let (lat, lon) = generate::sphere_grid(n);
    let torus = || PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let sphere = |r: f64| PreparedMesh::new(generate::sphere(r, lat, lon));
    let link = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02));
    vec![
        Scene {
            name: "overlapping",
            a: torus(),
            pose_a: Pose::IDENTITY,
            b: torus(),
            pose_b: link,
            clearance: 0.005,
        },
        Scene {
            name: "near miss",
            a: sphere(1.0),
            pose_a: Pose::IDENTITY,
            b: sphere(1.01),
            pose_b: Pose::translation(DVec3::new(0.002, 0.001, 0.0)),
            clearance: 0.01,
        },
        Scene {
            name: "far apart",
            a: torus(),
            pose_a: Pose::IDENTITY,
            b: torus(),
            pose_b: Pose::from_euler_degrees([30.0, 0.0, 0.0], DVec3::new(10.0, 0.0, 0.0)),
            clearance: 0.1,
        },
        Scene {
            name: "inside",
            a: torus(),
            pose_a: Pose::from_euler_degrees([20.0, 10.0, 0.0], DVec3::new(0.25, 0.1, 0.05)),
            b: sphere(2.0),
            pose_b: Pose::IDENTITY,
            clearance: 0.44,
        },
    ]
}

/// One scene's answers and timings on one backend.
pub struct Run {
    pub backend: &'static str,
    pub report: CheckReport,
    /// Wall time of the whole check, milliseconds (upload excluded; reported apart).
    pub total_ms: f64,
    pub upload_ms: f64,
    /// GPU rounds (submission and readback) the check took; 0 on the CPU.
    pub rounds: u64,
}

/// Whether two backends gave the same answers, field by field.
pub fn same_answers(x: &CheckReport, y: &CheckReport) -> bool {
    // Every field of `check --json --pairs` but the candidates each backend tested (a review's
    // helper: the closest points and the separation were left out), values to the bit.
    let (dx, dy) = (&x.distance, &y.distance);
    let bits = |v: DVec3| v.to_array().map(f64::to_bits);
    let points = |d: &crate::query::DistanceReport| [d.point_a, d.point_b, d.separation].map(bits);
    x.intersect.pairs == y.intersect.pairs
        && x.containment == y.containment
        && x.containment_certain == y.containment_certain
        && dx.distance.to_bits() == dy.distance.to_bits()
        && points(dx) == points(dy)
        && (dx.triangle_a, dx.triangle_b) == (dy.triangle_a, dy.triangle_b)
        && x.clearance
            .as_ref()
            .map(|c| (c.clearance.to_bits(), &c.pairs))
            == y.clearance
                .as_ref()
                .map(|c| (c.clearance.to_bits(), &c.pairs))
}

/// Run a scene on the CPU and, if given, on the GPU.
pub fn run(scene: &Scene, gpu: Option<&GpuBackend>) -> Result<Vec<Run>> {
    let opts = CheckOptions {
        clearance: Some(scene.clearance),
    };
    let t = Instant::now();
    let cpu = query::check(&scene.a, scene.pose_a, &scene.b, scene.pose_b, &opts);
    let mut runs = vec![Run {
        backend: "cpu",
        report: cpu,
        total_ms: ms(t),
        upload_ms: 0.0,
        rounds: 0,
    }];
    if let Some(g) = gpu {
        let t = Instant::now();
        let (ga, gb) = (g.upload(&scene.a)?, g.upload(&scene.b)?);
        let upload_ms = ms(t);
        let check = || {
            g.check(
                &scene.a,
                &ga,
                scene.pose_a,
                &scene.b,
                &gb,
                scene.pose_b,
                &opts,
            )
        };
        // One warm-up: the first dispatch of a pipeline may compile it.
        check()?;
        let (r0, t) = (g.stats().0, Instant::now());
        let report = check()?;
        runs.push(Run {
            backend: "gpu",
            report,
            total_ms: ms(t),
            upload_ms,
            rounds: g.stats().0 - r0,
        });
    }
    Ok(runs)
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Stage timings summed by name (a query's stages may repeat across rounds).
pub fn stages(t: &Timings) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for (k, v) in &t.0 {
        match out.iter_mut().find(|(n, _)| n == k) {
            Some(e) => e.1 += v,
            None => out.push((k.clone(), *v)),
        }
    }
    out
}

/// The first line of `meshclash bench`'s table: the meshes' size, the time they took to build
/// (with their octrees), and the adapter.
pub fn header(scenes: &[Scene], build_ms: f64, gpu: Option<&GpuBackend>) -> String {
    // Tori and spheres come out of their grids at different counts.
    let mut sizes: Vec<usize> = (scenes.iter())
        .flat_map(|s| [s.a.mesh.triangles.len(), s.b.mesh.triangles.len()])
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let sizes: Vec<String> = sizes.iter().map(usize::to_string).collect();
    format!(
        "{} triangles per mesh; meshes built with octrees in {:.0} ms; GPU: {}\n{:<12} {:<4} {:>10} {:>10}  {:<6} stages (ms)\n",
        sizes.join(" or "),
        build_ms,
        gpu.map_or("none used".to_string(), |g| format!(
            "{} ({})",
            g.ctx.info.name, g.ctx.info.backend
        )),
        "scene",
        "on",
        "total ms",
        "upload ms",
        "agree"
    )
}

/// Whether every backend's answers equal the first's (the CPU's).
pub fn agree(runs: &[Run]) -> bool {
    runs.iter()
        .all(|r| same_answers(&runs[0].report, &r.report))
}

/// One scene's rows of `meshclash bench`'s table: each backend's times and stages, the answer,
/// and the GPU/CPU speed-up.
pub fn rows(scene: &Scene, runs: &[Run]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let agree = agree(runs);
    for r in runs {
        let st: Vec<String> = stages(&r.report.timings)
            .iter()
            .map(|(k, v)| format!("{k} {v:.1}"))
            .collect();
        let _ = writeln!(
            s,
            "{:<12} {:<4} {:>10.1} {:>10.1}  {:<6} {}",
            scene.name,
            r.backend,
            r.total_ms,
            r.upload_ms,
            if agree { "yes" } else { "NO" },
            st.join(", ")
        );
    }
    if let Some(r) = runs.first().map(|r| &r.report) {
        let _ = writeln!(
            s,
            "{:<12} answer: {} intersecting pairs, containment {}, distance {:.6}, {} pairs within clearance {}",
            "",
            r.intersect.pairs.len(),
            r.containment.map_or("none", |c| c.as_str()),
            r.distance.distance,
            r.clearance.as_ref().map_or(0, |c| c.pairs.len()),
            scene.clearance
        );
    }
    if let [cpu, gpu] = runs {
        let _ = writeln!(
            s,
            "{:<12} gpu/cpu speed-up: {:.2}x ({} GPU rounds)",
            "",
            cpu.total_ms / gpu.total_ms,
            gpu.rounds
        );
    }
    s
}

/// One scene as JSON (`meshclash bench --json` prints one per line): the answer, whether the
/// backends agree, and each backend's times and stages in milliseconds.
pub fn json(scene: &Scene, runs: &[Run]) -> serde_json::Value {
    use serde_json::json;
    let same = agree(runs);
    let answer = runs.first().map(|r| {
        let r = &r.report;
        json!({
            "intersecting_pairs": r.intersect.pairs.len(),
            "containment": r.containment.map(|c| c.as_str()),
            "distance": r.distance.distance,
            "clearance_pairs": r.clearance.as_ref().map_or(0, |c| c.pairs.len()),
        })
    });
    let per_backend: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            let stages: serde_json::Map<String, serde_json::Value> = stages(&r.report.timings)
                .into_iter()
                .map(|(k, v)| (k, json!(v)))
                .collect();
            json!({
                "backend": r.backend,
                "total_ms": r.total_ms,
                "upload_ms": r.upload_ms,
                "gpu_rounds": r.rounds,
                "stages_ms": stages,
            })
        })
        .collect();
    json!({
        "scene": scene.name,
        "triangles_a": scene.a.mesh.triangles.len(),
        "triangles_b": scene.b.mesh.triangles.len(),
        "clearance": scene.clearance,
        "agree": same,
        "answer": answer,
        "runs": per_backend,
    })
}
