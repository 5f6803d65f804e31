//! Parts far from each other and from the origin: the distance at 1e6 to 1e300 against brute
//! force over every pair, the GPU's answer equal to the CPU's to the bit, tritri distance and
//! the exact predicates beyond the magnitudes their squares and products can hold, and the
//! CLI's clear error where the distance itself is beyond f64. (That far placements cost about
//! what near ones do is a benchmark: `examples/far_apart.rs`.)

mod common;

use glam::DVec3;
use meshclash::geom::{predicates, tritri};
use meshclash::mesh::{generate, Pose};
use meshclash::query::{self, Posed};
use meshclash::{Backend, CheckOptions, PreparedMesh};

fn brute(a: &Posed, b: &Posed) -> (f64, u32, u32) {
    let (na, nb) = (
        a.prep.mesh.triangles.len() as u32,
        b.prep.mesh.triangles.len() as u32,
    );
    (0..na)
        .flat_map(|i| (0..nb).map(move |j| (i, j)))
        .map(|(i, j)| (tritri::distance(&a.tri(i), &b.tri(j)).distance, i, j))
        .min_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap()
}

#[test]
fn far_apart_parts_measure_as_brute_force_and_the_gpu_agrees() {
    let a = PreparedMesh::new(generate::torus(1.0, 0.3, 16, 8));
    let b = PreparedMesh::new(generate::sphere(0.7, 8, 12));
    let gpu = common::gpu_or_skip("far_apart_parts_measure_as_brute_force_and_the_gpu_agrees")
        .map(|ctx| Backend::from_gpu(meshclash::gpu::GpuBackend::new(ctx).unwrap()));
    for x in [1e6, 1e9, 1e12, 1e15, 1e18, 1e30, 1e100, 1e300] {
        let pose_b = Pose::from_euler_degrees([10.0, 20.0, 30.0], DVec3::new(x, 0.3 * x, -5.0));
        let pose_a = Pose::from_euler_degrees([-40.0, 5.0, 60.0], DVec3::new(-3.0, 7.0, 0.5));
        let (pa, pb) = (Posed::new(&a, pose_a), Posed::new(&b, pose_b));
        let r = query::check(&a, pose_a, &b, pose_b, &CheckOptions::default());
        let (d, i, j) = brute(&pa, &pb);
        assert!(r.distance.distance.is_finite(), "{x}");
        // The same distance to within the rounding of the posed coordinates (a few ulps of
        // the distance): the far search's support pair may round an ulp above brute force's.
        assert!(
            (r.distance.distance - d).abs() <= 8.0 * f64::EPSILON * d,
            "{x}: {} against brute force's {d} (pair {i}, {j})",
            r.distance.distance
        );
        // The reported pair's own distance is the one reported.
        let own = tritri::distance(
            &pa.tri(r.distance.triangle_a),
            &pb.tri(r.distance.triangle_b),
        );
        assert_eq!(own.distance, r.distance.distance, "{x}");
        if let Some(g) = &gpu {
            let rg = g
                .check(&a, pose_a, &b, pose_b, &Default::default())
                .unwrap();
            assert_eq!(
                rg.distance.distance.to_bits(),
                r.distance.distance.to_bits(),
                "{x}"
            );
            assert_eq!(
                (rg.distance.triangle_a, rg.distance.triangle_b),
                (r.distance.triangle_a, r.distance.triangle_b),
                "{x}"
            );
        }
    }
}

#[test]
fn triangle_distance_and_predicates_hold_beyond_the_squares_range() {
    let t = [
        DVec3::new(-0.5, -0.5, 0.5),
        DVec3::new(0.5, -0.5, 0.5),
        DVec3::new(-0.5, 0.5, -0.5),
    ];
    for x in [1e160, 1e200, 1e300, 1e308] {
        let far = t.map(|p| p + DVec3::new(x, 0.0, 0.0));
        assert!(!tritri::intersect(&t, &far), "{x}");
        let d = tritri::distance(&t, &far);
        // Hand-worked: B's x coordinates all round to x (0.5 is below their ulp), and every
        // point of A is within 1 of the origin: the distance rounds to x, B's point is at x.
        assert_eq!(d.distance, x, "{x}");
        assert!(
            d.point_2.x == x && d.point_1.abs().max_element() <= 0.5,
            "{x}: {d:?}"
        );
    }
    // A power-of-two scaling is exact and keeps every orientation's sign: the same
    // configuration at 2^-10 and at 2^1000 gives the same answers.
    let mut rnd = common::lcg(7);
    for _ in 0..200 {
        let mut p = || DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
        let (a, b, c, d) = (p(), p(), p(), p());
        let want = predicates::orient3d(a, b, c, d);
        assert_ne!(want, 0);
        for k in [2f64.powi(-10), 2f64.powi(500), 2f64.powi(1000)] {
            assert_eq!(
                predicates::orient3d(a * k, b * k, c * k, d * k),
                want,
                "{k}"
            );
        }
        // Coplanar at any scale: d on the plane through a, b, c (an exact affine combination).
        let on = a + (b - a) * 0.5 + (c - a) * 0.25;
        for k in [1.0, 2f64.powi(1000)] {
            let s = predicates::orient3d(a * k, b * k, c * k, on * k);
            let exact = predicates::orient3d(a, b, c, on);
            assert_eq!(s, exact, "{k}");
        }
    }
}

#[test]
fn the_cli_answers_at_1e308_and_refuses_a_distance_beyond_f64() {
    let cube = common::case_path("meshes/cube_trimesh.stl");
    let c = cube.to_str().unwrap();
    let run = |args: &[&str]| common::cli(&[args, &["--backend", "cpu"]].concat());
    let out = run(&["check", c, c, "--translate-b", "1e308,0,0", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // B's cube collapses onto x = 1e308 (0.5 is far below the ulp there); A's nearest face
    // is at x = 0.5: the distance rounds to 1e308.
    assert_eq!(v["min_distance"], 1e308);
    // The text says it as the JSON does, not as its 309 digits (a review's helper).
    let out = run(&["check", c, c, "--translate-b", "1e308,0,0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("min distance: 1e308 between"), "{text}");
    let out = run(&[
        "check",
        c,
        c,
        "--translate-a",
        "-1e308,0,0",
        "--translate-b",
        "1e308,0,0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("farther apart than the largest f64"), "{err}");
}

/// Coordinates of very different magnitudes in one predicate: scaling them down to avoid an
/// overflow that does not happen would underflow the small ones.
#[test]
fn predicates_mixing_1e230_and_1_keep_their_signs() {
    let o = DVec3::ZERO;
    // d far above the plane z = 0 (normal +z): below is positive, so -1.
    let d = DVec3::new(0.0, 0.0, 1e230);
    assert_eq!(predicates::orient3d(o, DVec3::X, DVec3::Y, d), -1);
    let unit = [DVec3::ZERO, DVec3::X, DVec3::Y];
    // A sliver reaching 1e230 up, passing beside the unit triangle (x + y = 1.8 > 1 at z = 0).
    let sliver = [
        DVec3::new(0.9, 0.9, -1.0),
        DVec3::new(1.0, 0.9, -1.0),
        DVec3::new(0.95, 0.9, 1e230),
    ];
    assert!(!tritri::intersect(&unit, &sliver));
}

/// A clearance wider than the gap lists every pair; the closest is still the far search's.
#[test]
fn far_apart_with_a_clearance_reports_the_same_closest_pair() {
    let a = PreparedMesh::new(generate::torus(1.0, 0.3, 12, 6));
    let b = PreparedMesh::new(generate::sphere(0.7, 6, 8));
    let pose_b = Pose::translation(DVec3::new(1e12, 3.0, 0.0));
    let plain = query::check(&a, Pose::IDENTITY, &b, pose_b, &CheckOptions::default());
    let with = query::check(
        &a,
        Pose::IDENTITY,
        &b,
        pose_b,
        &CheckOptions {
            clearance: Some(2e12),
        },
    );
    // Every pair is within the clearance, so the list could have named any of them.
    let pairs = (a.mesh.triangles.len() * b.mesh.triangles.len()) as usize;
    assert_eq!(with.clearance.as_ref().map(|c| c.pairs.len()), Some(pairs));
    assert_eq!(
        with.distance.distance.to_bits(),
        plain.distance.distance.to_bits()
    );
    assert_eq!(
        (with.distance.triangle_a, with.distance.triangle_b),
        (plain.distance.triangle_a, plain.distance.triangle_b)
    );
}

/// A review's helper's parts: one cube at the same pose twice, 6e307 from the origin (beyond
/// f64's largest / 3). Posed, their faces are the same bits, so they meet (coplanar, identical)
/// and interfere at distance 0; a triangle's centroid summed its corners to infinity there,
/// the bounding-sphere cull compared a NaN and dropped every pair: "apart, at 5e-324". Worked
/// by hand: at 6e307 the cube's x coordinates round to 6e307 (1 is below their ulp), y and z
/// keep 0 and 1, so each part is the same flat square.
#[test]
fn coinciding_parts_beyond_a_third_of_f64s_range_interfere() {
    let cube = common::box_mesh([0.0; 3], [1.0; 3]);
    let at = Pose::translation(DVec3::new(6e307, 0.0, 0.0));
    for backend in common::cpu_and_gpu("coinciding_parts_beyond_a_third_of_f64s_range_interfere") {
        let r = backend
            .check(&cube, at, &cube, at, &CheckOptions::default())
            .unwrap();
        assert!(r.intersects() && r.interferes(), "{r:?}");
        assert_eq!(r.distance.distance, 0.0);
    }
    let posed = Posed::new(&cube, at);
    assert!(query::interferes(&posed, &posed), "check --quick's answer");
}
