//! Spheres against a mesh: standing (gap, touching, every triangle touched) and moving (first
//! contact without tunnelling), against analytic answers on the box [-1, 1]³ and a plate 0.01
//! thick, and `meshclash spheres` as scripts use it.

mod common;

use glam::DVec3;
use meshclash::geom::closest::closest_point_triangle;
use meshclash::mesh::Pose;
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;

fn boxed(lo: [f32; 3], hi: [f32; 3]) -> PreparedMesh {
    common::box_mesh(lo, hi)
}

#[test]
fn standing_spheres_measure_their_gap_and_the_triangles_they_touch() {
    let cube = boxed([-1.0; 3], [1.0; 3]);
    let m = Posed::new(&cube, Pose::IDENTITY);
    // Above the top face: gap 2 - 1 - 0.5.
    let c = query::sphere_contact(DVec3::new(0.2, 0.1, 2.0), 0.5, &m).unwrap();
    assert!((c.gap - 0.5).abs() < 1e-15 && !c.touches, "{c:?}");
    assert!(c.point.distance(DVec3::new(0.2, 0.1, 1.0)) < 1e-15, "{c:?}");
    // Centre inside, 0.5 below the top face: -(0.5 + 0.25).
    let c = query::sphere_contact(DVec3::new(0.0, 0.0, 0.5), 0.25, &m).unwrap();
    assert!((c.gap + 0.75).abs() < 1e-15 && c.touches, "{c:?}");
    // Touching exactly: gap 0 counts.
    assert!(
        query::sphere_contact(DVec3::new(0.0, 0.0, 1.5), 0.5, &m)
            .unwrap()
            .touches
    );
    // Near a corner: every triangle within the radius, as brute force finds them.
    let (centre, r) = (DVec3::new(1.1, 0.9, 1.2), 0.5);
    let want: Vec<u32> = (0..cube.mesh.triangles.len() as u32)
        .filter(|&t| closest_point_triangle(centre, &m.tri(t)).distance(centre) <= r)
        .collect();
    assert!(want.len() >= 3, "{want:?}");
    assert_eq!(query::sphere_triangles(centre, r, &m), want);
}

#[test]
fn moving_spheres_meet_faces_edges_and_vertices_when_they_should() {
    let cube = boxed([-1.0; 3], [1.0; 3]);
    let m = Posed::new(&cube, Pose::IDENTITY);
    let (r, tol) = (0.5, 1e-9);
    let cases = [
        // Falling onto the top face: the centre reaches z = 1.5 at s = (3 - 1.5) / 4.
        (
            "face",
            DVec3::new(0.2, 0.3, 3.0),
            DVec3::new(0.0, 0.0, -4.0),
            Some(0.375),
        ),
        // Onto the edge x = z = 1: distance √2 (1 - 2s) = r.
        (
            "edge",
            DVec3::new(2.0, 0.3, 2.0),
            DVec3::new(-2.0, 0.0, -2.0),
            Some((1.0 - 0.5 / 2f64.sqrt()) / 2.0),
        ),
        // Onto the corner (1, 1, 1): distance √3 (2 - 2s) = r.
        (
            "vertex",
            DVec3::splat(3.0),
            DVec3::splat(-2.0),
            Some(1.0 - 0.5 / (2.0 * 3f64.sqrt())),
        ),
        // Passing beside it, never nearer than √8 - 1 - ... : no contact.
        (
            "miss",
            DVec3::new(3.0, 3.0, -5.0),
            DVec3::new(0.0, 0.0, 10.0),
            None,
        ),
        // Starting inside: contact at 0.
        ("inside", DVec3::ZERO, DVec3::X, Some(0.0)),
    ];
    for (name, c, v, want) in cases {
        let sweep = query::sphere_sweep(c, r, v, &m, tol);
        assert!(
            !matches!(sweep, query::SphereSweep::Undecided { .. }),
            "{name}"
        );
        let got = sweep.contact().copied();
        match (got, want) {
            (Some(g), Some(w)) => {
                // At or before the true contact, within the tolerance's worth of path.
                assert!(
                    g.toi <= w + 1e-12 && w - g.toi <= tol / v.length() + 1e-12,
                    "{name}: {} vs {w}",
                    g.toi
                );
            }
            (None, None) => {}
            _ => panic!("{name}: {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn a_fast_sphere_does_not_tunnel_through_a_thin_plate() {
    // A plate 0.01 thick; a sphere of radius 0.001 moving 10 across it in one step: both ends
    // free, contact at the plate's near face.
    let plate = boxed([-1.0, -1.0, -0.005], [1.0, 1.0, 0.005]);
    let m = Posed::new(&plate, Pose::IDENTITY);
    let (c, v, r) = (
        DVec3::new(0.1, 0.2, -5.0),
        DVec3::new(0.0, 0.0, 10.0),
        0.001,
    );
    assert!(!query::sphere_contact(c, r, &m).unwrap().touches);
    assert!(!query::sphere_contact(c + v, r, &m).unwrap().touches);
    let sweep = query::sphere_sweep(c, r, v, &m, 1e-9);
    let hit = *sweep.contact().expect("it must meet the plate");
    // The centre reaches z = -0.006 at s = (5 - 0.006) / 10 (the plate's face is -0.005 to
    // f32's precision, 1e-10).
    assert!((hit.toi - 0.4994).abs() < 1e-9, "{}", hit.toi);
    assert!((hit.point.z + 0.005).abs() < 1e-9, "{hit:?}");
}

#[test]
fn the_spheres_command_answers_rows_of_4_and_7() {
    let dir = std::env::temp_dir().join(format!("meshclash-spheres-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cube = common::case_path("meshes/cube_trimesh.stl"); // [-0.5, 0.5]³
    let run = |args: &[&str]| common::cli(&[args, &["--backend", "cpu"]].concat());
    let still = dir.join("still.csv");
    std::fs::write(&still, "0,0,1,0.25\n0,0,0.6,0.25\n").unwrap();
    let out = dir.join("still.json");
    let r = run(&[
        "spheres",
        cube.to_str().unwrap(),
        still.to_str().unwrap(),
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(rows[0]["touches"], false);
    assert!((rows[0]["gap"].as_f64().unwrap() - 0.25).abs() < 1e-12);
    assert_eq!(rows[1]["touches"], true);
    let moving = dir.join("moving.csv");
    std::fs::write(&moving, "0,0,2,0.25,0,0,-2\n5,5,5,0.25,1,0,0\n").unwrap();
    let out = dir.join("moving.json");
    let r = run(&[
        "spheres",
        cube.to_str().unwrap(),
        moving.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // From z = 2 down by 2: the centre reaches 0.75 at s = 0.625.
    assert!(
        (rows[0]["toi"].as_f64().unwrap() - 0.625).abs() < 1e-6,
        "{rows}"
    );
    assert_eq!(rows[1]["contact"], false);
    assert!(rows[1]["toi"].is_null());
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "0,0,0,-1\n").unwrap();
    let r = run(&["spheres", cube.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("row 0 has a negative radius"));
    // A move that ends beyond f64 could only be undecided: refused, naming its row.
    std::fs::write(&bad, "0,0,5,0.5,0,0,-1\n1.7e308,0,0,0.5,1.7e308,0,0\n").unwrap();
    let r = run(&["spheres", cube.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains(":2: row 1: the move's end"), "{err}");
    // An option for the other kind of row is refused, not ignored (a review's helper: each
    // had answered the question without it); a negative tolerance reaches the tool's own
    // check rather than being taken for an option.
    let (c, s, m) = (
        cube.to_str().unwrap(),
        still.to_str().unwrap(),
        moving.to_str().unwrap(),
    );
    for (args, says) in [
        (vec![m, "--contacts"], "--contacts is for standing spheres"),
        (vec![s, "--tolerance", "1e-3"], "--tolerance is for moving"),
        (
            vec![m, "--tolerance", "-1"],
            "--tolerance must be finite and > 0",
        ),
    ] {
        let r = run(&[&["spheres", c][..], &args].concat());
        assert_eq!(r.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(says), "{err}");
    }
    // So too for a `.npy` of no rows, whose shape tells its width (a review's helper: both
    // were accepted); a CSV of no rows tells none, and takes either option.
    let (none7, none4, empty) = (
        dir.join("none7.npy"),
        dir.join("none4.npy"),
        dir.join("e.csv"),
    );
    let header =
        |k: usize| format!("{{'descr': '<f8', 'fortran_order': False, 'shape': (0, {k}), }}");
    std::fs::write(&none7, common::npy_bytes(&header(7), &[])).unwrap();
    std::fs::write(&none4, common::npy_bytes(&header(4), &[])).unwrap();
    std::fs::write(&empty, "").unwrap();
    let (n7, n4, e) = (
        none7.to_str().unwrap(),
        none4.to_str().unwrap(),
        empty.to_str().unwrap(),
    );
    for (args, says) in [
        (
            vec![n7, "--contacts"],
            Some("--contacts is for standing spheres"),
        ),
        (
            vec![n4, "--tolerance", "1e-3"],
            Some("--tolerance is for moving"),
        ),
        (vec![n4, "--contacts"], None),
        (vec![n7, "--tolerance", "1e-3"], None),
        (vec![e, "--contacts"], None),
        (vec![e, "--tolerance", "1e-3"], None),
    ] {
        let r = run(&[&["spheres", c][..], &args].concat());
        let err = String::from_utf8_lossy(&r.stderr);
        match says {
            Some(says) => assert!(r.status.code() == Some(2) && err.contains(says), "{err}"),
            None => assert!(r.status.success(), "{args:?}: {err}"),
        }
    }
}

#[test]
fn a_sphere_sweep_that_cannot_finish_is_undecided_not_clear() {
    let cube = boxed([-1.0; 3], [1.0; 3]);
    let m = Posed::new(&cube, Pose::IDENTITY);
    // Past the top face at a gap of 1e-7 over a path of 1e10: the steps near it stall.
    let c = DVec3::new(-5e9, 0.0, 1.5 + 1e-7);
    let got = query::sphere_sweep(c, 0.5, DVec3::new(1e10, 0.0, 0.0), &m, 1e-9);
    assert!(
        matches!(got, query::SphereSweep::Undecided { .. }),
        "{got:?}"
    );
}

/// Moving spheres on the GPU step together from the GPU's nearest points: the same answers as
/// the CPU's, sphere by sphere. 600 spheres (so that hundreds step together for many rounds) on
/// the thin plate, a torus far from the origin and turned, and the teapot: from around each
/// part across it, some starting inside or touching, some grazing (many steps: they finish on
/// the CPU), some missing.
#[test]
fn gpu_sphere_sweeps_equal_the_cpus() {
    let test = "gpu_sphere_sweeps_equal_the_cpus";
    let Some(ctx) = common::gpu_or_skip(test) else {
        return;
    };
    let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let cases = [
        (
            boxed([-1.0, -1.0, -0.005], [1.0, 1.0, 0.005]),
            Pose::IDENTITY,
        ),
        (
            PreparedMesh::new(meshclash::mesh::generate::torus(1.0, 0.3, 40, 16)),
            Pose::from_euler_degrees([30.0, -60.0, 10.0], DVec3::new(1e4, -2.0, 3.0)),
        ),
        (
            PreparedMesh::new(
                meshclash::mesh::Mesh::load(common::case_path("meshes/teapot.stl")).unwrap(),
            ),
            Pose::IDENTITY,
        ),
    ];
    let mut rnd = common::lcg(21);
    let (mut contacts, mut clear, mut undecided) = (0, 0, 0);
    for (m, pose) in &cases {
        let posed = Posed::new(m, *pose);
        let b = posed.node_box(0);
        let size = b.diagonal();
        let spheres: Vec<(DVec3, f64, DVec3)> = (0..600)
            .map(|_| {
                let from = b.min + (b.max - b.min) * (DVec3::new(rnd(), rnd(), rnd()) * 2.0 - 0.5);
                let to = b.min + (b.max - b.min) * (DVec3::new(rnd(), rnd(), rnd()) * 2.0 - 0.5);
                (from, size * 0.02 * rnd(), to - from)
            })
            .collect();
        let tol = 1e-9 * size;
        let gm = gpu.resident(m).unwrap();
        let got = gpu.sphere_sweeps(&posed, &gm, &spheres, Some(tol)).unwrap();
        for (s, g) in spheres.iter().zip(&got) {
            let want = query::sphere_sweep(s.0, s.1, s.2, &posed, tol);
            assert_eq!(*g, want, "{s:?}");
            match g {
                query::SphereSweep::Contact(_) => contacts += 1,
                query::SphereSweep::Clear => clear += 1,
                query::SphereSweep::Undecided { .. } => undecided += 1,
            }
        }
    }
    assert!(
        contacts > 300 && clear > 100,
        "{contacts} contacts, {clear} clear, {undecided} undecided"
    );
}

fn triangle(t: [[f32; 3]; 3]) -> PreparedMesh {
    PreparedMesh::new(meshclash::mesh::Mesh::from_soup("triangle", vec![t]).unwrap())
}

/// A review's cases, each worked exactly (rationals): a moving point crossing a triangle's
/// inside at t = 45/151 with the part 1e8 from the origin, and at t ≈ 1/2 on a path 2e7
/// long; and at the origin with a tolerance of 1e-20, finer than f64 resolves there (crossing
/// at t = 137/1262). Rounding had stepped each past the triangle and called it clear: each is
/// now a contact no later than the crossing, or undecided, never clear.
#[test]
fn a_moving_point_crossing_a_triangle_far_out_or_on_a_long_path_is_never_clear() {
    let tri = triangle([[-4.0, -4.0, 1.0], [4.0, -3.0, -1.0], [1.0, 5.0, 3.0]]);
    let far = DVec3::splat(1e8);
    let small = triangle([
        [-0.25, -0.25, 0.0625],
        [0.25, -0.1875, -0.0625],
        [0.0625, 0.3125, 0.1875],
    ]);
    let cases = [
        (
            &tri,
            Pose::translation(far),
            far + DVec3::new(0.0, 0.5, 0.125),
            DVec3::new(3.375, 0.5625, 4.0),
            None,
            45.0 / 151.0,
        ),
        (
            &small,
            Pose::IDENTITY,
            DVec3::new(-2294672.0, 1298013.0, -9646224.0),
            DVec3::new(4589343.876977963, -2596026.1867766026, 19292448.116877783),
            None,
            97433855287361536.0 / 194867710420582387.0,
        ),
        (
            &tri,
            Pose::IDENTITY,
            DVec3::new(0.5, -0.875, 1.125),
            DVec3::new(-3.25, -2.875, -2.5),
            Some(1e-20),
            137.0 / 1262.0,
        ),
    ];
    for (m, pose, c, v, tol, crossing) in cases {
        let posed = Posed::new(m, pose);
        let tol = query::sweep_tolerance(&posed, (c, 0.0, v), tol);
        match query::sphere_sweep(c, 0.0, v, &posed, tol) {
            query::SphereSweep::Contact(hit) => {
                assert!(
                    hit.toi <= crossing * (1.0 + 1e-12),
                    "{hit:?} after {crossing}"
                );
                let at = query::sphere_contact(c + v * hit.toi, 0.0, &posed).unwrap();
                assert!(
                    at.gap <= tol * 1.01,
                    "gap {} at {hit:?}, tolerance {tol}",
                    at.gap
                );
            }
            query::SphereSweep::Undecided { from } => assert!(from <= crossing),
            query::SphereSweep::Clear => panic!("clear through the triangle at {crossing}"),
        }
    }
}

/// A sphere whose move ends exactly touching a face (its squared distance at the end is
/// 1225/256 = r², worked in rationals) meets it at the end; one moving a little less does
/// not. A sphere exactly tangent to a tilted face (squared distance 3969/256 = r²) touches it,
/// and `sphere_triangles` names the face: both decided exactly, whichever way the f64 distance
/// rounds (it read 4.4e-16 above r).
#[test]
fn spheres_exactly_touching_touch() {
    let next_down = |x: f64| f64::from_bits(x.to_bits() - 1);
    let m = triangle([[100.0, 0.0, 0.0], [64.0, -32.0, 28.0], [64.0, -24.0, 24.0]]);
    let posed = Posed::new(&m, Pose::IDENTITY);
    let (c, r, v) = (
        DVec3::new(87.875, -3.3125, 38.875),
        2.1875,
        DVec3::new(-7.5, -11.25, -22.5),
    );
    let tol = query::sweep_tolerance(&posed, (c, r, v), None);
    let hit = *query::sphere_sweep(c, r, v, &posed, tol)
        .contact()
        .expect("it touches at the end");
    assert!(hit.toi > 0.999 && hit.toi <= 1.0, "{hit:?}");
    assert!(query::sphere_contact(c + v, r, &posed).unwrap().touches);
    let short = query::sphere_sweep(c, next_down(r) * 0.999, v, &posed, tol);
    assert_eq!(short, query::SphereSweep::Clear);

    let m = triangle([[40.0, 0.0, 0.0], [22.0, -16.0, 14.0], [22.0, -12.0, 12.0]]);
    let posed = Posed::new(&m, Pose::IDENTITY);
    let c = DVec3::new(29.875, -8.1875, 2.875);
    let tangent = query::sphere_contact(c, 3.9375, &posed).unwrap();
    assert!(tangent.touches, "{tangent:?}");
    assert_eq!(query::sphere_triangles(c, 3.9375, &posed), vec![0]);
    let below = next_down(3.9375);
    assert!(!query::sphere_contact(c, below, &posed).unwrap().touches);
    assert!(query::sphere_triangles(c, below, &posed).is_empty());
}

/// A review's helper's batch: a sphere of radius 1/2 standing still with its centre
/// f64(0.500001) above the inside of triangle (0,0,0), (1,0,0), (0,1,0): a gap of about 1e-6,
/// clear. Alone, its default tolerance (1e-9 of the mesh) finds it clear; beside a second row
/// 1e8 from the origin, or moved by 1e15, the batch's one default (the largest, 2.8e-6 and 28)
/// made it touch at 0. Each sphere now has its own.
#[test]
fn a_row_far_away_does_not_coarsen_another_rows_tolerance() {
    let m = triangle([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let near = (DVec3::new(0.25, 0.25, 0.500001), 0.5, DVec3::ZERO);
    let far = [
        (DVec3::new(1e8, 0.0, 0.0), 1.0, DVec3::new(0.0, 0.0, 1.0)),
        (DVec3::splat(5.0), 5.0, DVec3::new(0.0, 0.0, 1e15)),
    ];
    let backends = common::cpu_and_gpu("a_row_far_away_does_not_coarsen_another_rows_tolerance");
    for b in &backends {
        for other in far {
            let got = b
                .sphere_sweeps(&m, Pose::IDENTITY, &[near, other], None)
                .unwrap();
            assert_eq!(got[0], query::SphereSweep::Clear, "beside {other:?}");
        }
    }
    let posed = Posed::new(&m, Pose::IDENTITY);
    let own = query::sweep_tolerance(&posed, near, None);
    assert!(own < 1.0e-8, "{own}");
    // The batch's one tolerance, as it was: the sphere touches.
    for other in far {
        let largest = query::sweep_tolerance(&posed, other, None);
        assert!(largest > 1e-6, "{largest}");
        let (c, r, v) = near;
        let old = query::sphere_sweep(c, r, v, &posed, largest);
        assert!(old.contact().is_some(), "{old:?}");
    }
}

/// A review's helper's case: a sphere of radius 0.1 moving down the middle of the unit cube
/// without its top, from z = 3 by 2.5. Its centre reaches the opening's plane, where the
/// winding number is exactly 1/2 and the inside begins, at toi 0.8 (z = 1), 0.4 from every
/// wall; at its end (z = 0.5) a standing sphere touches (centre inside). The advancement
/// stepped by the distance to the walls and met nothing. Now at 0.8, past it by at most half
/// the tolerance of a move, on both backends.
#[test]
fn a_sphere_moving_into_an_open_box_through_its_top_meets_its_inside() {
    let m = common::open_box(0.0, 1.0, &[(2, true)]);
    let (c, r, v) = (DVec3::new(0.5, 0.5, 3.0), 0.1, DVec3::new(0.0, 0.0, -2.5));
    let posed = Posed::new(&m, Pose::IDENTITY);
    assert!(query::sphere_contact(c + v, r, &posed).unwrap().touches);
    let test = "a_sphere_moving_into_an_open_box_through_its_top_meets_its_inside";
    let backends = common::cpu_and_gpu(test);
    let tol = query::sweep_tolerance(&posed, (c, r, v), None);
    // Another helper's: a move that ends 3e-10 into the inside (from z = 1.5 by -0.5000000003,
    // entering at toi 0.5 / 0.5000000003). Its last step, half the tolerance long, ran past the
    // end and the sphere was called clear.
    let short = (
        DVec3::new(0.5, 0.5, 1.5),
        0.01,
        DVec3::new(0.0, 0.0, -0.5000000003),
    );
    let enters = 0.5 / 0.5000000003;
    for b in &backends {
        let got = b
            .sphere_sweeps(&m, Pose::IDENTITY, &[(c, r, v), short], None)
            .unwrap();
        let hit = got[0].contact().expect("contact");
        let past = (hit.toi - 0.8) * 2.5;
        assert!((-1e-12..=tol / 2.0).contains(&past), "{hit:?}");
        let hit = got[1].contact().expect("contact at the end");
        let past = (hit.toi - enters) * 0.5000000003;
        assert!((-1e-12..=tol / 2.0).contains(&past), "{hit:?}");
    }
}

/// A sphere moving from 1e308 to the origin meets a cube there: its default tolerance is
/// what such coordinates resolve (about 6e294), not the mesh's 1.7e-9, which the sum of its
/// magnitudes overflowing to infinity had made it (and the sweep undecided). Contact when the
/// centre is at x = 1, within the tolerance: a fraction of the move within 1e-13 of 1.
#[test]
fn a_sphere_moving_from_near_f64s_largest_is_decided() {
    let cube = common::box_mesh([-0.5; 3], [0.5; 3]);
    let (c, r, v) = (
        DVec3::new(1e308, 0.0, 0.0),
        0.5,
        DVec3::new(-1e308, 0.0, 0.0),
    );
    for backend in common::cpu_and_gpu("a_sphere_moving_from_near_f64s_largest_is_decided") {
        let posed = Posed::new(&cube, Pose::IDENTITY);
        let tol = query::sweep_tolerance(&posed, (c, r, v), None);
        assert!(tol > 1e294 && tol < 1e296, "{tol:e}");
        let hit = first_contact(&backend, &cube, (c, r, v));
        assert!(hit.toi <= 1.0 && hit.toi > 1.0 - 1e-13, "{hit:?}");
    }
}

/// The one sphere `s` (centre, radius, move) moving against `m` unposed: its contact, which
/// it must have.
fn first_contact(
    backend: &meshclash::Backend,
    m: &PreparedMesh,
    s: (DVec3, f64, DVec3),
) -> query::SweepContact {
    let got = backend
        .sphere_sweeps(m, Pose::IDENTITY, &[s], None)
        .unwrap();
    *got[0].contact().unwrap_or_else(|| panic!("{got:?}"))
}

/// A review's helper's row: a sphere moving by 1.7e308 on every axis, whose displacement's
/// length (2.9e308) is beyond f64 though its end is not. Halfway its centre is exactly the
/// cube's corner at the origin (0.5 · 1.7e308 = 8.5e307), so the sphere touches there; each
/// step had divided by that infinite length, stepped nowhere and come back undecided.
#[test]
fn a_move_longer_than_f64_holds_is_decided() {
    let cube = common::box_mesh([0.0; 3], [1.0; 3]);
    let (c, r, v) = (DVec3::splat(-8.5e307), 0.5, DVec3::splat(1.7e308));
    assert!(((v / 2.0).length() * 2.0).is_infinite());
    for backend in common::cpu_and_gpu("a_move_longer_than_f64_holds_is_decided") {
        let hit = first_contact(&backend, &cube, (c, r, v));
        // Contact where the centre is within r of the corner, a fraction of the move within
        // 1e-13 of 1/2 (r is 1e-308 of the move), and not after the centre reaches it.
        assert!(hit.toi <= 0.5 && hit.toi > 0.5 - 1e-13, "{hit:?}");
    }
}

/// A review's helper's rows: the tetrahedron (0,0,0), (0,1,0), (0,0,1), (-1,0,0) lies in
/// x <= 0, with (0, 1/4, 1/4) inside its face x = 0 (triangle 0); a centre (x, 1/4, 1/4) with
/// x > 0 is x from the solid, so its sphere touches exactly when r >= x, and meets triangle 0.
/// Beyond 1.3e154 the triangles' distances were squared to infinity: spheres touching exactly
/// or cutting in were "not touching" and named no triangle.
#[test]
fn huge_spheres_touch_as_exactly_as_small_ones() {
    let v = [
        [0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [-1.0, 0.0, 0.0],
    ];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]].map(|f: [usize; 3]| f.map(|k| v[k]));
    let m = PreparedMesh::new(meshclash::mesh::Mesh::from_soup("tet", faces.to_vec()).unwrap());
    assert!(m.info.closed && m.info.oriented);
    let posed = Posed::new(&m, Pose::IDENTITY);
    let rows = [
        (1e160, 1e160),
        (1e200, 1.0000000000000001e200),
        (1e300, 1e300),
        (1e300, 2e300),
        (1e200, 1.7e308),
    ];
    for (x, r) in rows {
        let c = DVec3::new(x, 0.25, 0.25);
        let s = query::sphere_contact(c, r, &posed).unwrap();
        assert!(s.touches, "{x:e} {r:e}: {s:?}");
        assert!(
            query::sphere_triangles(c, r, &posed).contains(&0),
            "{x:e} {r:e}"
        );
        // One ulp short of the distance: clear.
        let short = f64::from_bits(x.to_bits() - 1);
        assert!(
            !query::sphere_contact(c, short, &posed).unwrap().touches,
            "{x:e}"
        );
    }
}

/// A tolerance finer than the coordinates resolve is raised to what they do: a sphere of
/// radius 0.5 falling from z = 3 by 3 onto the top of the box [-1, 1]³ touches at toi 0.5
/// exactly ((3 - 0.5 - 1) / 3), and with 1e-13 given (the slack here is about 5e-14) it came
/// back undecided (a review's helper); the tolerance it is swept with says so.
#[test]
fn a_tolerance_finer_than_the_coordinates_resolve_is_raised_to_it() {
    let m = boxed([-1.0; 3], [1.0; 3]);
    let posed = Posed::new(&m, Pose::IDENTITY);
    let s = (DVec3::new(0.0, 0.0, 3.0), 0.5, DVec3::new(0.0, 0.0, -3.0));
    for given in [1e-13, 1e-300] {
        let used = query::sweep_tolerance(&posed, s, Some(given));
        assert!(used > given && used < 1e-12, "{used}");
        assert_eq!(query::sweep_tolerance(&posed, s, Some(1e-6)), 1e-6);
        let backends = common::cpu_and_gpu("a_tolerance_finer_than_the_coordinates_resolve");
        for b in &backends {
            let got = b
                .sphere_sweeps(&m, Pose::IDENTITY, &[s], Some(given))
                .unwrap();
            let hit = got[0].contact().expect("a contact");
            // At or before 0.5, within the tolerance used (a move of 3: 3 · toi off).
            assert!(
                hit.toi <= 0.5 && (0.5 - hit.toi) * 3.0 <= used,
                "{}",
                hit.toi
            );
        }
    }
}
