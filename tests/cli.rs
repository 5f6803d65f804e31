//! The command line as scripts use it: JSON shape, exit codes, one clear line on stderr.

mod common;

use common::case_path;
use std::process::Command;

fn meshclash(args: &[&str]) -> (i32, String, String) {
    meshclash_env(args, &[])
}

#[test]
fn info_json_has_the_documented_keys() {
    let p = case_path("meshes/torus.stl");
    let (code, out, _) = meshclash(&["info", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["triangles"], 8700);
    assert_eq!(v["vertices"], 4350);
    assert_eq!(v["zero_area_triangles"], 0);
    assert_eq!(v["closed"], true);
    assert_eq!(v["oriented"], true);
    assert_eq!(v["bodies"], 1);
    assert_eq!(v["closed_bodies"], 1);
    // torus R = 1, r = 0.5 (SOURCES.md): z within ±0.5.
    assert!(v["bbox_max"][2].as_f64().unwrap() <= 0.5);
    assert!(v["bbox_min"].as_array().unwrap().len() == 3);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let p = case_path("broken/torus_truncated.stl");
    let (code, out, err) = meshclash(&["info", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("torus_truncated.stl") && err.contains("8700"),
        "{err}"
    );
    let (code, _, err) = meshclash(&["info", "/no/such/file.stl"]);
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/file.stl"));
    for args in [vec!["info"], vec!["frobnicate"], vec![]] {
        let (code, _, err) = meshclash(&args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    let (code, out, _) = meshclash(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("check") && out.contains("self") && out.contains("demo"));
}

fn matrix_arg(v: &serde_json::Value) -> String {
    let m: Vec<String> = v
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| format!("{:?}", x.as_f64().unwrap()))
        })
        .collect();
    m.join(",")
}

/// `check` on a shared case's meshes and poses with `extra` arguments: its JSON answer.
/// How near a distance printed by the CLI must be to the oracle's: both are f64 over the same
/// f32 vertices and agree to rounding, so 1e-9 of the parts' size plus the distance (as
/// peer_cases.rs holds the library; 1e-6 let a 1 % error through on the smallest gap).
fn distance_tolerance(case: &serde_json::Value, want: f64) -> f64 {
    let diagonal = |key: &str| {
        let m = meshclash::mesh::Mesh::load(case_path(case[key].as_str().unwrap())).unwrap();
        m.bounding_box().diagonal()
    };
    1e-9 * (diagonal("mesh_a").max(diagonal("mesh_b")) + want)
}

fn check_case(case: &serde_json::Value, extra: &[&str]) -> serde_json::Value {
    let name = case["name"].as_str().unwrap();
    let (a, b) = (
        case_path(case["mesh_a"].as_str().unwrap()),
        case_path(case["mesh_b"].as_str().unwrap()),
    );
    let (ma, mb) = (matrix_arg(&case["pose_a"]), matrix_arg(&case["pose_b"]));
    let mut args = vec![
        "check",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--matrix-a",
        &ma,
        "--matrix-b",
        &mb,
        "--json",
    ];
    args.extend(extra);
    let (code, out, err) = meshclash(&args);
    assert_eq!(code, 0, "{name}: {err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn check_json_on_every_peer_case() {
    for case in common::load_cases() {
        let name = case["name"].as_str().unwrap();
        let v = check_case(&case, &["--backend", "cpu"]);
        let e = &case["expect"];
        assert_eq!(v["intersects"], e["intersects"], "{name}");
        if !e["pair_count"].is_null() {
            assert_eq!(v["pair_count"], e["pair_count"], "{name}");
        }
        let (got, want) = (
            v["min_distance"].as_f64().unwrap(),
            e["min_distance"].as_f64().unwrap(),
        );
        assert!(
            (got - want).abs() <= distance_tolerance(&case, want),
            "{name}: {got} vs {want}"
        );
        for key in [
            "interferes",
            "containment",
            "closest_point_a",
            "closest_point_b",
            "separation",
            "triangle_a",
            "triangle_b",
            "clearance",
            "clearance_pair_count",
            "backend",
            "timings_ms",
        ] {
            assert!(v.get(key).is_some(), "{name}: missing {key}");
        }
        assert_eq!(v["backend"], "cpu");
        assert!(v.get("pairs").is_none());
    }
}

#[test]
fn check_pairs_clearance_and_poses() {
    let cube = case_path("meshes/cube_trimesh.stl");
    let c = cube.to_str().unwrap();
    // Unit cubes, B moved 1.2 along x: a 0.2 gap; the closest points are on x = 0.5 and 0.7.
    // Clearance 0.25 catches the facing faces and the side triangles reaching them: counted
    // here by brute force over all 144 pairs, independently of the octree and the CLI.
    let m = meshclash::mesh::Mesh::load(&cube).unwrap();
    let pb = meshclash::mesh::Pose::translation(glam::DVec3::new(1.2, 0.0, 0.0));
    let want = (0..12)
        .flat_map(|i| (0..12).map(move |j| (i, j)))
        .filter(|&(i, j)| {
            meshclash::geom::tritri::distance(&m.triangle(i), &m.triangle(j).map(|p| pb.apply(p)))
                .distance
                < 0.25
        })
        .count();
    assert!(want > 4); // more than the facing faces' 2 × 2
    let (code, out, _) = meshclash(&[
        "check",
        c,
        c,
        "--translate-b",
        "1.2,0,0",
        "--clearance",
        "0.25",
        "--pairs",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["intersects"], false);
    assert!((v["min_distance"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    assert!((v["separation"][0].as_f64().unwrap() + 0.2).abs() < 1e-12); // from B to A: −x
    assert_eq!(v["clearance"], 0.25);
    assert_eq!(v["clearance_pair_count"], want);
    assert_eq!(v["pairs"].as_array().unwrap().len(), 0);
    assert_eq!(v["clearance_pairs"].as_array().unwrap().len(), want);
    // A clearance of -0 is 0, and echoed so (a review's helper: "clearance -0"), in JSON and
    // in text: the parts 0.2 apart have no pair within it.
    for json in [true, false] {
        let mut args = vec!["check", c, c, "--translate-b", "1.2,0,0", "--clearance=-0"];
        args.extend(json.then_some("--json"));
        let (code, out, err) = meshclash(&args);
        assert_eq!(code, 0, "{err}");
        if json {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let d = v["clearance"].as_f64().unwrap();
            assert!(d == 0.0 && d.is_sign_positive(), "{out}");
            assert_eq!(v["clearance_pair_count"], 0);
        } else {
            assert!(
                out.contains("clearance 0: 0 triangle pairs closer"),
                "{out}"
            );
        }
    }
    // Rotated 45° about z and pushed to touch an edge of A's face x = 0.5 … deep instead: B at
    // 0.5 overlaps half: intersecting pairs are listed with their class.
    let (code, out, _) = meshclash(&[
        "check",
        c,
        c,
        "--translate-b",
        "0.5,0.25,0.125",
        "--rotate-b",
        "0,0,30",
        "--pairs",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["intersects"], true);
    assert_eq!(v["interferes"], true);
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len() as u64, v["pair_count"].as_u64().unwrap());
    for p in pairs {
        assert!(["point", "segment", "area"].contains(&p["class"].as_str().unwrap()));
        assert!(p["coplanar"].is_boolean() && p["touching"].is_boolean());
    }
    // Curve segments: one per crossing (non-coplanar, segment) pair, each end on both cubes'
    // surfaces: A's surface is max(|x|,|y|,|z|) = 0.5.
    let curves = v["curves"].as_array().unwrap();
    let crossing = pairs
        .iter()
        .filter(|p| p["class"] == "segment" && p["coplanar"] == false)
        .count();
    assert_eq!(curves.len(), crossing);
    for seg in curves {
        for end in seg.as_array().unwrap() {
            let m = (0..3)
                .map(|k| end[k].as_f64().unwrap().abs())
                .fold(0.0, f64::max);
            assert!((m - 0.5).abs() < 1e-9, "{end}");
        }
    }
    // Exactly coincident faces (B one unit along x): coplanar area pairs, all touching.
    let (_, out, _) = meshclash(&["check", c, c, "--translate-b", "1,0,0", "--pairs", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["pair_count"], 64); // cases.json: cube_cube_face_coplanar_full
    let pairs = v["pairs"].as_array().unwrap();
    assert!(pairs.iter().all(|p| p["touching"] == true));
    assert!(pairs
        .iter()
        .any(|p| p["coplanar"] == true && p["class"] == "area"));
    assert_eq!(v["piercing_pair_count"], 0);
}

#[test]
fn check_argument_errors_exit_2() {
    let cube = case_path("meshes/cube_trimesh.stl");
    let c = cube.to_str().unwrap();
    for args in [
        vec!["check", c, c, "--translate-a", "1,2"],
        vec!["check", c, c, "--rotate-b", "a,b,c"],
        vec![
            "check",
            c,
            c,
            "--matrix-a",
            "2,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1",
        ], // scaling
        vec![
            "check",
            c,
            c,
            "--matrix-a",
            "1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1",
            "--translate-a",
            "1,0,0",
        ],
        vec!["check", c, c, "--clearance", "-1"],
        // Refused once `auto` has chosen (and on lavapipe said why): still one line, the
        // notice held back (a review's helper: it came first, two lines).
        vec![
            "check",
            c,
            c,
            "--translate-a",
            "-1e308,0,0",
            "--translate-b",
            "1e308,0,0",
        ],
        vec!["poses", c, c, "/no/such.json", "--clearance", "-1"],
        vec!["check", c, "/no/such.stl"],
        vec!["check", c, c, "--backend", "metal"],
    ] {
        let (code, out, err) = meshclash(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        // The scaling matrix's message names its option, and a short translation its own.
        if args.contains(&"1,2") {
            assert!(err.contains("--translate-a needs 3"), "{err}");
        }
        if args.contains(&"2,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1") {
            assert!(err.contains("--matrix-a: rotation part"), "{err}");
        }
    }
}

#[test]
fn self_json_matches_the_oracle_on_teapot() {
    let p = case_path("meshes/teapot.stl");
    let (code, out, _) = meshclash(&["self", p.to_str().unwrap(), "--json", "--pairs"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["self_intersects"], true);
    assert_eq!(v["pair_count"], 56); // self_cases.json
    assert_eq!(v["by_kind"]["disjoint_vertices"], 56);
    assert_eq!(v["pairs"].as_array().unwrap().len(), 56);
    let p = case_path("meshes/cube_trimesh.stl");
    let (code, out, _) = meshclash(&["self", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["self_intersects"], false);
    assert!(v.get("pairs").is_none());
}

#[test]
fn demo_runs_every_scene() {
    let (code, out, err) = meshclash(&["demo", "--triangles", "2000"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("== ").count(), 3);
    // Cutting tori intersect; the swallowed torus is contained; the near miss is neither.
    assert!(out.contains("intersects: true"));
    assert!(out.contains("containment: a_in_b"));
    assert!(out.contains("interferes: false"));
    let (code, _, _) = meshclash(&["demo", "--triangles", "5"]);
    assert_eq!(code, 2);
    // Beyond what memory holds: refused, not an allocation failure (a review's helper).
    let (code, _, err) = meshclash(&["demo", "--triangles", "1000000000"]);
    assert!(
        err.contains("--triangles must be from 400 to 2000000"),
        "{err}"
    );
    assert_eq!(code, 2);
}

fn meshclash_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn backend_gpu_without_an_adapter_exits_2_and_auto_falls_back() {
    // No adapter is called "no such adapter": the GPU cannot be had, whatever the machine.
    let cube = case_path("meshes/cube_trimesh.stl");
    let c = cube.to_str().unwrap();
    let none = [("WGPU_ADAPTER_NAME", "no such adapter")];
    let (code, out, err) = meshclash_env(&["check", c, c, "--backend", "gpu", "--json"], &none);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no GPU adapter"), "{err}");
    let (code, out, err) = meshclash_env(&["check", c, c, "--backend", "auto", "--json"], &none);
    assert_eq!(code, 0);
    assert!(err.contains("answering on the CPU"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["adapter"], serde_json::Value::Null);
}

#[test]
fn backend_gpu_answers_like_the_cpu_and_names_its_adapter() {
    if common::gpu_or_skip("backend_gpu_answers_like_the_cpu_and_names_its_adapter").is_none() {
        return;
    }
    let (a, b) = (
        case_path("meshes/torus.stl"),
        case_path("meshes/halfdonut_ascii.stl"),
    );
    let args = |backend: &'static str| {
        vec![
            "check".to_string(),
            a.to_str().unwrap().into(),
            b.to_str().unwrap().into(),
            "--rotate-b".into(),
            "10,20,30".into(),
            "--clearance".into(),
            "0.02".into(),
            "--pairs".into(),
            "--json".into(),
            "--backend".into(),
            backend.into(),
        ]
    };
    let run = |backend| {
        let a = args(backend);
        let (code, out, err) = meshclash(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let (cpu, gpu) = (run("cpu"), run("gpu"));
    assert_eq!(gpu["backend"], "gpu");
    assert!(gpu["adapter"]["name"].is_string());
    for key in [
        "intersects",
        "pair_count",
        "pairs",
        "min_distance",
        "closest_point_a",
        "separation",
        "clearance_pairs",
        "curves",
    ] {
        assert_eq!(cpu[key], gpu[key], "{key}");
    }
    let p = case_path("meshes/teapot.stl");
    let (code, out, _) = meshclash(&["self", p.to_str().unwrap(), "--json", "--backend", "gpu"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["pair_count"].clone(), v["backend"].clone()),
        (serde_json::json!(56), serde_json::json!("gpu"))
    );
}

/// The GPU against the CPU, named explicitly: `auto` leaves a software adapter (CI's lavapipe)
/// alone and would compare the CPU with itself.
#[test]
fn bench_prints_every_scene_and_checks_the_answers_agree() {
    if common::gpu_or_skip("bench_prints_every_scene_and_checks_the_answers_agree").is_none() {
        return;
    }
    let (code, out, err) = meshclash(&["bench", "--triangles", "2000", "--backend", "gpu"]);
    assert_eq!(code, 0, "{err}");
    for scene in ["overlapping", "near miss", "far apart", "inside"] {
        // One row per backend, both agreeing.
        for on in ["cpu", "gpu"] {
            let row = out
                .lines()
                .find(|l| l.starts_with(scene) && l.split_whitespace().any(|w| w == on));
            let row = row.unwrap_or_else(|| panic!("no {on} row for {scene}:\n{out}"));
            assert!(row.contains(" yes "), "{row}");
        }
    }
    assert!(!out.contains(" NO "), "backends disagree:\n{out}");
    let (code, _, _) = meshclash(&["bench", "--triangles", "3"]);
    assert_eq!(code, 2);
}

/// A reader that stops early (`| head`): the 370 kB of pairs overflow the pipe, and the command
/// ends by SIGPIPE as cat or grep would, not with a panic.
#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let t = case_path("meshes/teapot.stl");
    let t = t.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(["check", t, t, "--pairs", "--backend", "cpu"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone: stdout was dropped with the statement above.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.signal(), Some(13), "{:?}: {err}", out.status);
}

/// A full disk is an error (exit 2, one line), not a panic and not a silent success.
#[cfg(target_os = "linux")]
#[test]
fn bench_into_a_full_disk_says_so() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(["bench", "--triangles", "400", "--backend", "cpu"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write the output"), "{err}");
}

/// Every command's text and JSON into a full disk: exit 2 and one line, where `println!` had
/// panicked (exit 101, a panic's lines; a review's helper found it).
#[cfg(target_os = "linux")]
#[test]
fn every_output_into_a_full_disk_says_so() {
    let (torus, teapot) = (
        case_path("meshes/torus.stl"),
        case_path("meshes/teapot.stl"),
    );
    let (t, p) = (torus.to_str().unwrap(), teapot.to_str().unwrap());
    let runs: [&[&str]; 6] = [
        &["info", t],
        &["info", t, "--json"],
        &["check", t, t, "--backend", "cpu", "--pairs"],
        &["check", t, t, "--backend", "cpu", "--quick", "--json"],
        &["self", p, "--backend", "cpu"],
        &["demo", "--triangles", "400"],
    ];
    for args in runs {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_meshclash"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("cannot write the output") && !err.contains("panicked"),
            "{err}"
        );
    }
}

#[test]
fn bench_agreement_notices_a_difference_in_the_last_bit() {
    use meshclash::bench;
    let sc = &bench::scenes(2000)[1];
    let mut runs = bench::run(sc, None).unwrap();
    runs.extend(bench::run(sc, None).unwrap());
    assert!(bench::agree(&runs));
    let d = &mut runs[1].report.distance.distance;
    *d = d.next_up();
    assert!(!bench::agree(&runs));
    assert!(bench::rows(sc, &runs).contains(" NO "));
    assert_eq!(bench::json(sc, &runs)["agree"], false);
}

#[test]
fn bench_json_gives_one_line_per_scene_with_the_scenes_known_answers() {
    let (code, out, err) = meshclash(&["bench", "--triangles", "2000", "--json"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = lines.iter().map(|v| v["scene"].as_str().unwrap()).collect();
    assert_eq!(names, ["overlapping", "near miss", "far apart", "inside"]);
    for v in &lines {
        assert_eq!(v["agree"], true, "{v}");
        assert_eq!(v["runs"][0]["backend"], "cpu", "{v}");
        assert!(v["runs"][0]["stages_ms"]["clearance"].as_f64().unwrap() >= 0.0);
    }
    // What the scenes are built to be (bench::scenes): linked tori cut each other; a sphere of
    // radius 1 lies inside one of 1.01 and a torus of outer radius 1.3 inside one of 2, neither
    // touching; tori 10 apart along x, each 1.3 from its centre along it, are 7.4 apart (up to
    // the f32 storage of their vertices).
    let a = |k: usize| &lines[k]["answer"];
    assert!(a(0)["intersecting_pairs"].as_u64().unwrap() > 0);
    assert_eq!(a(1)["intersecting_pairs"], 0);
    assert_eq!(a(1)["containment"], "a_in_b");
    assert!((a(2)["distance"].as_f64().unwrap() - 7.4).abs() < 1e-6);
    assert_eq!(a(2)["containment"], serde_json::Value::Null);
    assert_eq!(a(3)["containment"], "a_in_b");
}

#[test]
fn check_quick_answers_the_solid_question_on_every_peer_case() {
    for case in common::load_cases() {
        let name = case["name"].as_str().unwrap();
        let v = check_case(&case, &["--quick"]);
        let e = &case["expect"];
        // The oracle: surfaces meeting, or a part swallowed by the other (the unit cube
        // centred at (1,1,1) inside [0,2]³; the soup inside the unit cube).
        let nested = name == "cube_inside_cube_nested";
        let want_hit =
            e["intersects"].as_bool().unwrap() || common::swallowed_by_construction(&case);
        assert_eq!(v["interferes"], want_hit, "{name}");
        let got = v["solid_distance"].as_f64().unwrap();
        if want_hit {
            assert_eq!(got, 0.0, "{name}");
            assert!(v["closest_point_a"].is_null(), "{name}");
        } else {
            let want = e["min_distance"].as_f64().unwrap();
            assert!(
                (got - want).abs() <= distance_tolerance(&case, want),
                "{name}: {got} vs {want}"
            );
            assert!(
                v["evidence"].is_null() && v["triangle_a"].is_u64(),
                "{name}"
            );
        }
        if nested {
            assert_eq!(v["evidence"], "vertex_of_b_in_a");
            let p = v["evidence_point"].as_array().unwrap();
            assert!(p.iter().all(|c| (0.0..=2.0).contains(&c.as_f64().unwrap())));
        }
        assert_eq!(v["backend"], "cpu");
    }
    let cube = case_path("meshes/cube_trimesh.stl");
    let c = cube.to_str().unwrap();
    for extra in [["--pairs"], ["--clearance=0.1"]] {
        let (code, _, err) = meshclash(&["check", c, c, "--quick", extra[0]]);
        assert_eq!(code, 2, "{extra:?}");
        assert!(err.contains("--quick"), "{err}");
    }
    let (code, _, err) = meshclash(&["check", c, c, "--quick", "--backend", "gpu"]);
    assert_eq!(code, 2);
    assert!(err.contains("--quick answers on the CPU"), "{err}");
}

/// multibody_ascii.stl holds two solids (SOURCES.md: "2 bodies").
#[test]
fn info_counts_the_bodies_of_a_part() {
    let p = case_path("meshes/multibody_ascii.stl");
    let (code, out, _) = meshclash(&["info", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["bodies"], 2);
    assert_eq!(v["closed_bodies"], 2);
}

/// A cube in the teapot's belly: the teapot (SOURCES.md: "open, 3 bodies") is open at its lid,
/// and its winding number there is 1.005 (libigl), so the cube is inside it, certainly. The
/// soup of 100 loose triangles inside the unit cube is inside it.
#[test]
fn check_finds_a_cube_in_the_belly_of_the_open_teapot() {
    let (teapot, cube, soup) = (
        case_path("meshes/teapot.stl"),
        case_path("meshes/cube_trimesh.stl"),
        case_path("meshes/soup.stl"),
    );
    let (t, c, s) = (
        teapot.to_str().unwrap(),
        cube.to_str().unwrap(),
        soup.to_str().unwrap(),
    );
    let (code, out, _) = meshclash(&["check", t, c, "--translate-b", "0,0,12"]);
    assert_eq!(code, 0);
    assert!(out.contains("intersects:   no"), "{out}");
    assert!(out.contains("containment:  B is inside A\n"), "{out}");
    assert!(out.contains("interferes:   yes"), "{out}");
    let (code, out, _) = meshclash(&["check", t, c, "--translate-b", "0,0,12", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["containment"], "b_in_a");
    assert_eq!(v["containment_certain"], true);
    let (code, out, _) = meshclash(&["check", s, c, "--translate-b", "0.5,0.5,0.5"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("containment:  A (or one of its 100 bodies) is inside B"),
        "{out}"
    );
    assert!(out.contains("interferes:   yes"), "{out}");
}

/// Every option of `check` says what it does (the pose options' help once came out empty).
#[test]
fn check_help_describes_every_option() {
    let (code, out, _) = meshclash(&["check", "--help"]);
    assert_eq!(code, 0);
    for line in out.lines().filter(|l| l.trim_start().starts_with("--")) {
        let words = line.split_whitespace().count();
        assert!(words > 3, "no help: {line}");
    }
    assert!(out.contains("Translate B by x,y,z"), "{out}");
    assert!(out.contains("<A>  Part A"), "{out}");
}
