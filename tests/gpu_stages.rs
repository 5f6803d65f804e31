//! Each GPU stage against its CPU twin (`gpu::twin`, the same f32 code) on generated inputs,
//! random and hard (coincident copies, touching faces, far from the origin). Rounding may differ
//! in the last bit (GPU compilers fuse multiply-adds), so a pair may be certain on one side and
//! unsure on the other; never certain both ways, and never missing from the cull where the
//! exact answer needs it.

mod common;

use glam::DVec3;
use meshclash::geom::tritri;
use meshclash::gpu::layout::{
    Hit, Query, CERTAIN, MODE_CLEARANCE, MODE_DISTANCE, MODE_INTERSECT, UNSURE,
};
use meshclash::gpu::{query::frame, twin, GpuBackend, GpuMesh, HostArrays, Narrow};
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
    let twin_c: Candidates = twin::cull(
        q,
        &ha.records,
        &hb.records,
        &ha.nodes,
        &ha.octree.tri_index,
        &hb.nodes,
        &hb.octree.tri_index,
    )
    .into_iter()
    .collect();
    let differ = gpu_c.symmetric_difference(&twin_c).count();
    assert!(
        differ * 1000 <= gpu_c.len().max(1),
        "{name}: cull differs from its twin on {differ} of {} pairs",
        gpu_c.len()
    );
    (gpu_c, twin_c, hits, differ)
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
        let all = twin::nearest(
            &q,
            &ha.parts[0].records,
            &ha.parts[0].octree.tri_index,
            &hb.parts[0].records,
        );
        let m_twin = all.iter().map(|x| x.0).fold(f32::INFINITY, f32::min) as f64;
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
