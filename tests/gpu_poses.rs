//! Many poses on the GPU (`poses.wgsl`): every answer the CPU's to the bit (the CPU's own
//! answers are held to brute force in `tests/motion.rs`), a good share of them decided on the
//! GPU rather than handed back, and the stage equal to its twin.

mod common;

use glam::DVec3;
use meshclash::gpu::layout::{PoseOut, POSE_DONE};
use meshclash::gpu::twin::poses as twin;
use meshclash::gpu::{GpuBackend, GpuMesh, PoseWalk};
use meshclash::mesh::{generate, Mesh, Pose};
use meshclash::query::{self, Posed, SolidDistance};
use meshclash::PreparedMesh;

fn load(f: &str) -> PreparedMesh {
    PreparedMesh::new(Mesh::load(common::case_path(&format!("meshes/{f}"))).unwrap())
}

/// `count` random poses of B around A: rotations uniform in Euler angles, B's box centre
/// within `reach` of A's along each axis, all moved by `shift`.
fn around(a: &PreparedMesh, b: &PreparedMesh, count: usize, reach: f64, seed: u64) -> Vec<Pose> {
    let (ba, bb) = (a.octree.nodes[0].aabb(), b.octree.nodes[0].aabb());
    let mut rnd = common::lcg(seed);
    (0..count)
        .map(|_| {
            let t = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 2.0 * reach;
            let r = [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0];
            let turned = Pose::from_euler_degrees(r, DVec3::ZERO);
            Pose::from_euler_degrees(r, ba.center() + t - turned.apply(bb.center()))
        })
        .collect()
}

/// `x` after `y`: `R = R_x R_y`, `t = R_x t_y + t_x`.
fn compose(x: &Pose, y: &Pose) -> Pose {
    let (a, b) = (&x.rotation, &y.rotation);
    Pose {
        rotation: std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum())
        }),
        translation: x.apply(y.translation),
    }
}

/// Everything an answer says but the search's own counts and timings.
fn said(s: &SolidDistance) -> String {
    match s {
        SolidDistance::Interfering(i) => format!("{i:?}"),
        SolidDistance::Apart {
            report: r,
            containment_certain,
        } => format!(
            "{:?} {} {} {:?} {:?} {:?} {containment_certain}",
            r.distance.to_bits(),
            r.triangle_a,
            r.triangle_b,
            r.point_a,
            r.point_b,
            r.separation
        ),
    }
}

/// The GPU's answers against the CPU's, pose by pose; how many poses the GPU decided, and how
/// many are apart.
fn compare(
    gpu: &GpuBackend,
    (a, pose_a): (&PreparedMesh, Pose),
    b: &PreparedMesh,
    poses: &[Pose],
    clearance: Option<f64>,
) -> (usize, usize) {
    let (ga, gb) = (gpu.resident(a).unwrap(), gpu.resident(b).unwrap());
    let pa = Posed::new(a, pose_a);
    let on_gpu = gpu.poses((&pa, &ga), (b, &gb), poses, clearance).unwrap();
    let on_cpu = query::poses(a, pose_a, b, poses, clearance);
    for (k, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_eq!(said(&g.solid), said(&c.solid), "pose {k}: {:?}", poses[k]);
        assert_eq!(g.clearance_pairs, c.clearance_pairs, "pose {k}");
    }
    let apart = on_cpu
        .iter()
        .filter(|x| matches!(x.solid, SolidDistance::Apart { .. }))
        .count();
    (decided(gpu, (&pa, &ga), (b, &gb), poses), apart)
}

fn decided(
    gpu: &GpuBackend,
    a: (&Posed, &GpuMesh),
    b: (&PreparedMesh, &GpuMesh),
    poses: &[Pose],
) -> usize {
    let run = gpu.poses_run(a, b, poses).unwrap();
    run.out.iter().filter(|o| o.status == POSE_DONE).count()
}

/// Real meshes, poses from interfering through touching distance to several sizes apart: the
/// same interference evidence, distance, pair, points and clearance count, to the bit; at least
/// half the poses that are apart decided on the GPU. Each way of walking a pose.
#[test]
fn gpu_poses_equal_the_cpus_on_real_meshes() {
    let Some(ctx) = common::gpu_or_skip("gpu_poses_equal_the_cpus_on_real_meshes") else {
        return;
    };
    let mut gpu = GpuBackend::new(ctx).unwrap();
    for walk in [PoseWalk::Thread, PoseWalk::Group] {
        gpu.pose_walk = walk;
        real_meshes(&gpu);
    }
}

fn real_meshes(gpu: &GpuBackend) {
    let (a, b) = (load("fandisk.stl"), load("bunny_lowres.stl"));
    let size = a.octree.nodes[0].aabb().diagonal();
    let poses = around(&a, &b, 120, 0.6 * size, 5);
    let (on_gpu, apart) = compare(gpu, (&a, Pose::IDENTITY), &b, &poses, Some(0.01 * size));
    assert!(apart >= 60, "{apart} of 120 apart");
    // On lavapipe 76 of 117: walks past its loop budget go to the CPU (`WalkSteps::poses`).
    assert!(
        on_gpu * 2 >= apart,
        "{on_gpu} decided on the GPU of {apart} apart"
    );
    // Far from the origin with A turned; near it, B's rotation a little off rigid (the most
    // accepted). Not both: the CPU's walk pads each bound by the rotation's defect times the
    // world's magnitude, at 1e5 more than the parts' size, and a pose there takes minutes.
    let far = Pose::from_euler_degrees([10.0, 20.0, 30.0], DVec3::splat(1e5));
    let moved: Vec<Pose> = poses.iter().take(30).map(|p| compose(&far, p)).collect();
    let (decided_far, _) = compare(gpu, (&a, far), &b, &moved, None);
    assert!(
        decided_far > 0,
        "none decided on the GPU 1e5 from the origin"
    );
    let (c, s) = (1.000000499, 4.99e-7);
    let r = Pose {
        rotation: [[c, s, s], [s, c, s], [s, s, c]],
        translation: DVec3::ZERO,
    };
    let off: Vec<Pose> = poses.iter().take(30).map(|p| compose(p, &r)).collect();
    // Most go to the CPU: a defect of 1e-6 widens the band to 1e-4 of the parts' size.
    compare(gpu, (&a, Pose::IDENTITY), &b, &off, None);
}

/// Small generated parts against brute force through the CPU, with clearance counts: a torus
/// and a sphere that pass through, touch and swallow each other; boxes with parallel faces
/// (many pairs at one distance, where the smallest indices must win). Each way of walking a
/// pose.
#[test]
fn gpu_poses_equal_the_cpus_on_hostile_placements() {
    let Some(ctx) = common::gpu_or_skip("gpu_poses_equal_the_cpus_on_hostile_placements") else {
        return;
    };
    let mut gpu = GpuBackend::new(ctx).unwrap();
    for walk in [PoseWalk::Thread, PoseWalk::Group] {
        gpu.pose_walk = walk;
        hostile_placements(&gpu);
    }
}

fn hostile_placements(gpu: &GpuBackend) {
    let torus = PreparedMesh::new(generate::torus(1.0, 0.3, 14, 8));
    let ball = PreparedMesh::new(generate::sphere(0.4, 6, 10));
    let poses = around(&torus, &ball, 80, 1.6, 3);
    compare(gpu, (&torus, Pose::IDENTITY), &ball, &poses, Some(0.2));
    let cube = common::box_mesh([0.0; 3], [1.0; 3]);
    let gaps: Vec<Pose> = [1e-9, 1e-3, 0.5, 2.0]
        .iter()
        .flat_map(|&g| {
            [
                Pose::translation(DVec3::new(1.0 + g, 0.0, 0.0)),
                Pose::translation(DVec3::new(1.0 + g, 0.25, 0.5)),
                Pose::translation(DVec3::new(1.0 + g, 1.0 + g, 1.0 + g)),
            ]
        })
        .chain([Pose::translation(DVec3::splat(0.25)), Pose::IDENTITY])
        .collect();
    compare(gpu, (&cube, Pose::IDENTITY), &cube, &gaps, Some(0.1));
}

/// The stage against its twin, each way of walking a pose (a thread, a workgroup): the same
/// status, bound and pairs wherever both decided; a pose decided on one side and not the other
/// only where a fused multiply-add moved a bound across (at most one in fifty, and one more).
#[test]
fn the_poses_stage_equals_its_twin() {
    let Some(ctx) = common::gpu_or_skip("the_poses_stage_equals_its_twin") else {
        return;
    };
    let mut gpu = GpuBackend::new(ctx).unwrap();
    let (a, b) = (load("fandisk.stl"), load("bunny_lowres.stl"));
    let size = a.octree.nodes[0].aabb().diagonal();
    let poses = around(&a, &b, 100, 0.6 * size, 9);
    let (ga, gb) = (gpu.resident(&a).unwrap(), gpu.resident(&b).unwrap());
    let pa = Posed::new(&a, Pose::IDENTITY);
    let pb = Posed::new(&b, Pose::IDENTITY);
    let (na, ca) = meshclash::gpu::bvh_arrays(&pa, &ga);
    let (nb, cb) = meshclash::gpu::bvh_arrays(&pb, &gb);
    let (oa, ob) = (
        meshclash::gpu::obb_nodes(&pa, &ga),
        meshclash::gpu::obb_nodes(&pb, &gb),
    );
    let budget = meshclash::gpu::WalkSteps::for_adapter(&gpu.ctx);
    for walk in [PoseWalk::Thread, PoseWalk::Group] {
        gpu.pose_walk = walk;
        let run = gpu.poses_run((&pa, &ga), (&b, &gb), &poses).unwrap();
        let mut twin = vec![PoseOut::FULL; run.items.len()];
        let trees = ((&na[..], &ca[..], &oa[..]), (&nb[..], &cb[..], &ob[..]));
        match walk {
            PoseWalk::Thread => twin::main(&run.query, trees, &run.items, budget.poses, &mut twin),
            PoseWalk::Group => {
                twin::group(&run.query, trees, &run.items, budget.pose_rounds, &mut twin)
            }
        }
        let (mut flips, mut both) = (0, 0);
        for (g, t) in run.out.iter().zip(&twin) {
            if g.status == POSE_DONE && t.status == POSE_DONE {
                both += 1;
                flips += !same(g, t) as usize;
            } else if (g.status == POSE_DONE) != (t.status == POSE_DONE) {
                flips += 1;
            }
        }
        assert!(both >= 30, "{walk:?}: {both} decided on both sides");
        assert!(
            flips <= 1 + run.items.len() / 50,
            "{walk:?}: {flips} poses differ"
        );
    }
}

/// The same walk and the same leaf pairs, the bounds within the last bits a fused
/// multiply-add moves. A GPU (not lavapipe) fuses where the twin rounds twice, so two
/// children's bounds that tie can swap which is walked first: the walk's steps differ by a
/// few (an H200: by 2 in 4 poses of 120), and the kept pairs come in another order. The kept
/// set does not depend on the order (a pair is kept where its lower bound is within the final
/// least upper bound), so it is compared sorted. A bound that moves across another changes
/// which pairs are kept: the test counts that pose as differing.
fn same(g: &PoseOut, t: &PoseOut) -> bool {
    let close = |x: f32, y: f32| (x - y).abs() <= 4.0 * f32::EPSILON * x.abs().max(y.abs());
    let pairs = |o: &PoseOut| {
        let mut p = o.pairs[..o.count as usize].to_vec();
        p.sort_by_key(|x| (x.a, x.b));
        p
    };
    g.steps.abs_diff(t.steps) <= 8 + t.steps / 100
        && g.count == t.count
        && close(g.upper, t.upper)
        && pairs(g)
            .iter()
            .zip(pairs(t))
            .all(|(x, y)| x.a == y.a && x.b == y.b && close(x.lower, y.lower))
}

/// Two well-shaped triangles whose edges cross at a shallow angle 1.6e-6 apart (a review's
/// case): the f32 edge-edge distance the stages bound pairs by once came out 1.6e-4, a
/// hundred times the distance and past the band (its parameter from `a e - b²`, which cancels
/// for edges nearly parallel). It must be within a few units of f32 roundoff of the f64 one,
/// whichever way round the edges are taken.
#[test]
#[allow(clippy::excessive_precision)] // the review's coordinates as it printed them
fn nearly_parallel_edges_measure_within_the_band() {
    use meshclash::gpu::twin::common::pair_dist;
    let p = [
        [-0.24489067f32, -0.00035092613, 1.5639096e-6],
        [0.73056966, 0.00016492238, 1.5639096e-6],
        [0.43976700, 0.27262741, 0.37503061],
    ];
    let r = [
        [1.0f32, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.23281512, -0.44684041, -0.47105262],
    ];
    let f32s = |t: [[f32; 3]; 3]| t.map(glam::Vec3::from_array);
    let f64s = |t: [[f32; 3]; 3]| t.map(|v| glam::Vec3::from_array(v).as_dvec3());
    let exact = meshclash::geom::tritri::distance(&f64s(p), &f64s(r)).distance;
    // 64 units of roundoff of the frame's scale (2.5), a fifth of the band's 320.
    let tolerance = 64.0 * 2.5 * f64::from(f32::EPSILON) / 2.0;
    for (x, y) in [(p, r), (r, p), (p.map(|v| v), [r[1], r[0], r[2]])] {
        let (d, slack) = pair_dist(&f32s(x), &f32s(y));
        assert_eq!(slack, 0.0, "well shaped");
        assert!(
            (f64::from(d) - exact).abs() <= tolerance,
            "{d} against {exact}"
        );
    }
}
