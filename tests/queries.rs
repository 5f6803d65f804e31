//! Mesh queries on generated meshes against brute force over all triangle pairs (the culls and
//! the octree must lose nothing), analytic answers, and independence from the thread count.
//! Size of the large case: `MESHCLASH_TEST_TRIANGLES` (default 20000 per mesh); random poses of
//! small real meshes: `MESHCLASH_BRUTE_CASES` (default 12), random soups' self-intersection:
//! `MESHCLASH_BRUTE_SOUPS` (default 4), both from `MESHCLASH_BRUTE_FIRST` (default 0).

mod common;

use glam::DVec3;
use meshclash::geom::closer::closer_than;
use meshclash::geom::tritri;
use meshclash::mesh::{generate, Mesh, Pose};
use meshclash::octree::Octree;
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;

fn prep(m: Mesh) -> PreparedMesh {
    let p = PreparedMesh::new(m);
    p.octree.assert_well_formed(&p.mesh);
    p
}

fn brute_pairs(a: &Posed, b: &Posed) -> Vec<(u32, u32)> {
    let (na, nb) = (
        a.prep.mesh.triangles.len() as u32,
        b.prep.mesh.triangles.len() as u32,
    );
    (0..na)
        .flat_map(|i| (0..nb).map(move |j| (i, j)))
        .filter(|&(i, j)| tritri::intersect(&a.tri(i), &b.tri(j)))
        .collect()
}

fn brute_distance(a: &Posed, b: &Posed) -> f64 {
    let (na, nb) = (
        a.prep.mesh.triangles.len() as u32,
        b.prep.mesh.triangles.len() as u32,
    );
    (0..na)
        .flat_map(|i| (0..nb).map(move |j| (i, j)))
        .map(|(i, j)| tritri::distance(&a.tri(i), &b.tri(j)).distance)
        .fold(f64::INFINITY, f64::min)
}

/// Three scenes at ~1k triangles each: cutting, touching exactly (a shared coplanar face), and
/// separated.
fn scenes() -> Vec<(&'static str, PreparedMesh, Pose, PreparedMesh, Pose)> {
    let t = || prep(generate::torus(1.0, 0.3, 40, 14));
    let s = || prep(generate::sphere(1.0, 16, 30));
    let link = |x: f64| Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(x, 0.03, 0.02));
    // The last scene: a torus and its copy turned by 90° about z (an exact permutation of x and
    // y), so that the two surfaces coincide in places: coplanar and touching pairs galore.
    vec![
        ("cutting", t(), Pose::IDENTITY, t(), link(1.5)),
        ("near miss", t(), Pose::IDENTITY, t(), link(1.0)),
        (
            "sphere through torus",
            s(),
            Pose::translation(DVec3::new(1.0, 0.2, 0.1)),
            t(),
            Pose::IDENTITY,
        ),
        (
            "same torus, turned 90°",
            t(),
            Pose::IDENTITY,
            t(),
            Pose::from_matrix(&[
                0., -1., 0., 0., 1., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
            ])
            .unwrap(),
        ),
    ]
}

#[test]
fn intersect_and_distance_equal_brute_force() {
    for (name, a, pa, b, pb) in scenes() {
        let (x, y) = (Posed::new(&a, pa), Posed::new(&b, pb));
        let hits = query::intersect(&x, &y);
        let got: Vec<(u32, u32)> = hits.pairs.iter().map(|p| (p.a, p.b)).collect();
        let want = brute_pairs(&x, &y);
        assert_eq!(got, want, "{name}: pair sets differ");
        let d = query::distance(&x, &y, &hits);
        let bd = brute_distance(&x, &y);
        assert_eq!(d.distance, bd, "{name}: distance");
        // On one thread within any budget, on all threads from the start, or both in turn: the
        // same pair.
        for budget in [0, 50, 4096, u64::MAX] {
            let e = query::distance_with_budget(&x, &y, &hits, budget);
            assert_eq!(
                (
                    e.distance.to_bits(),
                    e.triangle_a,
                    e.triangle_b,
                    e.point_a,
                    e.point_b
                ),
                (
                    d.distance.to_bits(),
                    d.triangle_a,
                    d.triangle_b,
                    d.point_a,
                    d.point_b
                ),
                "{name}: budget {budget}"
            );
        }
        // The reported points are on the reported triangles, from B to A.
        let td = tritri::distance(&x.tri(d.triangle_a), &y.tri(d.triangle_b));
        assert_eq!(td.distance, d.distance);
        assert_eq!(d.separation, d.point_a - d.point_b);
        eprintln!("{name}: {} pairs, distance {bd}", want.len());
    }
}

#[test]
fn clearance_equals_brute_force() {
    for (name, a, pa, b, pb) in scenes() {
        let (x, y) = (Posed::new(&a, pa), Posed::new(&b, pb));
        for d in [0.02, 0.1] {
            let r = query::clearance(&x, &y, d);
            let got: Vec<(u32, u32)> = r.pairs.iter().map(|p| (p.a, p.b)).collect();
            // Every pair reported was tested (counted) first.
            assert!(r.candidates >= got.len() as u64, "{name} clearance {d}");
            let (na, nb) = (a.mesh.triangles.len() as u32, b.mesh.triangles.len() as u32);
            let want: Vec<(u32, u32)> = (0..na)
                .flat_map(|i| (0..nb).map(move |j| (i, j)))
                .filter(|&(i, j)| tritri::distance(&x.tri(i), &y.tri(j)).distance < d)
                .collect();
            assert_eq!(got, want, "{name} clearance {d}");
        }
    }
}

#[test]
fn self_intersection_of_two_merged_tori_equals_brute_force() {
    // One mesh holding two cutting tori: every pair between the bodies counts, none within.
    let t1 = generate::torus(1.0, 0.3, 30, 10);
    let pose = Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02));
    let mut soup: Vec<[[f32; 3]; 3]> = (0..t1.triangles.len())
        .map(|i| t1.triangle(i).map(|p| p.as_vec3().to_array()))
        .collect();
    let n1 = soup.len() as u32;
    soup.extend(
        (0..t1.triangles.len()).map(|i| t1.triangle(i).map(|p| pose.apply(p).as_vec3().to_array())),
    );
    let m = prep(Mesh::from_soup("two tori", soup).unwrap());
    let r = query::self_intersections(&m);
    let x = Posed::new(&m, Pose::IDENTITY);
    let want: Vec<(u32, u32)> = (0..n1)
        .flat_map(|i| (n1..2 * n1).map(move |j| (i, j)))
        .filter(|&(i, j)| tritri::intersect(&x.tri(i), &x.tri(j)))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(r.pairs.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(), want);
    // Each torus alone is clean.
    assert!(query::self_intersections(&prep(t1)).pairs.is_empty());
}

#[test]
fn concentric_spheres_contain_and_measure_analytically() {
    // Radii 1 and 1.01: containment, and a surface distance within the tessellation's sag of
    // 0.01 (an inscribed polyhedron sits at most r(1 − cos(π/n)) inside its sphere).
    let n = std::env::var("MESHCLASH_TEST_TRIANGLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000usize);
    let (lat, lon) = generate::sphere_grid(n);
    let inner = prep(generate::sphere(1.0, lat, lon));
    let outer = prep(generate::sphere(1.01, lat, lon));
    let r = query::check(
        &inner,
        Pose::IDENTITY,
        &outer,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert!(!r.intersects());
    assert_eq!(r.containment, Some(query::Containment::AInB));
    let sag = 1.01 * (1.0 - (std::f64::consts::PI / lat.min(lon) as f64).cos());
    let d = r.distance.distance;
    assert!(
        d <= 0.01 + 1e-6 && d >= 0.01 - sag - 1e-6,
        "d = {d}, sag {sag}"
    );
    // Swapped roles.
    let r = query::check(
        &outer,
        Pose::IDENTITY,
        &inner,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert_eq!(r.containment, Some(query::Containment::BInA));
    // Moved 5 km away together: the same answers (a rigid move of both changes nothing).
    let far = Pose::translation(DVec3::new(5000.0, -3000.0, 1200.0));
    let r2 = query::check(&inner, far, &outer, far, &Default::default());
    assert_eq!(r2.containment, Some(query::Containment::AInB));
    assert!((r2.distance.distance - d).abs() < 1e-9);
    // Turned and 1e6 away, the rays culled in each mesh's own frame: still inside, and the
    // outer sphere's vertices still outside the inner one.
    let turned = Pose::from_euler_degrees([31.0, -47.0, 113.0], DVec3::new(1e6, -2e6, 5e5));
    let (x, y) = (Posed::new(&inner, turned), Posed::new(&outer, turned));
    assert_eq!(
        query::containment(&x, &y),
        (Some(query::Containment::AInB), true)
    );
    assert_eq!(
        query::containment(&y, &x),
        (Some(query::Containment::BInA), true)
    );
    assert!(query::interferes(&x, &y));
}

#[test]
fn answers_do_not_depend_on_the_thread_count() {
    let (_, a, pa, b, pb) = scenes().remove(0);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let r = query::check(
                &a,
                pa,
                &b,
                pb,
                &query::CheckOptions {
                    clearance: Some(0.05),
                },
            );
            let pairs: Vec<(u32, u32)> = r.intersect.pairs.iter().map(|p| (p.a, p.b)).collect();
            let clearance = r.clearance.unwrap();
            let clear: Vec<(u32, u32, u64)> = clearance
                .pairs
                .iter()
                .map(|p| (p.a, p.b, p.distance.to_bits()))
                .collect();
            (
                pairs,
                clear,
                // The counts too: every job's share is summed.
                (r.intersect.candidates, clearance.candidates),
                r.distance.distance.to_bits(),
                r.distance.triangle_a,
                r.distance.triangle_b,
            )
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(7));
}

#[test]
fn distance_ties_resolve_to_the_smallest_pair() {
    // Two cubes 0.5 apart face to face: many pairs share the minimum; the report must be the
    // smallest (a, b) among them, on any thread count.
    let cube = prep(
        Mesh::load(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/cases/meshes/cube_trimesh.stl"
        ))
        .unwrap(),
    );
    let pb = Pose::translation(DVec3::new(1.5, 0.0, 0.0));
    let (x, y) = (Posed::new(&cube, Pose::IDENTITY), Posed::new(&cube, pb));
    let d = query::distance(&x, &y, &query::intersect(&x, &y));
    assert_eq!(d.distance, 0.5);
    let min_pair = (0..12u32)
        .flat_map(|i| (0..12u32).map(move |j| (i, j)))
        .find(|&(i, j)| tritri::distance(&x.tri(i), &y.tri(j)).distance == 0.5)
        .unwrap();
    assert_eq!((d.triangle_a, d.triangle_b), min_pair);
    assert_eq!(d.separation.x, -0.5); // from B (at x ≥ 1) to A (x ≤ 0.5)
}

#[test]
fn octree_is_well_formed_over_sizes_and_shapes() {
    for (nu, nv) in [(3, 3), (5, 4), (40, 14), (200, 60)] {
        let m = generate::torus(1.0, 0.3, nu, nv);
        let t = Octree::build(&m);
        t.assert_well_formed(&m);
        assert!(t
            .nodes
            .iter()
            .filter(|n| n.is_leaf())
            .all(|n| n.tri_count as usize <= meshclash::octree::LEAF_SIZE));
    }
    // Built in parallel over subtrees: the same tree on any number of threads.
    let m = generate::torus(1.0, 0.3, 300, 100); // 60k triangles: parallel subtrees
    let build = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| Octree::build(&m))
    };
    let (one, three) = (build(1), build(3));
    one.assert_well_formed(&m);
    assert_eq!(one.nodes, three.nodes);
    assert_eq!(one.tri_index, three.tri_index);
    // Identical centroids cannot be split by position: runs of consecutive triangles, so that no
    // leaf holds more than LEAF_SIZE (assert_well_formed checks it). 50: the root and
    // ceil(50 / 8) = 7 leaves; 1000: eight runs of 125, each eight of 15 or 16, each two.
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    for (n, nodes, levels) in [(50, 8, 2), (1000, 1 + 8 + 64 + 128, 4)] {
        let m = Mesh::from_soup("dup", vec![tri; n]).unwrap();
        let t = Octree::build(&m);
        t.assert_well_formed(&m);
        assert_eq!((t.nodes.len(), t.depth()), (nodes, levels), "{n}");
    }
    // Centroids at x = 2^-k, k = 0..49: each split by position peels off one triangle, so the
    // depth limit (24) comes with 26 left, which runs of consecutive triangles split further.
    let peel: Vec<[[f32; 3]; 3]> = (0..50)
        .map(|k| {
            let x = 0.5f32.powi(k);
            [[x, 0.0, 0.0], [x, 1.0, 0.0], [x, 0.0, 1.0]]
        })
        .collect();
    let m = Mesh::from_soup("peel", peel).unwrap();
    let t = Octree::build(&m);
    t.assert_well_formed(&m);
    let levels = t.depth() as u32;
    assert!(
        levels > 25 && levels <= meshclash::octree::MAX_LEVELS,
        "{levels} levels"
    );
}

#[test]
fn generated_meshes_are_closed_and_oriented() {
    for m in [
        generate::torus(1.0, 0.3, 30, 12),
        generate::sphere(1.0, 10, 20),
    ] {
        let info = m.info();
        assert!(info.closed && info.oriented, "{}", m.source.display());
        assert_eq!(info.zero_area_triangles, 0);
    }
    assert_eq!(generate::torus(1.0, 0.3, 30, 12).triangles.len(), 720);
}

#[test]
fn posing_on_demand_gives_the_answers_of_posing_everything_first() {
    for (name, a, pa, b, pb) in scenes() {
        let lazy = (Posed::new(&a, pa), Posed::new(&b, pb));
        let eager = (Posed::new(&a, pa), Posed::new(&b, pb));
        for p in [&eager.0, &eager.1] {
            p.verts();
            p.boxes();
            p.spheres();
        }
        // Each value posed on the spot is the very one posed with the whole.
        for (l, e) in [(&lazy.0, &eager.0), (&lazy.1, &eager.1)] {
            let fresh = Posed::new(l.prep, l.pose);
            for n in 0..e.boxes().len() {
                assert_eq!(fresh.node_box(n), e.boxes()[n], "{name}: node {n}");
            }
            for v in 0..e.verts().len() as u32 {
                assert_eq!(fresh.vertex(v), e.verts()[v as usize], "{name}: vertex {v}");
            }
            for i in 0..e.spheres().len() as u32 {
                assert_eq!(
                    fresh.sphere(i),
                    e.spheres()[i as usize],
                    "{name}: sphere {i}"
                );
            }
        }
        let (x, y) = (&lazy.0, &lazy.1);
        assert_eq!(
            query::interference(x, y),
            query::interference(&eager.0, &eager.1),
            "{name}"
        );
        let sd = query::solid_distance(x, y);
        let hits = query::intersect(&eager.0, &eager.1);
        let d = query::distance(&eager.0, &eager.1, &hits);
        let brute = brute_distance(&eager.0, &eager.1);
        assert_eq!(d.distance, brute, "{name}");
        // None of these scenes has a part inside the other: the solids meet where the
        // surfaces do, and are otherwise as far apart as the surfaces.
        assert_eq!(sd.distance(), brute, "{name}");
        if let query::SolidDistance::Apart { report: s, .. } = sd {
            assert_eq!(
                (s.triangle_a, s.triangle_b, s.point_a, s.point_b),
                (d.triangle_a, d.triangle_b, d.point_a, d.point_b),
                "{name}"
            );
        }
    }
}

#[test]
fn check_with_a_clearance_reads_the_intersecting_pairs_and_the_distance_off_the_clearance_search() {
    let key = |r: &query::DistanceReport| {
        (
            r.distance,
            r.triangle_a,
            r.triangle_b,
            r.point_a,
            r.point_b,
            r.separation,
        )
    };
    let mut read_off = 0;
    for (name, a, pa, b, pb) in scenes() {
        let (x, y) = (Posed::new(&a, pa), Posed::new(&b, pb));
        let alone = query::intersect(&x, &y);
        let want = brute_pairs(&x, &y);
        let dist = query::distance(&x, &y, &alone);
        assert_eq!(dist.distance, brute_distance(&x, &y), "{name}");
        // Just above the distance, the closest pair is listed but its distance² may round to
        // d²: the edge where the check must search instead of reading it off.
        let edge = dist.distance.next_up();
        for d in [0.0, 1e-9, 0.02, 0.1, edge, 1.5 * dist.distance] {
            let r = query::check(&a, pa, &b, pb, &query::CheckOptions { clearance: Some(d) });
            let got: Vec<(u32, u32)> = r.intersect.pairs.iter().map(|p| (p.a, p.b)).collect();
            assert_eq!(got, want, "{name}, d = {d}: against brute force");
            assert_eq!(r.intersect.pairs, alone.pairs, "{name}, d = {d}: classes");
            let c = r.clearance.unwrap();
            assert_eq!(
                c.pairs,
                query::clearance(&x, &y, d).pairs,
                "{name}, d = {d}"
            );
            for p in &c.pairs {
                assert_eq!(p.intersects, tritri::intersect(&x.tri(p.a), &y.tri(p.b)));
            }
            assert_eq!(key(&r.distance), key(&dist), "{name}, d = {d}: distance");
            if !c.pairs.is_empty() && !alone.intersects() {
                read_off += 1;
            }
        }
    }
    // The scenes reach the reading-off (else this test would hold it to nothing).
    assert!(read_off >= 2, "{read_off}");
}

/// The winding number of the closed mesh around `p`: the triangles' solid angles (Van Oosterom
/// and Strackee) over 4π, an oracle independent of ray parity and of the octree.
fn winding(p: DVec3, m: &Posed) -> f64 {
    let total: f64 = (0..m.prep.mesh.triangles.len() as u32)
        .map(|i| {
            let [a, b, c] = m.tri(i).map(|v| v - p);
            let (la, lb, lc) = (a.length(), b.length(), c.length());
            let num = a.dot(b.cross(c));
            let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
            2.0 * num.atan2(den)
        })
        .sum();
    total / (4.0 * std::f64::consts::PI)
}

#[test]
fn point_inside_a_closed_mesh_agrees_with_the_winding_number_turned_and_far_from_the_origin() {
    let t = prep(generate::torus(1.0, 0.3, 40, 14));
    let mut rnd = common::lcg(0x9e37_79b9_7f4a_7c15);
    for pose in [
        Pose::IDENTITY,
        Pose::from_euler_degrees([31.0, -47.0, 113.0], DVec3::new(1e6, -2e6, 5e5)),
    ] {
        let m = Posed::new(&t, pose);
        let (mut inside, mut outside) = (0, 0);
        for _ in 0..300 {
            // A point of the torus's own box, posed with it.
            let local = DVec3::new(rnd() * 2.8 - 1.4, rnd() * 2.8 - 1.4, rnd() * 0.8 - 0.4);
            let p = pose.apply(local);
            let w = winding(p, &m);
            let want = w.round();
            assert!((w - want).abs() < 1e-6, "{p}: winding {w}");
            let ours = query::point_inside(p, &m);
            assert!(ours.certain, "{p}: winding {w}");
            assert_eq!(ours.inside, want == 1.0, "{p}: winding {w}");
            // A closed oriented mesh: the winding number is the exact integer.
            assert_eq!(query::winding_number(p, &m).value, want, "{p}");
            assert_eq!(query::winding_number(p, &m).bound, 0.0, "{p}");
            if want == 1.0 {
                inside += 1;
            } else {
                outside += 1;
            }
        }
        assert!(
            inside > 20 && outside > 20,
            "{inside} inside, {outside} outside"
        );
    }
}

#[test]
fn early_exit_interference_agrees_with_the_full_check_turned_and_far_from_the_origin() {
    // The early exit searches in A's frame with B's boxes carried by A⁻¹B; the full check in
    // world coordinates. Each scene as built, then both parts moved together by a rigid motion.
    let far = Pose::from_euler_degrees([31.0, -47.0, 113.0], DVec3::new(1e6, -2e6, 5e5));
    let then = |p: Pose| {
        let m = |p: &Pose| glam::DMat4::from_cols_array(&p.to_matrix()).transpose();
        let c = (m(&far) * m(&p)).transpose().to_cols_array();
        Pose::from_matrix(&c).unwrap()
    };
    for (name, a, pa, b, pb) in scenes() {
        for (pa, pb) in [(pa, pb), (then(pa), then(pb))] {
            let full = query::check(&a, pa, &b, pb, &Default::default());
            let (x, y) = (Posed::new(&a, pa), Posed::new(&b, pb));
            assert_eq!(query::interferes(&x, &y), full.interferes(), "{name}");
        }
    }
}

/// The two-sign shortcut for neighbours sharing one vertex gives the edge tests' answer, on
/// integer coordinates (so that coplanar, collinear and touching configurations are exact):
/// half the cases flat in z = 0, the rest in space.
#[test]
fn shared_vertex_shortcut_agrees_with_the_edge_tests() {
    use meshclash::geom::predicates::is_degenerate;
    use meshclash::query::{shared_vertex_meets_elsewhere, shared_vertex_meets_elsewhere_by_edges};
    let mut rnd = common::lcg(0x005e_ed0f_5e1f);
    let mut int = |flat: bool| {
        let mut c = || (rnd() * 9.0).floor() - 4.0;
        DVec3::new(c(), c(), if flat { 0.0 } else { c() })
    };
    let mut seen = [0usize; 2];
    for case in 0..20_000 {
        let flat = case % 2 == 0;
        let v = int(flat);
        let (a1, a2, b1, b2) = (int(flat), int(flat), int(flat), int(flat));
        if is_degenerate(&[v, a1, a2]) || is_degenerate(&[v, b1, b2]) {
            continue;
        }
        // Sharing v only.
        if [a1, a2].iter().any(|p| [v, b1, b2].contains(p)) {
            continue;
        }
        let want = shared_vertex_meets_elsewhere_by_edges(v, a1, a2, b1, b2);
        assert_eq!(
            shared_vertex_meets_elsewhere(v, a1, a2, b1, b2),
            want,
            "{v} {a1} {a2} / {b1} {b2}"
        );
        seen[want as usize] += 1;
    }
    assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
}

/// Whether `p` is inside the closed mesh `m` (its triangles flagged in `solid`) by its
/// crossings with a ray, tried against every triangle with exact signs: the nonzero winding
/// rule (crossings counted with their direction) where `m` is oriented, else parity. A ray
/// through an edge, a vertex or a plane's edge case is thrown away for another random
/// direction.
fn brute_inside(p: DVec3, m: &Posed, solid: &[bool], seed: u64) -> bool {
    use meshclash::geom::predicates::{is_degenerate, orient3d};
    let mut r = common::lcg(seed ^ 0x005e_ed0f_ba11);
    let size = m.prep.mesh.bounding_box().diagonal() + (p - m.vertex(0)).length();
    'ray: loop {
        let dir = DVec3::new(r() - 0.5, r() - 0.5, r() - 0.5).normalize_or(DVec3::Z);
        let q = p + dir * (4.0 * size + 1.0);
        let (mut crossings, mut winding) = (0, 0);
        for i in 0..m.prep.mesh.triangles.len() as u32 {
            let t = m.tri(i);
            if is_degenerate(&t) || !solid[i as usize] {
                continue; // a zero-area triangle, or an open body's, bounds nothing
            }
            let [a, b, c] = t;
            let (sp, sq) = (orient3d(a, b, c, p), orient3d(a, b, c, q));
            if sq == 0 {
                continue 'ray;
            }
            // p off the triangle (the surfaces do not meet): starting on its plane, the ray
            // leaves the plane without crossing it.
            if sp == 0 || sp == sq {
                continue;
            }
            let s = [
                orient3d(p, q, a, b),
                orient3d(p, q, b, c),
                orient3d(p, q, c, a),
            ];
            if s.contains(&0) {
                continue 'ray;
            }
            if s[0] == s[1] && s[1] == s[2] {
                crossings += 1;
                winding += sp as i64;
            }
        }
        return if m.prep.info.oriented {
            winding != 0
        } else {
            crossings % 2 == 1
        };
    }
}

/// Per triangle: in a closed body (triangles sharing vertices, every edge of theirs used by
/// exactly two of them)? By relabelling until nothing changes, and counting edges: slow,
/// simple, and not the library's.
fn brute_solid(m: &Mesh) -> Vec<bool> {
    let mut label: Vec<u32> = (0..m.vertices.len() as u32).collect();
    loop {
        let mut changed = false;
        for t in &m.triangles {
            let low = t.iter().map(|&v| label[v as usize]).min().unwrap();
            for &v in t {
                if label[v as usize] != low {
                    label[v as usize] = low;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut uses = std::collections::HashMap::new();
    for t in &m.triangles {
        for k in 0..3 {
            let (u, v) = (t[k], t[(k + 1) % 3]);
            *uses.entry((u.min(v), u.max(v))).or_insert(0) += 1;
        }
    }
    let open: std::collections::HashSet<u32> = uses
        .iter()
        .filter(|(_, &n)| n != 2)
        .map(|(&(u, _), _)| label[u as usize])
        .collect();
    m.triangles
        .iter()
        .map(|t| !open.contains(&label[t[0] as usize]))
        .collect()
}

/// Small real meshes (each at most a thousand triangles, so that every pair can be tried) and
/// generated ones: open and closed, non-manifold, zero-area and soup triangles, parts of
/// several bodies (overlapping, hollow, closed beside open), and parts of very different sizes.
fn brute_meshes() -> Vec<(&'static str, PreparedMesh)> {
    let mut v: Vec<(&'static str, PreparedMesh)> = [
        "meshes/teapot.stl",
        "meshes/halfdonut_ascii.stl",
        "meshes/cube_trimesh.stl",
        "meshes/multibody_ascii.stl",
        "meshes/triamid.stl",
        "meshes/cgal_non_manifold.stl",
        "meshes/cgal_all_degen.stl",
        "meshes/soup.stl",
    ]
    .iter()
    .map(|rel| (*rel, prep(Mesh::load(common::case_path(rel)).unwrap())))
    .collect();
    v.push(("torus", prep(generate::torus(1.0, 0.3, 24, 10))));
    v.push(("sphere", prep(generate::sphere(0.7, 12, 18))));
    // A closed body and an open one: only the first bounds a solid.
    let mut m = generate::sphere(0.4, 8, 12);
    let base = m.vertices.len() as u32;
    m.vertices.extend([
        [0.6, -0.5, -0.5],
        [0.6, 0.5, -0.5],
        [0.6, 0.5, 0.5],
        [0.6, -0.5, 0.5],
    ]);
    m.triangles
        .extend([[0, 1, 2], [0, 2, 3]].map(|t| t.map(|k| k + base)));
    v.push(("sphere and a sheet", prep(m)));
    // Open alone, small enough to sit inside the sphere or the cube.
    let mut m = Mesh {
        source: "open box".into(),
        vertices: Vec::new(),
        triangles: Vec::new(),
        unit: None,
    };
    open_box(&mut m, DVec3::ZERO, 0.15);
    v.push(("small open box", prep(m)));
    // A part ten thousand times smaller than the others: bounds padded by the magnitude of
    // coordinates must not swallow its gaps.
    v.push(("tiny torus", prep(generate::torus(1e-4, 3e-5, 24, 10))));
    // Two overlapping bodies (winding number 2 where they overlap), and a hollow ball (0 in
    // its cavity).
    v.push((
        "overlapping spheres",
        prep(spheres(&[
            (DVec3::ZERO, 0.5, false),
            (DVec3::new(0.4, 0.0, 0.0), 0.5, false),
        ])),
    ));
    v.push((
        "hollow ball",
        prep(spheres(&[
            (DVec3::ZERO, 1.0, false),
            (DVec3::ZERO, 0.5, true),
        ])),
    ));
    v
}

/// Every pair of A and B: `(a, b, distance, intersects)` from the exact test and Nathan's
/// distance, in `(a, b)` order.
fn brute_all(a: &Posed, b: &Posed) -> Vec<(u32, u32, f64, bool)> {
    use rayon::prelude::*;
    let nb = b.prep.mesh.triangles.len() as u32;
    (0..a.prep.mesh.triangles.len() as u32)
        .into_par_iter()
        .flat_map_iter(|i| {
            let ta = a.tri(i);
            (0..nb).map(move |j| {
                let tb = b.tri(j);
                let meets = tritri::intersect(&ta, &tb);
                (i, j, tritri::distance(&ta, &tb).distance, meets)
            })
        })
        .collect()
}

/// Random poses of small real meshes, every query of `check` against every pair tried: the
/// culls, bounds, the distance search and the answers read off the clearance search lose
/// nothing. Overlapping, grazing, centred (one part swallowed by the other where it is
/// smaller), a copy touching by its box's width (coplanar faces), and near misses made by
/// moving B along the separation to a gap of 0, 1e-9, 1e-6 or 1e-3 of its size; near the
/// origin or far from it. Containment against a ray over every triangle ([`brute_inside`]) and
/// the winding number. Cases: `MESHCLASH_BRUTE_CASES` (CI default 12) from seed
/// `MESHCLASH_BRUTE_FIRST` (default 0).
#[test]
fn random_poses_of_small_real_meshes_equal_brute_force() {
    let meshes = brute_meshes();
    // Each mesh's triangles in closed bodies, found once (brute_solid relabels until stable).
    let solids: Vec<Vec<bool>> = meshes.iter().map(|(_, m)| brute_solid(&m.mesh)).collect();
    let mut seen = [0usize; 5];
    for seed in common::seeds("MESHCLASH_BRUTE_FIRST", "MESHCLASH_BRUTE_CASES", 12) {
        let mut r = common::lcg(seed.wrapping_mul(0xA076_1D64_78BD_642F) + 3);
        let pick = |x: f64, n: usize| ((x * n as f64) as usize).min(n - 1);
        let (ia, ib) = (pick(r(), meshes.len()), pick(r(), meshes.len()));
        let kind = pick(r(), 5);
        let ib = if kind == 3 { ia } else { ib };
        let far = [
            DVec3::ZERO,
            DVec3::new(1234.5, -2000.25, 777.0),
            DVec3::new(-3.0e5, 1.0e6, 2.5e5),
        ][pick(r(), 3)];
        let ((na, a), (nb, b)) = (&meshes[ia], &meshes[ib]);
        let (ba, bb) = (a.mesh.bounding_box(), b.mesh.bounding_box());
        let (ra, rb) = (ba.diagonal() / 2.0, bb.diagonal() / 2.0);
        let angles = [r() * 360.0, r() * 360.0, r() * 360.0];
        let dir = DVec3::new(r() - 0.5, r() - 0.5, r() - 0.5).normalize_or(DVec3::X);
        let rot = Pose::from_euler_degrees(angles, DVec3::ZERO);
        // B's translation putting its box's centre at `at`.
        let centre_at = |at: DVec3| at - rot.apply(bb.center()) + far;
        let pa = Pose::translation(far);
        let mut gap = None;
        let pb = match kind {
            0 => Pose::from_euler_degrees(
                angles,
                centre_at(ba.center() + dir * (ra + rb) * r() * 0.8),
            ),
            1 => Pose::from_euler_degrees(
                angles,
                centre_at(ba.center() + dir * (ra + rb) * (0.8 + r() * 0.4)),
            ),
            2 => Pose::from_euler_degrees(angles, centre_at(ba.center())),
            3 => {
                let axis = pick(r(), 3);
                let mut t = DVec3::ZERO;
                t[axis] = ba.max[axis] - ba.min[axis];
                Pose::translation(t + far)
            }
            _ => {
                // Apart, then moved along the closest pair's separation to a small gap.
                let t = centre_at(ba.center() + dir * (ra + rb) * 1.3);
                let apart = Pose::from_euler_degrees(angles, t);
                let (x, y) = (Posed::new(a, pa), Posed::new(b, apart));
                let d = query::distance(&x, &y, &query::intersect(&x, &y));
                let g = [0.0, 1e-9, 1e-6, 1e-3][pick(r(), 4)] * rb;
                gap = Some(g);
                let by = if d.distance > 0.0 {
                    d.separation * ((d.distance - g) / d.distance)
                } else {
                    DVec3::ZERO
                };
                Pose::from_euler_degrees(angles, t + by)
            }
        };
        let (x, y) = (Posed::new(a, pa), Posed::new(b, pb));
        let all = brute_all(&x, &y);
        let want_hits: Vec<(u32, u32)> = all.iter().filter(|p| p.3).map(|p| (p.0, p.1)).collect();
        // The first intersecting pair; else the distance search's order, (distance², a, b)
        // (a disjoint pair's distance may round to 0 too).
        let best = match all.iter().find(|p| p.3) {
            Some(p) => (0.0, p.0, p.1, 0.0),
            None => all
                .iter()
                .map(|p| (p.2 * p.2, p.0, p.1, p.2))
                .min_by(|p, q| (p.0, p.1, p.2).partial_cmp(&(q.0, q.1, q.2)).unwrap())
                .unwrap(),
        };
        let clearance = match pick(r(), 5) {
            0 => None,
            1 => Some(r() * 0.05 * (ra + rb)),
            2 => Some(best.3),
            3 => Some(best.3.next_up()),
            _ => Some(best.3 * 2.0 + 1e-9 * rb),
        };
        let name = format!(
            "seed {seed}: {na} at {far} against {nb} ({}, gap {gap:?}), clearance {clearance:?}",
            ["overlapping", "grazing", "centred", "touching", "near miss"][kind]
        );
        let opts = query::CheckOptions { clearance };
        let got = query::check(a, pa, b, pb, &opts);
        let hits: Vec<(u32, u32)> = got.intersect.pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(hits, want_hits, "{name}: intersecting pairs");
        let dist = &got.distance;
        assert_eq!(
            (dist.distance, dist.triangle_a, dist.triangle_b),
            (best.3, best.1, best.2),
            "{name}: distance"
        );
        if let Some(d) = clearance {
            // Closer than d by the f64 distance, except within a rounding of d (clearance 2
            // above is such a tie), where only the exact comparison can tell: seed 11 has 8
            // pairs whose f64 distance is d and whose exact squared distance is 1.9e-17 below
            // d² (one checked in Python's Fractions). `closer_than` is held to hand-worked
            // ties in its own tests.
            let reach = |b: &meshclash::geom::Aabb| b.min.abs().max(b.max.abs()).max_element();
            let scale = 1e-9 * (reach(&ba) + reach(&bb) + ra + rb + far.abs().max_element() + d);
            let closer = |p: &(u32, u32, f64, bool)| match (p.3, (p.2 - d).abs() <= scale) {
                (true, _) => d > 0.0,
                (false, true) => closer_than(&x.tri(p.0), &y.tri(p.1), d),
                (false, false) => p.2 < d,
            };
            let want: Vec<(u32, u32, f64, bool)> = all.iter().copied().filter(closer).collect();
            let c = got.clearance.as_ref().unwrap();
            let listed: Vec<(u32, u32, f64, bool)> = c
                .pairs
                .iter()
                .map(|p| (p.a, p.b, p.distance, p.intersects))
                .collect();
            assert_eq!(listed, want, "{name}: clearance pairs");
        }
        // Containment, where the surfaces do not meet: every vertex of each part against the
        // solid of the other's closed bodies, by a ray over all their triangles (no octree),
        // and by the winding number (solid angles) where the other part is closed and oriented.
        // Against a part that is not closed, inside is the generalized winding number's
        // |w| >= 1/2 (docs/cli.md), taken from the solid angles; compared below only where
        // `check` says its answer is certain (every vertex of the body on one side).
        let any_inside = |p: &Posed, m: &Posed, solid: &[bool]| {
            if !m.prep.info.closed {
                let mut used: Vec<u32> = p.prep.mesh.triangles.iter().flatten().copied().collect();
                used.sort_unstable();
                used.dedup();
                return used
                    .into_iter()
                    .any(|v| winding(p.vertex(v), m).abs() >= 0.5);
            }
            if !solid.contains(&true) {
                return false;
            }
            let mut used: Vec<u32> = p.prep.mesh.triangles.iter().flatten().copied().collect();
            used.sort_unstable();
            used.dedup();
            let inside: Vec<bool> = used
                .into_iter()
                .map(|v| {
                    let inside = brute_inside(p.vertex(v), m, solid, seed);
                    if m.prep.info.closed && m.prep.info.oriented {
                        let w = winding(p.vertex(v), m);
                        assert_eq!(w.round() != 0.0, inside, "{name}: winding {w}");
                    }
                    inside
                })
                .collect();
            inside.contains(&true)
        };
        let want_inside = if !want_hits.is_empty() {
            None
        } else if any_inside(&x, &y, &solids[ib]) {
            Some(query::Containment::AInB)
        } else if any_inside(&y, &x, &solids[ia]) {
            Some(query::Containment::BInA)
        } else {
            None
        };
        let open = !a.info.closed || !b.info.closed;
        if got.containment_certain || !open {
            assert_eq!(got.containment, want_inside, "{name}: containment");
        }
        let interferes = !want_hits.is_empty() || want_inside.is_some();
        assert_eq!(query::interferes(&x, &y), interferes, "{name}: interferes");
        let solid = if interferes { 0.0 } else { best.3 };
        assert_eq!(
            query::solid_distance(&x, &y).distance(),
            solid,
            "{name}: solid distance"
        );
        seen[kind] += 1;
        eprintln!(
            "{name}: {} intersecting, distance {}, inside {want_inside:?}",
            want_hits.len(),
            best.3
        );
    }
    let names = ["overlapping", "grazing", "centred", "touching", "near miss"];
    let kinds: Vec<(&str, u64)> = names.into_iter().zip(seen.map(|n| n as u64)).collect();
    let ran = common::seeds("MESHCLASH_BRUTE_FIRST", "MESHCLASH_BRUTE_CASES", 12).count() as u64;
    common::assert_coverage("random poses against brute force", ran, 12, &kinds);
}

/// Adds to `m` an open body: the box of half-width `h` about `c` without its top face.
fn open_box(m: &mut Mesh, c: DVec3, h: f32) {
    let base = m.vertices.len() as u32;
    for k in 0..8 {
        let s = |bit: u32| if k & bit == 0 { -h } else { h };
        m.vertices
            .push([c.x as f32 + s(1), c.y as f32 + s(2), c.z as f32 + s(4)]);
    }
    // Bottom, and the four sides, facing out; no top (z = +h).
    let faces = [
        [2, 3, 1, 0],
        [1, 5, 4, 0],
        [3, 7, 5, 1],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
    ];
    for [p, q, r, t] in faces {
        m.triangles.push([p, q, r].map(|k| k + base));
        m.triangles.push([p, r, t].map(|k| k + base));
    }
}

/// Against a part that is not closed every vertex is asked for its winding number, dear on or
/// near the surface (an open bunny against its own copy spent 10 s there before its first
/// pair): the surfaces are searched first. A closed cube and an open sheet crossing its wall,
/// the sheet's first corner (its body's probe) inside: the surfaces cross (brute force), and
/// are the evidence, where the corner was before; the yes/no is brute force's either way. The
/// sheet moved off the cube: apart.
#[test]
fn against_an_open_part_the_surfaces_are_searched_before_the_vertices() {
    let cube = common::box_mesh([-1.0; 3], [1.0; 3]);
    let sheet = PreparedMesh::new(
        Mesh::from_soup(
            "sheet",
            vec![[[0.1, 0.1, -0.5], [3.0, 0.2, -0.5], [3.0, 0.3, 0.5]]],
        )
        .unwrap(),
    );
    assert!(cube.info.closed && !sheet.info.closed);
    let a = Posed::new(&cube, Pose::IDENTITY);
    let b = Posed::new(&sheet, Pose::IDENTITY);
    let corner = query::point_inside(DVec3::new(0.1, 0.1, -0.5), &a);
    assert!(corner.inside && corner.certain);
    assert!(!brute_pairs(&a, &b).is_empty());
    for (x, y) in [(&a, &b), (&b, &a)] {
        assert_eq!(
            query::interference_and_certainty(x, y),
            (Some(query::Interference::SurfacesMeet), true)
        );
    }
    let away = Posed::new(&sheet, shifted(5.0));
    assert!(brute_pairs(&a, &away).is_empty());
    assert_eq!(query::interference_and_certainty(&a, &away).0, None);
}

/// A part of several bodies, one of them swallowed by the other part, the rest outside it: the
/// parts interfere, whichever body the answer starts from. Each body of the first part in turn
/// is the one inside, and the parts swap roles.
#[test]
fn a_body_of_a_multi_body_part_swallowed_by_the_other_part_interferes() {
    let centres = [
        DVec3::ZERO,
        DVec3::new(10.0, 0.0, 0.0),
        DVec3::new(0.0, 10.0, 0.0),
    ];
    // One mesh of three bodies: spheres of radius 0.5 at the centres.
    let bodies = || spheres(&centres.map(|c| (c, 0.5, false)));
    let many = prep(bodies());
    assert!(many.info.closed && many.info.oriented);
    assert_eq!(many.bodies.closed, [true; 3]);
    let big = prep(generate::sphere(2.0, 16, 24));
    for c in centres {
        let at = Pose::translation(c);
        for (swap, want) in [
            (false, query::Containment::AInB),
            (true, query::Containment::BInA),
        ] {
            let ((a, pa), (b, pb)) = if swap {
                ((&big, at), (&many, Pose::IDENTITY))
            } else {
                ((&many, Pose::IDENTITY), (&big, at))
            };
            let name = format!("big sphere around the body at {c}, swapped: {swap}");
            let r = query::check(a, pa, b, pb, &Default::default());
            assert!(!r.intersects(), "{name}");
            assert_eq!(r.containment, Some(want), "{name}");
            let (x, y) = (Posed::new(a, pa), Posed::new(b, pb));
            assert!(query::interferes(&x, &y), "{name}");
            assert_eq!(query::solid_distance(&x, &y).distance(), 0.0, "{name}");
            assert_eq!(r.distance.distance, brute_distance(&x, &y), "{name}");
        }
    }
    // With an open body added to each part (a defect a CAD export may carry): the closed
    // bodies still bound solids, and an open one adds its winding number. B's is a box
    // without its top, facing out, around the swallowed body: 1 + 5/6 there, still inside.
    let mut with_open = bodies();
    open_box(&mut with_open, DVec3::new(5.0, 5.0, 0.0), 1.0);
    let mut big_with_open = generate::sphere(2.0, 16, 24);
    open_box(&mut big_with_open, DVec3::ZERO, 1.5);
    let (many_open, big_open) = (prep(with_open), prep(big_with_open));
    assert!(!many_open.info.closed && !big_open.info.closed);
    assert_eq!(many_open.bodies.closed, [true, true, true, false]);
    for (a, b) in [
        (&many_open, &big),
        (&many, &big_open),
        (&many_open, &big_open),
    ] {
        for c in centres {
            let at = Pose::translation(c);
            let r = query::check(a, Pose::IDENTITY, b, at, &Default::default());
            assert_eq!(r.containment, Some(query::Containment::AInB), "{c}");
            let (x, y) = (Posed::new(a, Pose::IDENTITY), Posed::new(b, at));
            assert!(query::interferes(&x, &y), "{c}");
        }
    }
    // A part that is all open (a box without its top) inside the big sphere: its surface is
    // inside the solid, so the parts interfere; the sphere is in no solid of the box.
    let mut lone = Mesh {
        source: "open box".into(),
        vertices: Vec::new(),
        triangles: Vec::new(),
        unit: None,
    };
    open_box(&mut lone, DVec3::ZERO, 0.5);
    let lone = prep(lone);
    assert_eq!(lone.bodies.closed, [false]);
    for (swap, want) in [
        (false, query::Containment::AInB),
        (true, query::Containment::BInA),
    ] {
        let (a, b) = if swap { (&big, &lone) } else { (&lone, &big) };
        let r = query::check(a, Pose::IDENTITY, b, Pose::IDENTITY, &Default::default());
        assert_eq!(
            r.containment,
            Some(want),
            "open box in the sphere, swapped: {swap}"
        );
        let (x, y) = (Posed::new(a, Pose::IDENTITY), Posed::new(b, Pose::IDENTITY));
        assert!(query::interferes(&x, &y));
        assert_eq!(query::solid_distance(&x, &y).distance(), 0.0);
    }
    // No body inside: no interference.
    let apart = Pose::translation(DVec3::new(5.0, 5.0, 0.0));
    let r = query::check(&many, Pose::IDENTITY, &big, apart, &Default::default());
    assert_eq!(r.containment, None);
    let (x, y) = (Posed::new(&many, Pose::IDENTITY), Posed::new(&big, apart));
    assert!(!query::interferes(&x, &y));
}

/// Self-intersection of random soups ([`common::soup`]: shared vertices and edges, duplicate,
/// coplanar, touching and folded neighbours, zero-area triangles, all exact) against an oracle
/// that shares nothing with the library: exact linear programming over the rationals, by CGAL's
/// convention, for every pair. The same soup 1e5 from the origin answers the same. Cases:
/// `MESHCLASH_BRUTE_SOUPS` (CI default 4, about 1.3 s each) from seed `MESHCLASH_BRUTE_FIRST`
/// (default 0).
#[test]
fn random_soups_self_intersect_as_exact_linear_programming_says() {
    use common::oracle::{triangles_intersect_int, triangles_meet_beyond_int};
    use query::SelfKind;
    use rayon::prelude::*;
    let mut by_kind = [0usize; 4];
    for seed in common::seeds("MESHCLASH_BRUTE_FIRST", "MESHCLASH_BRUTE_SOUPS", 4) {
        let m = PreparedMesh::new(common::soup(seed, 0.0));
        let got = query::self_intersections(&m);
        let far = query::self_intersections(&PreparedMesh::new(common::soup(seed, 1e5)));
        assert_eq!(got.pairs, far.pairs, "soup {seed}: 1e5 from the origin");
        let tris = &m.mesh.triangles;
        let corners = |t: [u32; 3]| t.map(|v| m.mesh.vertices[v as usize].map(|c| c as i64));
        let zero_area = |p: &[[i64; 3]; 3]| {
            let (u, v) = (
                [0, 1, 2].map(|k| p[1][k] - p[0][k]),
                [0, 1, 2].map(|k| p[2][k] - p[0][k]),
            );
            u[1] * v[2] == u[2] * v[1] && u[2] * v[0] == u[0] * v[2] && u[0] * v[1] == u[1] * v[0]
        };
        let zero = tris.iter().filter(|&&t| zero_area(&corners(t))).count();
        let want: Vec<(u32, u32, SelfKind)> = (0..tris.len())
            .into_par_iter()
            .filter(|&i| !zero_area(&corners(tris[i])))
            .flat_map_iter(|i| {
                let p = corners(tris[i]);
                (i + 1..tris.len()).filter_map(move |j| {
                    let q = corners(tris[j]);
                    if zero_area(&q) {
                        return None;
                    }
                    // Slots of p holding a vertex of q.
                    let shared: Vec<usize> =
                        (0..3).filter(|&k| tris[j].contains(&tris[i][k])).collect();
                    let (meets, kind) = match shared.len() {
                        0 => (triangles_intersect_int(&p, &q), SelfKind::DisjointVertices),
                        1 => (
                            triangles_meet_beyond_int(&p, &q, &shared),
                            SelfKind::SharedVertex,
                        ),
                        2 => (
                            triangles_meet_beyond_int(&p, &q, &shared),
                            SelfKind::SharedEdgeFoldover,
                        ),
                        _ => (true, SelfKind::DuplicateFace),
                    };
                    meets.then_some((i as u32, j as u32, kind))
                })
            })
            .collect();
        for w in &want {
            by_kind[w.2 as usize] += 1;
        }
        let got_pairs: Vec<(u32, u32, SelfKind)> =
            got.pairs.iter().map(|p| (p.a, p.b, p.kind)).collect();
        let missing: Vec<_> = want.iter().filter(|p| !got_pairs.contains(p)).collect();
        let extra: Vec<_> = got_pairs.iter().filter(|p| !want.contains(p)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "soup {seed}: missing {missing:?}, extra {extra:?}"
        );
        assert_eq!(got_pairs, want, "soup {seed}: order");
        assert_eq!(got.zero_area_triangles, zero, "soup {seed}");
    }
    let names = ["disjoint", "shared vertex", "shared edge", "duplicate"];
    let kinds: Vec<(&str, u64)> = names.into_iter().zip(by_kind.map(|n| n as u64)).collect();
    let ran = common::seeds("MESHCLASH_BRUTE_FIRST", "MESHCLASH_BRUTE_SOUPS", 4).count() as u64;
    common::assert_coverage("soups against LP", ran, 4, &kinds);
}

/// Spheres as one mesh (each a closed body), each of `radius` at its centre; `inward` flips a
/// sphere's triangles, so that its normals point into it (a cavity's shell).
fn spheres(parts: &[(DVec3, f64, bool)]) -> Mesh {
    let mut m = Mesh {
        source: "spheres".into(),
        vertices: Vec::new(),
        triangles: Vec::new(),
        unit: None,
    };
    for &(c, r, inward) in parts {
        let one = generate::sphere(r, 12, 18);
        let base = m.vertices.len() as u32;
        m.vertices.extend(
            one.vertices
                .iter()
                .map(|v| [v[0] + c.x as f32, v[1] + c.y as f32, v[2] + c.z as f32]),
        );
        m.triangles.extend(one.triangles.iter().map(|t| {
            let t = t.map(|k| k + base);
            if inward {
                [t[0], t[2], t[1]]
            } else {
                t
            }
        }));
    }
    m
}

/// Inside a part whose bodies overlap (an assembly exported as one file without uniting its
/// solids) a point is inside both: the winding number (solid angles, independent of the rays)
/// is 2, and a small part there is swallowed, though a ray crosses the surface twice. In the
/// cavity of a hollow part (an inner shell facing into the cavity) the winding number is 0 and
/// nothing is swallowed; in its wall, 1.
#[test]
fn a_part_in_two_overlapping_bodies_or_in_a_wall_is_swallowed_and_in_a_cavity_is_not() {
    let small = prep(generate::sphere(0.05, 8, 12));
    let overlapping = prep(spheres(&[
        (DVec3::ZERO, 0.5, false),
        (DVec3::new(0.4, 0.0, 0.0), 0.5, false),
    ]));
    let hollow = prep(spheres(&[
        (DVec3::ZERO, 1.0, false),
        (DVec3::ZERO, 0.5, true),
    ]));
    for m in [&overlapping, &hollow] {
        assert!(m.info.closed && m.info.oriented);
        assert_eq!(m.bodies.closed, [true, true]);
    }
    let cases = [
        (&overlapping, DVec3::new(0.2, 0.0, 0.0), 2.0),
        (&hollow, DVec3::ZERO, 0.0),
        (&hollow, DVec3::new(0.0, 0.75, 0.0), 1.0),
        (&overlapping, DVec3::new(2.0, 0.0, 0.0), 0.0),
    ];
    for (m, at, want) in cases {
        let name = format!("{} at {at}", m.mesh.source.display());
        let (x, y) = (
            Posed::new(m, Pose::IDENTITY),
            Posed::new(&small, Pose::translation(at)),
        );
        // Every vertex of the small part: its winding number about the big one.
        for v in 0..small.mesh.vertices.len() as u32 {
            let w = winding(y.vertex(v), &x);
            assert!((w - want).abs() < 1e-6, "{name}: winding {w}");
        }
        let r = query::check(
            m,
            Pose::IDENTITY,
            &small,
            Pose::translation(at),
            &Default::default(),
        );
        assert!(!r.intersects(), "{name}");
        let want_in = (want != 0.0).then_some(query::Containment::BInA);
        assert_eq!(r.containment, want_in, "{name}");
        assert_eq!(query::interferes(&x, &y), want != 0.0, "{name}");
    }
}

/// Parts placed exactly `d` apart (a clearance designed to the value) are not closer than `d`,
/// whichever way their f64 distance rounds, and are closer than the next f64 above it: in
/// `clearance`, `check`'s clearance and the poses' counts, at the origin and 1e6 from it.
#[test]
fn a_pair_exactly_the_clearance_apart_is_not_within_it() {
    let next_up = |x: f64| f64::from_bits(x.to_bits() + 1);
    let cases = common::pairs_exactly_apart();
    // The f64 distance alone would count the first at d and miss the second at next_up(d).
    let f64_distance = |k: usize| {
        let (a, b, _) = &cases[k];
        let (x, y) = (Posed::new(a, Pose::IDENTITY), Posed::new(b, Pose::IDENTITY));
        tritri::distance(&x.tri(0), &y.tri(0)).distance
    };
    assert!(f64_distance(0) < 18.0 && f64_distance(1) > 21.0);
    for (a, b, d) in &cases {
        for shift in [DVec3::ZERO, DVec3::new(1e6, -2e6, 3e6)] {
            let at = Pose::translation(shift);
            let (x, y) = (Posed::new(a, at), Posed::new(b, at));
            for (reach, want) in [(*d, 0), (next_up(*d), 1)] {
                let name = format!("{d} apart, moved by {shift}, clearance {reach}");
                assert_eq!(query::clearance(&x, &y, reach).pairs.len(), want, "{name}");
                let opts = query::CheckOptions {
                    clearance: Some(reach),
                };
                let checked = query::check(a, at, b, at, &opts).clearance.unwrap();
                assert_eq!(checked.pairs.len(), want, "{name}: check");
                let posed = query::poses(a, at, b, &[at], Some(reach));
                assert_eq!(posed[0].clearance_pairs, Some(want), "{name}: poses");
            }
        }
    }
}

/// README's linked tori (B turned 90° about x and moved 1.2 along it): every one of the 424
/// intersecting pairs pierces. Two of them, (4138, 5103) and (8230, 7777), share segments of
/// about 2e-15 of their lengths on the planes' line, and had been called touching points by the
/// merging of rounded points. Proved in exact rational arithmetic (Python `Fraction`, on the
/// posed f64 corners: `x + 1.2, -z, y` of B's f32 ones): each triangle has corners strictly on
/// both sides of the other's plane, and the two triangles' segments on the common line overlap
/// by 3.03e-22 and 3.20e-22 (in units of `n1 × n2`), 2.6e-15 and 1.5e-15 of their lengths.
#[test]
fn the_readme_tori_pierce_in_every_pair() {
    let torus = PreparedMesh::new(Mesh::load(common::case_path("meshes/torus.stl")).unwrap());
    let pose = Pose::from_euler_degrees([90.0, 0.0, 0.0], DVec3::new(1.2, 0.0, 0.0));
    let r = query::check(&torus, Pose::IDENTITY, &torus, pose, &Default::default());
    assert_eq!(
        (r.intersect.pairs.len(), r.intersect.piercing_count()),
        (424, 424)
    );
    for (a, b) in [(4138, 5103), (8230, 7777)] {
        let p = r
            .intersect
            .pairs
            .iter()
            .find(|p| (p.a, p.b) == (a, b))
            .unwrap();
        assert!(!p.contact.touching, "({a}, {b})");
        assert_eq!(
            p.contact.class(),
            Some(meshclash::geom::classify::ContactClass::Segment)
        );
    }
}

/// Parts apart by less than rounding can measure: 0 is reported only where the surfaces meet.
/// A review's helper found two placed copies of adis16480 whose nearest triangles (A 1604, B
/// 1606) are disjoint, proved in exact rational arithmetic (a vertex of A lies about 6.0e-19
/// from B's triangle's plane, the f64 spacing there being 3.5e-18), reported `intersects`
/// false and `min_distance` 0 at one point. Now `min_distance`, `--quick`'s solid distance and
/// the clearance pairs' distances read the least positive f64 there, on both backends.
#[test]
fn parts_apart_by_less_than_rounding_are_never_at_distance_0() {
    let m = PreparedMesh::new(Mesh::load(common::case_path("meshes/adis16480_ascii.stl")).unwrap());
    let pa = Pose::from_matrix(&[
        0.7892586020035559,
        0.5492435384958525,
        -0.2745949646004955,
        0.0,
        -0.5973353384385938,
        0.7903779554798445,
        -0.13598963542840942,
        -0.0,
        0.14234237814453934,
        0.27135626565837034,
        0.9518951751490817,
        -0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    ])
    .unwrap();
    let pb = Pose::from_matrix(&[
        -0.7783641990934123,
        -0.436723855353479,
        -0.45102266875941444,
        -0.05322029219509011,
        -0.2720253654033188,
        -0.41285802101686864,
        0.8692240534288186,
        0.016722509840671213,
        -0.5658192062371706,
        0.7992624904543114,
        0.20255393653520992,
        0.010737505851421695,
        0.0,
        0.0,
        0.0,
        1.0,
    ])
    .unwrap();
    let opts = meshclash::CheckOptions {
        clearance: Some(1e-12),
    };
    let backends = common::cpu_and_gpu("apart_by_less_than_rounding");
    for be in &backends {
        let r = be.check(&m, pa, &m, pb, &opts).unwrap();
        assert!(!r.intersect.intersects(), "{}", be.name());
        let d = &r.distance;
        assert_eq!((d.triangle_a, d.triangle_b), (1604, 1606), "{}", be.name());
        assert_eq!(d.distance, f64::from_bits(1), "{}", be.name());
        let c = r.clearance.as_ref().unwrap();
        assert!(
            c.pairs.iter().all(|p| p.intersects == (p.distance == 0.0)),
            "{}",
            be.name()
        );
        assert!(
            c.pairs.iter().any(|p| p.distance == f64::from_bits(1)),
            "{}",
            be.name()
        );
    }
    let (a, b) = (Posed::new(&m, pa), Posed::new(&m, pb));
    assert_eq!(query::solid_distance(&a, &b).distance(), f64::from_bits(1));
}

/// A clearance far larger than the parts asks for every pair of their triangles: on large
/// meshes billions, which filled the memory until the process was killed (a hunt's helper).
/// The lower bound counts node pairs wholly within the clearance: every pair of two cubes
/// within 10 of each other (brute force: all 144), none where their boxes are 5 apart; a check
/// whose clearance holds more pairs than a report lists is refused at once, on either backend,
/// and one that holds fewer is answered.
#[test]
fn a_clearance_holding_more_pairs_than_a_report_lists_is_refused() {
    let cube = common::box_mesh([0.0; 3], [1.0; 3]);
    let (a, b) = (
        Posed::new(&cube, Pose::IDENTITY),
        Posed::new(&cube, shifted(2.0)),
    );
    let brute = (0..12u32)
        .flat_map(|i| (0..12u32).map(move |j| (i, j)))
        .filter(|&(i, j)| tritri::distance(&a.tri(i), &b.tri(j)).distance < 10.0)
        .count() as u64;
    assert_eq!(brute, 144);
    assert_eq!(query::pairs_within_at_least(&a, &b, 10.0, u64::MAX), brute);
    // A lower bound wherever some pairs are within and some not: tori side by side.
    let small = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
    let (p, q) = (
        Posed::new(&small, Pose::IDENTITY),
        Posed::new(&small, shifted(2.0)),
    );
    let n = small.mesh.triangles.len() as u32;
    for d in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 4.7, 6.0] {
        let brute = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .filter(|&(i, j)| tritri::distance(&p.tri(i), &q.tri(j)).distance < d)
            .count() as u64;
        let bound = query::pairs_within_at_least(&p, &q, d, u64::MAX);
        assert!(bound <= brute, "d {d}: {bound} > {brute}");
        assert!(d < 4.0 || bound > 0, "d {d}: whole nodes are within");
    }
    assert_eq!(
        query::pairs_within_at_least(&a, &Posed::new(&cube, shifted(7.0)), 4.0, u64::MAX),
        0
    );

    // 12 800 triangles each: 1.6e8 pairs, all within 100 of each other.
    let torus = PreparedMesh::new(generate::torus(1.0, 0.3, 80, 80));
    assert!((torus.mesh.triangles.len() as u64).pow(2) > query::MAX_PAIRS);
    for backend in
        common::cpu_and_gpu("a_clearance_holding_more_pairs_than_a_report_lists_is_refused")
    {
        let opts = |d: f64| meshclash::CheckOptions { clearance: Some(d) };
        let e = backend.check(&torus, Pose::IDENTITY, &torus, shifted(3.0), &opts(100.0));
        let e = e.expect_err("refused").to_string();
        assert!(
            e.contains("more than the 134217728 triangle pairs a report lists"),
            "{e}"
        );
        let r = backend.check(&torus, Pose::IDENTITY, &torus, shifted(3.0), &opts(0.3)); // 0.4 apart
        assert!(r.unwrap().clearance.unwrap().pairs.is_empty());
    }
}

/// A clearance a few triangles wide lies within no node, so the guard before a check sees none
/// of its pairs: igea against itself turned 3 degrees, at 0.005, lists over 2^27 pairs (and at
/// 0.01 listed 777M in 19 GB). The search itself stops past a number and refuses the query:
/// two tori 0.4 apart at 0.6, whose pairs are counted here by brute force, are listed whole
/// with room for exactly that many and refused with one less.
#[test]
fn a_clearance_search_stops_once_it_has_found_more_pairs_than_allowed() {
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
    let (p, q) = (Posed::new(&t, Pose::IDENTITY), Posed::new(&t, shifted(2.0)));
    let n = t.mesh.triangles.len() as u32;
    let d = 0.6;
    let brute = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .filter(|&(i, j)| tritri::distance(&p.tri(i), &q.tri(j)).distance < d)
        .count() as u64;
    assert!(brute > 100, "the tori must have pairs within {d}: {brute}");
    // The guard's lower bound would let a limit of brute - 1 through: the search must stop.
    assert!(query::pairs_within_at_least(&p, &q, d, u64::MAX) < brute - 1);
    let whole = query::clearance_at_most(&p, &q, d, brute).expect("exactly as many as allowed");
    assert_eq!(whole.pairs.len() as u64, brute);
    assert_eq!(whole.pairs, query::clearance(&p, &q, d).pairs);
    let e = query::clearance_at_most(&p, &q, d, brute - 1).expect_err("one more than allowed");
    assert_eq!((e.what, e.most), (query::Listing::Clearance(d), brute - 1));
    let opts = meshclash::CheckOptions { clearance: Some(d) };
    let refused = query::check_at_most(&t, Pose::IDENTITY, &t, shifted(2.0), &opts, brute - 1);
    assert!(refused.is_err());
}

/// Parts at UTM coordinates placed by a rotation written to six digits: the culls' pads are
/// taken at the coordinates carried into a part's frame, not at 5.4e6 (where they outgrew the
/// parts and `check --quick` visited every pair, a hunt's helper), and still lose nothing:
/// interference, the solid distance, the distance and the pairs within a clearance equal brute
/// force over the posed triangles, apart, nearly touching and overlapping.
#[test]
fn parts_at_utm_coordinates_placed_by_six_digit_rotations_answer_as_brute_force() {
    let m = PreparedMesh::new(generate::torus(0.1, 0.03, 24, 12));
    let (c, s) = (0.796530, 0.604599);
    let placed = |x: f64, z: f64| {
        let rows = [
            c,
            -s,
            0.0,
            x,
            s,
            c,
            0.0,
            5400789.012,
            0.0,
            0.0,
            1.0,
            z,
            0.0,
            0.0,
            0.0,
            1.0,
        ];
        Pose::from_matrix(&rows).unwrap()
    };
    let a = Posed::new(&m, placed(450123.456, 312.345));
    for (dx, dz) in [(0.27, 0.0), (0.26, 0.001), (0.2, 0.0), (0.05, 0.02)] {
        let b = Posed::new(&m, placed(450123.456 + dx, 312.345 + dz));
        let brute = brute_distance(&a, &b);
        let name = format!("B {dx}, {dz} from A");
        assert_eq!(query::interferes(&a, &b), brute == 0.0, "{name}");
        assert_eq!(query::solid_distance(&a, &b).distance(), brute, "{name}");
        assert_eq!(
            query::distance(&a, &b, &query::intersect(&a, &b)).distance,
            brute,
            "{name}"
        );
        let within: Vec<_> = query::clearance(&a, &b, 0.01)
            .pairs
            .iter()
            .map(|p| (p.a, p.b))
            .collect();
        let brute_within: Vec<_> = brute_all(&a, &b)
            .into_iter()
            .filter(|&(_, _, d, _)| d < 0.01)
            .map(|(i, j, _, _)| (i, j))
            .collect();
        assert_eq!(within, brute_within, "{name}");
    }
}

/// Intersecting and self-intersecting pairs are listed up to a number too (one triangle
/// repeated 50 000 times cuts itself in 1.25e9 pairs and ran out of memory, a hunt's helper):
/// crossing tori, their pairs counted by brute force, listed whole with room for exactly that
/// many and refused with one less; the same for a mesh of both tori cutting itself.
#[test]
fn intersecting_pairs_past_a_number_are_refused() {
    let t = PreparedMesh::new(generate::torus(1.0, 0.3, 24, 12));
    let linked = Pose::from_euler_degrees([20.0, 0.0, 0.0], DVec3::new(0.5, 0.2, 0.1));
    let (a, b) = (Posed::new(&t, Pose::IDENTITY), Posed::new(&t, linked));
    let n = brute_pairs(&a, &b).len() as u64;
    assert!(n > 10);
    assert_eq!(
        query::intersect_at_most(&a, &b, n).unwrap().pairs.len() as u64,
        n
    );
    let e = query::intersect_at_most(&a, &b, n - 1).expect_err("one more than allowed");
    assert_eq!((e.what, e.most), (query::Listing::Intersecting, n - 1));
    let opts = meshclash::CheckOptions::default();
    assert!(query::check_at_most(&t, Pose::IDENTITY, &t, linked, &opts, n - 1).is_err());

    let both = common::with_placed_copy(&t.mesh, linked);
    let k = query::self_intersections(&both).pairs.len() as u64;
    assert!(k > 10);
    assert!(query::self_intersections_at_most(&both, k).is_ok());
    let e = query::self_intersections_at_most(&both, k - 1).expect_err("refused");
    assert_eq!(e.what, query::Listing::SelfIntersecting);
    assert!(
        e.to_string().contains("the mesh cuts itself in more than"),
        "{e}"
    );
}

fn shifted(x: f64) -> Pose {
    Pose::translation(DVec3::new(x, 0.0, 0.0))
}
