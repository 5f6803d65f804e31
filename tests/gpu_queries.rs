//! The GPU backend answers exactly as the CPU path: the same pairs with the same classes, the
//! same containment, the same distance, points and triangles to the last bit, the same
//! clearance pairs. On lavapipe in CI (`MESHCLASH_REQUIRE_GPU=1`); skips loudly elsewhere.

mod common;

use common::{case_path, load_cases, pose};
use glam::DVec3;
use meshclash::gpu::layout::{MODE_CLEARANCE, MODE_DISTANCE};
use meshclash::gpu::query::frame;
use meshclash::gpu::{GpuBackend, GpuMesh, Narrow, WalkSteps};
use meshclash::mesh::{generate, Mesh, Pose};
use meshclash::query::{self, CheckOptions, CheckReport, Posed};
use meshclash::PreparedMesh;

/// The backend with every query on the GPU stages: distances the CPU would settle in a few
/// microseconds included.
fn backend(test: &str, capacity: Option<u32>) -> Option<GpuBackend> {
    let ctx = common::gpu_or_skip(test)?;
    let mut b = match capacity {
        Some(c) => GpuBackend::with_capacity(ctx, c).unwrap(),
        None => GpuBackend::new(ctx).unwrap(),
    };
    b.settle_on_cpu = false;
    Some(b)
}

fn assert_same(name: &str, cpu: &CheckReport, gpu: &CheckReport) {
    assert_eq!(
        cpu.intersect.pairs, gpu.intersect.pairs,
        "{name}: intersecting pairs"
    );
    assert_eq!(cpu.containment, gpu.containment, "{name}: containment");
    let (c, g) = (&cpu.distance, &gpu.distance);
    assert_eq!(
        (
            c.distance.to_bits(),
            c.triangle_a,
            c.triangle_b,
            c.point_a,
            c.point_b,
            c.separation
        ),
        (
            g.distance.to_bits(),
            g.triangle_a,
            g.triangle_b,
            g.point_a,
            g.point_b,
            g.separation
        ),
        "{name}: distance"
    );
    match (&cpu.clearance, &gpu.clearance) {
        (Some(c), Some(g)) => assert_eq!(c.pairs, g.pairs, "{name}: clearance pairs"),
        (None, None) => {}
        _ => panic!("{name}: clearance asked of one backend only"),
    }
}

/// The cutting and near-miss chain links of one torus mesh, through both backends.
fn linked_tori(b: &GpuBackend, t: &PreparedMesh, label: &str) {
    let link = |x: f64| Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(x, 0.03, 0.02));
    both(
        b,
        &format!("cutting, {label}"),
        t,
        Pose::IDENTITY,
        t,
        link(1.5),
        Some(0.05),
    );
    both(
        b,
        &format!("near miss, {label}"),
        t,
        Pose::IDENTITY,
        t,
        link(1.0),
        Some(0.45),
    );
}

fn both(
    b: &GpuBackend,
    name: &str,
    a: &PreparedMesh,
    pa: Pose,
    m: &PreparedMesh,
    pb: Pose,
    clearance: Option<f64>,
) -> CheckReport {
    let (ga, gm) = (b.upload(a).unwrap(), b.upload(m).unwrap());
    let opts = CheckOptions { clearance };
    let cpu = query::check(a, pa, m, pb, &opts);
    let gpu = b.check(a, &ga, pa, m, &gm, pb, &opts).unwrap();
    assert_same(name, &cpu, &gpu);
    eprintln!(
        "{name}: {} pairs, d = {}, gpu candidates {} (cpu {})",
        gpu.intersect.pairs.len(),
        gpu.distance.distance,
        gpu.intersect.candidates,
        cpu.intersect.candidates
    );
    gpu
}

#[test]
fn a_sliver_nearest_the_other_part_takes_the_culling_path_and_answers_identically() {
    let Some(b) = backend(
        "a_sliver_nearest_the_other_part_takes_the_culling_path_and_answers_identically",
        None,
    ) else {
        return;
    };
    // A needle 1e-3 high: its f32 distances are lower bounds short by up to its height, far
    // more than the band, so the nearest stage's minimum cannot certify the pairs it emitted.
    let needle = PreparedMesh::new(Mesh {
        source: "needle".into(),
        vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1e-3, 0.0]],
        triangles: vec![[0, 1, 2]],
        unit: None,
    });
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 40, 14));
    for (name, pose) in [
        (
            "needle over the torus",
            Pose::translation(DVec3::new(-0.5, 0.2, 0.35)),
        ),
        (
            "needle beside the torus, tilted",
            Pose::from_euler_degrees([30.0, 60.0, 0.0], DVec3::new(1.4, 0.1, 0.0)),
        ),
    ] {
        let gpu = both(&b, name, &needle, pose, &t, Pose::IDENTITY, Some(0.1));
        assert!(
            gpu.distance.distance > 0.0,
            "{name}: the parts must not touch"
        );
        assert!(
            gpu.distance
                .timings
                .0
                .iter()
                .any(|(k, _)| k == "gpu_distance"),
            "{name}: the culling path must have run: {:?}",
            gpu.distance.timings
        );
    }
}

#[test]
fn every_shared_case_is_answered_identically() {
    let Some(b) = backend("every_shared_case_is_answered_identically", None) else {
        return;
    };
    for case in load_cases() {
        let name = case["name"].as_str().unwrap();
        let a = PreparedMesh::new(Mesh::load(case_path(case["mesh_a"].as_str().unwrap())).unwrap());
        let m = PreparedMesh::new(Mesh::load(case_path(case["mesh_b"].as_str().unwrap())).unwrap());
        let diag = a.mesh.bounding_box().diagonal();
        let want = case["expect"]["min_distance"].as_f64().unwrap();
        both(
            &b,
            name,
            &a,
            pose(&case["pose_a"]),
            &m,
            pose(&case["pose_b"]),
            Some(want + 0.01 * diag),
        );
    }
}

#[test]
fn self_intersection_is_answered_identically() {
    let Some(b) = backend("self_intersection_is_answered_identically", None) else {
        return;
    };
    let text = std::fs::read_to_string(case_path("self_cases.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut meshes: Vec<String> = v["self_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["mesh"].as_str().unwrap().to_string())
        .collect();
    // And the SOURCES.md ones with fold-overs, duplicate faces and shared-vertex contacts.
    meshes.extend(["meshes/rear_case.stl", "meshes/bunny_lowres.stl"].map(String::from));
    for rel in meshes {
        if rel.contains("igea") || rel.contains("stanford") {
            continue; // large and clean; the CPU test covers them
        }
        let m = PreparedMesh::new(Mesh::load(case_path(&rel)).unwrap());
        let g = b.upload(&m).unwrap();
        let cpu = query::self_intersections(&m);
        let gpu = b.self_intersections(&m, &g).unwrap();
        assert_eq!(cpu.pairs, gpu.pairs, "{rel}");
        assert_eq!(cpu.zero_area_triangles, gpu.zero_area_triangles, "{rel}");
        eprintln!(
            "{rel}: {} pairs, gpu candidates {}",
            gpu.pairs.len(),
            gpu.candidates
        );
    }
}

/// The narrow stage's neighbour rules (`narrow.wgsl::neighbours`) against the CPU's exact ones,
/// on pairs of triangles sharing one vertex or one edge, with small integer coordinates (so that
/// touching, coplanar and folded configurations are exact, and the GPU's signs within their
/// bounds go to the CPU), half of them flat in z = 0. Each pair stands apart from the others, 20
/// along x; the mesh welds each pair's shared vertices. (Which pairs the GPU decides itself and
/// which it leaves to the CPU is not visible in the report: a wrong certain answer is.)
#[test]
fn neighbour_rules_agree_with_the_cpu_on_exact_configurations() {
    let Some(b) = backend(
        "neighbour_rules_agree_with_the_cpu_on_exact_configurations",
        None,
    ) else {
        return;
    };
    let mut rnd = common::lcg(0x0ee1_9b0e_5a11);
    let mut soup = Vec::new();
    for case in 0..1600 {
        let flat = case % 2 == 0;
        let mut int = || {
            let mut c = || ((rnd() * 9.0).floor() - 4.0) as f32;
            [c(), c(), if flat { 0.0 } else { c() }]
        };
        let (v, w, a, b2) = (int(), int(), int(), int());
        // Sharing the vertex v (first half) or the edge v-w (second half).
        let (ta, tb) = if case < 800 {
            let c = int();
            ([v, a, b2], [v, w, c])
        } else {
            ([v, w, a], [w, v, b2])
        };
        // The shared vertices in every slot: each triangle's corners rotated (its
        // orientation kept).
        let at = |t: [[f32; 3]; 3], turn: usize| {
            std::array::from_fn(|k| t[(k + turn) % 3])
                .map(|p: [f32; 3]| [p[0] + 20.0 * case as f32, p[1], p[2]])
        };
        soup.push(at(ta, case % 3));
        soup.push(at(tb, case / 3 % 3));
    }
    let m = PreparedMesh::new(Mesh::from_soup("neighbours", soup).unwrap());
    let g = b.upload(&m).unwrap();
    let cpu = query::self_intersections(&m);
    let gpu = b.self_intersections(&m, &g).unwrap();
    assert_eq!(cpu.pairs, gpu.pairs);
    assert_eq!(cpu.zero_area_triangles, gpu.zero_area_triangles);
    // Both answers are common among the pairs of each kind.
    let vertex = cpu.pairs.iter().filter(|p| p.a < 1600).count();
    let edge = cpu.pairs.len() - vertex;
    assert!(vertex > 50 && vertex < 750, "{vertex}");
    assert!(edge > 50 && edge < 750, "{edge}");
}

/// Triangles that position cannot split (300 copies of one triangle, 40 of another) go into
/// leaves by runs of consecutive triangles, none over the cull's eight lanes per leaf. Every one
/// of B's copies crosses A's plane at (0.05, 0, 0) and (-0.05, 0.025, 0), inside A: all
/// 300 x 40 pairs intersect. Self-intersection: every pair of A's copies is a duplicate face.
#[test]
fn stacked_copies_are_split_into_leaves_and_answer_as_on_the_cpu() {
    let Some(b) = backend(
        "stacked_copies_are_split_into_leaves_and_answer_as_on_the_cpu",
        None,
    ) else {
        return;
    };
    let stack = |t: [[f32; 3]; 3], n: usize| {
        PreparedMesh::new(Mesh::from_soup("stack", vec![t; n]).unwrap())
    };
    let a = stack([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, 0.0]], 300);
    let m = stack([[0.0, 0.0, -1.0], [0.1, 0.0, 1.0], [-0.1, 0.05, 1.0]], 40);
    let r = both(
        &b,
        "stacked copies",
        &a,
        Pose::IDENTITY,
        &m,
        Pose::IDENTITY,
        Some(0.1),
    );
    assert_eq!(r.intersect.pairs.len(), 300 * 40);
    let g = b.upload(&a).unwrap();
    let gpu = b.self_intersections(&a, &g).unwrap();
    assert_eq!(query::self_intersections(&a).pairs, gpu.pairs);
    assert_eq!(gpu.pairs.len(), 300 * 299 / 2);
}

#[test]
fn candidate_lists_larger_than_a_round_still_give_the_full_answer() {
    // Passes of 1200 candidate pairs against tens of thousands: many passes. (One triangle
    // never has more candidates than B has triangles: 1120 here.)
    let Some(b) = backend(
        "candidate_lists_larger_than_a_round_still_give_the_full_answer",
        Some(1200),
    ) else {
        return;
    };
    assert_eq!(b.capacity, 1200);
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 40, 14));
    let g = b.upload(&t).unwrap();
    let opts = CheckOptions {
        clearance: Some(0.5),
    };
    let far = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.0, 0.03, 0.02));
    let r = b.check(&t, &g, Pose::IDENTITY, &t, &g, far, &opts).unwrap();
    assert!(
        r.clearance.as_ref().unwrap().candidates > 10 * 1200,
        "the test must need many rounds"
    );
    linked_tori(&b, &t, "small rounds");
    assert_eq!(
        query::self_intersections(&t).pairs,
        b.self_intersections(&t, &g).unwrap().pairs
    );
}

/// The GPU's clearance refuses what the CPU's refuses: more pairs than allowed
/// ([`query::clearance_at_most`]), and hits past twice that are not gathered (rounds of 1200
/// candidates, so that it stops between rounds). With room for the CPU's count, the same
/// pairs.
#[test]
fn a_gpu_clearance_stops_once_it_has_found_more_pairs_than_allowed() {
    let test = "a_gpu_clearance_stops_once_it_has_found_more_pairs_than_allowed";
    let Some(b) = backend(test, Some(1200)) else {
        return;
    };
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
    let g = b.upload(&t).unwrap();
    let (p, q) = (
        Posed::new(&t, Pose::IDENTITY),
        Posed::new(&t, Pose::translation(DVec3::new(2.0, 0.0, 0.0))),
    );
    let cpu = query::clearance(&p, &q, 0.6).pairs;
    let n = cpu.len() as u64;
    let gpu = b.clearance((&p, &g), (&q, &g), 0.6, n).unwrap();
    assert_eq!(gpu.pairs, cpu);
    for most in [n - 1, n / 10] {
        let e = b
            .clearance((&p, &g), (&q, &g), 0.6, most)
            .expect_err("refused");
        assert!(
            matches!(e, meshclash::Error::TooManyPairs(t) if t.most == most),
            "{e}"
        );
    }
}

/// A clearance near f64's largest keeps every pair, on the GPU as on the CPU: the cull's
/// rounding margin overflowed to infinity there, refused as "coordinates beyond what f32
/// certifies" (a review's helper, from 1.7976931348605183e308 up). Two tori 2 apart: every
/// one of the 288 × 288 pairs is within any such d.
#[test]
fn a_clearance_near_the_largest_f64_keeps_every_pair_on_the_gpu() {
    let test = "a_clearance_near_the_largest_f64_keeps_every_pair_on_the_gpu";
    let Some(b) = backend(test, None) else {
        return;
    };
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 12, 12));
    let far = Pose::translation(DVec3::new(2.0, 0.0, 0.0));
    for d in [f64::MAX, 1.7976931348605183e308, 1e300] {
        let r = both(&b, test, &t, Pose::IDENTITY, &t, far, Some(d));
        let n = t.mesh.triangles.len();
        assert_eq!(r.clearance.unwrap().pairs.len(), n * n, "d = {d:e}");
    }
}

/// Hits past the stages' limit that are mostly pairs f32 cannot decide: two grids of 200
/// triangles 1e-9 apart, in the planes z = 1 and 1 + 1e-9 (one plane in f32), meet nowhere,
/// but every overlapping pair is in doubt in f32. With room for 10 pairs (20 hits), the GPU refused both queries as more than
/// 10 pairs (a review's helper's 20 000 tiny triangles: 2^27); the CPU's search answers them
/// now, none.
#[test]
fn hits_past_their_limit_in_doubt_are_answered_by_the_cpu() {
    let test = "hits_past_their_limit_in_doubt_are_answered_by_the_cpu";
    let Some(mut b) = backend(test, None) else {
        return;
    };
    let n = 10;
    let mut soup = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let c = |di: usize, dj: usize| {
                [(i + di) as f32 / n as f32, (j + dj) as f32 / n as f32, 1.0]
            };
            soup.push([c(0, 0), c(1, 0), c(1, 1)]);
            soup.push([c(0, 0), c(1, 1), c(0, 1)]);
        }
    }
    // And one triangle below, so that the parts' boxes overlap (flat ones 1e-9 apart are
    // apart, answered on the CPU before any cull).
    soup.push([[0.0, 0.0, 0.5], [0.1, 0.0, 0.5], [0.0, 0.1, 0.5]]);
    let grid = PreparedMesh::new(Mesh::from_soup("grid", soup).unwrap());
    let g = b.upload(&grid).unwrap();
    let (p, q) = (
        Posed::new(&grid, Pose::IDENTITY),
        Posed::new(&grid, Pose::translation(DVec3::new(0.0, 0.0, 1e-9))),
    );
    b.max_pairs = 10;
    assert!(query::intersect(&p, &q).pairs.is_empty());
    assert!(b.intersect(&p, &g, &q, &g).unwrap().pairs.is_empty());
    assert!(b
        .clearance((&p, &g), (&q, &g), 1e-12, 10)
        .unwrap()
        .pairs
        .is_empty());
    // Within 2e-9 every overlapping pair is listed, past the 10: refused, as on the CPU.
    let e = b
        .clearance((&p, &g), (&q, &g), 2e-9, 10)
        .expect_err("refused");
    assert!(
        matches!(e, meshclash::Error::TooManyPairs(t) if t.most == 10),
        "{e}"
    );
}

/// The GPU lists intersecting and self-intersecting pairs up to the same number as the CPU
/// (`max_pairs`, lowered here): crossing tori, and a mesh of both, with room for the CPU's count
/// give its pairs; with less, and with far less (where the stages stop between passes, in
/// rounds of 1200 candidates), they are refused.
#[test]
fn the_gpu_refuses_intersecting_pairs_past_a_number() {
    let test = "the_gpu_refuses_intersecting_pairs_past_a_number";
    let Some(mut b) = backend(test, Some(1200)) else {
        return;
    };
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
    let g = b.upload(&t).unwrap();
    let linked = Pose::from_euler_degrees([20.0, 0.0, 0.0], DVec3::new(0.5, 0.2, 0.1));
    let (p, q) = (Posed::new(&t, Pose::IDENTITY), Posed::new(&t, linked));
    let cpu = query::intersect(&p, &q).pairs;
    let n = cpu.len() as u64;
    assert!(n > 10, "{n}");
    b.max_pairs = n;
    assert_eq!(b.intersect(&p, &g, &q, &g).unwrap().pairs, cpu);
    let opts = CheckOptions::default();
    for most in [n - 1, n / 10] {
        b.max_pairs = most;
        let e = b.intersect(&p, &g, &q, &g).expect_err("refused");
        assert!(
            e.to_string().contains("the parts intersect in more than"),
            "{e}"
        );
        assert!(b
            .check(&t, &g, Pose::IDENTITY, &t, &g, linked, &opts)
            .is_err());
    }
    let both = common::with_placed_copy(&t.mesh, linked);
    let gb = b.upload(&both).unwrap();
    let cpu = query::self_intersections(&both).pairs;
    let k = cpu.len() as u64;
    b.max_pairs = k;
    assert_eq!(b.self_intersections(&both, &gb).unwrap().pairs, cpu);
    for most in [k - 1, k / 10] {
        b.max_pairs = most;
        let e = b.self_intersections(&both, &gb).expect_err("refused");
        assert!(
            e.to_string().contains("the mesh cuts itself in more than"),
            "{e}"
        );
    }
}

#[test]
fn rounds_that_overflow_keep_what_they_found_and_finish_in_further_passes() {
    // The tori's tubes are 0.4 apart everywhere along the linked ring, so 0.5 gives many
    // candidates. At 1200 per pass, both the leaf walks (over 5 000 leaf pairs) and the
    // per-triangle cull defer work to later passes: the hits must be those of one pass with
    // room for all, none twice and none missing; so must the candidate count and the smallest
    // f32 distance.
    let name = "rounds_that_overflow_keep_what_they_found_and_finish_in_further_passes";
    let (Some(small), Some(big)) = (backend(name, Some(1200)), backend(name, None)) else {
        return;
    };
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 40, 14));
    let (gs, gb) = (small.upload(&t).unwrap(), big.upload(&t).unwrap());
    let far = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.0, 0.03, 0.02));
    let (pa, pb) = (Posed::new(&t, Pose::IDENTITY), Posed::new(&t, far));
    for (d, mode, narrow) in [
        (0.5, MODE_CLEARANCE, Narrow::Main),
        (0.5, MODE_DISTANCE, Narrow::Distance),
    ] {
        let run = |b: &GpuBackend, g: &GpuMesh| {
            let mut f = frame(&pa, g, &pb, g, d, mode).unwrap();
            f.query.capacity = b.capacity;
            let r0 = b.stats().0;
            let mut found = b
                .rounds(&g.parts[0], &g.parts[0], &f.query, narrow, u64::MAX)
                .unwrap();
            found.hits.sort_unstable();
            (
                found.hits,
                found.candidates,
                found.min_dist.to_bits(),
                b.stats().0 - r0,
            )
        };
        let (want, got) = (run(&big, &gb), run(&small, &gs));
        // Each pass takes up where the last left off and fills most of its capacity: 22 passes
        // here for 19 capacities' worth of candidates.
        let least = want.1.div_ceil(1200);
        assert!(
            got.3 <= 2 * least + 1,
            "mode {mode}: {} passes for {} candidates",
            got.3,
            want.1
        );
        assert!(
            want.1 > 10 * 1200,
            "mode {mode}: the test must need many passes"
        );
        assert_eq!(want.1, got.1, "mode {mode}: candidates");
        assert_eq!(want.2, got.2, "mode {mode}: smallest f32 distance");
        assert!(
            want.0 == got.0,
            "mode {mode}: {} hits, want {}",
            got.0.len(),
            want.0.len()
        );
    }
}

#[test]
fn a_nearest_search_with_more_ties_than_a_pass_holds_still_answers() {
    // Two parallel flat grids 1 apart: every pair of triangles whose shadows meet is exactly 1
    // apart, so the nearest stage emits all of them (about 13 per triangle) for the f64
    // recomputation: thousands, against passes of 256.
    let name = "a_nearest_search_with_more_ties_than_a_pass_holds_still_answers";
    let Some(b) = backend(name, Some(256)) else {
        return;
    };
    let n = 24u32;
    let vertices = (0..=n)
        .flat_map(|y| (0..=n).map(move |x| [x as f32 * 0.1, y as f32 * 0.1, 0.0]))
        .collect();
    let at = |x: u32, y: u32| y * (n + 1) + x;
    let triangles = (0..n)
        .flat_map(|y| (0..n).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            [
                [at(x, y), at(x + 1, y), at(x + 1, y + 1)],
                [at(x, y), at(x + 1, y + 1), at(x, y + 1)],
            ]
        })
        .collect();
    let grid = PreparedMesh::new(Mesh {
        source: "grid".into(),
        vertices,
        triangles,
        unit: None,
    });
    let up = Pose::translation(DVec3::new(0.0, 0.0, 1.0));
    let report = both(&b, name, &grid, Pose::IDENTITY, &grid, up, None);
    assert_eq!(report.distance.distance, 1.0);
    // A clearance of exactly that distance: no pair is closer than it. The f32 filter keeps
    // every pair (each is within its error bound of d), so the f64 distances must drop them all.
    let at = both(&b, name, &grid, Pose::IDENTITY, &grid, up, Some(1.0));
    assert!(at.clearance.unwrap().pairs.is_empty());
    // Just above it, the same pairs are all in, each at exactly 1.
    let above = both(&b, name, &grid, Pose::IDENTITY, &grid, up, Some(1.0 + 1e-9));
    let pairs = above.clearance.unwrap().pairs;
    assert!(pairs.len() > 13 * 1000, "{} pairs", pairs.len());
    assert!(pairs.iter().all(|p| p.distance == 1.0 && !p.intersects));
}

#[test]
fn one_backend_shared_by_threads_answers_each_as_if_alone() {
    // The backend's round buffers and counters are shared by every query it runs: queries from
    // several threads must take turns, not mix their rounds.
    let Some(b) = backend(
        "one_backend_shared_by_threads_answers_each_as_if_alone",
        None,
    ) else {
        return;
    };
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 40, 14));
    let g = b.upload(&t).unwrap();
    let opts = CheckOptions {
        clearance: Some(0.45),
    };
    let poses: Vec<Pose> = (0..4)
        .map(|k| {
            Pose::from_euler_degrees(
                [90.0, 7.0 * k as f64, 3.0],
                DVec3::new(1.0 + 0.1 * k as f64, 0.03, 0.02),
            )
        })
        .collect();
    let cpu: Vec<CheckReport> = poses
        .iter()
        .map(|&p| query::check(&t, Pose::IDENTITY, &t, p, &opts))
        .collect();
    std::thread::scope(|s| {
        for (k, (&p, want)) in poses.iter().zip(&cpu).enumerate() {
            let (b, t, g, opts) = (&b, &t, &g, &opts);
            s.spawn(move || {
                for _ in 0..3 {
                    let got = b.check(t, g, Pose::IDENTITY, t, g, p, opts).unwrap();
                    assert_same(&format!("thread {k}"), want, &got);
                }
            });
        }
    });
}

#[test]
fn generated_scenes_far_from_the_origin_are_answered_identically() {
    let Some(b) = backend(
        "generated_scenes_far_from_the_origin_are_answered_identically",
        None,
    ) else {
        return;
    };
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 60, 20));
    let s = PreparedMesh::new(generate::sphere(2.0, 30, 60));
    let link = |x: f64, far: DVec3| {
        Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(x, 0.03, 0.02) + far)
    };
    for far in [
        DVec3::ZERO,
        DVec3::new(5000.0, -3000.0, 1200.0),
        DVec3::new(1e6, 0.0, 0.0),
    ] {
        let at = Pose::translation(far);
        both(
            &b,
            &format!("cutting at {far}"),
            &t,
            at,
            &t,
            link(1.5, far),
            Some(0.02),
        );
        both(
            &b,
            &format!("near miss at {far}"),
            &t,
            at,
            &t,
            link(1.0, far),
            Some(0.4),
        );
        // Swallowed, no contact; then a coincident copy (touching everywhere, coplanar pairs).
        let inside = Pose::from_euler_degrees([20.0, 10.0, 0.0], DVec3::new(0.25, 0.1, 0.05) + far);
        both(
            &b,
            &format!("swallowed at {far}"),
            &t,
            inside,
            &s,
            at,
            Some(0.5),
        );
        both(&b, &format!("coincident at {far}"), &t, at, &t, at, None);
    }
}

#[test]
fn meshes_split_across_bindings_answer_identically() {
    // Parts of at most 300 triangles stand in for meshes larger than one storage binding.
    let Some(b) = backend("meshes_split_across_bindings_answer_identically", None) else {
        return;
    };
    let b = b.with_part_limit(300);
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 40, 14));
    let g = b.upload(&t).unwrap();
    assert!(g.parts.len() >= 4, "{} parts", g.parts.len());
    linked_tori(&b, &t, "in parts");
    both(
        &b,
        "coincident, in parts",
        &t,
        Pose::IDENTITY,
        &t,
        Pose::IDENTITY,
        None,
    );
    // Self-intersection within and across parts, neighbours included.
    for rel in [
        "meshes/teapot.stl",
        "meshes/rear_case.stl",
        "meshes/bunny_lowres.stl",
        "meshes/featuretype.stl",
    ] {
        let m = PreparedMesh::new(Mesh::load(case_path(rel)).unwrap());
        let g = b.upload(&m).unwrap();
        assert_eq!(
            query::self_intersections(&m).pairs,
            b.self_intersections(&m, &g).unwrap().pairs,
            "{rel}"
        );
    }
}

#[test]
fn parts_far_apart_are_measured_by_the_cpu_search_within_its_budget() {
    let Some(mut b) = backend(
        "parts_far_apart_are_measured_by_the_cpu_search_within_its_budget",
        None,
    ) else {
        return;
    };
    b.settle_on_cpu = true;
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 60, 20));
    let far = Pose::from_euler_degrees([30.0, 0.0, 0.0], DVec3::new(10.0, 0.0, 0.0));
    let near = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.0, 0.03, 0.02));
    for (name, pose, settled) in [("far apart", far, true), ("near miss", near, false)] {
        let gpu = both(&b, name, &t, Pose::IDENTITY, &t, pose, None);
        let stages: Vec<&str> = gpu
            .distance
            .timings
            .0
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        // Far apart the CPU's search ends within its budget; a near miss needs the GPU.
        assert_eq!(
            stages.contains(&"gpu_nearest"),
            !settled,
            "{name}: {stages:?}"
        );
    }
}

/// The real meshes the random cases pose.
fn fuzz_meshes() -> Vec<(&'static str, PreparedMesh)> {
    [
        "meshes/teapot.stl",
        "meshes/featuretype.stl",
        "meshes/torus.stl",
        "meshes/halfdonut_ascii.stl",
        "meshes/cube_trimesh.stl",
        "meshes/busted.stl",
        "meshes/tray_bottom_ascii.stl",
    ]
    .iter()
    .map(|rel| (*rel, PreparedMesh::new(Mesh::load(case_path(rel)).unwrap())))
    .collect()
}

/// Kinds of random case: how B is placed against A.
const FUZZ_KINDS: [&str; 4] = ["overlapping", "grazing", "centred", "touching"];

/// Random case `seed` over `meshes`.
struct FuzzCase {
    name: String,
    /// Meshes A and B (indices into `meshes`).
    ia: usize,
    ib: usize,
    pa: Pose,
    pb: Pose,
    clearance: Option<f64>,
    /// Index into [`FUZZ_KINDS`].
    kind: usize,
    /// 0: at the origin, 1: a few thousand away, 2: 1e6 away.
    far: usize,
}

fn fuzz_case(seed: u64, meshes: &[(&str, PreparedMesh)]) -> FuzzCase {
    let mut r = common::lcg(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) + 1);
    let pick = |x: f64, n: usize| ((x * n as f64) as usize).min(n - 1);
    let (ia, ib) = (pick(r(), meshes.len()), pick(r(), meshes.len()));
    let kind = pick(r(), 4);
    let far_index = pick(r(), 3);
    let far = match far_index {
        0 => DVec3::ZERO,
        1 => DVec3::new(1234.5, -2000.25, 777.0),
        _ => DVec3::new(-3.0e5, 1.0e6, 2.5e5),
    };
    let (ia, ib) = if kind == 3 { (ia, ia) } else { (ia, ib) };
    let (ma, mb) = (&meshes[ia].1, &meshes[ib].1);
    let (ba, bb) = (ma.mesh.bounding_box(), mb.mesh.bounding_box());
    let (ra, rb) = (ba.diagonal() / 2.0, bb.diagonal() / 2.0);
    let angles = [r() * 360.0, r() * 360.0, r() * 360.0];
    let dir = DVec3::new(r() - 0.5, r() - 0.5, r() - 0.5).normalize_or(DVec3::X);
    let pa = Pose::translation(far);
    let rot = Pose::from_euler_degrees(angles, DVec3::ZERO);
    let pb = match kind {
        // Centres apart by a fraction of the radii' sum: from deep overlap to just apart.
        0 | 1 => {
            let f = if kind == 0 {
                r() * 0.8
            } else {
                0.8 + r() * 0.4
            };
            let at = ba.center() + dir * (ra + rb) * f;
            let moved = at - rot.apply(bb.center());
            Pose::from_euler_degrees(angles, moved + far)
        }
        // B's centre on A's: one inside the other where it is the smaller, else crossing.
        2 => Pose::from_euler_degrees(angles, ba.center() - rot.apply(bb.center()) + far),
        // A copy moved by exactly its box's extent along one axis: it touches.
        _ => {
            let axis = pick(r(), 3);
            let mut t = DVec3::ZERO;
            t[axis] = ba.max[axis] - ba.min[axis];
            Pose::translation(t + far)
        }
    };
    let clearance = (pick(r(), 2) == 0).then(|| r() * 0.05 * (ra + rb));
    let name = format!(
        "seed {seed}: {} at {far} against {} ({}), clearance {clearance:?}",
        meshes[ia].0, meshes[ib].0, FUZZ_KINDS[kind]
    );
    FuzzCase {
        name,
        ia,
        ib,
        pa,
        pb,
        clearance,
        kind,
        far: far_index,
    }
}

/// Every random case of [`fuzz_seeds`] over `meshes` ([`fuzz_case`]), checked on both backends.
fn fuzz_through_both(b: &GpuBackend, meshes: &[(&str, PreparedMesh)]) {
    let uploaded: Vec<GpuMesh> = meshes.iter().map(|(_, m)| b.upload(m).unwrap()).collect();
    let mut seen = [0u64; 4 + 3 + 2];
    for seed in fuzz_seeds() {
        let FuzzCase {
            name,
            ia,
            ib,
            pa,
            pb,
            clearance,
            kind,
            far,
        } = fuzz_case(seed, meshes);
        seen[kind] += 1;
        seen[4 + far] += 1;
        seen[7 + clearance.is_some() as usize] += 1;
        let (ma, mb) = (&meshes[ia].1, &meshes[ib].1);
        let opts = CheckOptions { clearance };
        let cpu = query::check(ma, pa, mb, pb, &opts);
        let gpu = b
            .check(ma, &uploaded[ia], pa, mb, &uploaded[ib], pb, &opts)
            .unwrap();
        assert_same(&name, &cpu, &gpu);
    }
    let labels = FUZZ_KINDS
        .iter()
        .chain(&["at the origin", "thousands away", "1e6 away"])
        .chain(&["no clearance", "clearance"]);
    let kinds: Vec<(&str, u64)> = labels.copied().zip(seen).collect();
    common::assert_coverage("random poses", fuzz_seeds().count() as u64, 24, &kinds);
}

/// Random poses of real meshes, through both backends: overlapping, grazing, just apart, one
/// part inside the other, exactly touching (a copy moved by its own box's width: coplanar faces
/// where the mesh has flat sides), each near the origin or far from it. Cases:
/// `MESHCLASH_GPU_FUZZ_CASES` (CI default 24) from seed `MESHCLASH_GPU_FUZZ_FIRST` (default 0);
/// a failure names its seed.
#[test]
fn random_poses_of_real_meshes_are_answered_identically() {
    let Some(b) = backend("random_poses_of_real_meshes_are_answered_identically", None) else {
        return;
    };
    let meshes = fuzz_meshes();
    fuzz_through_both(&b, &meshes);
}

/// Random poses, as above, of parts of very different sizes: a torus 1e-4 across beside real
/// meshes tens of units across, near the origin and 1e6 from it, where f32 resolves 0.06 and
/// the torus is below it: whatever the f32 stages cannot decide must reach the CPU's exact
/// answer. Also a part of several bodies and an open one. Cases as above
/// (`MESHCLASH_GPU_FUZZ_CASES`, `MESHCLASH_GPU_FUZZ_FIRST`).
#[test]
fn random_poses_of_parts_of_very_different_sizes_are_answered_identically() {
    let Some(b) = backend(
        "random_poses_of_parts_of_very_different_sizes_are_answered_identically",
        None,
    ) else {
        return;
    };
    let load = |rel: &str| PreparedMesh::new(Mesh::load(case_path(rel)).unwrap());
    let meshes: Vec<(&str, PreparedMesh)> = vec![
        (
            "tiny torus",
            PreparedMesh::new(generate::torus(1e-4, 3e-5, 24, 10)),
        ),
        ("meshes/teapot.stl", load("meshes/teapot.stl")),
        (
            "meshes/multibody_ascii.stl",
            load("meshes/multibody_ascii.stl"),
        ),
        ("meshes/soup.stl", load("meshes/soup.stl")),
        ("sphere", PreparedMesh::new(generate::sphere(0.7, 12, 18))),
    ];
    fuzz_through_both(&b, &meshes);
}

/// Seed 285 of the random cases: a teapot 22.43 from a torus a tenth its size. Every leaf of
/// the teapot comes near enough every leaf of the torus that its nearest walk visits most of
/// them, and lavapipe ended those walks after 65535 loop iterations per 8 lanes (Mesa's
/// `LP_MAX_TGSI_LOOP_ITERATIONS`, without an error): the GPU answered 22.4574, pair
/// (357, 2828), where the closest pair (357, 3669) is 22.4279 apart.
#[test]
fn a_part_small_beside_its_gap_is_measured_to_its_closest_pair() {
    let Some(b) = backend(
        "a_part_small_beside_its_gap_is_measured_to_its_closest_pair",
        None,
    ) else {
        return;
    };
    let meshes = fuzz_meshes();
    let FuzzCase {
        name,
        ia,
        ib,
        pa,
        pb,
        clearance,
        ..
    } = fuzz_case(285, &meshes);
    assert_eq!(
        (meshes[ia].0, meshes[ib].0),
        ("meshes/teapot.stl", "meshes/torus.stl")
    );
    both(&b, &name, &meshes[ia].1, pa, &meshes[ib].1, pb, clearance);
}

/// Walks that pause every few steps (cull_leaves: 7 nodes; nearest: 60 loop iterations)
/// resume where they stopped, in further passes, and answer as the CPU.
#[test]
fn walks_paused_every_few_steps_resume_and_answer_identically() {
    let Some(ctx) =
        common::gpu_or_skip("walks_paused_every_few_steps_resume_and_answer_identically")
    else {
        return;
    };
    let steps = WalkSteps {
        leaves: 7,
        nearest: 60,
        ..WalkSteps::UNBOUNDED
    };
    let mut b = GpuBackend::with_walk_steps(ctx, u32::MAX, steps).unwrap();
    b.settle_on_cpu = false;
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 40, 14));
    let r0 = b.stats().0;
    linked_tori(&b, &t, "walks paused");
    // Two checks with a clearance, one clearance round each: 2 passes with unbounded walks.
    let passes = b.stats().0 - r0;
    assert!(passes > 30, "{passes} passes: few pauses");
    let meshes = fuzz_meshes();
    let FuzzCase {
        name,
        ia,
        ib,
        pa,
        pb,
        clearance,
        ..
    } = fuzz_case(285, &meshes);
    let r0 = b.stats().0;
    let gpu = both(&b, &name, &meshes[ia].1, pa, &meshes[ib].1, pb, clearance);
    let stages: Vec<&str> = gpu
        .distance
        .timings
        .0
        .iter()
        .map(|s| s.0.as_str())
        .collect();
    assert!(stages.contains(&"gpu_nearest"), "{stages:?}");
    assert!(b.stats().0 - r0 > 10, "{} passes", b.stats().0 - r0);
    let m = PreparedMesh::new(Mesh::load(case_path("meshes/bunny_lowres.stl")).unwrap());
    let g = b.upload(&m).unwrap();
    assert_eq!(
        query::self_intersections(&m).pairs,
        b.self_intersections(&m, &g).unwrap().pairs
    );
}

/// A walk that the driver ends before the walk itself does is an error, never an answer: here
/// with no step budget, a single triangle's walk over the more than 65 536 nodes of 330 000
/// long slivers through the cube's diagonal, every one of which crosses it at the cube's centre.
/// lavapipe cuts that walk short; with the budget it sets for software adapters, the walk pauses
/// and resumes instead, and all 330 000 pairs are found.
#[test]
fn a_walk_cut_short_by_the_driver_is_an_error_and_the_budget_avoids_it() {
    let Some(ctx) =
        common::gpu_or_skip("a_walk_cut_short_by_the_driver_is_an_error_and_the_budget_avoids_it")
    else {
        return;
    };
    let n = 330_000u32;
    let mut vertices = vec![[0.0f32; 3], [1.0; 3]];
    let mut triangles = Vec::with_capacity(n as usize);
    for k in 0..n {
        // Thin triangles along the cube's diagonal, each third vertex a little off it.
        let s = k as f32 / n as f32;
        vertices.push([s, s + 0.01, s]);
        triangles.push([0, 1, k + 2]);
    }
    let slivers = PreparedMesh::new(Mesh {
        source: "slivers".into(),
        vertices,
        triangles,
        unit: None,
    });
    assert!(
        slivers.octree.nodes.len() > 65_536,
        "{} nodes",
        slivers.octree.nodes.len()
    );
    // In the plane x + y + z = 1.5, around the centre.
    let across = PreparedMesh::new(Mesh {
        source: "across the diagonal".into(),
        vertices: vec![[0.6, 0.45, 0.45], [0.45, 0.6, 0.45], [0.45, 0.45, 0.6]],
        triangles: vec![[0, 1, 2]],
        unit: None,
    });
    let (pa, pb) = (
        Posed::new(&across, Pose::IDENTITY),
        Posed::new(&slivers, Pose::IDENTITY),
    );
    let cpu = query::intersect(&pa, &pb);
    assert_eq!(cpu.pairs.len(), n as usize);
    let software = ctx.software;
    let unbounded = GpuBackend::with_walk_steps(ctx, u32::MAX, WalkSteps::UNBOUNDED).unwrap();
    let (ga, gb) = (
        unbounded.upload(&across).unwrap(),
        unbounded.upload(&slivers).unwrap(),
    );
    match unbounded.intersect(&pa, &ga, &pb, &gb) {
        Ok(gpu) => {
            assert!(!software, "{}: no error", unbounded.ctx.info.name);
            assert_eq!(cpu.pairs, gpu.pairs);
        }
        Err(e) => assert!(e.to_string().contains("ended a shader loop"), "{e}"),
    }
    let b = GpuBackend::new(unbounded.ctx).unwrap();
    let (ga, gb) = (b.upload(&across).unwrap(), b.upload(&slivers).unwrap());
    let gpu = b.intersect(&pa, &ga, &pb, &gb).unwrap();
    assert_eq!(cpu.pairs, gpu.pairs);
}

/// The random cases' range: `MESHCLASH_GPU_FUZZ_FIRST` (default 0) and
/// `MESHCLASH_GPU_FUZZ_CASES` (CI default 24).
fn fuzz_seeds() -> std::ops::Range<u64> {
    common::seeds("MESHCLASH_GPU_FUZZ_FIRST", "MESHCLASH_GPU_FUZZ_CASES", 24)
}

/// Self-intersection of random soups ([`common::soup`]), near the origin or 1e5 from it.
#[test]
fn random_soups_self_intersect_identically() {
    let Some(b) = backend("random_soups_self_intersect_identically", None) else {
        return;
    };
    for seed in fuzz_seeds() {
        let m = PreparedMesh::new(common::soup(seed, if seed % 2 == 0 { 0.0 } else { 1e5 }));
        let g = b.upload(&m).unwrap();
        let cpu = query::self_intersections(&m);
        let gpu = b.self_intersections(&m, &g).unwrap();
        assert_eq!(cpu.pairs, gpu.pairs, "soup {seed}");
        assert_eq!(
            cpu.zero_area_triangles, gpu.zero_area_triangles,
            "soup {seed}"
        );
    }
}

/// Two random soups checked against each other, the second moved by a random integer step
/// (exact: coplanar and touching pairs between them), with a clearance or not, near the origin
/// or 1e5 from it.
#[test]
fn random_soups_against_each_other_are_answered_identically() {
    let Some(b) = backend(
        "random_soups_against_each_other_are_answered_identically",
        None,
    ) else {
        return;
    };
    for seed in fuzz_seeds() {
        let mut r = common::lcg(seed ^ 0x5EED);
        let off = if seed % 2 == 0 { 0.0 } else { 1e5 };
        let (a, m) = (
            PreparedMesh::new(common::soup(seed, off)),
            PreparedMesh::new(common::soup(seed + (1 << 40), off)),
        );
        let mut step = || (r() * 7.0).floor() - 3.0;
        let t = DVec3::new(step(), step(), step());
        let clearance = (seed % 3 != 0).then_some(0.25 * (seed % 3) as f64);
        both(
            &b,
            &format!("soups {seed}, moved {t}, clearance {clearance:?}"),
            &a,
            Pose::IDENTITY,
            &m,
            Pose::translation(t),
            clearance,
        );
    }
}

/// A prepared mesh is uploaded once per backend and kept with the mesh: a second query reuses
/// the first's buffers, a backend with another part limit makes (and keeps) its own split, and
/// every check through the kept uploads answers as the CPU does.
#[test]
fn meshes_stay_resident_across_queries() {
    let Some(ctx) = common::gpu_or_skip("meshes_stay_resident_across_queries") else {
        return;
    };
    use std::sync::Arc;
    let g = GpuBackend::new(ctx).unwrap();
    let a = PreparedMesh::new(generate::torus(1.0, 0.3, 48, 16));
    let b = PreparedMesh::new(generate::torus(1.0, 0.3, 32, 12));
    let first = g.resident(&a).unwrap();
    assert!(
        Arc::ptr_eq(&first, &g.resident(&a).unwrap()),
        "uploaded twice"
    );
    let split = g.with_part_limit(300);
    let parts = split.resident(&a).unwrap();
    assert!(
        !Arc::ptr_eq(&first, &parts),
        "an upload split by another limit was reused"
    );
    assert!(parts.parts.len() > 1);
    let backend = meshclash::Backend::from_gpu(split);
    let pose = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02));
    let opts = CheckOptions {
        clearance: Some(0.01),
    };
    let cpu = query::check(&a, Pose::IDENTITY, &b, pose, &opts);
    for call in 0..3 {
        let r = backend.check(&a, Pose::IDENTITY, &b, pose, &opts).unwrap();
        assert!(meshclash::bench::same_answers(&r, &cpu), "call {call}");
        let s = backend.self_intersections(&a).unwrap();
        assert_eq!(s.pairs, query::self_intersections(&a).pairs, "call {call}");
    }
    assert!(
        cpu.intersects(),
        "the pose should make the tori cut each other"
    );
}

/// Parts 1e-22 across, 1e-23 apart: the squares of their lengths are below f32's normal range,
/// where rounding is absolute and the pair stages' margins, relative to the parts, do not hold
/// (a probe found the GPU's clearance losing 166 of 2 866 pairs within 2e-23). Parts 1e10
/// across: the distance kernels' fourth powers of lengths overflow f32 (`LARGEST_PAIR_SCALE`).
/// The GPU backend answers both as the CPU does (with the CPU's functions), and the scene 1e-3
/// across with its own stages, alike.
#[test]
fn parts_too_small_or_too_large_for_f32_are_answered_as_on_the_cpu() {
    let Some(b) = backend("parts_too_small_or_too_large_for_f32", None) else {
        return;
    };
    let scaled = |mut mesh: Mesh, size: f64, x: f64| {
        for v in &mut mesh.vertices {
            v[0] += x as f32;
            for c in v.iter_mut() {
                *c = (*c as f64 * size) as f32;
            }
        }
        PreparedMesh::new(mesh)
    };
    for size in [1e-22, 1e10, 1e-3] {
        let torus = scaled(generate::torus(1.0, 0.3, 48, 24), size, 0.0);
        let ball = scaled(generate::sphere(0.3, 12, 24), size, 0.3);
        let report = both(
            &b,
            &format!("a ball in a torus's hole, {size:e} across"),
            &torus,
            Pose::IDENTITY,
            &ball,
            Pose::IDENTITY,
            Some(0.2 * size),
        );
        let pairs = report.clearance.map_or(0, |c| c.pairs.len());
        assert!(pairs > 1000, "{size}: {pairs} pairs within the clearance");
        let gm = b.upload(&torus).unwrap();
        let own = b.self_intersections(&torus, &gm).unwrap();
        assert_eq!(
            own.pairs,
            query::self_intersections(&torus).pairs,
            "{size}: self"
        );
    }
}

/// Parts placed exactly `d` apart: the GPU's clearance keeps the pair for the host, which
/// decides it exactly, as the CPU does: none within `d`, one within the next f64 above it.
#[test]
fn a_pair_exactly_the_clearance_apart_is_decided_as_on_the_cpu() {
    let Some(b) = backend(
        "a_pair_exactly_the_clearance_apart_is_decided_as_on_the_cpu",
        None,
    ) else {
        return;
    };
    let next_up = |x: f64| f64::from_bits(x.to_bits() + 1);
    for (x, y, d) in common::pairs_exactly_apart() {
        for shift in [DVec3::ZERO, DVec3::new(1e6, -2e6, 3e6)] {
            let at = Pose::translation(shift);
            for (reach, want) in [(d, 0), (next_up(d), 1)] {
                let name = format!("{d} apart, moved by {shift}, clearance {reach}");
                let gpu = both(&b, &name, &x, at, &y, at, Some(reach));
                assert_eq!(gpu.clearance.unwrap().pairs.len(), want, "{name}");
            }
        }
    }
}
