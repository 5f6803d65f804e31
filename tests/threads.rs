//! Queries on a pool of many threads finish. A value made once on first use (a hierarchy, a
//! pose's vertices), whose making runs in parallel, deadlocked there: the thread making it
//! took another task of the pool while it waited, and that task waited for the same value
//! (`src/once.rs`). On 2 cores rayon's default pool has 2 threads, where it never showed; an
//! H200 machine's 16 hung `poses` (A's vertices, shared by every pose). These run on 16
//! threads, whatever the machine, with a watchdog; each failed here before the fix.

mod common;

use glam::DVec3;
use meshclash::mesh::{generate, Pose};
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;
use std::sync::mpsc;
use std::time::Duration;

/// `work` on a fresh pool of `threads`, or a failure naming `what` if it has not finished in
/// `limit` (the hung threads are left behind: the test process ends with the test).
fn finishes<T: Send + 'static>(
    what: &str,
    threads: usize,
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let _ = tx.send(pool.install(work));
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish in {limit:?} on {threads} threads"),
    }
}

/// Asks a mesh, or a pose of it, for one of its values.
type Ask = fn(&PreparedMesh, &Posed);

/// Each value made once, asked for first by many tasks at once on 16 threads: a torus of 200k
/// triangles, so that each making runs long enough in parallel for its threads to take the
/// other tasks. Before, this hung here at the slots (the first whose making took long enough).
#[test]
fn values_made_once_are_made_once_under_many_tasks() {
    let asks: [(&str, Ask); 7] = [
        ("vertices", |_, p| assert!(!p.verts().is_empty())),
        ("boxes", |_, p| assert!(!p.boxes().is_empty())),
        ("spheres", |_, p| assert!(!p.spheres().is_empty())),
        ("slots", |_, p| assert!(!p.slot_tris().is_empty())),
        ("hierarchy", |m, _| assert!(!m.bvh().nodes.is_empty())),
        ("wide tree", |m, _| assert!(m.wide().is_some())),
        ("oriented boxes", |m, _| {
            m.oriented_for(usize::MAX);
            assert!(m.nearest_tree_if_made().is_some());
        }),
    ];
    for (what, ask) in asks {
        let (nu, nv) = generate::torus_grid(200_000, 4);
        let m = PreparedMesh::new(generate::torus(1.0, 0.25, nu, nv));
        let made = finishes(what, 16, Duration::from_secs(60), move || {
            use rayon::prelude::*;
            let p = Posed::new(&m, Pose::from_euler_degrees([10.0, 20.0, 30.0], DVec3::ONE));
            (0..256).into_par_iter().for_each(|_| ask(&m, &p));
            p.verts().len()
        });
        assert!(made > 0, "{what}");
    }
}

/// Many tasks on 16 threads asking the GPU about one mesh it has not seen: the first uploads
/// it and its hierarchy under a lock, in parallel, while the others wait for that lock. The
/// same answers as one call on its own.
#[test]
fn gpu_uploads_made_under_many_tasks_finish() {
    let Some(ctx) = common::gpu_or_skip("gpu_uploads_made_under_many_tasks_finish") else {
        return;
    };
    let gpu = std::sync::Arc::new(meshclash::gpu::GpuBackend::new(ctx).unwrap());
    let (nu, nv) = generate::torus_grid(200_000, 4);
    let m = std::sync::Arc::new(PreparedMesh::new(generate::torus(1.0, 0.25, nu, nv)));
    let points = vec![DVec3::new(1.0, 0.0, 0.5), DVec3::new(0.0, 0.0, 0.0)];
    let (g, mm, pts) = (gpu.clone(), m.clone(), points.clone());
    let answers = finishes("GPU uploads", 16, Duration::from_secs(120), move || {
        use rayon::prelude::*;
        let posed = Posed::new(&mm, Pose::IDENTITY);
        (0..64)
            .into_par_iter()
            .map(|_| {
                let gm = g.resident(&mm).unwrap();
                g.closest_points(&posed, &gm, &pts, f64::INFINITY).unwrap()
            })
            .collect::<Vec<_>>()
    });
    let posed = Posed::new(&m, Pose::IDENTITY);
    let alone = query::closest_points(&points, &posed, f64::INFINITY);
    assert!(answers.iter().all(|a| *a == alone));
}
