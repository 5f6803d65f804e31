//! 2 000 random poses of the shared stanford_bunny (69 451 triangles) around igea (268 686):
//! `query::poses` (solid semantics: interference, else the distance) on all cores, timed.
//! Coal 3.0 answers collide + distance for such poses in 2.6 s on one thread on this machine
//! (the poses issue's figure). With `gpu`, the same poses on the GPU too: the dispatch alone
//! (how many poses it settled, its walks' steps) and the whole query with the CPU's share.
//! `POSE_WALK=thread|group` chooses how the stage walks a pose (else the adapter's way), and
//! `TWINS=1` runs both walks' CPU twins on the stage's items too.
//! `cargo run --release --example poses_bench -- [POSES] [gpu]`.

use glam::DVec3;
use meshclash::mesh::{Mesh, Pose};
use meshclash::query::{self, SolidDistance};
use meshclash::PreparedMesh;
use std::time::Instant;

fn main() -> Result<(), meshclash::Error> {
    let k: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let a = PreparedMesh::new(Mesh::load("../shared/cases/meshes/igea.stl")?);
    let b = PreparedMesh::new(Mesh::load("../shared/cases/meshes/stanford_bunny.stl")?);
    let (ba, bb) = (a.octree.nodes[0].aabb(), b.octree.nodes[0].aabb());
    let reach = ba.diagonal() * 0.75 + bb.diagonal() * 0.5;
    let mut s = 7u64;
    let mut rnd = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let poses: Vec<Pose> = (0..k)
        .map(|_| {
            let t = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 2.0 * reach;
            let r = [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0];
            Pose::from_euler_degrees(r, ba.center() + t - bb.center())
        })
        .collect();
    // What every pose reuses (the hierarchies, their oriented boxes, an open part's caps) is
    // built once per mesh: timed apart, as loading is and as the CLI's `prepare_ms` is.
    let t = Instant::now();
    for m in [&a, &b] {
        m.oriented();
        m.caps();
    }
    println!(
        "hierarchies, boxes and caps built in {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let answers = query::poses(&a, Pose::IDENTITY, &b, &poses, None);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let hit = answers
        .iter()
        .filter(|x| matches!(x.solid, SolidDistance::Interfering(_)))
        .count();
    println!(
        "{k} poses in {ms:.0} ms ({:.3} ms a pose, {} threads): {hit} interfering, {} apart",
        ms / k as f64,
        rayon::current_num_threads(),
        k - hit
    );
    if std::env::args().any(|a| a == "gpu") {
        on_gpu(&a, &b, &poses, &answers)?;
    }
    Ok(())
}

/// The poses on the GPU: the stage alone, then `Backend::poses`, checked against `cpu`.
fn on_gpu(
    a: &PreparedMesh,
    b: &PreparedMesh,
    poses: &[Pose],
    cpu: &[query::PoseAnswer],
) -> Result<(), meshclash::Error> {
    let mut gpu = meshclash::gpu::GpuBackend::new(meshclash::gpu::GpuContext::new()?)?;
    match std::env::var("POSE_WALK").as_deref() {
        Ok("thread") => gpu.pose_walk = meshclash::gpu::PoseWalk::Thread,
        Ok("group") => gpu.pose_walk = meshclash::gpu::PoseWalk::Group,
        _ => {}
    }
    let backend = meshclash::Backend::from_gpu(gpu);
    let g = backend
        .gpu_backend()
        .ok_or(meshclash::Error::Gpu("no GPU".into()))?;
    println!(
        "adapter: {:?}, {:?} walks",
        backend.adapter().map(|i| i.name),
        g.pose_walk
    );
    backend.prepare_poses(a, b)?;
    let (ga, gb) = (g.resident(a)?, g.resident(b)?);
    let pa = query::Posed::new(a, Pose::IDENTITY);
    let t = Instant::now();
    let run = g.poses_run((&pa, &ga), (b, &gb), poses)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let done = run
        .out
        .iter()
        .filter(|o| o.status == meshclash::gpu::layout::POSE_DONE)
        .count();
    let mut steps: Vec<u32> = run.out.iter().map(|o| o.steps).collect();
    steps.sort_unstable();
    println!(
        "stage: {} poses sent, {done} settled, in {ms:.0} ms; steps median {} max {}",
        run.items.len(),
        steps.get(steps.len() / 2).copied().unwrap_or(0),
        steps.last().copied().unwrap_or(0)
    );
    if std::env::var_os("TWINS").is_some() {
        twins(&pa, &ga, (b, &gb), &run);
    }
    let t = Instant::now();
    let answers = backend.poses(a, Pose::IDENTITY, b, poses, None)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let same = answers
        .iter()
        .zip(cpu)
        .all(|(x, y)| x.solid.distance().to_bits() == y.solid.distance().to_bits());
    println!("Backend::poses on the GPU: {ms:.0} ms, same distances as the CPU: {same}");
    Ok(())
}

/// Both walks' CPU twins on the stage's items (`TWINS=1`): how many poses each settles, and
/// the steps (a thread's) or rounds (a group's) they take.
fn twins(
    pa: &query::Posed,
    ga: &meshclash::gpu::GpuMesh,
    (b, gb): (&PreparedMesh, &meshclash::gpu::GpuMesh),
    run: &meshclash::gpu::PosesRun,
) {
    use meshclash::gpu::{layout::PoseOut, twin::poses};
    if run.items.is_empty() {
        return;
    }
    let pb = query::Posed::new(b, Pose::IDENTITY);
    let ((na, ca), (nb, cb)) = (
        meshclash::gpu::bvh_arrays(pa, ga),
        meshclash::gpu::bvh_arrays(&pb, gb),
    );
    let (oa, ob) = (
        meshclash::gpu::obb_nodes(pa, ga),
        meshclash::gpu::obb_nodes(&pb, gb),
    );
    let trees = ((&na[..], &ca[..], &oa[..]), (&nb[..], &cb[..], &ob[..]));
    type Walk = fn(
        &meshclash::gpu::layout::PosesQuery,
        (poses::Tree, poses::Tree),
        &[meshclash::gpu::layout::PoseItem],
        u32,
        &mut [PoseOut],
    );
    for (name, walk) in [
        ("thread", poses::main as Walk),
        ("group", poses::group as Walk),
    ] {
        let mut out = vec![PoseOut::FULL; run.items.len()];
        let t = Instant::now();
        walk(&run.query, trees, &run.items, u32::MAX, &mut out);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let mut steps: Vec<u32> = out.iter().map(|o| o.steps).collect();
        steps.sort_unstable();
        let done = out
            .iter()
            .filter(|o| o.status == meshclash::gpu::layout::POSE_DONE)
            .count();
        let near = out
            .iter()
            .filter(|o| o.status == meshclash::gpu::layout::POSE_NEAR)
            .count();
        println!(
            "twin {name}: {done} settled, {near} near, in {ms:.0} ms; steps median {} p90 {} max {}",
            steps[steps.len() / 2], steps[steps.len() * 9 / 10], steps[steps.len() - 1]
        );
    }
}
