//! Answers do not depend on where the pair stands or which part is named first. Every shared
//! case's `pose_a` is the identity, so nothing else here moves part A; these tests do.
//!
//! The oracle is the case's own answer at its own pose, and what a rigid motion and a swap
//! cannot change:
//! - A rotation by a signed permutation matrix (determinant +1) moves every posed coordinate
//!   exactly (each row of the composed pose is a row of the old one, maybe negated, summed in the
//!   same order), and the exact predicates' signs do not change under it: the intersecting
//!   pairs and containment are identical, the distance equal up to the order its squares are
//!   summed in.
//! - Swapping A and B swaps each pair and the containment, and keeps the distance.
//! - A general rigid motion rounds each posed coordinate again, by at most a few ulps of its
//!   magnitude. The distance moves by no more than twice that. Pairs within that much of
//!   touching may change; where a case has none (no touching pair, no disjoint pair closer
//!   than the rounding), the pair set may not.

mod common;

use common::{case_path, load_cases, pose};
use meshclash::mesh::{Mesh, Pose};
use meshclash::query::{CheckOptions, CheckReport, Containment};
use meshclash::{Backend, PreparedMesh};
use serde_json::Value;
use std::collections::HashMap;

const U: f64 = f64::EPSILON / 2.0;

/// `g ∘ p`: `p` first, then `g`.
fn compose(g: &Pose, p: &Pose) -> Pose {
    let (a, b) = (&g.rotation, &p.rotation);
    let rotation =
        std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()));
    Pose {
        rotation,
        translation: g.apply(p.translation),
    }
}

/// Two rotations by signed permutation matrices, determinant +1: a quarter turn about z
/// (`(x, y, z) ↦ (−y, x, z)`) and the cyclic turn `(x, y, z) ↦ (z, x, y)` composed with a
/// half turn about x.
fn exact_rotations() -> [Pose; 2] {
    let quarter_z = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    // Rows: new x = z, new y = −x, new z = −y: a permutation (even) with two sign flips.
    let cyclic_flipped = [[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]];
    [quarter_z, cyclic_flipped].map(|rotation| Pose {
        rotation,
        translation: glam::DVec3::ZERO,
    })
}

/// A rigid motion with no special structure: every posed coordinate rounds anew.
fn general_motion() -> Pose {
    Pose::from_euler_degrees([31.0, -47.0, 112.0], glam::DVec3::new(0.25, -3.5, 7.125))
}

struct Cache(HashMap<String, PreparedMesh>);

impl Cache {
    fn get(&mut self, rel: &str) -> &PreparedMesh {
        self.0
            .entry(rel.to_string())
            .or_insert_with(|| PreparedMesh::new(Mesh::load(case_path(rel)).unwrap()))
    }
}

/// The cases and their meshes, each loaded once.
fn cases() -> (Vec<Value>, Cache) {
    let cases = load_cases();
    let mut cache = Cache(HashMap::new());
    for c in &cases {
        cache.get(c["mesh_a"].as_str().unwrap());
        cache.get(c["mesh_b"].as_str().unwrap());
    }
    (cases, cache)
}

fn run(cache: &Cache, case: &Value, pa: Pose, pb: Pose, opts: &CheckOptions) -> CheckReport {
    let (a, b) = (
        &cache.0[case["mesh_a"].as_str().unwrap()],
        &cache.0[case["mesh_b"].as_str().unwrap()],
    );
    Backend::cpu().check(a, pa, b, pb, opts).unwrap()
}

fn pairs(r: &CheckReport) -> Vec<(u32, u32)> {
    r.intersect.pairs.iter().map(|p| (p.a, p.b)).collect()
}

/// The distance equal up to summation order: a few ulps of itself.
fn same_distance(x: f64, y: f64) -> bool {
    (x - y).abs() <= 8.0 * U * x.max(y)
}

#[test]
fn exact_rotations_of_both_parts_change_nothing() {
    let (cases, cache) = cases();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (pa, pb) = (pose(&case["pose_a"]), pose(&case["pose_b"]));
        let base = run(&cache, case, pa, pb, &CheckOptions::default());
        for g in exact_rotations() {
            let (ga, gb) = (compose(&g, &pa), compose(&g, &pb));
            assert_ne!(ga, Pose::IDENTITY, "{name}: A must move");
            let r = run(&cache, case, ga, gb, &CheckOptions::default());
            assert_eq!(pairs(&r), pairs(&base), "{name}: pairs under {g:?}");
            assert_eq!(r.containment, base.containment, "{name}: containment");
            assert!(
                same_distance(r.distance.distance, base.distance.distance),
                "{name}: distance {} vs {}",
                r.distance.distance,
                base.distance.distance
            );
        }
    }
}

#[test]
fn swapping_a_and_b_swaps_the_answer() {
    let (cases, cache) = cases();
    let swap = |c: Option<Containment>| {
        c.map(|c| match c {
            Containment::AInB => Containment::BInA,
            Containment::BInA => Containment::AInB,
        })
    };
    let mut contained = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (pa, pb) = (pose(&case["pose_a"]), pose(&case["pose_b"]));
        let base = run(&cache, case, pa, pb, &CheckOptions::default());
        let (a, b) = (
            &cache.0[case["mesh_a"].as_str().unwrap()],
            &cache.0[case["mesh_b"].as_str().unwrap()],
        );
        let r = Backend::cpu()
            .check(b, pb, a, pa, &CheckOptions::default())
            .unwrap();
        let mut swapped: Vec<(u32, u32)> = pairs(&r).into_iter().map(|(x, y)| (y, x)).collect();
        swapped.sort_unstable();
        assert_eq!(swapped, pairs(&base), "{name}: pairs");
        assert_eq!(r.containment, swap(base.containment), "{name}: containment");
        contained += base.containment.is_some() as usize;
        assert!(
            same_distance(r.distance.distance, base.distance.distance),
            "{name}: distance {} vs {}",
            r.distance.distance,
            base.distance.distance
        );
    }
    // cube_inside_cube_nested and soup_inside_cube_no_touch (common::swallowed_by_construction).
    assert_eq!(contained, 2, "the swap of a containment was exercised");
}

/// How far a general motion may move a posed coordinate of this case: each posing rounds a
/// three-term row sum plus the translation (at most 4 roundings of numbers up to
/// `|R||p| + |t|`), once at the case's pose and once at the moved one.
fn posing_error(cache: &Cache, case: &Value, poses: &[Pose]) -> f64 {
    let reach = |rel: &str, p: &Pose| {
        let m = &cache.0[rel].mesh;
        let r = m
            .vertices
            .iter()
            .map(|v| glam::DVec3::from_array(v.map(f64::from)).length())
            .fold(0.0, f64::max);
        r * 3f64.sqrt() + p.translation.abs().max_element()
    };
    let keys = ["mesh_a", "mesh_b"];
    let worst = poses
        .chunks(2)
        .flat_map(|pp| {
            keys.iter()
                .zip(pp)
                .map(|(k, p)| reach(case[*k].as_str().unwrap(), p))
        })
        .fold(0.0, f64::max);
    2.0 * 4.0 * U * worst
}

#[test]
fn a_general_motion_keeps_the_answers_within_rounding() {
    let (cases, cache) = cases();
    let g = general_motion();
    let mut full = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (pa, pb) = (pose(&case["pose_a"]), pose(&case["pose_b"]));
        let (ga, gb) = (compose(&g, &pa), compose(&g, &pb));
        let err = posing_error(&cache, case, &[pa, pb, ga, gb]);
        // Pairs within the rounding of touching: intersecting ones that only touch, and
        // disjoint ones closer than twice the posing error (both parts move).
        let near = CheckOptions {
            clearance: Some(4.0 * err),
        };
        let base = run(&cache, case, pa, pb, &near);
        let r = run(&cache, case, ga, gb, &CheckOptions::default());
        let d = (r.distance.distance - base.distance.distance).abs();
        assert!(
            d <= 2.0 * err,
            "{name}: distance moved by {d:e}, rounding {err:e}"
        );
        assert_eq!(r.containment, base.containment, "{name}: containment");
        let fragile = base.intersect.pairs.iter().any(|p| p.contact.touching)
            || base
                .clearance
                .as_ref()
                .unwrap()
                .pairs
                .iter()
                .any(|p| !p.intersects);
        if !fragile {
            assert_eq!(pairs(&r), pairs(&base), "{name}: pairs");
            full.push(name.to_string());
        }
    }
    // The cases far from touching everywhere: deep overlaps, gaps and far-apart parts.
    assert!(full.len() >= 8, "only {full:?} had their pairs compared");
    eprintln!("pairs compared after a general motion on: {full:?}");
}

/// A pose as `--matrix-a`/`--matrix-b` take it: 16 numbers, row-major, each printed so that it
/// reads back to the same `f64`.
fn matrix_arg(p: &Pose) -> String {
    let m: Vec<String> = p.to_matrix().iter().map(|x| format!("{x:?}")).collect();
    m.join(",")
}

/// `meshclash check` on the case's meshes at the given poses, `--backend cpu --json`.
fn cli_check(case: &Value, a_key: &str, pa: &Pose, b_key: &str, pb: &Pose) -> Value {
    let (a, b) = (
        case_path(case[a_key].as_str().unwrap()),
        case_path(case[b_key].as_str().unwrap()),
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(["check", a.to_str().unwrap(), b.to_str().unwrap()])
        .args(["--matrix-a", &matrix_arg(pa), "--matrix-b", &matrix_arg(pb)])
        .args(["--backend", "cpu", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {err}", case["name"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Through the command line: A placed by `--matrix-a` (moved by an exact rotation with B), and
/// the parts given in the other order. Pair counts and containment as at the case's pose (swapped
/// for the swap), distances up to summation order.
#[test]
fn the_cli_places_a_by_its_matrix() {
    let g = exact_rotations()[1];
    let swapped = |c: &Value| match c.as_str() {
        Some("a_in_b") => Value::from("b_in_a"),
        Some("b_in_a") => Value::from("a_in_b"),
        _ => c.clone(),
    };
    let mut contained = 0;
    for case in load_cases() {
        let name = case["name"].as_str().unwrap();
        let (pa, pb) = (pose(&case["pose_a"]), pose(&case["pose_b"]));
        let base = cli_check(&case, "mesh_a", &pa, "mesh_b", &pb);
        let moved = cli_check(
            &case,
            "mesh_a",
            &compose(&g, &pa),
            "mesh_b",
            &compose(&g, &pb),
        );
        let swap = cli_check(&case, "mesh_b", &pb, "mesh_a", &pa);
        for (label, v) in [("moved", &moved), ("swapped", &swap)] {
            assert_eq!(v["pair_count"], base["pair_count"], "{name} {label}");
            let (x, y) = (
                v["min_distance"].as_f64().unwrap(),
                base["min_distance"].as_f64().unwrap(),
            );
            assert!(same_distance(x, y), "{name} {label}: {x} vs {y}");
        }
        assert_eq!(moved["containment"], base["containment"], "{name}");
        assert_eq!(swap["containment"], swapped(&base["containment"]), "{name}");
        contained += base["containment"].is_string() as usize;
    }
    assert_eq!(contained, 2, "the swap of a containment was exercised");
}
