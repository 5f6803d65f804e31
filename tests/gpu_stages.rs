//! Each GPU stage against its CPU twin (`gpu::twin`, the same f32 code) on generated inputs,
//! random and hard (coincident copies, touching faces, far from the origin). Rounding may differ
//! in the last bit (GPU compilers fuse multiply-adds), so a pair may be certain on one side and
//! unsure on the other; never certain both ways, and never missing from the cull where the
//! exact answer needs it.

mod common;

use glam::DVec3;
use meshclash::geom::tritri;
use meshclash::gpu::layout::{
    Counters, Hit, Query, CERTAIN, DISJOINT, MODE_CLEARANCE, MODE_DISTANCE, MODE_INTERSECT,
    MODE_SELF, UNSURE,
};
use meshclash::gpu::{query::frame, twin, GpuBackend, GpuMesh, HostArrays, HostPart, Narrow};
use meshclash::mesh::{generate, Mesh, Pose};
use meshclash::query::Posed;
use meshclash::PreparedMesh;
use std::collections::{BTreeMap, BTreeSet};

fn scenes() -> Vec<(String, PreparedMesh, Pose, PreparedMesh, Pose)> {
    let t = || PreparedMesh::new(generate::torus(1.0, 0.3, 48, 16));
    let cube =
        || PreparedMesh::new(Mesh::load(common::case_path("meshes/cube_trimesh.stl")).unwrap());
    let mut out = Vec::new();
    // Random poses from a fixed seed (a small LCG: no dependency for 12 numbers).
    let mut rnd = common::lcg(0x2545_f491_4f6c_dd1d);
    for k in 0..4 {
        let r = [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0];
        let tr = DVec3::new(rnd() * 2.0 - 1.0, rnd() * 2.0 - 1.0, rnd() - 0.5);
        out.push((
            format!("random {k}"),
            t(),
            Pose::IDENTITY,
            t(),
            Pose::from_euler_degrees(r, tr),
        ));
    }
    out.push((
        "coincident copies".into(),
        t(),
        Pose::IDENTITY,
        t(),
        Pose::IDENTITY,
    ));
    out.push((
        "cubes sharing a face".into(),
        cube(),
        Pose::IDENTITY,
        cube(),
        Pose::translation(DVec3::X),
    ));
    out.push((
        "cubes sharing a corner".into(),
        cube(),
        Pose::IDENTITY,
        cube(),
        Pose::translation(DVec3::ONE),
    ));
    let far = DVec3::new(5000.0, -3000.0, 1200.0);
    out.push((
        "cutting, 5 km out".into(),
        t(),
        Pose::translation(far),
        t(),
        Pose::from_euler_degrees([90.0, 7.0, 3.0], DVec3::new(1.5, 0.03, 0.02) + far),
    ));
    out
}

/// The record position of each of the mesh's triangles: the inverse of a part's `ids`.
fn local_of(ids: &[u32]) -> Vec<u32> {
    let mut local = vec![0; ids.len()];
    for (k, &i) in ids.iter().enumerate() {
        local[i as usize] = k as u32;
    }
    local
}

/// The query of one round over all of A, with tolerance `d`, in mode `mode`.
fn whole_query(
    b: &GpuBackend,
    (xa, ga): (&Posed, &GpuMesh),
    (xb, gb): (&Posed, &GpuMesh),
    d: f64,
    mode: u32,
) -> Query {
    let mut f = frame(xa, ga, xb, gb, d, mode).unwrap();
    f.query.capacity = b.capacity;
    Query {
        chunk_start: 0,
        chunk_end: ga.triangles,
        ..f.query
    }
}

/// A cull's candidate pairs, by the part's record positions.
type Candidates = BTreeSet<[u32; 2]>;

/// The GPU's candidate list and the twin's (on the host arrays the GPU's were made from), as
/// sets, for the query `q` over all of A, and how many pairs they differ by: only where a
/// bound's last bit does (at most one pair in 1 000).
fn cull_equal_to_twin(
    b: &GpuBackend,
    name: &str,
    (ha, ga): (&HostArrays, &GpuMesh),
    (hb, gb): (&HostArrays, &GpuMesh),
    q: &Query,
) -> (Candidates, Candidates, Vec<Hit>, usize) {
    let (ha, hb) = (&ha.parts[0], &hb.parts[0]);
    let (counters, hits) = b
        .round(&ga.parts[0], &gb.parts[0], q, Narrow::Main)
        .unwrap()
        .expect("fits one round");
    let gpu_c: Candidates = b
        .last_candidates(counters.candidates)
        .unwrap()
        .into_iter()
        .collect();
    let twin_c: Candidates = twin::cull(q, ha, hb).into_iter().collect();
    leaf_lists_equal_their_twins(b, name, (ha, hb), q, &counters);
    let differ = gpu_c.symmetric_difference(&twin_c).count();
    assert!(
        differ * 1000 <= gpu_c.len().max(1),
        "{name}: cull differs from its twin on {differ} of {} pairs",
        gpu_c.len()
    );
    (gpu_c, twin_c, hits, differ)
}

/// The stage boundaries inside the cull: the leaf pairs `cull_leaves` listed and those
/// `cull_pairs::far` kept, each as a set against its twin's (the box and leaf bounds' last bit
/// may differ: at most one leaf pair in 1 000).
fn leaf_lists_equal_their_twins(
    b: &GpuBackend,
    name: &str,
    (ha, hb): (&HostPart, &HostPart),
    q: &Query,
    counters: &Counters,
) {
    let gpu_leaves: BTreeSet<[u32; 4]> = b
        .last_leaf_pairs(counters.leaf_pairs)
        .unwrap()
        .into_iter()
        .collect();
    let twin_leaves = twin::cull_leaves::leaf_pairs(q, &ha.nodes, &hb.nodes);
    let gpu_live: BTreeSet<[u32; 4]> = b
        .last_live_pairs(counters.live_pairs)
        .unwrap()
        .into_iter()
        .collect();
    let twin_live = twin::cull_pairs::far(q, &ha.records, &hb.records, &twin_leaves);
    for (stage, gpu, twin) in [
        ("cull_leaves", gpu_leaves, twin_leaves),
        ("cull_pairs::far", gpu_live, twin_live),
    ] {
        let twin: BTreeSet<[u32; 4]> = twin.into_iter().collect();
        let differ = gpu.symmetric_difference(&twin).count();
        assert!(
            differ * 1000 <= gpu.len().max(1),
            "{name}: {stage} differs from its twin on {differ} of {} leaf pairs",
            gpu.len()
        );
    }
}

/// Each mesh's host arrays as one part, as the GPU's one-part upload holds them.
fn whole(m: &PreparedMesh) -> HostArrays {
    HostArrays::new(m, usize::MAX)
}

/// At a clearance, where the leaf pairs' and the pairs' distance bounds settle most of what
/// the spheres let through: the cull equals its twin, and keeps every pair the CPU path finds
/// within the clearance (its f64 distances).
#[test]
fn cull_at_a_clearance_equals_its_twin_and_keeps_every_pair_within_it() {
    let Some(ctx) = common::gpu_or_skip("cull_at_a_clearance_equals_its_twin") else {
        return;
    };
    let b = GpuBackend::new(ctx).unwrap();
    let d = 0.05;
    for (name, ma, pa, mb, pb) in scenes() {
        let (ga, gb) = (b.upload(&ma).unwrap(), b.upload(&mb).unwrap());
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        let q = whole_query(&b, (&xa, &ga), (&xb, &gb), d, MODE_CLEARANCE);
        let (ha, hb) = (whole(&ma), whole(&mb));
        let (gpu_c, twin_c, _, _) = cull_equal_to_twin(&b, &name, (&ha, &ga), (&hb, &gb), &q);
        let within = meshclash::query::clearance(&xa, &xb, d).pairs;
        let (la, lb) = (local_of(&ga.parts[0].ids), local_of(&gb.parts[0].ids));
        for p in &within {
            let k = [la[p.a as usize], lb[p.b as usize]];
            assert!(
                gpu_c.contains(&k) && twin_c.contains(&k),
                "{name}: ({}, {}) at {} culled",
                p.a,
                p.b,
                p.distance
            );
        }
        eprintln!(
            "{name}: {} candidates, {} pairs within {d}",
            gpu_c.len(),
            within.len()
        );
    }
}

#[test]
fn cull_and_narrow_equal_their_twins() {
    let Some(ctx) = common::gpu_or_skip("cull_and_narrow_equal_their_twins") else {
        return;
    };
    let b = GpuBackend::new(ctx).unwrap();
    for (name, ma, pa, mb, pb) in scenes() {
        let (ga, gb) = (b.upload(&ma).unwrap(), b.upload(&mb).unwrap());
        let (hosts_a, hosts_b) = (whole(&ma), whole(&mb));
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        let q = whole_query(&b, (&xa, &ga), (&xb, &gb), 0.0, MODE_INTERSECT);
        let (gpu_c, twin_c, hits, differ) =
            cull_equal_to_twin(&b, &name, (&hosts_a, &ga), (&hosts_b, &gb), &q);
        let (ha, hb) = (&hosts_a.parts[0], &hosts_b.parts[0]);
        // Every exactly intersecting pair is a candidate on both. The stages number triangles
        // in the part's record order; `ids` gives the mesh's numbers.
        let (la, lb) = (local_of(&ha.ids), local_of(&hb.ids));
        for i in 0..ma.mesh.triangles.len() as u32 {
            for j in 0..mb.mesh.triangles.len() as u32 {
                if tritri::intersect(&xa.tri(i), &xb.tri(j)) {
                    let p = [la[i as usize], lb[j as usize]];
                    assert!(
                        gpu_c.contains(&p) && twin_c.contains(&p),
                        "{name}: ({i}, {j}) culled"
                    );
                }
            }
        }
        // Narrow: same verdicts, up to certain-vs-unsure at the bounds; certain ones are right.
        let gpu_h: BTreeMap<(u32, u32), u32> = hits.iter().map(|h| ((h.a, h.b), h.flag)).collect();
        let pairs: Vec<[u32; 2]> = gpu_c.iter().copied().collect();
        let twin_h: BTreeMap<(u32, u32), u32> =
            twin::narrow_intersect(&q, &ha.records, &hb.records, &pairs)
                .iter()
                .map(|h| ((h.a, h.b), h.flag))
                .collect();
        let keys: BTreeSet<(u32, u32)> = gpu_h.keys().chain(twin_h.keys()).copied().collect();
        let mut unsure = 0;
        for k in keys {
            let (g, t) = (gpu_h.get(&k), twin_h.get(&k));
            let exact =
                tritri::intersect(&xa.tri(ha.ids[k.0 as usize]), &xb.tri(hb.ids[k.1 as usize]));
            for flag in [g, t].into_iter().flatten() {
                if *flag == CERTAIN {
                    assert!(exact, "{name}: {k:?} certain but disjoint");
                }
                unsure += (*flag == UNSURE) as usize;
            }
            match (g, t) {
                (Some(a), Some(b)) => {
                    assert!(a == b || *a == UNSURE || *b == UNSURE, "{name}: {k:?}")
                }
                (Some(x), None) | (None, Some(x)) => {
                    assert_eq!(*x, UNSURE, "{name}: {k:?} certain on one side only")
                }
                (None, None) => unreachable!(),
            }
        }
        eprintln!(
            "{name}: {} candidates ({differ} differ), {} hits, {unsure} unsure",
            gpu_c.len(),
            gpu_h.len()
        );
    }
}

#[test]
fn nearest_finds_the_minimum_and_emits_every_pair_that_could_hold_it() {
    let Some(ctx) =
        common::gpu_or_skip("nearest_finds_the_minimum_and_emits_every_pair_that_could_hold_it")
    else {
        return;
    };
    let b = GpuBackend::new(ctx).unwrap();
    let mut total_needed = 0;
    for (name, ma, pa, mb, pb) in scenes() {
        let (ga, gb) = (b.upload(&ma).unwrap(), b.upload(&mb).unwrap());
        let (ha, hb) = (whole(&ma), whole(&mb));
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        let mut f = frame(&xa, &ga, &xb, &gb, 0.0, MODE_DISTANCE).unwrap();
        f.query.capacity = b.capacity;
        // 150 of A's triangles (the first in octree order) against all of B: the brute force
        // stays cheap.
        let q = Query {
            chunk_start: 0,
            chunk_end: ga.triangles.min(150),
            ..f.query
        };
        let (c, hits) = b
            .round(&ga.parts[0], &gb.parts[0], &q, Narrow::Nearest)
            .unwrap()
            .expect("fits one round");
        let m = f32::from_bits(c.min_dist_bits) as f64;
        let all = twin::nearest::all_pairs(
            &q,
            &ha.parts[0].records,
            &ha.parts[0].octree.tri_index,
            &hb.parts[0].records,
        );
        let m_twin = all.iter().map(|x| x.0).fold(f32::INFINITY, f32::min) as f64;
        // The twin's own walk (the shader's, one thread after another) finds the same minimum.
        let parts = twin::nearest::Parts {
            tris_a: &ha.parts[0].records,
            tris_b: &hb.parts[0].records,
            nodes_a: &ha.parts[0].nodes,
            nodes_b: &hb.parts[0].nodes,
            walkers: 4,
        };
        let (m_walk, _) = twin::nearest::walk(&q, &parts);
        assert!(
            (m - m_walk as f64).abs() <= f.band,
            "{name}: nearest {m}, its twin's walk {m_walk}, band {}",
            f.band
        );
        assert!(
            (m - m_twin).abs() <= f.band,
            "{name}: nearest {m}, brute force {m_twin}, band {}",
            f.band
        );
        // Every pair at or below the minimum is one the CPU must see (these meshes have no
        // slivers, so each f32 distance is within the band of the true one).
        let emitted: BTreeSet<(u32, u32)> = hits.iter().map(|h| (h.a, h.b)).collect();
        let needed: Vec<(u32, u32)> = all
            .iter()
            .filter(|x| x.0 as f64 <= m)
            .map(|x| (x.1, x.2))
            .collect();
        // (Empty when the GPU's fused multiply-adds put m a hair under every twin value.)
        total_needed += needed.len();
        for p in &needed {
            assert!(emitted.contains(p), "{name}: {p:?} not emitted");
        }
        eprintln!(
            "{name}: nearest {m}, {} pairs emitted of {} evaluated by brute force",
            emitted.len(),
            all.len()
        );
    }
    assert!(total_needed > 0, "no scene tested the emission");
}

#[test]
fn distance_twin_bounds_the_true_distance() {
    // The band argument needs every f32 distance within the band of the f64 one, or below it
    // (slivers): checked on the twin over random and hard pairs, with the frame's own band.
    for (name, ma, pa, mb, pb) in scenes() {
        let (ha, hb) = (whole(&ma), whole(&mb));
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        // A GPU mesh handle is only needed for centre and radius: build the frame by hand.
        let f = twin_frame(&xa, &ha, &xb, &hb);
        let (ha, hb) = (&ha.parts[0], &hb.parts[0]);
        let (la, lb) = (local_of(&ha.ids), local_of(&hb.ids));
        for i in (0..ma.mesh.triangles.len() as u32).step_by(7) {
            for j in (0..mb.mesh.triangles.len() as u32).step_by(11) {
                let (ta, tb) = (xa.tri(i), xb.tri(j));
                if tritri::intersect(&ta, &tb) {
                    continue;
                }
                let exact = tritri::separated_distance(&ta, &tb).distance;
                let d32 = twin::tri_dist(
                    &twin::local_tri(&f.query.a, &ha.records[la[i as usize] as usize]),
                    &twin::local_tri(&f.query.b, &hb.records[lb[j as usize] as usize]),
                ) as f64;
                assert!(
                    d32 <= exact + f.band,
                    "{name}: ({i},{j}) f32 {d32} > {exact} + {}",
                    f.band
                );
                // Only this side is needed: a pair left out of the band has a true distance
                // above the threshold minus the band. Below, an f32 value may sit lower (a
                // sliver's value is a lower bound by design), which only costs CPU work.
            }
        }
    }
}

/// `gpu::query::frame` without a device: the same origin and bounds.
fn twin_frame(
    a: &Posed,
    ha: &HostArrays,
    b: &Posed,
    hb: &HostArrays,
) -> meshclash::gpu::query::Frame {
    meshclash::gpu::query::frame_from(
        a,
        ha.center,
        ha.radius,
        b,
        hb.center,
        hb.radius,
        0.0,
        MODE_INTERSECT,
    )
    .unwrap()
}

/// The narrow stage's hits on the GPU and on its twin over the same candidates agree pair by
/// pair: the same flag, or unsure on one side (a sign within its bound in the last bit); a
/// clearance pair the GPU's f32 distance filter keeps and the twin's does not (or the other
/// way) only at the threshold; the f32 distances equal up to fused multiply-adds; and such
/// last-bit differences rare (one pair, and one in 1 000 more), so that a twin that decides
/// less (or more) than its shader fails. Returns how many pairs were compared.
fn hits_agree(name: &str, gpu: &[Hit], twin: &[Hit], threshold: f32) -> usize {
    let by_pair =
        |h: &[Hit]| -> BTreeMap<(u32, u32), Hit> { h.iter().map(|h| ((h.a, h.b), *h)).collect() };
    let (g, t) = (by_pair(gpu), by_pair(twin));
    assert_eq!(g.len(), gpu.len(), "{name}: a pair twice in the GPU's hits");
    let near_threshold = |h: &Hit| {
        let d = f32::from_bits(h.dist_bits);
        (d - threshold).abs() <= 1e-5 * (1.0 + d.abs())
    };
    let keys: BTreeSet<(u32, u32)> = g.keys().chain(t.keys()).copied().collect();
    let mut differ = 0;
    for k in &keys {
        let (x, y) = (g.get(k), t.get(k));
        differ += (x.map(|h| h.flag) != y.map(|h| h.flag)) as usize;
        match (x, y) {
            (Some(x), Some(y)) if x.flag == y.flag => {
                let (dx, dy) = (f32::from_bits(x.dist_bits), f32::from_bits(y.dist_bits));
                assert!(
                    (dx - dy).abs() <= 1e-5 * (1.0 + dx.abs()),
                    "{name}: {k:?} f32 distance {dx} on the GPU, {dy} on the twin"
                );
            }
            (Some(x), Some(y)) => assert!(
                x.flag == UNSURE || y.flag == UNSURE,
                "{name}: {k:?} flagged {} on the GPU, {} on the twin",
                x.flag,
                y.flag
            ),
            (Some(x), None) | (None, Some(x)) => assert!(
                x.flag == UNSURE || (x.flag == DISJOINT && near_threshold(x)),
                "{name}: {k:?} flagged {} on one side only",
                x.flag
            ),
            (None, None) => unreachable!(),
        }
    }
    assert!(
        differ <= 1 + keys.len() / 1000,
        "{name}: {differ} of {} pairs flagged differently on the GPU and the twin",
        keys.len()
    );
    keys.len()
}

/// A part's records and vertex indices as the narrow twin takes them.
fn side(p: &HostPart) -> twin::narrow::Side<'_> {
    twin::narrow::Side {
        tris: &p.records,
        vidx: &p.vidx,
    }
}

/// `narrow::main` in clearance mode (intersecting pairs, and disjoint ones kept by their f32
/// distance against the clearance) equals its twin over the GPU's own candidates.
#[test]
fn narrow_at_a_clearance_equals_its_twin() {
    let Some(ctx) = common::gpu_or_skip("narrow_at_a_clearance_equals_its_twin") else {
        return;
    };
    let b = GpuBackend::new(ctx).unwrap();
    let d = 0.05;
    let mut compared = 0;
    for (name, ma, pa, mb, pb) in scenes() {
        let (ga, gb) = (b.upload(&ma).unwrap(), b.upload(&mb).unwrap());
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        let q = whole_query(&b, (&xa, &ga), (&xb, &gb), d, MODE_CLEARANCE);
        let (ha, hb) = (whole(&ma), whole(&mb));
        let (gpu_c, _, hits, _) = cull_equal_to_twin(&b, &name, (&ha, &ga), (&hb, &gb), &q);
        let (pa_, pb_) = (&ha.parts[0], &hb.parts[0]);
        let pairs: Vec<[u32; 2]> = gpu_c.into_iter().collect();
        let twin_h = twin::narrow::main(&q, side(pa_), side(pb_), &pairs);
        compared += hits_agree(&name, &hits, &twin_h, q.tol[0] + q.tol[3]);
    }
    assert!(compared > 0, "no scene gave the narrow stage a pair");
}

/// Self-intersection: the cull of a mesh against itself (each unordered pair once, subtrees
/// before A's triangles skipped) and the narrow stage's neighbour rule equal their twins, on
/// meshes with neighbours of every kind (shared vertices, edges, a soup that cuts itself).
#[test]
fn self_cull_and_neighbour_rule_equal_their_twins() {
    let Some(ctx) = common::gpu_or_skip("self_cull_and_neighbour_rule_equal_their_twins") else {
        return;
    };
    let b = GpuBackend::new(ctx).unwrap();
    let load = |f: &str| PreparedMesh::new(Mesh::load(common::case_path(f)).unwrap());
    let meshes = [
        (
            "torus",
            PreparedMesh::new(generate::torus(1.0, 0.3, 48, 16)),
        ),
        ("soup", load("meshes/soup.stl")),
        ("cgal_non_manifold", load("meshes/cgal_non_manifold.stl")),
        ("busted", load("meshes/busted.stl")),
    ];
    let mut neighbours = 0;
    for (name, m) in &meshes {
        let g = b.upload(m).unwrap();
        let x = Posed::new(m, Pose::IDENTITY);
        let q = whole_query(&b, (&x, &g), (&x, &g), 0.0, MODE_SELF);
        let h = whole(m);
        let (gpu_c, _, hits, _) = cull_equal_to_twin(&b, name, (&h, &g), (&h, &g), &q);
        let p = &h.parts[0];
        let pairs: Vec<[u32; 2]> = gpu_c.into_iter().collect();
        assert!(
            pairs.iter().all(|&[i, j]| i < j),
            "{name}: a pair twice or with itself"
        );
        let twin_h = twin::narrow::main(&q, side(p), side(p), &pairs);
        hits_agree(name, &hits, &twin_h, 0.0);
        let shares = |&[i, j]: &[u32; 2]| {
            let (a, c) = (
                &p.vidx[3 * i as usize..][..3],
                &p.vidx[3 * j as usize..][..3],
            );
            a.iter().any(|v| c.contains(v))
        };
        neighbours += pairs.iter().filter(|pr| shares(pr)).count();
    }
    assert!(neighbours > 0, "no candidate pair shared a vertex");
}

/// The nearest stage's twin walks as the shader does (sampled walks first, then every walk by
/// the escapes, pruned by the shared bound): its minimum is the brute force's exactly (the
/// same f32 function, and a pair is pruned only when a lower bound puts it beyond the bound),
/// and it emits every pair at or below that minimum. On the CPU alone.
#[test]
fn nearest_walk_twin_finds_the_brute_force_minimum() {
    let mut emitted_needed = 0;
    for (name, ma, pa, mb, pb) in scenes() {
        let (ha, hb) = (whole(&ma), whole(&mb));
        let (xa, xb) = (Posed::new(&ma, pa), Posed::new(&mb, pb));
        let mut f = twin_frame(&xa, &ha, &xb, &hb);
        f.query.mode = MODE_DISTANCE;
        let (pa_, pb_) = (&ha.parts[0], &hb.parts[0]);
        let q = Query {
            chunk_start: 0,
            chunk_end: pa_.records.len().min(150) as u32,
            ..f.query
        };
        let all = twin::nearest::all_pairs(&q, &pa_.records, &pa_.octree.tri_index, &pb_.records);
        let m_brute = all.iter().map(|x| x.0).fold(f32::INFINITY, f32::min);
        for walkers in [1, 4] {
            let parts = twin::nearest::Parts {
                tris_a: &pa_.records,
                tris_b: &pb_.records,
                nodes_a: &pa_.nodes,
                nodes_b: &pb_.nodes,
                walkers,
            };
            let (m, hits) = twin::nearest::walk(&q, &parts);
            assert_eq!(
                m, m_brute,
                "{name}, {walkers} walkers: walk {m}, brute force {m_brute}"
            );
            let emitted: BTreeSet<(u32, u32)> = hits.iter().map(|h| (h.a, h.b)).collect();
            for x in all.iter().filter(|x| x.0 <= m) {
                assert!(emitted.contains(&(x.1, x.2)), "{name}: {x:?} not emitted");
                emitted_needed += 1;
            }
        }
    }
    assert!(emitted_needed > 0, "no scene tested the emission");
}
