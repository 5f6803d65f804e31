//! Rays, watertight: closed meshes with integer coordinates hit exactly at their vertices,
//! edge midpoints and face centres, from outside (two hits: in and out) and from inside (one),
//! with `t` worked by hand; a ray along an edge; random rays against Möller–Trumbore over every
//! triangle; and `meshclash ray` as scripts use it.

mod common;

use glam::DVec3;
use meshclash::geom::ray::ray_triangle_mt;
use meshclash::mesh::{generate, read::Soup, Mesh, Pose};
use meshclash::query::{self, Hits, Posed};
use meshclash::PreparedMesh;

/// The cube [-1, 1]³ (12 triangles, outward) and the octahedron with vertices ±e_i (8).
fn solids() -> Vec<(PreparedMesh, Vec<DVec3>)> {
    let cube = common::box_soup([-1.0; 3], [1.0; 3]);
    let e = |k: usize, s: f32| {
        let mut p = [0.0; 3];
        p[k] = s;
        p
    };
    let mut octa: Soup = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                let (a, b, c) = (e(0, sx), e(1, sy), e(2, sz));
                // Outward: counter-clockwise seen from the octant.
                octa.push(if sx * sy * sz > 0.0 {
                    [a, b, c]
                } else {
                    [a, c, b]
                });
            }
        }
    }
    [cube, octa]
        .into_iter()
        .map(|s| {
            let m = PreparedMesh::new(Mesh::from_soup("solid", s).unwrap());
            assert!(m.info.closed && m.info.oriented);
            // Targets: every vertex, edge midpoint and face centre (all exact).
            let mut targets: Vec<DVec3> = (0..m.mesh.vertices.len() as u32)
                .map(|i| m.mesh.vertex(i))
                .collect();
            for t in &m.mesh.triangles {
                for k in 0..3 {
                    let (a, b) = (m.mesh.vertex(t[k]), m.mesh.vertex(t[(k + 1) % 3]));
                    targets.push((a + b) * 0.5);
                }
            }
            (m, targets)
        })
        .collect()
}

#[test]
fn rays_through_vertices_edges_and_faces_hit_once_each_way() {
    for (m, targets) in solids() {
        let posed = Posed::new(&m, Pose::IDENTITY);
        for &target in &targets {
            // From outside, through the target, through the centre and out the other side.
            let from = target * 3.0;
            let d = -target;
            let all = query::ray_hits(from, d, &posed, f64::INFINITY, Hits::All);
            assert_eq!(all.len(), 2, "through {target}: {all:?}");
            // In at the target (from + 2 d), out at the point opposite (from + 4 d).
            assert!(
                (all[0].t - 2.0).abs() < 1e-12 && (all[1].t - 4.0).abs() < 1e-12,
                "{all:?}"
            );
            assert!(all[0].point.distance(target) < 1e-12 && all[0].front && !all[1].front);
            let first = query::ray_hits(from, d, &posed, f64::INFINITY, Hits::First);
            assert_eq!(first, all[..1]);
            // From the centre out through the target: once, at t = 1.
            let out = query::ray_hits(DVec3::ZERO, target, &posed, f64::INFINITY, Hits::All);
            assert_eq!(out.len(), 1, "out through {target}: {out:?}");
            assert!((out[0].t - 1.0).abs() < 1e-12);
            // Stopping short of the target: nothing.
            assert!(query::ray_hits(from, d, &posed, 1.999, Hits::Any).is_empty());
            assert_eq!(query::ray_hits(from, d, &posed, 2.0, Hits::Any).len(), 1);
            // From the target itself, with no length at all: the hit at the origin, once.
            for hits in [Hits::First, Hits::Any, Hits::All] {
                let at = query::ray_hits(target, d, &posed, 0.0, hits);
                assert!(at.len() == 1 && at[0].t == 0.0, "from {target}: {at:?}");
            }
        }
    }
    // Along an edge of the cube (in two faces' planes): it touches the end faces at their
    // corners, t = 1 and 3, once each.
    let (cube, _) = solids().remove(0);
    let posed = Posed::new(&cube, Pose::IDENTITY);
    let along = query::ray_hits(
        DVec3::new(-2.0, -1.0, -1.0),
        DVec3::X,
        &posed,
        f64::INFINITY,
        Hits::All,
    );
    let ts: Vec<f64> = along.iter().map(|h| h.t).collect();
    assert_eq!(ts, [1.0, 3.0], "{along:?}");
}

/// A solid of unit cells `cells` (in `[0, 3)³`): every face between a cell in it and one out,
/// two triangles each, outward, placed by `x ↦ scale · x + shift` (exact in f32 for the
/// scales and shifts used).
fn voxel_solid(cells: &[[i64; 3]], scale: f32, shift: f32) -> PreparedMesh {
    let filled = |c: [i64; 3]| cells.contains(&c);
    let mut soup: Soup = Vec::new();
    for &c in cells {
        for k in 0..3 {
            for side in [0, 1] {
                let mut n = c;
                n[k] += if side == 1 { 1 } else { -1 };
                if filled(n) {
                    continue;
                }
                // The face's corners, counter-clockwise seen from outside.
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                let corner = |a: i64, b: i64| {
                    let mut p = c;
                    p[k] += side;
                    p[i] += a;
                    p[j] += b;
                    p.map(|x| x as f32 * scale + shift)
                };
                let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)];
                let q = if side == 1 {
                    q
                } else {
                    [q[0], q[3], q[2], q[1]]
                };
                soup.push([q[0], q[1], q[2]]);
                soup.push([q[0], q[2], q[3]]);
            }
        }
    }
    PreparedMesh::new(Mesh::from_soup("voxels", soup).unwrap())
}

/// Where the ray from `o` along `d` (integers, in eighths of a cell; no component of `d`
/// zero, so it lies in no face's plane) meets the surface of the solid `cells`, exactly: the
/// distinct `t ≥ 0` at which it crosses a grid plane at a point that closes both a cell in
/// the solid and one out of it, as fractions `(numerator, denominator > 0)`, ascending.
fn voxel_contacts(cells: &[[i64; 3]], o: [i64; 3], d: [i64; 3]) -> Vec<(i64, i64)> {
    let mut found: Vec<(i64, i64)> = Vec::new();
    for k in 0..3 {
        for plane in -1..=4 {
            // t = (8 plane - o_k) / d_k, as a fraction with a positive denominator.
            let (mut num, mut den) = (8 * plane - o[k], d[k]);
            if den < 0 {
                (num, den) = (-num, -den);
            }
            if num < 0 {
                continue;
            }
            // The point, in eighths times den: o den + num d; the cells whose closure holds it.
            let p = [0, 1, 2].map(|j| o[j] * den + num * d[j]);
            let spans = p.map(|x| {
                let cell = x.div_euclid(8 * den);
                if x.rem_euclid(8 * den) == 0 {
                    vec![cell - 1, cell]
                } else {
                    vec![cell]
                }
            });
            let mut kinds = [false; 2];
            for &x in &spans[0] {
                for &y in &spans[1] {
                    for &z in &spans[2] {
                        kinds[cells.contains(&[x, y, z]) as usize] = true;
                    }
                }
            }
            if kinds == [true, true] && !found.iter().any(|&(n, e)| n * den == num * e) {
                found.push((num, den));
            }
        }
    }
    found.sort_by(|a, b| (a.0 * b.1).cmp(&(b.0 * a.1)));
    found
}

/// Closed solids of unit cells, concave: a corner with its three neighbours, a staircase, a
/// ring, and cells at random (some meeting only along an edge or at a corner). Rays from
/// random points in eighths of a cell exactly through every vertex and edge midpoint, scaled
/// small and shifted far from the origin: one hit at each distinct point where the ray meets
/// the surface, where it crosses and where it only touches (exact contacts above), never two.
/// Before the edges were decided on the ray's own line (its rounded end's line passed a corner
/// beside it), a ray through a concave corner hit it twice.
#[test]
fn rays_through_the_corners_and_edges_of_concave_solids_hit_once_at_each_contact() {
    let mut rnd = common::lcg(0x00c0_ffee);
    let mut random = Vec::new();
    for x in 0..3 {
        for y in 0..3 {
            for z in 0..3 {
                if rnd() < 0.45 {
                    random.push([x, y, z]);
                }
            }
        }
    }
    let solids: [Vec<[i64; 3]>; 4] = [
        vec![[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
        (0..27)
            .map(|i| [i % 3, i / 3 % 3, i / 9])
            .filter(|c| c[0] + c[1] + c[2] <= 2)
            .collect(),
        (0..9)
            .map(|i| [i % 3, i / 3, 0])
            .filter(|c| c != &[1, 1, 0])
            .collect(),
        random,
    ];
    let (mut rays, mut touching) = (0, 0);
    for cells in &solids {
        for (scale, shift) in [(1.0f32, 0.0f32), (1.0 / 1024.0, 0.0), (1.0, 1048576.0)] {
            let m = voxel_solid(cells, scale, shift);
            let posed = Posed::new(&m, Pose::IDENTITY);
            // Every vertex and edge midpoint, in eighths of a cell.
            let mut targets: Vec<[i64; 3]> = Vec::new();
            for t in &m.mesh.triangles {
                for k in 0..3 {
                    let at = |i: u32| {
                        let v = m.mesh.vertex(i);
                        [v.x, v.y, v.z].map(|x| ((x - shift as f64) / scale as f64 * 8.0) as i64)
                    };
                    let (a, b) = (at(t[k]), at(t[(k + 1) % 3]));
                    targets.push(a);
                    targets.push([0, 1, 2].map(|j| (a[j] + b[j]) / 2));
                }
            }
            targets.sort();
            targets.dedup();
            for target in targets {
                let o = [0; 3].map(|_| (rnd() * 40.0) as i64 - 8);
                let d = [0, 1, 2].map(|j| target[j] - o[j]);
                if d.contains(&0) {
                    continue;
                }
                let world =
                    |p: [i64; 3]| DVec3::from_array(p.map(|x| x as f64 / 8.0)) * scale as f64;
                let (wo, wd) = (world(o) + DVec3::splat(shift as f64), world(d));
                let got = query::ray_hits(wo, wd, &posed, f64::INFINITY, Hits::All);
                let want = voxel_contacts(cells, o, d);
                let ts: Vec<f64> = got.iter().map(|h| h.t).collect();
                assert_eq!(
                    got.len(),
                    want.len(),
                    "{cells:?} x{scale}+{shift}: {o:?} {d:?}: {ts:?} / {want:?}"
                );
                for (h, &(num, den)) in got.iter().zip(&want) {
                    let t = num as f64 / den as f64;
                    assert!(
                        (h.t - t).abs() <= 1e-9 * (1.0 + t),
                        "{o:?} {d:?}: {ts:?} / {want:?}"
                    );
                }
                let first = query::ray_hits(wo, wd, &posed, f64::INFINITY, Hits::First);
                assert_eq!(first, got[..got.len().min(1)], "{o:?} {d:?}");
                rays += 1;
                touching += want.len() % 2; // an odd count from outside: a contact only touched
            }
        }
    }
    // Not vacuous: hundreds of rays, some of them only touching the surface somewhere.
    assert!(rays > 500 && touching > 10, "{rays} {touching}");
}

#[test]
fn random_rays_hit_as_moller_trumbore_over_every_triangle() {
    let m = PreparedMesh::new(generate::torus(1.0, 0.3, 30, 12));
    let pose = Pose::from_euler_degrees([12.0, 34.0, 56.0], DVec3::new(5.0, -3.0, 1e3));
    let posed = Posed::new(&m, pose);
    let mut rnd = common::lcg(99);
    let mut hit = 0;
    for _ in 0..300 {
        let o = pose.apply(DVec3::new(
            rnd() * 4.0 - 2.0,
            rnd() * 4.0 - 2.0,
            rnd() * 2.0 - 1.0,
        ));
        let d = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
        let mut want: Vec<(f64, u32)> = (0..m.mesh.triangles.len() as u32)
            .filter_map(|t| ray_triangle_mt(o, d, &posed.tri(t)).map(|(t_hit, _, _)| (t_hit, t)))
            .filter(|h| h.0 >= 0.0)
            .collect();
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let got = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::All);
        assert_eq!(got.len(), want.len(), "{o} {d}: {got:?} / {want:?}");
        // The first hit's walk stops early; it must still find the nearest of all.
        let first = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::First);
        assert_eq!(first, got[..got.len().min(1)], "{o} {d}");
        let any = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::Any);
        assert_eq!(any.len(), got.len().min(1), "{o} {d}");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.triangle, w.1);
            assert!(
                (g.t - w.0).abs() <= 1e-9 * (1.0 + w.0),
                "{} vs {}",
                g.t,
                w.0
            );
        }
        hit += (!got.is_empty()) as usize;
    }
    assert!(hit > 50, "{hit}");
}

#[test]
fn the_ray_command_reads_rows_and_writes_hits() {
    let dir = std::env::temp_dir().join(format!("meshclash-rays-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cube = common::case_path("meshes/cube_trimesh.stl");
    let rays = dir.join("rays.csv");
    // The unit cube centred at the origin: a ray in along x hits x = -0.5 at t = 1.5 and
    // leaves at x = 0.5; a ray beside it misses.
    std::fs::write(&rays, "ox,oy,oz,dx,dy,dz\n-2,0.1,0.2,1,0,0\n-2,3,0,1,0,0\n").unwrap();
    let out = dir.join("hits.json");
    let run = common::cli;
    let r = run(&[
        "ray",
        cube.to_str().unwrap(),
        rays.to_str().unwrap(),
        "--hits",
        "all",
        "--json",
        "--backend",
        "cpu",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(
        (summary["count"].as_u64(), summary["hit"].as_u64()),
        (Some(2), Some(1))
    );
    // Building the tree is timed apart from the query, as `poses` does.
    assert!(summary["prepare_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
    assert_eq!(
        summary["timings_ms"]["total"],
        summary["timings_ms"]["query"]
    );
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["t"], 1.5);
    assert_eq!(rows[0]["front"], true);
    assert_eq!(rows[1]["t"], 2.5);
    let bad = dir.join("zero.csv");
    std::fs::write(&bad, "0,0,0,1,0,0\n0,0,0,0,0,0\n").unwrap();
    let r = run(&[
        "ray",
        cube.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--backend",
        "cpu",
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("row 1 has a zero direction"));
    // A ray whose segment past the mesh is beyond f64 is named by its own line, after a
    // header (a review's helper: it was named by its index plus one, line 2 here).
    std::fs::write(&bad, "ox,oy,oz,dx,dy,dz\n-1,1,1,1,0,0\n-1,1,1,5e-324,0,0\n").unwrap();
    let r = run(&["ray", cube.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("zero.csv:3: row 1: the ray's segment past"),
        "{err}"
    );
}

#[test]
fn rays_with_tiny_directions_still_hit_and_csv_headers_are_only_headers() {
    let (cube, _) = solids().remove(0);
    let posed = Posed::new(&cube, Pose::IDENTITY);
    // Components below 1.5e-162: their squares underflow, the direction is not zero.
    let d = DVec3::new(1e-170, 0.0, 0.0);
    let hits = query::ray_hits(
        DVec3::new(-3.0, 0.1, 0.2),
        d,
        &posed,
        f64::INFINITY,
        Hits::All,
    );
    assert_eq!(hits.len(), 2, "{hits:?}");
    // A byte-order mark before the first row, and a first row with a mistyped number.
    let dir = std::env::temp_dir().join(format!("meshclash-rays-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cube_file = common::case_path("meshes/cube_trimesh.stl");
    let run = |body: &str| {
        let f = dir.join("rays.csv");
        std::fs::write(&f, body).unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_meshclash"))
            .args([
                "ray",
                cube_file.to_str().unwrap(),
                f.to_str().unwrap(),
                "--json",
                "--backend",
                "cpu",
            ])
            .output()
            .unwrap()
    };
    let r = run("\u{feff}-2,0.1,0.2,1,0,0\n-2,3,0,1,0,0\n");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!((v["count"].as_u64(), v["hit"].as_u64()), (Some(2), Some(1)));
    let r = run("-2,0.1,O.2,1,0,0\n-2,3,0,1,0,0\n");
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains(":1: not a number"));
}

/// The meshes and poses the GPU's rays run over: the solids' exact vertices and edges (every
/// hit through them is the CPU's to decide), a torus far from the origin and turned, the
/// teapot (open, 894 triangles).
fn gpu_cases() -> Vec<(String, PreparedMesh, Pose, Vec<DVec3>)> {
    let mut cases: Vec<_> = solids()
        .into_iter()
        .enumerate()
        .map(|(i, (m, targets))| (format!("solid {i}"), m, Pose::IDENTITY, targets))
        .collect();
    cases.push((
        "torus far away".into(),
        PreparedMesh::new(generate::torus(1.0, 0.3, 40, 16)),
        Pose::from_euler_degrees([12.0, 34.0, 56.0], DVec3::new(5e4, -3.0, 1e3)),
        Vec::new(),
    ));
    cases.push((
        "teapot".into(),
        PreparedMesh::new(Mesh::load(common::case_path("meshes/teapot.stl")).unwrap()),
        Pose::translation(DVec3::new(-2.0, 0.5, 7.0)),
        Vec::new(),
    ));
    cases
}

/// Rays for a case: from the box around it in random directions, plus (for the solids) from
/// outside exactly through each vertex and edge midpoint, and axis-aligned ones.
fn gpu_rays(posed: &Posed, targets: &[DVec3], seed: u64) -> Vec<(DVec3, DVec3)> {
    let mut rnd = common::lcg(seed);
    let b = posed.prep.octree.nodes[0].aabb();
    let mut rays: Vec<(DVec3, DVec3)> = (0..600)
        .map(|i| {
            let t = DVec3::new(rnd(), rnd(), rnd()) * 1.4 - 0.2;
            let o = posed.pose.apply(b.min + (b.max - b.min) * t);
            let d = if i % 10 == 0 {
                DVec3::AXES[i / 10 % 3] * if i % 20 == 0 { 1.0 } else { -1.0 }
            } else {
                DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5)
            };
            (o, d)
        })
        .collect();
    rays.extend(targets.iter().map(|&x| (x * 3.0, -x)));
    rays
}

#[test]
fn gpu_rays_equal_the_cpus_to_the_bit() {
    let test = "gpu_rays_equal_the_cpus_to_the_bit";
    let Some(ctx) = common::gpu_or_skip(test) else {
        return;
    };
    let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let (mut sure_hits, mut sure_misses, mut unsure, mut all_sure) = (0, 0, 0, 0);
    for (name, m, pose, targets) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let rays = gpu_rays(&posed, &targets, 7);
        let gm = gpu.resident(&m).unwrap();
        for hits in [Hits::First, Hits::Any, Hits::All] {
            for max_t in [f64::INFINITY, 1.5, 0.0] {
                let got = gpu.ray_hits(&posed, &gm, &rays, max_t, hits).unwrap();
                for (i, &(o, d)) in rays.iter().enumerate() {
                    let want = query::ray_hits(o, d, &posed, max_t, hits);
                    assert_eq!(got[i], want, "{name}, {hits:?}, ray {i}: {o} {d}");
                }
            }
        }
        let run = gpu
            .ray_run(&posed, &gm, &rays, f64::INFINITY, Hits::First)
            .unwrap();
        for o in &run.out {
            match (o.unsure, o.slot) {
                (0, meshclash::gpu::layout::NO_HIT) => sure_misses += 1,
                (0, _) => sure_hits += 1,
                _ => unsure += 1,
            }
        }
        let every = gpu
            .ray_run(&posed, &gm, &rays, f64::INFINITY, Hits::All)
            .unwrap();
        all_sure += every
            .all
            .iter()
            .filter(|o| o.unsure == 0 && o.count > 1)
            .count();
        // Every ray exactly through a vertex or an edge is the CPU's to decide.
        let first_target = rays.len() - targets.len();
        assert!(
            run.out[first_target..].iter().all(|o| o.unsure != 0),
            "{name}"
        );
    }
    // All hits: the GPU certified rays through several triangles.
    assert!(all_sure > 300, "{all_sure}");
    // Both paths ran, and the GPU answered most.
    assert!(
        sure_hits > 600 && sure_misses > 1000 && unsure >= 74 && unsure * 5 < sure_hits,
        "{sure_hits} sure hits, {sure_misses} sure misses, {unsure} unsure"
    );
    // Through the backend, as the CLI and Python ask.
    let (name, m, pose, targets) = gpu_cases().remove(2);
    let rays = gpu_rays(&Posed::new(&m, pose), &targets, 8);
    let b = meshclash::Backend::from_gpu(gpu);
    let via = b
        .ray_hits(&m, pose, &rays, f64::INFINITY, Hits::First)
        .unwrap();
    let cpu = meshclash::Backend::cpu()
        .ray_hits(&m, pose, &rays, f64::INFINITY, Hits::First)
        .unwrap();
    assert_eq!(via, cpu, "{name}");
}

/// A ray's answer from the stage: unsure (non-zero), and the slots a sure answer names.
type Said = (u32, Vec<u32>);

/// The stage against its twin: where both are sure, the same triangle (or none); the unsure
/// sets may differ only where a fused multiply-add moved a value across its bound.
#[test]
fn the_rays_stage_equals_its_twin() {
    let Some(ctx) = common::gpu_or_skip("the_rays_stage_equals_its_twin") else {
        return;
    };
    let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    for (name, m, pose, targets) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let rays = gpu_rays(&posed, &targets, 9);
        let gm = gpu.resident(&m).unwrap();
        for hits in [Hits::First, Hits::Any, Hits::All] {
            let run = gpu.ray_run(&posed, &gm, &rays, 2.5, hits).unwrap();
            let (twin, twin_all) = twin_of(&posed, &gm, &run);
            // (unsure, what a sure answer says) of each ray, GPU and twin.
            let (gpu_side, twin_side): (Vec<Said>, Vec<Said>) = if hits == Hits::All {
                let f = |o: &meshclash::gpu::layout::SlotsOut| {
                    (o.unsure, o.slots[..o.count as usize].to_vec())
                };
                (
                    run.all.iter().map(f).collect(),
                    twin_all.iter().map(f).collect(),
                )
            } else {
                let f = |o: &meshclash::gpu::layout::RayOut| (o.unsure, vec![o.slot]);
                (
                    run.out.iter().map(f).collect(),
                    twin.iter().map(f).collect(),
                )
            };
            let mut flips = 0;
            for (i, (g, t)) in gpu_side.iter().zip(&twin_side).enumerate() {
                if g.0 == 0 && t.0 == 0 {
                    assert_eq!(g.1, t.1, "{name}, {hits:?}, ray {i}");
                } else if g.0 != t.0 {
                    flips += 1;
                }
            }
            assert!(flips <= 1 + rays.len() / 1000, "{name}: {flips} flips");
        }
    }
}

/// The twin's answers to a run's rays, on the host arrays its hierarchy was uploaded from: the
/// first (or any) hits, and all hits.
fn twin_of(
    posed: &Posed,
    gm: &meshclash::gpu::GpuMesh,
    run: &meshclash::gpu::RayRun,
) -> (
    Vec<meshclash::gpu::layout::RayOut>,
    Vec<meshclash::gpu::layout::SlotsOut>,
) {
    let q = run.query.expect("within f32");
    let (nodes, corners) = meshclash::gpu::bvh_arrays(posed, gm);
    let n = q.rays as usize;
    let mut twin = vec![Default::default(); n];
    let mut twin_all = vec![Default::default(); n];
    meshclash::gpu::twin::rays::main(&q, &nodes, &corners, &run.rays, &mut twin, &mut twin_all);
    (twin, twin_all)
}

/// Walks given less room for the nodes they keep than they need (what a hierarchy deeper than
/// 32 levels would overflow; these are shallower, so the tests lower the room): such a ray is
/// unsure on the GPU as in its twin, never answered from a walk cut short, and the backend's
/// answers are still the CPU's, for the first hit and for all hits.
#[test]
fn rays_whose_walks_overflow_their_room_are_unsure_and_answered_as_on_the_cpu() {
    use meshclash::gpu::layout::RayOut;
    let test = "rays_whose_walks_overflow_their_room_are_unsure_and_answered_as_on_the_cpu";
    let Some(ctx) = common::gpu_or_skip(test) else {
        return;
    };
    let mut gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let unsure = |out: &[RayOut]| out.iter().filter(|o| o.unsure != 0).count();
    // Unsure rays with room to spare, with none and with one; rays.
    let (mut roomy, mut cramped, mut count) = (0, [0, 0], 0);
    for (name, m, pose, targets) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let rays = gpu_rays(&posed, &targets, 10);
        let gm = gpu.resident(&m).unwrap();
        let run = |gpu: &meshclash::gpu::GpuBackend, hits| {
            gpu.ray_run(&posed, &gm, &rays, f64::INFINITY, hits)
                .unwrap()
        };
        gpu.walk_room = meshclash::gpu::twin::KEPT as u32;
        roomy += unsure(&run(&gpu, Hits::First).out);
        count += rays.len();
        for room in [0, 1] {
            gpu.walk_room = room;
            let first = run(&gpu, Hits::First);
            assert_eq!(first.query.map(|q| q.kept), Some(room));
            let (twin, _) = twin_of(&posed, &gm, &first);
            // As the stage's own test allows: a fused multiply-add may move a bound across.
            let flips = first.out.iter().zip(&twin).filter(|(g, t)| g != t).count();
            assert!(
                flips <= 1 + rays.len() / 1000,
                "{name}, room {room}: {flips} flips"
            );
            cramped[room as usize] += unsure(&first.out);
            for hits in [Hits::First, Hits::All] {
                let got = gpu
                    .ray_hits(&posed, &gm, &rays, f64::INFINITY, hits)
                    .unwrap();
                for (i, &(o, d)) in rays.iter().enumerate() {
                    let want = query::ray_hits(o, d, &posed, f64::INFINITY, hits);
                    assert_eq!(got[i], want, "{name}, room {room}, {hits:?}, ray {i}");
                }
            }
        }
    }
    // Not vacuous: most rays that walk open a node whose two children they enter.
    assert!(
        cramped[0] > roomy + count / 4 && cramped[1] > roomy + count / 10,
        "{cramped:?} unsure against {roomy} with room, of {count}"
    );
}

/// A review's counterexample: a ray from 1e9 away (on a part 0.1 across) meets a facing
/// triangle A, then 0.03 further a thin triangle B tilted 1e-6 from it. The f64 `t` of the
/// graze is off by more than the gap and put B first; the first hit is the nearest crossing,
/// compared exactly, and the GPU's certified answer is the same.
#[test]
fn a_grazed_triangle_behind_another_is_not_the_first_hit() {
    let a = [
        [0.0071260016, 0.04849896, 0.012165801],
        [0.025894027, -0.020636138, -0.036497544],
        [-0.047358662, -0.018769931, 0.0096606845],
    ];
    let b = [
        [-0.0052545536, 0.0033588, -0.0057130703],
        [-0.04296341, 0.03617931, -0.06688378],
        [-0.005261301, 0.0036213337, -0.0055680512],
    ];
    let m = PreparedMesh::new(Mesh::from_soup("graze", vec![a, b]).unwrap());
    let posed = Posed::new(&m, Pose::IDENTITY);
    let o = DVec3::new(477328200.8782071, -415449246.36529315, 774312412.6127836);
    let d = DVec3::new(
        -0.47732820088298655,
        0.41544924636832403,
        -0.774312412617674,
    );
    let all = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::All);
    assert_eq!(all.len(), 2, "{all:?}");
    let first = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::First);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].triangle, 0, "A is crossed first: {first:?}");
    // The t reported agree: the graze's, `d . n` nearly cancelling, is the exact quotient
    // rounded (its f64 formula put it below A's).
    let by_t = all.iter().min_by(|x, y| x.t.total_cmp(&y.t)).unwrap();
    assert_eq!(by_t.triangle, 0, "{all:?}");
    if let Some(ctx) = common::gpu_or_skip("a_grazed_triangle_behind_another_is_not_the_first_hit")
    {
        let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
        let gm = gpu.resident(&m).unwrap();
        let got = gpu
            .ray_hits(&posed, &gm, &[(o, d)], f64::INFINITY, Hits::First)
            .unwrap();
        assert_eq!(got[0], first);
    }
}

/// A ray from 1e155 towards a unit cube hits it at t = 1e155 - 1/2, as it does with a long
/// `max_t`: its segment was measured from the mesh's centre by a square (1e310, infinite) and
/// the ray refused as beyond f64 (a review's helper). From 1e308 it still is: its segment past
/// the mesh cannot be held.
#[test]
fn rays_from_far_away_are_answered_while_their_segment_fits_f64() {
    let cube = common::box_mesh([-0.5; 3], [0.5; 3]);
    let posed = Posed::new(&cube, Pose::IDENTITY);
    for x in [1e150, 1e155, 1e200, 1e300] {
        let (o, d) = (DVec3::new(x, 0.0, 0.0), DVec3::new(-1.0, 0.0, 0.0));
        for max_t in [f64::INFINITY, 1.5 * x] {
            let hits = query::ray_hits(o, d, &posed, max_t, Hits::First);
            assert_eq!(hits.len(), 1, "from {x:e}, max_t {max_t:e}");
            // t = x - 0.5 rounds to x at these magnitudes.
            assert_eq!(hits[0].t, x - 0.5, "from {x:e}");
        }
    }
    let far = [(DVec3::new(1.7e308, 0.0, 0.0), DVec3::new(-1.0, 0.0, 0.0))];
    assert_eq!(
        query::first_unbounded_ray(&far, &posed, f64::INFINITY),
        Some(0)
    );
}

/// The hits of each ray on `m` on the CPU, and the same from the GPU where there is one.
fn on_both_backends(
    test: &str,
    m: &PreparedMesh,
    rays: &[(DVec3, DVec3)],
    hits: Hits,
) -> Vec<Vec<query::RayHit>> {
    let posed = Posed::new(m, Pose::IDENTITY);
    let cpu: Vec<_> = rays
        .iter()
        .map(|&(o, d)| query::ray_hits(o, d, &posed, f64::INFINITY, hits))
        .collect();
    if let Some(ctx) = common::gpu_or_skip(test) {
        let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
        let gm = gpu.resident(m).unwrap();
        let got = gpu
            .ray_hits(&posed, &gm, rays, f64::INFINITY, hits)
            .unwrap();
        assert_eq!(got, cpu, "the GPU answers as the CPU");
    }
    cpu
}

/// `x` within `ulps` units in the last place of `want`.
fn within_ulps(x: f64, want: f64, ulps: f64) -> bool {
    (x - want).abs() <= ulps * f64::EPSILON * want.abs()
}

/// A review's helper's rays, 1.5e-17 radians from the plane of triangle 0 of a closed,
/// oriented tetrahedron with integer corners. Worked in Python's `Fraction` over the floats
/// as given: ray 0 starts inside (winding 1) and leaves through triangle 0 at t = 19/13
/// (barycentric 0.495, 0.327, 0.178), its only crossing ahead; ray 1 crosses that plane at
/// t = -11/28, behind its origin, and nothing ahead. Which side of the plane the rounded far
/// end of the segment lay on had decided it: ray 0 met nothing, and on the triangle alone
/// ray 1 met it at t = 0.
#[test]
fn rays_nearly_in_a_faces_plane_cross_it_where_their_line_does() {
    let v = [
        [-2.0, 2.0, 4.0],
        [8.0, 5.0, -1.0],
        [-2.0, -7.0, 0.0],
        [0.0, 0.0, 10.0],
    ];
    let tri = |i: [usize; 3]| i.map(|k| v[k]);
    let faces = [[0, 1, 2], [0, 3, 1], [1, 3, 2], [2, 3, 0]].map(tri);
    let tet = PreparedMesh::new(Mesh::from_soup("tet", faces.to_vec()).unwrap());
    let alone = PreparedMesh::new(Mesh::from_soup("face", vec![faces[0]]).unwrap());
    assert!(tet.info.closed && tet.info.oriented);
    let rays = [
        (
            DVec3::new(-1.8143304707113086, -5.252521267054111, 0.6590665127597796),
            DVec3::new(2.107357936830558, 4.535493736725837, 0.6811149674410187),
        ),
        (
            DVec3::new(
                -0.47381839742547693,
                -1.8447112694771914,
                1.3246577541573836,
            ),
            DVec3::new(3.2018246445869165, 4.672277337923503, 0.04874543083873184),
        ),
    ];
    let inside = query::winding_number(rays[0].0, &Posed::new(&tet, Pose::IDENTITY));
    assert_eq!(inside.value.round(), 1.0, "ray 0 starts inside");
    let test = "rays_nearly_in_a_faces_plane_cross_it_where_their_line_does";
    for m in [&tet, &alone] {
        let all = on_both_backends(test, m, &rays, Hits::All);
        assert_eq!(all[0].len(), 1, "{all:?}");
        assert_eq!(all[0][0].triangle, 0);
        assert!(within_ulps(all[0][0].t, 19.0 / 13.0, 2.0), "{all:?}");
        assert!(all[1].is_empty(), "crossed behind its origin: {all:?}");
    }
}

/// `t` where `d · n` cancels or overflows in f64, worked by hand. Triangle (4,-2,-2),
/// (-2,4,-2), (-2,-2,4) (plane x + y + z = 0, n = (36, 36, 36)): the ray from (-2^-60, 0, 0)
/// along (2^-60, 1, -1) meets it at t = 1, at (0, 1, -1) = 1/3 A + 1/2 B + 1/6 C, from behind
/// (d · n = 36 · 2^-60); its mirror from the front. The triangle z = 10 met from the origin
/// along (0, 0, 1e300): t = 10 / 1e300, the point (0, 0, 10). Both gave t = 0 and the origin
/// (`d · n` rounded to 0; overflowed to infinity).
#[test]
fn grazing_and_huge_directions_hit_where_the_plane_is() {
    let test = "grazing_and_huge_directions_hit_where_the_plane_is";
    let tilted = [[4.0, -2.0, -2.0], [-2.0, 4.0, -2.0], [-2.0, -2.0, 4.0]];
    let m = PreparedMesh::new(Mesh::from_soup("tilted", vec![tilted]).unwrap());
    let e = 2f64.powi(-60);
    let rays = [
        (DVec3::new(-e, 0.0, 0.0), DVec3::new(e, 1.0, -1.0)),
        (DVec3::new(e, 0.0, 0.0), DVec3::new(-e, 1.0, -1.0)),
    ];
    let hits = on_both_backends(test, &m, &rays, Hits::First);
    for (h, front) in hits.iter().zip([false, true]) {
        let h = h[0];
        assert_eq!(h.t, 1.0, "{h:?}");
        assert_eq!(h.point, DVec3::new(0.0, 1.0, -1.0), "{h:?}");
        assert!(
            (h.u - 0.5).abs() < 1e-15 && (h.v - 1.0 / 6.0).abs() < 1e-15,
            "{h:?}"
        );
        assert_eq!(h.front, front, "{h:?}");
    }
    let flat = [[-1e5, -1e5, 10.0], [2e5, -1e5, 10.0], [-1e5, 2e5, 10.0]];
    let m = PreparedMesh::new(Mesh::from_soup("flat", vec![flat]).unwrap());
    let rays = [(DVec3::ZERO, DVec3::new(0.0, 0.0, 1e300))];
    let h = on_both_backends(test, &m, &rays, Hits::First)[0][0];
    assert!(within_ulps(h.t, 10.0 / 1e300, 2.0), "{h:?}");
    assert!(
        (h.point.z - 10.0).abs() < 1e-14 && h.point.x == 0.0,
        "{h:?}"
    );
    assert!(!h.front, "d . n = 9e10 * 1e300 > 0: {h:?}");
}

/// A review's helper's cases, worked by hand, where the orientations' 2×2 products go
/// subnormal and are then multiplied by a large coordinate: the filters' underflow allowance
/// was a constant, and "certified" wrong signs. δ = 2^-1074.
/// - Triangle (0,0,0), (5δ,0,1), (0,1/8,0) (a pose's rotation entry of 5δ): n = (-1/8, 0, 5δ/8).
///   The ray from (δ, 1/32, 1/4) along (6 · 2^-974, 0, 2^100) crosses it at t = 2^-102,
///   (≈0, 1/32, 1/2) = 1/4 A + 1/2 B + 1/4 C, from the front (d · n = -2^-977): it was missed.
/// - Triangle (0,0,0), (0,0,2^100), (1,3δ,0): its plane is y = 3δ x. The ray from (1, δ, 1)
///   along (-1/2, 0, 0) crosses it at x = 1/3, t = 4/3, from behind; it was given t = 1, and
///   counted within a `--max-t` of 1.2.
#[test]
fn rays_whose_orientations_underflow_are_decided_exactly() {
    let d = f64::from_bits(1);
    let pose = |r: [[f64; 3]; 3]| Pose {
        rotation: r,
        translation: DVec3::ZERO,
    };
    let slanted = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.125, 0.0]];
    let m = PreparedMesh::new(Mesh::from_soup("slanted", vec![slanted]).unwrap());
    let p = Posed::new(
        &m,
        pose([[1.0, 0.0, 5.0 * d], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    );
    let (o, dir) = (
        DVec3::new(d, 0.03125, 0.25),
        DVec3::new(6.0 * 2f64.powi(-974), 0.0, 2f64.powi(100)),
    );
    let h = query::ray_hits(o, dir, &p, f64::INFINITY, Hits::First);
    assert_eq!(h.len(), 1, "{h:?}");
    assert!(
        within_ulps(h[0].t, 2f64.powi(-102), 2.0) && h[0].front,
        "{h:?}"
    );
    assert!(
        (h[0].u - 0.5).abs() < 1e-15 && (h[0].v - 0.25).abs() < 1e-15,
        "{h:?}"
    );

    let tall = [[0.0, 0.0, 0.0], [0.0, 0.0, 2f32.powi(100)], [1.0, 0.0, 0.0]];
    let m = PreparedMesh::new(Mesh::from_soup("tall", vec![tall]).unwrap());
    let p = Posed::new(
        &m,
        pose([[1.0, 0.0, 0.0], [3.0 * d, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    );
    let (o, dir) = (DVec3::new(1.0, d, 1.0), DVec3::new(-0.5, 0.0, 0.0));
    let h = query::ray_hits(o, dir, &p, f64::INFINITY, Hits::First);
    assert_eq!(h.len(), 1, "{h:?}");
    assert!(within_ulps(h[0].t, 4.0 / 3.0, 2.0) && !h[0].front, "{h:?}");
    assert!(query::ray_hits(o, dir, &p, 1.2, Hits::First).is_empty());
}

/// A review's helper's ray through a unit cube posed with entries of 1e-311 and 1e-322 beside
/// 1 (`--matrix`, accepted as rigid): it enters through triangle 10 at t = 1 - 2.2e-158 and
/// leaves through triangle 4 at t = 1 - 6e-311 (worked in rationals on the posed corners).
/// Both `t` round to 1; `all` listed them by triangle index, leaving before entering, and its
/// first row disagreed with `first`. Now in the crossings' exact order, on both backends.
#[test]
fn all_hits_come_in_the_exact_order_of_their_crossings() {
    let v = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 0.0, 1.0],
        [1.0, 1.0, 1.0],
        [0.0, 1.0, 1.0],
    ];
    let faces = [
        [1, 4, 3],
        [1, 3, 2],
        [5, 6, 7],
        [5, 7, 8],
        [1, 2, 6],
        [1, 6, 5],
        [2, 3, 7],
        [2, 7, 6],
        [3, 4, 8],
        [3, 8, 7],
        [4, 1, 5],
        [4, 5, 8],
    ];
    let soup = faces.iter().map(|f| f.map(|k: usize| v[k - 1])).collect();
    let m = PreparedMesh::new(Mesh::from_soup("cube", soup).unwrap());
    let pose = Pose {
        rotation: [
            [-1.0, 3e-311, 5e-321],
            [0.0, 0.0, -1.0],
            [1.4e-322, -1.0, 0.0],
        ],
        translation: DVec3::new(6.675221575521604e-308, 0.5, 0.5),
    };
    let posed = Posed::new(&m, pose);
    let (o, d) = (
        DVec3::new(3e-150, -0.5, 3e-311),
        DVec3::new(-3e-150, 1.0, 0.5),
    );
    let all = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::All);
    let order: Vec<(u32, bool)> = all.iter().map(|h| (h.triangle, h.front)).collect();
    assert_eq!(order, [(10, true), (4, false)], "{all:?}");
    let first = query::ray_hits(o, d, &posed, f64::INFINITY, Hits::First);
    assert_eq!(first[..], all[..1]);
    let test = "all_hits_come_in_the_exact_order_of_their_crossings";
    if let Some(ctx) = common::gpu_or_skip(test) {
        let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
        let gm = gpu.resident(&m).unwrap();
        let got = gpu
            .ray_hits(&posed, &gm, &[(o, d)], f64::INFINITY, Hits::All)
            .unwrap();
        assert_eq!(got[0], all);
    }
}

/// A review's helper's T-junction: the cube [0, 2]³ with its face y = 0 split at (1, 0, 0), the
/// midpoint of edge (0,0,0)-(2,0,0), which the bottom face's triangle keeps whole; with the
/// triangle of no area (0,0,0), (2,0,0), (1,0,0) closing the seam (`info` then calls it closed)
/// and without it. The ray (1, t - 1, t - 1) enters through (1, 0, 0) at t = 1 (just before
/// it y < 0, outside; just after 0 < y, z < 2, inside) and leaves through (1, 2, 2) at t = 3:
/// two hits. Through the T-junction the split face's triangles meet it at their corner and the
/// bottom's at its edge, two features, and it was counted twice. Listed in either order, so
/// that the smallest triangle meeting it (the corner's, then the edge's) stands for it.
#[test]
fn a_ray_through_a_t_junction_hits_it_once() {
    let v = |i: usize| {
        let p = [
            [0, 0, 0],
            [0, 0, 2],
            [0, 2, 0],
            [0, 2, 2],
            [2, 0, 0],
            [2, 0, 2],
            [2, 2, 0],
            [2, 2, 2],
            [1, 0, 0],
        ][i];
        p.map(|c| c as f32)
    };
    let faces = [
        [0, 1, 3],
        [0, 3, 2],
        [4, 6, 7],
        [4, 7, 5],
        [0, 8, 5],
        [8, 4, 5],
        [0, 5, 1],
        [2, 3, 7],
        [2, 7, 6],
        [0, 2, 6],
        [0, 6, 4], // the bottom face's triangle whose edge holds (1, 0, 0)
        [1, 5, 7],
        [1, 7, 3],
        [0, 4, 8], // no area
    ];
    for x in [1.0, 0.5, 1.5] {
        t_junction_case(&faces, &v, x);
    }
}

/// [`a_ray_through_a_t_junction_hits_it_once`] with the ray through `(x, 0, 0)`: at the
/// junction (x = 1), or through the edges either side of it, which lie along the bottom's
/// (x = 0.5, 1.5: the split face's edge and the bottom's, two features at one point, were
/// counted twice, a review's helper found).
fn t_junction_case(faces: &[[usize; 3]], v: &dyn Fn(usize) -> [f32; 3], x: f64) {
    let ray = [(DVec3::new(x, -1.0, -1.0), DVec3::new(0.0, 1.0, 1.0))];
    for (closed, n) in [(true, 14), (false, 13)] {
        for edge_first in [false, true] {
            let mut soup: Soup = faces[..n].iter().map(|f| f.map(v)).collect();
            if edge_first {
                soup.swap(0, 10);
            }
            let m = PreparedMesh::new(Mesh::from_soup("t-junction", soup).unwrap());
            assert_eq!(m.info.closed, closed);
            let all = on_both_backends(
                "a_ray_through_a_t_junction_hits_it_once",
                &m,
                &ray,
                Hits::All,
            );
            let at: Vec<(f64, DVec3)> = all[0].iter().map(|h| (h.t, h.point)).collect();
            let want = [
                (1.0, DVec3::new(x, 0.0, 0.0)),
                (3.0, DVec3::new(x, 2.0, 2.0)),
            ];
            assert_eq!(at, want, "x {x}, closed {closed}, edge first {edge_first}");
            // The split face's triangles are 4 and 5 (0.5: 4; 1.5: 5; the junction: both), the
            // bottom's 10 (0 when swapped).
            let split = if x > 1.0 { 5 } else { 4 };
            assert_eq!(all[0][0].triangle, if edge_first { 0 } else { split });
            let first = on_both_backends(
                "a_ray_through_a_t_junction_hits_it_once",
                &m,
                &ray,
                Hits::First,
            );
            assert_eq!(first[0], all[0][..1]);
        }
    }
}

/// Rays lying in a face's plane, whose every edge orientation is exactly 0 (once decided in
/// big integers, 2 ms a ray across a plate). As docs/cli.md has it, a ray in a triangle's
/// plane meets it along its boundary only, and the triangles it passes into decide: across a
/// plate of 800 triangles in its plane, nothing; along the top face of the unit cube from
/// outside, the two side faces where it enters and leaves (at t = 1 and t = 2, worked by
/// hand: from x = -1 along x); from inside that face, the side where it leaves.
#[test]
fn rays_in_a_faces_plane_meet_only_the_faces_they_pass_into() {
    let test = "rays_in_a_faces_plane_meet_only_the_faces_they_pass_into";
    let mut grid = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            let p = |a: i32, b: i32| [(i + a) as f32 / 20.0, (j + b) as f32 / 20.0, 0.0];
            grid.push([p(0, 0), p(1, 0), p(1, 1)]);
            grid.push([p(0, 0), p(1, 1), p(0, 1)]);
        }
    }
    let plate = PreparedMesh::new(Mesh::from_soup("plate", grid).unwrap());
    let mut rnd = common::lcg(3);
    let across: Vec<(DVec3, DVec3)> = (0..200)
        .map(|_| {
            let o = DVec3::new(rnd() - 1.0, rnd(), 0.0);
            (o, DVec3::new(1.0, rnd() - 0.5, 0.0))
        })
        .collect();
    let met = on_both_backends(test, &plate, &across, Hits::All);
    assert!(met.iter().all(|h| h.is_empty()), "{met:?}");
    let cube = common::box_mesh([0.0; 3], [1.0; 3]);
    let along: Vec<(DVec3, DVec3)> = (1..20)
        .map(|k| {
            let y = f64::from(k) / 20.0;
            (DVec3::new(-1.0, y, 1.0), DVec3::new(1.0, 0.0, 0.0))
        })
        .collect();
    for hits in on_both_backends(test, &cube, &along, Hits::All) {
        let t: Vec<f64> = hits.iter().map(|h| h.t).collect();
        assert_eq!(t, [1.0, 2.0], "{hits:?}");
        assert!(
            hits.iter()
                .all(|h| h.point.x.abs() == 0.0 || h.point.x == 1.0),
            "{hits:?}"
        );
    }
    let inside = [(DVec3::new(0.5, 0.25, 1.0), DVec3::new(1.0, 0.5, 0.0))];
    let hits = &on_both_backends(test, &cube, &inside, Hits::All)[0];
    // Leaves the face at x = 1, t = 0.5, y = 0.5.
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!((hits[0].t, hits[0].point), (0.5, DVec3::new(1.0, 0.5, 1.0)));
}

/// A part repeated 300 times in place: obvhs makes a tree too deep for its own walk (its debug
/// builds asserted as much, and the tests' and the Python package's dev builds panicked, a
/// review's helper), which the eight-wide tree refuses and the binary hierarchy answers for.
/// A ray through the box's top face meets every copy there, at t = 1.5 exactly.
#[test]
fn a_part_repeated_in_place_is_answered_without_a_panic() {
    let soup: Soup = (0..300)
        .flat_map(|_| common::box_soup([-0.5; 3], [0.5; 3]))
        .collect();
    let m = PreparedMesh::new(Mesh::from_soup("stacked", soup).unwrap());
    assert!(m.wide().is_none(), "too deep for the eight-wide tree");
    let rays = [(DVec3::new(0.1, 0.2, 2.0), DVec3::new(0.0, 0.0, -1.0))];
    let first = on_both_backends("a_part_repeated_in_place", &m, &rays, Hits::First);
    assert_eq!(first[0].len(), 1);
    assert_eq!(first[0][0].t, 1.5);
    let all = on_both_backends("a_part_repeated_in_place", &m, &rays, Hits::All);
    // Each copy's triangle on the top face and on the bottom one: one hit each.
    assert_eq!(all[0].len(), 600);
    assert_eq!(all[0].iter().filter(|h| h.t == 1.5).count(), 300);
}
