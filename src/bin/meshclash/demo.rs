//! `meshclash demo`: README's first command. Meshes built in memory, every scene on every
//! available backend, the answers and the time of each stage.

use crate::text::fmt_timings;
use meshclash::mesh::generate;
use meshclash::{Backend, CheckOptions, DVec3, Error, Pose, PreparedMesh, SolidDistance};
use std::time::Instant;

struct Scene<'a> {
    name: &'a str,
    a: &'a PreparedMesh,
    pose_a: Pose,
    b: &'a PreparedMesh,
    pose_b: Pose,
    clearance: Option<f64>,
}

/// Chain links: the second torus stands in the xz-plane through the first one's hole. Centred,
/// its tube would keep a 0.4 gap along a whole circle (every point of one centre circle is 1
/// from the other's centre); tilted and shifted, the parts meet or miss at isolated places, as
/// real parts do.
fn link(shift: f64) -> Pose {
    Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.0 + shift, 0.03, 0.02))
}

/// The generated meshes' sizes `demo` and `bench` take: from where their scenes do what their
/// names say (at 100 triangles the linked tori missed each other) to where they finish. Their
/// clearances are fixed, so the pairs within them grow as the square of the triangles: at 2M,
/// bench's near miss lists 33M pairs in about 70 s and 2.1 GB; 20M, the bound before, would
/// ask for about a billion (a review's helper's run grew past 4.9 GB without an answer).
pub const TRIANGLES: std::ops::RangeInclusive<usize> = 400..=2_000_000;

/// `--triangles`, refused outside [`TRIANGLES`].
pub fn check_triangles(triangles: usize) -> Result<(), Error> {
    if TRIANGLES.contains(&triangles) {
        return Ok(());
    }
    Err(Error::Argument(format!(
        "--triangles must be from {} to {}, got {triangles}",
        TRIANGLES.start(),
        TRIANGLES.end()
    )))
}

pub fn demo(triangles: usize) -> Result<(), Error> {
    check_triangles(triangles)?;
    out!("meshclash demo: {triangles} triangles per mesh, built in memory\n");
    let (nu, nv) = generate::torus_grid(triangles, 4);
    let (lat, lon) = generate::sphere_grid(triangles);
    let t = Instant::now();
    let torus = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    let big = PreparedMesh::new(generate::sphere(2.0, lat, lon));
    let small = PreparedMesh::new(generate::torus(1.0, 0.3, nu, nv));
    out!(
        "built: torus {} triangles, sphere {} triangles ({:.0} ms with octrees)\n",
        torus.mesh.triangles.len(),
        big.mesh.triangles.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let scenes = [
        Scene {
            name: "linked tori, cutting each other",
            a: &torus,
            pose_a: Pose::IDENTITY,
            b: &small,
            pose_b: link(0.5),
            clearance: Some(0.01),
        },
        Scene {
            name: "torus swallowed by a sphere (no surface contact)",
            a: &small,
            pose_a: Pose::from_euler_degrees([20.0, 10.0, 0.0], DVec3::new(0.25, 0.1, 0.05)),
            b: &big,
            pose_b: Pose::IDENTITY,
            clearance: Some(0.44),
        },
        Scene {
            name: "linked tori, near miss",
            a: &torus,
            pose_a: Pose::IDENTITY,
            b: &small,
            pose_b: link(0.0),
            clearance: Some(0.38),
        },
    ];
    let backends = backends()?;
    for scene in &scenes {
        run_scene(scene, &backends)?;
    }
    Ok(())
}

/// The CPU, and the GPU when there is one (warmed up, so that the timings are the queries').
fn backends() -> Result<Vec<Backend>, Error> {
    let mut backends = vec![Backend::cpu()];
    match Backend::gpu() {
        Ok(g) => {
            if let Some(a) = g.adapter() {
                out!(
                    "GPU: {} ({}); every scene runs on the CPU and on the GPU.",
                    a.name,
                    a.backend
                );
            }
            // A driver may compile a pipeline at its first dispatch (lavapipe takes seconds):
            // run every stage once on small parts.
            let t = Instant::now();
            let tiny = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 8));
            let opts = CheckOptions {
                clearance: Some(0.05),
            };
            for shift in [0.5, 0.0] {
                g.check(&tiny, Pose::IDENTITY, &tiny, link(shift), &opts)?;
            }
            out!(
                "GPU warm-up (first dispatches compile the pipelines): {:.0} ms\n",
                t.elapsed().as_secs_f64() * 1e3
            );
            backends.push(g);
        }
        Err(e) => out!("GPU: none ({e}); every scene runs on the CPU only.\n"),
    }
    Ok(backends)
}

fn run_scene(sc: &Scene, backends: &[Backend]) -> Result<(), Error> {
    out!("== {}", sc.name);
    let (a, pa, b, pb) = (sc.a, sc.pose_a, sc.b, sc.pose_b);
    for backend in backends {
        let name = backend.name();
        let opts = CheckOptions {
            clearance: sc.clearance,
        };
        let r = backend.check(a, pa, b, pb, &opts)?;
        let n = r.intersect.pairs.len();
        let piercing = r.intersect.piercing_count();
        out!(
            "  [{name}] intersects: {} ({n} pairs, {piercing} piercing), containment: {}, interferes: {}",
            r.intersects(),
            r.containment.map_or("none", |c| c.as_str()),
            r.interferes()
        );
        out!(
            "  [{name}] min distance {:.6} (A tri {}, B tri {}), curve segments {}",
            r.distance.distance,
            r.distance.triangle_a,
            r.distance.triangle_b,
            r.intersect.curve_segments().len()
        );
        if let Some(c) = &r.clearance {
            out!(
                "  [{name}] pairs closer than {}: {}",
                c.clearance,
                c.pairs.len()
            );
        }
        out!("  [{name}] ms: {}", fmt_timings(&r.timings));
    }
    // What `check --quick` answers: the first evidence, and the solids' distance.
    let t = Instant::now();
    let quick = Backend::cpu().solid_distance(a, pa, b, pb)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let why = match &quick {
        SolidDistance::Interfering(i) => format!("interferes ({})", i.as_str()),
        SolidDistance::Apart { .. } => "apart".into(),
    };
    out!(
        "  [cpu] --quick: {why}, solid distance {:.6}, in {ms:.3} ms",
        quick.distance()
    );
    out!();
    Ok(())
}
