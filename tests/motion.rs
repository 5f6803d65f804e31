//! Many poses and motion: each pose against brute force on small meshes; sweeps against
//! analytic first contact (a box translating into a box, a small box crossing a plate 0.01
//! thick with both ends free, three waypoints), a rotation against dense sampling, and a pass at
//! a known gap.

mod common;

use glam::DVec3;
use meshclash::geom::tritri;
use meshclash::mesh::{generate, Pose};
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;

fn boxed(lo: [f32; 3], hi: [f32; 3]) -> PreparedMesh {
    common::box_mesh(lo, hi)
}

#[test]
fn every_pose_is_answered_as_brute_force_would() {
    let a = PreparedMesh::new(generate::torus(1.0, 0.3, 14, 8));
    let b = PreparedMesh::new(generate::sphere(0.4, 6, 10));
    let mut rnd = common::lcg(3);
    let poses: Vec<Pose> = (0..60)
        .map(|_| {
            Pose::from_euler_degrees(
                [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0],
                DVec3::new(rnd() * 4.0 - 2.0, rnd() * 4.0 - 2.0, rnd() * 2.0 - 1.0),
            )
        })
        .collect();
    let answers = query::poses(&a, Pose::IDENTITY, &b, &poses, Some(0.2));
    // A clearance wider than whole nodes: pairs of nodes certainly within it are counted
    // without measuring.
    let wide = query::poses(&a, Pose::IDENTITY, &b, &poses, Some(1.2));
    let (mut apart, mut hit) = (0, 0);
    for ((pose, ans), wide) in poses.iter().zip(&answers).zip(&wide) {
        let (pa, pb) = (Posed::new(&a, Pose::IDENTITY), Posed::new(&b, *pose));
        let (na, nb) = (a.mesh.triangles.len() as u32, b.mesh.triangles.len() as u32);
        let pairs = || (0..na).flat_map(|i| (0..nb).map(move |j| (i, j)));
        let meets = pairs().any(|(i, j)| tritri::intersect(&pa.tri(i), &pb.tri(j)));
        let dist = pairs()
            .map(|(i, j)| tritri::distance(&pa.tri(i), &pb.tri(j)).distance)
            .fold(f64::INFINITY, f64::min);
        let inside = query::containment(&pa, &pb).0.is_some();
        let close = pairs()
            .filter(|&(i, j)| tritri::distance(&pa.tri(i), &pb.tri(j)).distance < 0.2)
            .count();
        assert_eq!(ans.clearance_pairs, Some(close));
        let distances = pairs().map(|(i, j)| tritri::distance(&pa.tri(i), &pb.tri(j)).distance);
        assert_eq!(
            wide.clearance_pairs,
            Some(distances.filter(|&d| d < 1.2).count())
        );
        match &ans.solid {
            query::SolidDistance::Interfering(_) => {
                assert!(meets || inside);
                hit += 1;
            }
            query::SolidDistance::Apart { report, .. } => {
                assert!(!meets && !inside);
                assert_eq!(report.distance, dist);
                apart += 1;
            }
        }
    }
    assert!(apart > 5 && hit > 5, "{apart} apart, {hit} interfering");
}

/// The distance part of an answer, less what depends on the search (pairs measured, timings).
fn measured(s: &query::SolidDistance) -> Option<(f64, u32, u32, DVec3, DVec3)> {
    match s {
        query::SolidDistance::Apart { report: r, .. } => {
            Some((r.distance, r.triangle_a, r.triangle_b, r.point_a, r.point_b))
        }
        query::SolidDistance::Interfering(_) => None,
    }
}

/// The smallest `(distance², a, b)` over every triangle pair, posed as the queries pose them:
/// the pair both searches must name, ties included.
fn brute_closest(pa: &Posed, pb: &Posed) -> (f64, u32, u32) {
    let (na, nb) = (pa.prep.mesh.triangles.len(), pb.prep.mesh.triangles.len());
    let mut best = (f64::INFINITY, 0, 0);
    for i in 0..na as u32 {
        for j in 0..nb as u32 {
            let d = tritri::separated_distance(&pa.tri(i), &pb.tri(j)).distance;
            if (d * d, i, j) < best {
                best = (d * d, i, j);
            }
        }
    }
    best
}

/// A shared case's mesh, prepared.
fn case_mesh(name: &str) -> PreparedMesh {
    PreparedMesh::new(
        meshclash::mesh::Mesh::load(common::case_path(&format!("meshes/{name}"))).unwrap(),
    )
}

/// A rotation as far off orthonormal as a pose may be (each product of rows within 0.2 % of
/// [`Pose::RIGID_TOLERANCE`]), moved by `t` along every axis.
fn off_rigid(t: f64) -> Pose {
    let e = 0.499 * Pose::RIGID_TOLERANCE;
    let (c, s) = (1.0 + e, e);
    Pose::from_matrix(&[c, s, s, t, s, c, s, t, s, s, c, t, 0.0, 0.0, 0.0, 1.0]).unwrap()
}

/// Poses search over oriented boxes on one thread each; `check` searches the octrees on all
/// threads. Different algorithms, one answer: on real meshes every pose's interference, distance,
/// triangles and points are the same to the bit, and its count of pairs within a clearance is
/// the length of `clearance`'s list.
#[test]
fn poses_equal_the_octree_search_on_real_meshes() {
    let (a, b) = (case_mesh("fandisk.stl"), case_mesh("bunny_lowres.stl"));
    let (ba, bb) = (a.octree.nodes[0].aabb(), b.octree.nodes[0].aabb());
    let reach = ba.diagonal() * 0.3 + bb.diagonal() * 0.3;
    let mut rnd = common::lcg(11);
    let poses: Vec<Pose> = (0..40)
        .map(|_| {
            let t = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 2.0 * reach;
            let r = [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0];
            Pose::from_euler_degrees(r, ba.center() + t - bb.center())
        })
        .collect();
    let near = 0.02 * ba.diagonal();
    let answers = query::poses(&a, Pose::IDENTITY, &b, &poses, Some(near));
    let mut apart = 0;
    for (pose, ans) in poses.iter().zip(&answers) {
        let (pa, pb) = (Posed::new(&a, Pose::IDENTITY), Posed::new(&b, *pose));
        let listed = query::clearance(&pa, &pb, near).pairs.len();
        assert_eq!(ans.clearance_pairs, Some(listed), "pose {pose:?}");
        let octree = query::solid_distance(&pa, &pb);
        assert_eq!(measured(&ans.solid), measured(&octree), "pose {pose:?}");
        if let (query::SolidDistance::Interfering(x), query::SolidDistance::Interfering(y)) =
            (&ans.solid, &octree)
        {
            assert_eq!(x, y);
        }
        apart += measured(&octree).is_some() as usize;
    }
    assert!((10..40).contains(&apart), "{apart} of 40 apart");
}

/// A rotation as far off rigid as a pose may be, carrying B 1e2 to 1e5 sizes away: the walk's
/// pad for it grows with the distance, past the parts' size, where its boxes prune nothing (a
/// review's helper: 8 s a pose at 1.7e5); the octree's search answers there. The same answers
/// as `check --quick`'s search, to the bit.
#[test]
fn poses_far_away_under_a_rotation_off_rigid_equal_the_octree_search() {
    let (a, b) = (case_mesh("fandisk.stl"), case_mesh("bunny_lowres.stl"));
    let size = a.octree.nodes[0].aabb().diagonal();
    let poses: Vec<Pose> = [1e2, 1e3, 1e4, 1e5].map(|k| off_rigid(k * size)).to_vec();
    let answers = query::poses(&a, Pose::IDENTITY, &b, &poses, None);
    for (pose, ans) in poses.iter().zip(&answers) {
        let (pa, pb) = (Posed::new(&a, Pose::IDENTITY), Posed::new(&b, *pose));
        let octree = query::solid_distance(&pa, &pb);
        assert!(measured(&octree).is_some());
        assert_eq!(measured(&ans.solid), measured(&octree), "pose {pose:?}");
    }
}

/// Exact ties and hostile placements, against brute force over every pair: two boxes whose
/// faces are parallel (many pairs at the same distance: the smallest indices must win), parts
/// 1e6 from the origin, a rotation a little off rigid (accepted up to 1e-6), and grid soups
/// (coplanar faces, shared edges, folded neighbours).
#[test]
fn poses_name_the_pair_brute_force_names_ties_included() {
    let a = boxed([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]);
    let b = boxed([0.0, 0.0, 0.0], [0.5, 0.5, 0.5]);
    let far = DVec3::new(1e6, -2e6, 3e6);
    let skew = |e: f64| {
        let m = [
            1.0, e, 0.0, 2.0, -e, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0,
        ];
        Pose::from_matrix(&m).unwrap()
    };
    let mut cases: Vec<(Pose, Pose)> = vec![
        (Pose::IDENTITY, at(1.25, 0.25, 0.25)),
        (Pose::IDENTITY, at(1.5, 0.0, 0.0)),
        (Pose::IDENTITY, at(0.25, 0.25, 1.125)),
        (
            Pose::IDENTITY,
            Pose::from_euler_degrees([90.0, 0.0, 180.0], DVec3::new(2.0, 0.5, 0.0)),
        ),
        (
            Pose::translation(far),
            Pose::translation(far + DVec3::new(1.25, 0.25, 0.25)),
        ),
        (Pose::IDENTITY, skew(1e-7)),
        // Both rotations as far off orthonormal as accepted: where a review found the
        // walk's padding within 0.2 % of too small.
        (off_rigid(-1.0), off_rigid(0.25)),
        (
            off_rigid(-1.0),
            Pose::translation(DVec3::new(0.5, 0.25, 0.25)),
        ),
    ];
    let mut rnd = common::lcg(5);
    for _ in 0..12 {
        let r = [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0];
        cases.push((
            Pose::IDENTITY,
            Pose::from_euler_degrees(r, DVec3::new(2.0 + rnd(), rnd(), rnd())),
        ));
    }
    for (pose_a, pose_b) in cases {
        let ans = &query::poses(&a, pose_a, &b, &[pose_b], None)[0];
        let (pa, pb) = (Posed::new(&a, pose_a), Posed::new(&b, pose_b));
        let (d2, i, j) = brute_closest(&pa, &pb);
        let (d, ti, tj, ..) = measured(&ans.solid).expect("apart");
        assert_eq!((d * d, ti, tj), (d2, i, j), "{pose_a:?} {pose_b:?}");
    }
    // Grid soups: not closed, so only surfaces meeting interferes; the rest are apart.
    let mut apart = 0;
    for seed in 0..6 {
        let (sa, sb) = (
            PreparedMesh::new(common::soup(seed, 0.0)),
            PreparedMesh::new(common::soup(seed + 100, 0.0)),
        );
        let poses: Vec<Pose> = (0..4)
            .map(|k| {
                Pose::from_euler_degrees(
                    [0.0, 0.0, 90.0 * k as f64],
                    DVec3::new(4.5 + k as f64, 2.0, 0.5),
                )
            })
            .collect();
        for (pose, ans) in poses
            .iter()
            .zip(query::poses(&sa, Pose::IDENTITY, &sb, &poses, None))
        {
            let Some((d, ti, tj, ..)) = measured(&ans.solid) else {
                continue;
            };
            let (pa, pb) = (Posed::new(&sa, Pose::IDENTITY), Posed::new(&sb, *pose));
            assert_eq!(
                (d * d, ti, tj),
                brute_closest(&pa, &pb),
                "soup {seed} {pose:?}"
            );
            apart += 1;
        }
    }
    assert!(apart >= 6, "{apart} soup poses apart");
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::translation(DVec3::new(x, y, z))
}

#[test]
fn sweeps_meet_where_the_analytic_contact_is() {
    let a = boxed([-1.0; 3], [1.0; 3]);
    let b = boxed([-0.5; 3], [0.5; 3]);
    let tol = 1e-9;
    // Into A along -x from x = 5 to -5: B's face x - 0.5 meets x = 1 at x = 1.5, time 0.35.
    let r = query::sweep(
        &a,
        Pose::IDENTITY,
        &b,
        &[at(5.0, 0.0, 0.0), at(-5.0, 0.0, 0.0)],
        &[],
        tol,
    );
    let hit = r.contact.expect("contact");
    assert!(
        hit.time <= 0.35 && 0.35 - hit.time <= tol / 10.0 + 1e-12,
        "{}",
        hit.time
    );
    // Three waypoints, default times 0, 0.5, 1: free on the first segment (over A's corner at
    // a distance), into A on the second at 0.35 of it.
    let path = [at(0.0, 0.0, 5.0), at(5.0, 0.0, 0.0), at(-5.0, 0.0, 0.0)];
    let hit = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], tol)
        .contact
        .unwrap();
    assert_eq!(hit.segment, 1);
    assert!((hit.segment_time - 0.35).abs() < 1e-9 && (hit.time - 0.675).abs() < 1e-9);
    // Times given: the second segment from 0.2 to 1.
    let hit = query::sweep(&a, Pose::IDENTITY, &b, &path, &[0.0, 0.2, 1.0], tol)
        .contact
        .unwrap();
    assert!((hit.time - (0.2 + 0.35 * 0.8)).abs() < 1e-9);
}

/// A hunt's helper's sweep at 1e12 (coordinates a unit of 2^-13 apart there): A the cube
/// [-0.5, 0.5]³ at 1e12 on each axis, B the same cube moving along -x from 3 to -1 past it, its
/// exact gap at time t being 2 - 4t. The default tolerance (1e-6 of the sizes, 3.5e-6) was met
/// only by the rounded pose: the exact gap at the reported time was 6.1e-5, 18 times it. The
/// default is now no finer than the coordinates resolve, and the exact gap within it.
#[test]
fn a_sweep_far_from_the_origin_is_within_its_default_tolerance_exactly() {
    let dir = std::env::temp_dir().join(format!("meshclash-far-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("path.json");
    let row =
        |x: f64| format!("[1,0,0,{x:.1},0,1,0,1000000000000.5,0,0,1,1000000000000.25,0,0,0,1]");
    std::fs::write(&path, format!("[{}, {}]", row(1e12 + 3.0), row(1e12 - 1.0))).unwrap();
    let cube = common::case_path("meshes/cube_trimesh.stl");
    let c = cube.to_str().unwrap();
    let far = "--translate-a=1e12,1e12,1e12";
    let r = common::cli(&[
        "sweep",
        c,
        c,
        far,
        "--path",
        path.to_str().unwrap(),
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let (t, tol) = (
        v["time"].as_f64().unwrap(),
        v["tolerance"].as_f64().unwrap(),
    );
    assert_eq!(v["contact"], true);
    // 2 - 4t is exact for the dyadic times the advancement reports.
    let gap = 2.0 - 4.0 * t;
    assert!(
        (0.0..=tol).contains(&gap),
        "gap {gap} at {t}, tolerance {tol}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_small_box_does_not_tunnel_through_a_thin_plate() {
    let plate = boxed([-1.0, -1.0, -0.005], [1.0, 1.0, 0.005]);
    let b = boxed([-0.005; 3], [0.005; 3]);
    let path = [at(0.1, 0.2, -5.0), at(0.1, 0.2, 5.0)];
    // Both ends free.
    for p in path {
        let s = query::solid_distance(&Posed::new(&plate, Pose::IDENTITY), &Posed::new(&b, p));
        assert!(s.distance() > 4.0);
    }
    let hit = query::sweep(&plate, Pose::IDENTITY, &b, &path, &[], 1e-9)
        .contact
        .unwrap();
    // B's top (z + 0.005) meets the plate's bottom (-0.005, to f32's 1e-10) at z = -0.01.
    assert!(
        (hit.time - (5.0 - 0.01) / 10.0).abs() < 1e-9,
        "{}",
        hit.time
    );
}

#[test]
fn a_rotation_meets_no_later_than_dense_sampling_finds() {
    // A bar along x from its origin, turning about z from 0 to 180 degrees; A a box in its way
    // at y in [1, 2].
    let a = boxed([-0.5, 1.0, -0.5], [0.5, 2.0, 0.5]);
    let bar = boxed([0.0, -0.05, -0.05], [3.0, 0.05, 0.05]);
    let path = [
        Pose::from_euler_degrees([0.0, 0.0, 0.0], DVec3::ZERO),
        Pose::from_euler_degrees([0.0, 0.0, 90.0], DVec3::ZERO),
        Pose::from_euler_degrees([0.0, 0.0, 180.0], DVec3::ZERO),
    ];
    let r = query::sweep(&a, Pose::IDENTITY, &bar, &path, &[], 1e-9);
    let hit = r.contact.expect("the bar meets the box");
    // Dense sampling: the angle at time t is 180 t degrees.
    let touches = |t: f64| {
        let pose = Pose::from_euler_degrees([0.0, 0.0, 180.0 * t], DVec3::ZERO);
        query::solid_distance(&Posed::new(&a, Pose::IDENTITY), &Posed::new(&bar, pose)).distance()
            <= 0.0
    };
    let first = (0..=20_000)
        .map(|k| k as f64 / 20_000.0)
        .find(|&t| touches(t))
        .unwrap();
    assert!(
        hit.time <= first,
        "{} after the first sampled contact {first}",
        hit.time
    );
    assert!(first - hit.time < 1e-3, "{} long before {first}", hit.time);
    // No sample before the reported time touches.
    assert!((0..=20_000)
        .map(|k| k as f64 / 20_000.0)
        .take_while(|&t| t < hit.time)
        .all(|t| !touches(t)));
}

#[test]
fn a_pass_at_a_known_gap_reports_it() {
    let a = boxed([-1.0; 3], [1.0; 3]);
    let b = boxed([-0.5; 3], [0.5; 3]);
    // Along x at y = 2: the faces y = 1 and y = 1.5 are 0.5 apart while B is over A.
    let r = query::sweep(
        &a,
        Pose::IDENTITY,
        &b,
        &[at(-5.0, 2.0, 0.0), at(5.0, 2.0, 0.0)],
        &[],
        1e-9,
    );
    assert!(r.contact.is_none());
    assert!((r.min_distance - 0.5).abs() < 1e-12, "{}", r.min_distance);
    assert!(r.min_distance_bound <= 0.5 && r.min_distance_bound >= 0.25);
    assert!(r.min_time > 0.35 && r.min_time < 0.65, "{}", r.min_time);
}

/// A small box swung about an axis above a plate, at a gap known by hand: the box's lower
/// edges are `sqrt(1.1² + 0.1²)` from the axis, so the least gap is `h − sqrt(1.22)`, where
/// an edge points straight down (turned by atan(1/11), about 5.19°, either way). The poses
/// measured by the advancement alone came within about 1e-3 of it; measured again where the
/// speed bound leaves room, the least distance found is within the tolerance of it, and the
/// certified bound below it.
#[test]
fn a_swing_past_a_plate_finds_its_least_gap_within_the_tolerance() {
    let plate = boxed([-10.0, -10.0, -1.0], [10.0, 10.0, 0.0]);
    let b = boxed([-0.1, -0.1, -1.1], [0.1, 0.1, -0.9]);
    let gap = 0.05;
    let h = 1.22f64.sqrt() + gap;
    let swung = |deg: f64| Pose::from_euler_degrees([deg, 0.0, 0.0], DVec3::new(0.0, 0.0, h));
    let tol = 1e-6;
    let r = query::sweep(
        &plate,
        Pose::IDENTITY,
        &b,
        &[swung(-30.0), swung(30.0)],
        &[],
        tol,
    );
    assert!(r.contact.is_none() && r.complete);
    // f32 corners (1.1, 0.1 rounded): the gap moves by about 1e-8.
    assert!(
        (r.min_distance - gap).abs() < tol + 1e-7,
        "{}",
        r.min_distance
    );
    // Below the gap, and tighter than half of each step's distance, which the advancement alone
    // certifies.
    assert!(
        r.min_distance_bound <= gap + 1e-7 && r.min_distance_bound > 0.9 * gap,
        "{}",
        r.min_distance_bound
    );
    let turned = (1.0f64 / 11.0).atan().to_degrees() / 60.0;
    let near = |x: f64| (r.min_time - x).abs() < 0.01;
    assert!(near(0.5 - turned) || near(0.5 + turned), "{}", r.min_time);
}

/// Long sweeps (thousands of steps: they go over to the oriented boxes' walk after 256) against
/// analytic answers: a pass 0.01 above a box, and a slide 0.001 above it that then comes down
/// onto it (three waypoints).
#[test]
fn long_sweeps_keep_their_analytic_answers() {
    let a = boxed([-1.0; 3], [1.0; 3]);
    let b = boxed([-0.5; 3], [0.5; 3]);
    let pass = query::sweep(
        &a,
        Pose::IDENTITY,
        &b,
        &[at(-2.0, 1.51, 0.0), at(2.0, 1.51, 0.0)],
        &[],
        1e-9,
    );
    assert!(
        pass.contact.is_none() && pass.steps > 300,
        "{} steps",
        pass.steps
    );
    // 1.51 − 0.5 − 1: 0.01 up to the f64 rounding of 1.51 (the boxes' corners are exact).
    assert!(
        (pass.min_distance - 0.01).abs() < 1e-7,
        "{}",
        pass.min_distance
    );
    let path = [at(-2.0, 1.501, 0.0), at(0.0, 1.501, 0.0), at(0.0, 1.0, 0.0)];
    let down = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], 1e-9);
    assert!(down.steps > 300, "{} steps", down.steps);
    let hit = down.contact.expect("comes down onto the box");
    // Contact when B's bottom (y − 0.5) reaches A's top (1): y = 1.5, 0.001 of the second
    // segment's 0.501 down it.
    assert_eq!(hit.segment, 1);
    assert!(
        (hit.segment_time - 0.001 / 0.501).abs() < 1e-6,
        "{}",
        hit.segment_time
    );
}

#[test]
fn the_poses_and_sweep_commands_read_matrices_and_answer() {
    let dir = std::env::temp_dir().join(format!("meshclash-motion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cube = common::case_path("meshes/cube_trimesh.stl"); // [-0.5, 0.5]³
    let c = cube.to_str().unwrap();
    let run = common::cli;
    let m = |x: f64| format!("[[1,0,0,{x}],[0,1,0,0],[0,0,1,0],[0,0,0,1]]");
    // JSON 4x4 rows: B 3 away (gap 2), overlapping, and 16-number rows in CSV.
    let poses = dir.join("poses.json");
    std::fs::write(&poses, format!("[{}, {}]", m(3.0), m(0.5))).unwrap();
    let out = dir.join("poses.csv");
    let r = run(&[
        "poses",
        c,
        c,
        poses.to_str().unwrap(),
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(
        (v["count"].as_u64(), v["interfering"].as_u64()),
        (Some(2), Some(1))
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    // Every column in the order --help and cli.md give (`certain`, added after the others,
    // last: a review's helper found it before clearance_pairs).
    assert_eq!(
        lines.next().unwrap(),
        "pose,interferes,distance,triangle_a,triangle_b,ax,ay,az,bx,by,bz,evidence,\
         clearance_pairs,certain"
    );
    assert!(lines.next().unwrap().starts_with("0,false,2.0,"), "{text}");
    assert!(lines.next().unwrap().starts_with("1,true,0.0,"), "{text}");
    // A sweep from 3 away to overlapping: the faces meet when B is 1 away, at time 2/2.5.
    let path = dir.join("path.json");
    std::fs::write(&path, format!("[{}, {}]", m(3.0), m(0.5))).unwrap();
    let r = run(&[
        "sweep",
        c,
        c,
        "--path",
        path.to_str().unwrap(),
        "--json",
        "--tolerance",
        "1e-9",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["contact"], true);
    assert!((v["time"].as_f64().unwrap() - 0.8).abs() < 1e-9, "{v}");
    // A pose that is not rigid, and too few waypoints, are refused by row and count.
    std::fs::write(&poses, "[[2,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]]").unwrap();
    let r = run(&["poses", c, c, poses.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("pose 0"));
    std::fs::write(&path, format!("[{}]", m(3.0))).unwrap();
    let r = run(&["sweep", c, c, "--path", path.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("at least two waypoints"));
    // One pose written as the matrix it is, four rows of four: B 3 away, apart.
    std::fs::write(&poses, "[[1,0,0,3],[0,1,0,0],[0,0,1,0],[0,0,0,1]]").unwrap();
    let r = run(&["poses", c, c, poses.to_str().unwrap(), "--json"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(
        (v["count"].as_u64(), v["interfering"].as_u64()),
        (Some(1), Some(0))
    );
    // A tolerance of infinity would make any pose a contact: refused.
    std::fs::write(&path, format!("[{}, {}]", m(3.0), m(0.5))).unwrap();
    let r = run(&[
        "sweep",
        c,
        c,
        "--path",
        path.to_str().unwrap(),
        "--tolerance=inf",
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--tolerance must be finite"));
    // Parts placed beyond f64's range apart: their distance cannot be given, as in `poses`
    // (it had answered with a null distance and no contact).
    std::fs::write(&path, format!("[{}, {}]", m(1e308), m(1.1e308))).unwrap();
    let far = ["--translate-a", "-1e308,0,0"];
    let r = run(&[&["sweep", c, c, "--path", path.to_str().unwrap()][..], &far].concat());
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("farther apart than the largest f64"), "{err}");
    // Waypoints each within f64 whose move is not (1e308 to -1e308, straight through A): no
    // step along it can be bounded; refused, naming the segment (it had answered "no
    // contact, incomplete" after one step, a review's helper found).
    std::fs::write(&path, format!("[{}, {}, {}]", m(3.0), m(1e308), m(-1e308))).unwrap();
    let r = run(&["sweep", c, c, "--path", path.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("from waypoint 1 to 2 is beyond f64"), "{err}");
    // Each axis's move within f64, its length not (7.5e307 to -7.5e307 on two axes).
    let diagonal = |x: f64| format!("[1,0,0,{x}, 0,1,0,{x}, 0,0,1,0, 0,0,0,1]");
    std::fs::write(
        &path,
        format!("[{}, {}]", diagonal(7.5e307), diagonal(-7.5e307)),
    )
    .unwrap();
    let r = run(&["sweep", c, c, "--path", path.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("from waypoint 0 to 1 is beyond f64"), "{err}");
}

/// Sweeps that cannot finish say so. First, one that could not before: sliding past 1e-7 above
/// A, asked for 1e-9, over a path from -5e9 to 5e9, whose poses are rounded by about 1e-6
/// (its start's magnitude) and whose steps near A fell below what its parameter resolves: no
/// contact and no clear path. The tolerance is now what that segment's coordinates resolve
/// (about 1.4e-4), which the pass is within: a contact, said to be within that.
#[test]
fn a_sweep_that_cannot_finish_says_so() {
    let a = boxed([-1.0; 3], [1.0; 3]);
    let b = boxed([-0.5; 3], [0.5; 3]);
    let path = [at(-5e9, 1.5 + 1e-7, 0.0), at(5e9, 1.5 + 1e-7, 0.0)];
    let r = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], 1e-9);
    let hit = r.contact.as_ref().unwrap_or_else(|| panic!("{r:?}"));
    assert!(r.complete && hit.solid.distance() <= r.tolerance, "{r:?}");
    assert!((1e-4..2e-4).contains(&r.tolerance), "{}", r.tolerance);
    // A normal pass completes.
    let r = query::sweep(
        &a,
        Pose::IDENTITY,
        &b,
        &[at(-5.0, 2.0, 0.0), at(5.0, 2.0, 0.0)],
        &[],
        1e-9,
    );
    assert!(r.complete);
    // A tiny rotation about a far pivot still moves B: its speed bound is not zero.
    let far = boxed([1e6, -0.5, -0.5], [1e6 + 1.0, 0.5, 0.5]);
    let wall = boxed([1e6 + 2.0, -10.0, -10.0], [1e6 + 2.001, 10.0, 10.0]);
    let turn = [
        Pose::from_euler_degrees([0.0, 0.0, 0.0], DVec3::ZERO),
        Pose::from_euler_degrees([0.0, 0.0, 1e-4], DVec3::ZERO), // 1.7e-6 rad: 1.7 at 1e6
    ];
    let r = query::sweep(&wall, Pose::IDENTITY, &far, &turn, &[], 1e-9);
    assert!(r.steps > 2, "{r:?}");
    // A review's helper's path: A at x = -1.7e308, B from 2e307 to -1.75e308, through A. At
    // the start they are 1.9e308 apart, beyond f64: an infinite distance bounds no step, and
    // it had stepped over the whole segment, "complete" and clear.
    let unit = boxed([0.0; 3], [1.0; 3]);
    let path = [at(2e307, 0.0, 0.0), at(-1.75e308, 0.0, 0.0)];
    let r = query::sweep(&unit, at(-1.7e308, 0.0, 0.0), &unit, &path, &[], 1e-9);
    assert!(r.contact.is_none() && !r.complete, "{r:?}");
    // From 1e308 to -1e308 through A at the origin: the move (2e308) is beyond f64, and so
    // is the speed bound, so no step can be certified; but the poses measured are B's own
    // (the difference's infinity had made them not a number): at the start 1e308 - 1 apart.
    let path = [at(1e308, 0.0, 0.0), at(-1e308, 0.0, 0.0)];
    let r = query::sweep(&unit, Pose::IDENTITY, &unit, &path, &[], 1e-9);
    assert!(r.contact.is_none() && !r.complete, "{r:?}");
    assert_eq!(r.min_distance, 1e308 - 1.0, "{r:?}");
    // A move longer than 1.3e154 had a speed bound of infinity (its length squared): no step
    // could be taken. From 1e160 to 2e160, away from A: clear, and complete.
    let path = [at(1e160, 0.0, 0.0), at(2e160, 0.0, 0.0)];
    let r = query::sweep(&unit, Pose::IDENTITY, &unit, &path, &[], 1e-9);
    assert!(r.contact.is_none() && r.complete, "{r:?}");
}

/// A part that is not closed has an inside (winding number at least 1/2) that the other can
/// enter without meeting its surface. A review's helper's case: a cube of side 1 dropped into
/// the box [0, 4]³ without its top, along x = y = 2 from z = 10 to 2. Its lower face reaches
/// the opening's plane, where the winding number is exactly 1/2, at z = 4.5: time 5.5/8 =
/// 0.6875. The sweep stepped by half the distance to the walls (1.5) and said 0.758, deep in.
/// Now within half the tolerance (a move of at most that past it), and that pose interferes.
#[test]
fn a_part_dropped_into_an_open_box_meets_its_inside_at_the_opening() {
    let a = common::open_box(0.0, 4.0, &[(2, true)]);
    let b = boxed([-0.5; 3], [0.5; 3]);
    assert!(!a.info.closed);
    let tol = 1e-6;
    let path = [at(2.0, 2.0, 10.0), at(2.0, 2.0, 2.0)];
    let r = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], tol);
    let hit = r.contact.expect("contact");
    let moved_past = (hit.time - 0.6875) * 8.0;
    assert!(
        (-1e-12..=tol / 2.0).contains(&moved_past),
        "{} ({moved_past} past)",
        hit.time
    );
    assert_eq!(query::evidence(&hit.solid), Some("vertex_of_b_in_a"));
}

/// A cube crossing an open box's opening, its lower vertices inside (the box [0, 1]³ without
/// its top; the cube's side 0.1, its bottom at z = 0.95: the winding number there is 0.59):
/// the parts certainly share those points, so the evidence is certain, as `poses` and
/// `check --quick` say. It read "interferes, uncertain" (a review's helper): the body's other
/// vertices, outside, left its containment uncertain, and that was taken for the evidence's.
#[test]
fn a_vertex_certainly_inside_an_open_part_is_certain_evidence() {
    let a = common::open_box(0.0, 1.0, &[(2, true)]);
    let b = boxed([0.0; 3], [0.1; 3]);
    let pose = at(0.45, 0.45, 0.95);
    let s = query::solid_distance(&Posed::new(&a, Pose::IDENTITY), &Posed::new(&b, pose));
    match s {
        query::SolidDistance::Interfering(query::Interference::VertexOfBInA {
            point,
            certain,
            ..
        }) => {
            assert!(point.z < 1.0 && certain, "{s:?}");
        }
        _ => panic!("{s:?}"),
    }
    assert!(s.certain());
    // The same pose through `poses`.
    let answers = query::poses(&a, Pose::IDENTITY, &b, &[pose], None);
    assert!(answers[0].solid.certain());
}

/// The helper's other case: a cube of side 0.02 passing straight through the cube [-2, 2]³
/// with a square hole in each face (open, oriented), along y = z = 0 from x = 7.5 to -6.
/// Around the centre the winding number is above 1/2: with holes of half-width 1.1815 (0.50023
/// at the centre, by libigl too) the sweep stepped over that inside (no contact); with 1.1, as
/// here, into it (time 0.4599, where sampling finds it by 0.4559). Held to dense sampling.
#[test]
fn a_part_passing_through_an_open_frame_meets_its_inside() {
    let (h, mut soup) = (1.1f32, Vec::new());
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let p = |a: f32, b: f32| {
                let mut p = [0.0; 3];
                (p[axis], p[u], p[v]) = (2.0 * sign, a, b);
                p
            };
            let outer = [p(-2.0, -2.0), p(2.0, -2.0), p(2.0, 2.0), p(-2.0, 2.0)];
            let inner = [p(-h, -h), p(h, -h), p(h, h), p(-h, h)];
            for k in 0..4 {
                let q = [outer[k], outer[(k + 1) % 4], inner[(k + 1) % 4], inner[k]];
                let q = if sign > 0.0 {
                    q
                } else {
                    [q[3], q[2], q[1], q[0]]
                };
                soup.push([q[0], q[1], q[2]]);
                soup.push([q[0], q[2], q[3]]);
            }
        }
    }
    let a = PreparedMesh::new(meshclash::mesh::Mesh::from_soup("frame", soup).unwrap());
    assert!(!a.info.closed && a.info.oriented);
    let b = boxed([-0.01; 3], [0.01; 3]);
    let (pa, tol) = (Posed::new(&a, Pose::IDENTITY), 1e-6);
    let path = [at(7.5, 0.0, 0.0), at(-6.0, 0.0, 0.0)];
    let hit = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], tol)
        .contact
        .expect("contact");
    let x = |t: f64| 7.5 - 13.5 * t;
    let interferes =
        |x: f64| query::solid_distance(&pa, &Posed::new(&b, at(x, 0.0, 0.0))).distance() == 0.0;
    assert!(interferes(x(hit.time)), "{}", hit.time);
    // 4 000 poses from the start to a move of half the tolerance past it: none interferes.
    let until = x(hit.time) + tol / 2.0;
    let first = (0..=4_000)
        .map(|i| 7.5 - (7.5 - until) * i as f64 / 4_000.0)
        .find(|&x| interferes(x));
    assert_eq!(first, None, "sampled in before {}", hit.time);
}

/// A review's helper's case: a rod [-0.1, 0.1]² × [-5, 15] (12 triangles) threaded through a
/// tube [-1, 1]² × [0, 10] open at both ends. The surfaces do not meet, every vertex of the
/// rod is outside the tube's inside (its ends lie 5 beyond the openings), but its middle is
/// inside: the tube's winding number at (0, 0, 5) is above 1/2. That was called apart, for
/// certain, by `check` and `sweep` alike; now uncertain, while the same rod beside the tube,
/// whose triangles the winding number's bound clears once cut small enough, stays certain.
#[test]
fn a_rod_threaded_through_an_open_tube_is_not_certainly_apart() {
    let tube: meshclash::mesh::read::Soup = common::box_soup([-1.0, -1.0, 0.0], [1.0, 1.0, 10.0])
        .into_iter()
        .skip(4) // its two faces across z
        .collect();
    let tube = PreparedMesh::new(meshclash::mesh::Mesh::from_soup("tube", tube).unwrap());
    let rod = boxed([-0.1, -0.1, -5.0], [0.1, 0.1, 15.0]);
    let inside = query::point_inside(
        DVec3::new(0.0, 0.0, 5.0),
        &Posed::new(&tube, Pose::IDENTITY),
    );
    assert!(inside.inside && inside.certain);
    let certain = |x: f64| match query::solid_distance(
        &Posed::new(&tube, Pose::IDENTITY),
        &Posed::new(&rod, at(x, 0.0, 0.0)),
    ) {
        query::SolidDistance::Apart {
            containment_certain,
            ..
        } => containment_certain,
        other => panic!("{other:?}"),
    };
    assert!(!certain(0.0), "threaded");
    assert!(certain(4.0), "beside");
    let check = |x: f64| {
        let (pa, pb) = (Pose::IDENTITY, at(x, 0.0, 0.0));
        query::check(&tube, pa, &rod, pb, &Default::default()).containment_certain
    };
    assert!(!check(0.0) && check(4.0));
    // A sweep along the tube's axis: no certain answer where it stays threaded.
    let path = [at(0.0, 0.0, 0.0), at(0.0, 0.0, 1.0)];
    let r = query::sweep(&tube, Pose::IDENTITY, &rod, &path, &[], 1e-6);
    assert!(r.contact.is_none() && !r.certain);
    let beside = [at(4.0, 0.0, 0.0), at(4.0, 0.0, 1.0)];
    let r = query::sweep(&tube, Pose::IDENTITY, &rod, &beside, &[], 1e-6);
    assert!(r.contact.is_none() && r.certain && r.complete);
    // `poses` says it per pose, on both backends.
    for b in common::cpu_and_gpu("a_rod_threaded_through_an_open_tube") {
        let poses = [at(0.0, 0.0, 0.0), at(4.0, 0.0, 0.0)];
        let got = b.poses(&tube, Pose::IDENTITY, &rod, &poses, None).unwrap();
        let certain: Vec<bool> = got.iter().map(|x| x.solid.certain()).collect();
        assert_eq!(certain, [false, true]);
    }
}

/// A half turn between waypoints turns either way (slerp takes the shorter, and there is
/// none): `first_half_turn` names it, the command line refuses it; a turn a little short of
/// it is taken.
#[test]
fn a_half_turn_between_waypoints_is_refused() {
    let turn = |deg: f64| Pose::from_euler_degrees([0.0, 0.0, deg], DVec3::ZERO);
    assert_eq!(query::first_half_turn(&[turn(0.0), turn(180.0)]), Some(0));
    assert_eq!(query::first_half_turn(&[turn(0.0), turn(-180.0)]), Some(0));
    assert_eq!(
        query::first_half_turn(&[turn(0.0), turn(90.0), turn(270.0)]),
        Some(1)
    );
    assert_eq!(query::first_half_turn(&[turn(0.0), turn(179.0)]), None);
    assert_eq!(
        query::first_half_turn(&[turn(0.0), turn(120.0), turn(240.0), turn(360.0)]),
        None
    );
}

/// A review's helper's case: a cube of side 1e-6 sliding 1.8 along an open box's rim (the box
/// [0, 2]³ without its top; the rim's edge y = 0, z = 2), 1e-3 outside it. The winding
/// number's bound near that long edge was its length over twice the distance times too large,
/// so every step was half the tolerance: a million steps, and no answer. Now the sweep
/// finishes, clear, its least distance the gap.
#[test]
fn a_part_sliding_past_an_open_rim_is_swept_to_its_end() {
    let a = common::open_box(0.0, 2.0, &[(2, true)]);
    let b = boxed([-5e-7; 3], [5e-7; 3]);
    let path = [at(0.1, -1e-3, 2.0), at(1.9, -1e-3, 2.0)];
    let r = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], 3.46e-6);
    assert!(r.contact.is_none() && r.complete && r.certain, "{r:?}");
    assert!(r.steps < 100_000, "{} steps", r.steps);
    // The gap: 1e-3 less the cube's half side (f32 corners), within the tolerance.
    assert!(
        (r.min_distance - (1e-3 - 5e-7)).abs() < 3.46e-6,
        "{}",
        r.min_distance
    );
}

/// A review's helper's case: a cube passing 1e-3 from another near the origin, then carried
/// 1e12 away. The default tolerance was made for the path's farthest waypoint (0.028 there),
/// and the pass near the origin was a contact at 0.0156. Now each pose is held to what its own
/// coordinates resolve: no contact, the pass's gap found, and the largest tolerance used said.
#[test]
fn a_far_waypoint_does_not_coarsen_the_tolerance_near_the_origin() {
    let cube = boxed([-0.5; 3], [0.5; 3]);
    let path = [
        at(-5.0, 0.0, 0.0),
        at(-1.001, 0.0, 0.0),
        at(-1.001, 1e12, 0.0),
    ];
    let tol = query::path_tolerance(&cube, &cube);
    let r = query::sweep(&cube, Pose::IDENTITY, &cube, &path, &[], tol);
    assert!(r.contact.is_none() && r.complete, "{r:?}");
    assert!((r.min_distance - 1e-3).abs() < 1e-9, "{}", r.min_distance);
    assert!(r.tolerance > 1e-3, "{}", r.tolerance);
}

/// A review's helper's case: B (a cube of side 0.02) comes from 1e12 to rest on A (a cube of
/// side 2) at waypoint 1, 2e-10 above it, then slides on. Poses on the first segment are
/// rounded by about 1.2e-4 all along it (from its start at 1e12), and a tolerance held to each
/// pose's own magnitude could neither meet the contact nor step past it (no answer). Now the
/// segment's start counts: the contact is found where B arrives.
#[test]
fn a_contact_at_the_end_of_a_segment_from_far_away_is_found() {
    let (a, b) = (boxed([-1.0; 3], [1.0; 3]), boxed([-0.01; 3], [0.01; 3]));
    let path = [at(1e12, 5.0, 0.0), at(0.0, 1.01, 0.0), at(-5.0, 1.01, 0.0)];
    let tol = query::path_tolerance(&a, &b);
    let r = query::sweep(&a, Pose::IDENTITY, &b, &path, &[], tol);
    let hit = r.contact.as_ref().unwrap_or_else(|| panic!("{r:?}"));
    assert_eq!(hit.segment, 0);
    assert!(hit.solid.distance() <= r.tolerance);
}
