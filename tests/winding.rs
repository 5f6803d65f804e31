//! Inside and outside for meshes as they come: the generalized winding number against an
//! independent solid-angle sum written here (spherical excess, not the library's formula), on
//! hand-worked meshes (a box with a triangle missing: 11/12 at its centre), the teapot (open at
//! its lid), an unwelded UV sphere, inside-out bodies, random meshes cut open, cracked by
//! rounding-sized moves and turned into soups; and containment through `check` on both
//! backends. Random cases: `MESHCLASH_WINDING_CASES` (default 12).

mod common;

use glam::DVec3;
use meshclash::mesh::{read::Soup, BoundaryReport, Mesh, Pose};
use meshclash::query::{self, Posed};
use meshclash::{Backend, CheckOptions, Containment, PreparedMesh};
use std::f64::consts::PI;

/// Solid angle of the spherical triangle the unit directions to `t`'s vertices span, by
/// Girard's theorem (the angles' sum less π), signed as the triple product: an oracle that
/// shares nothing with the library's arctangent formula.
fn girard(p: DVec3, t: [DVec3; 3]) -> f64 {
    let [a, b, c] = t.map(|v| (v - p).normalize());
    // Two directions within 1e-9 of each other: the angles there are undefined, and the
    // spherical triangle (sides under π, one under 1e-9) has an area under 4e-9, w under 4e-10.
    if [a.cross(b), b.cross(c), c.cross(a)]
        .iter()
        .any(|x| x.length() < 1e-9)
    {
        return 0.0;
    }
    let angle = |x: DVec3, y: DVec3, z: DVec3| {
        // The angle at x between the great circles to y and to z.
        let (u, v) = (x.cross(y), x.cross(z));
        u.cross(v).length().atan2(u.dot(v))
    };
    let excess = angle(a, b, c) + angle(b, c, a) + angle(c, a, b) - PI;
    excess.copysign(a.dot(b.cross(c))) / (4.0 * PI)
}

fn oracle(p: DVec3, m: &Posed) -> f64 {
    (0..m.prep.mesh.triangles.len() as u32)
        .map(|i| girard(p, m.tri(i)))
        .sum()
}

fn soup_mesh(label: &str, soup: Soup) -> PreparedMesh {
    PreparedMesh::new(Mesh::from_soup(label, soup).unwrap())
}

/// The box [-h, h]³, outward, as 12 triangles.
fn box_soup(h: f32) -> Soup {
    common::box_soup([-h; 3], [h; 3])
}

/// A UV sphere as a simple generator writes it: every vertex from `cos`/`sin` of its own
/// angles, so the seam (2π is not exact) and the poles (sin π is not 0) come out a rounding
/// apart and do not weld.
fn unwelded_sphere(r: f64, n_lat: usize, n_lon: usize) -> Soup {
    let vert = |i: usize, j: usize| {
        let (th, ph) = (
            PI * i as f64 / n_lat as f64,
            2.0 * PI * j as f64 / n_lon as f64,
        );
        [
            (r * th.sin() * ph.cos()) as f32,
            (r * th.sin() * ph.sin()) as f32,
            (r * th.cos()) as f32,
        ]
    };
    let mut soup = Vec::new();
    for i in 0..n_lat {
        for j in 0..n_lon {
            let (a, b, c, d) = (
                vert(i, j),
                vert(i + 1, j),
                vert(i + 1, j + 1),
                vert(i, j + 1),
            );
            soup.push([a, b, d]);
            soup.push([b, c, d]);
        }
    }
    soup
}

fn flipped(soup: &Soup) -> Soup {
    soup.iter().map(|t| [t[0], t[2], t[1]]).collect()
}

/// The library's winding number equals the oracle's within its bound (and the bound is small:
/// the oracle's own rounding is far below 1e-9).
fn assert_winding(p: DVec3, m: &Posed, what: &str) -> query::Winding {
    let w = query::winding_number(p, m);
    let want = oracle(p, m);
    assert!(
        (w.value - want).abs() <= w.bound + 1e-9,
        "{what} at {p}: {} ± {} against {want}",
        w.value,
        w.bound
    );
    assert!(w.bound < 1e-6, "{what} at {p}: bound {}", w.bound);
    w
}

/// A square of side 2 in two triangles, seen from above its centre, on the diagonal they
/// share: its solid angle is 2π − 4 atan(h √(2 + h²)) (a rectangle's, from its axis), its
/// winding number that over 4π. Each triangle alone is ill-conditioned there (its den cancels
/// to nothing, and the subtraction of `p` moves the edge by an ulp): in f64 the sum was 2e-4
/// off at 2^-44, within a bound of 0.09 (a review's helper). Asked again in double-double, it
/// holds to 1e-15, within a bound of 1e-12, down to 1e-15 above the seam.
#[test]
fn the_winding_number_beside_a_seam_holds_to_the_last_digits() {
    let (a, b, c, d) = (
        DVec3::new(-1.0, -1.0, 0.0),
        DVec3::new(1.0, -1.0, 0.0),
        DVec3::new(1.0, 1.0, 0.0),
        DVec3::new(-1.0, 1.0, 0.0),
    );
    let square = [[a, b, c], [a, c, d]];
    for h in [1e-3, 1e-6, 1e-9, 1e-12, 2f64.powi(-44), 1e-15] {
        for side in [1.0, -1.0] {
            let p = DVec3::new(0.0, 0.0, side * h);
            let (w, bound) = meshclash::geom::winding::winding_sum(p, square.into_iter());
            let exact = -side * (0.5 - (h * (2.0 + h * h).sqrt()).atan() / PI);
            assert!(
                (w - exact).abs() <= 1e-15,
                "h {h}, side {side}: {w} against {exact}"
            );
            assert!(
                (w - exact).abs() <= bound && bound <= 1e-12,
                "h {h}: bound {bound}"
            );
        }
    }
}

/// A point 2e-162 from a triangle's vertex, at its size of 1: the squares of its distance to
/// that vertex underflowed to a subnormal's few bits, and the winding number read -0.4478
/// against -0.330092318481269815 (mpmath at 2 000 bits; a review's helper), its bound 7.8e-14.
/// Each length is now taken without the squares' underflow; and a point within 2^-900 of a
/// vertex is on it (an infinite bound).
#[test]
fn a_point_beside_a_vertex_at_1e_minus_162_keeps_its_winding_number() {
    let t = [DVec3::ZERO, DVec3::X, DVec3::Y];
    let (w, bound) =
        meshclash::geom::winding::triangle_winding(DVec3::new(2e-162, 1e-162, 1e-162), &t);
    let exact = -0.3300923184812698; // -0.330092318481269815…, rounded
    assert!(
        (w - exact).abs() <= 1e-15 && (w - exact).abs() <= bound,
        "{w} {bound}"
    );
    let (_, bound) = meshclash::geom::winding::triangle_winding(DVec3::splat(1e-280), &t);
    assert_eq!(bound, f64::INFINITY);
}

#[test]
fn a_box_missing_one_triangle_winds_eleven_twelfths_around_its_centre() {
    let mut soup = box_soup(1.0);
    soup.remove(3);
    let m = soup_mesh("box less a triangle", soup);
    assert!(!m.info.closed);
    let posed = Posed::new(&m, Pose::IDENTITY);
    // Half a face of six is missing: 1 − 1/12 (libigl: 0.917).
    let w = assert_winding(DVec3::ZERO, &posed, "box");
    assert!((w.value - 11.0 / 12.0).abs() < 1e-12, "{w:?}");
    assert!(query::point_inside(DVec3::ZERO, &posed).inside);
    // Outside, beside the hole: small, and outside.
    let out = DVec3::new(0.3, 0.2, -1.5);
    let w = assert_winding(out, &posed, "box");
    assert!(w.value.abs() < 0.5 && w.certain(), "{w:?}");
}

#[test]
fn the_teapot_open_at_its_lid_holds_a_cube_in_its_belly() {
    let teapot = PreparedMesh::new(Mesh::load(common::case_path("meshes/teapot.stl")).unwrap());
    assert!(!teapot.info.closed);
    let posed = Posed::new(&teapot, Pose::IDENTITY);
    let belly = DVec3::new(0.0, 0.0, 12.0);
    let w = assert_winding(belly, &posed, "teapot");
    // libigl's fast winding number there: 1.005.
    assert!((w.value - 1.005).abs() < 0.01 && w.certain(), "{w:?}");
    // A cube of side 4 in the belly: B is inside A, on both backends.
    let cube = soup_mesh("cube", box_soup(2.0));
    let pose_b = Pose::from_euler_degrees([0.0, 0.0, 0.0], belly);
    let cpu = query::check(
        &teapot,
        Pose::IDENTITY,
        &cube,
        pose_b,
        &CheckOptions::default(),
    );
    assert!(!cpu.intersects());
    assert_eq!(cpu.containment, Some(Containment::BInA));
    assert!(cpu.containment_certain);
    assert!(query::interferes(&posed, &Posed::new(&cube, pose_b)));
    if let Some(gpu) = gpu_backend("the_teapot_open_at_its_lid_holds_a_cube_in_its_belly") {
        let r = gpu
            .check(
                &teapot,
                Pose::IDENTITY,
                &cube,
                pose_b,
                &CheckOptions::default(),
            )
            .unwrap();
        assert_eq!(r.containment, cpu.containment);
        assert_eq!(r.containment_certain, cpu.containment_certain);
    }
}

fn gpu_backend(test: &str) -> Option<Backend> {
    let ctx = common::gpu_or_skip(test)?;
    Some(Backend::from_gpu(
        meshclash::gpu::GpuBackend::new(ctx).unwrap(),
    ))
}

#[test]
fn an_unwelded_uv_sphere_bounds_its_inside_and_info_finds_its_seam() {
    let soup = unwelded_sphere(1.0, 24, 48);
    let m = soup_mesh("unwelded sphere", soup.clone());
    assert!(
        !m.info.closed,
        "the seam must not weld, or this tests nothing"
    );
    let report = BoundaryReport::of(&m.mesh);
    assert!(report.boundary_edges > 0);
    assert!(
        report.boundary_edges_near_another > 0,
        "the seam's edges lie a rounding apart: {report:?}"
    );
    let posed = Posed::new(&m, Pose::IDENTITY);
    let w = assert_winding(DVec3::new(0.1, -0.2, 0.05), &posed, "sphere");
    assert!((w.value - 1.0).abs() < 1e-3 && w.certain(), "{w:?}");
    // Inside out: −1, and still inside (the nonzero rule).
    let inv = soup_mesh("inside-out sphere", flipped(&soup));
    let posed = Posed::new(&inv, Pose::IDENTITY);
    let w = assert_winding(DVec3::ZERO, &posed, "inside-out sphere");
    assert!(
        (w.value + 1.0).abs() < 1e-3 && w.certain() && w.inside(),
        "{w:?}"
    );
    // A small cube inside either: contained.
    let cube = soup_mesh("cube", box_soup(0.2));
    for s in [&m, &inv] {
        let r = query::check(
            &cube,
            Pose::IDENTITY,
            s,
            Pose::IDENTITY,
            &Default::default(),
        );
        assert_eq!(r.containment, Some(Containment::AInB));
        assert!(r.containment_certain);
    }
}

#[test]
fn a_closed_inside_out_box_contains_and_is_exact() {
    let inv = soup_mesh("inside-out box", flipped(&box_soup(1.0)));
    assert!(inv.info.closed && inv.info.oriented);
    let posed = Posed::new(&inv, Pose::IDENTITY);
    let w = query::winding_number(DVec3::new(0.1, 0.2, 0.3), &posed);
    assert_eq!((w.value, w.bound), (-1.0, 0.0));
    let cube = soup_mesh("cube", box_soup(0.2));
    let r = query::check(
        &cube,
        Pose::IDENTITY,
        &inv,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert_eq!(r.containment, Some(Containment::AInB));
}

/// A closed mesh made open in `how`: 0 cut (triangles removed), 1 cracked (some vertices moved
/// by a few ulps in some of their triangles only), 2 inside out and cut, 3 a soup of its
/// triangles with each vertex moved by an ulp on its own (nothing welds).
fn damaged(seed: u64, how: u64) -> (PreparedMesh, Pose) {
    let base = meshclash::mesh::generate::torus(1.0, 0.35, 18, 10);
    let mut rnd = common::lcg(seed);
    let mut soup: Soup = (0..base.triangles.len())
        .map(|i| base.triangles[i].map(|v| base.vertices[v as usize]))
        .collect();
    // Moved by about an ulp (0 stays put).
    let nudge = |x: f32, k: i32| x * (1.0 + k as f32 * f32::EPSILON);
    match how {
        0 | 2 => {
            let cut = 1 + (rnd() * 6.0) as usize;
            for _ in 0..cut {
                let i = (rnd() * soup.len() as f64) as usize % soup.len();
                soup.remove(i);
            }
            if how == 2 {
                soup = flipped(&soup);
            }
        }
        1 => {
            for t in soup.iter_mut() {
                if rnd() < 0.2 {
                    t[0] = t[0].map(|x| nudge(x, 2));
                }
            }
        }
        _ => {
            for t in soup.iter_mut() {
                for v in t.iter_mut() {
                    *v = v.map(|x| nudge(x, if rnd() < 0.5 { 1 } else { -1 }));
                }
            }
        }
    }
    let pose = Pose::from_euler_degrees(
        [rnd() * 360.0, rnd() * 360.0, rnd() * 360.0],
        DVec3::new(rnd() * 10.0, -rnd() * 1e3, 5.0),
    );
    (soup_mesh("damaged torus", soup), pose)
}

#[test]
fn damaged_meshes_wind_as_the_solid_angles_sum_and_say_when_unsure() {
    let cases = std::env::var("MESHCLASH_WINDING_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12u64);
    let (mut inside, mut outside) = (0, 0);
    for seed in 0..cases {
        let (m, pose) = damaged(seed, seed % 4);
        assert!(!m.info.closed, "seed {seed}");
        let posed = Posed::new(&m, pose);
        let mut rnd = common::lcg(seed ^ 0x5eed);
        for _ in 0..40 {
            let local = DVec3::new(rnd() * 3.0 - 1.5, rnd() * 3.0 - 1.5, rnd() * 1.0 - 0.5);
            let p = pose.apply(local);
            let w = assert_winding(p, &posed, &format!("seed {seed}"));
            let i = query::point_inside(p, &posed);
            assert_eq!(i.inside, w.inside());
            // Far from ±1/2 the answer must be certain, and right.
            if (w.value.abs() - 0.5).abs() > 1e-6 {
                assert!(i.certain, "seed {seed} at {p}: {w:?}");
            }
            if i.inside {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    assert!(
        inside > 20 && outside > 20,
        "{inside} inside, {outside} outside"
    );
}

/// Points around a mesh: random ones in its posed box, and ones on and a hair off its surface
/// (vertices, and centroids moved by 1e-9 of the size along the normal), where the GPU must be
/// unsure and hand them to the CPU.
fn probe_points(m: &Posed, seed: u64, n: usize) -> Vec<DVec3> {
    let mut rnd = common::lcg(seed);
    let b = m.prep.octree.nodes[0].aabb();
    let size = b.diagonal();
    let mut pts: Vec<DVec3> = (0..n)
        .map(|_| {
            let t = DVec3::new(rnd(), rnd(), rnd()) * 1.2 - 0.1;
            m.pose.apply(b.min + (b.max - b.min) * t)
        })
        .collect();
    let tris = m.prep.mesh.triangles.len() as u32;
    for k in 0..n / 8 {
        let t = m.tri((k as u32 * 7919) % tris);
        let c = (t[0] + t[1] + t[2]) / 3.0;
        let nrm = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        pts.push(c + nrm * (1e-9 * size));
        pts.push(t[k % 3]);
    }
    pts
}

fn gpu_of(test: &str, part_limit: Option<usize>) -> Option<meshclash::gpu::GpuBackend> {
    let ctx = common::gpu_or_skip(test)?;
    let g = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    Some(match part_limit {
        Some(n) => g.with_part_limit(n),
        None => g,
    })
}

/// The meshes the GPU tests run over: open, closed, cracked, soups, inside out; some posed far
/// from the origin.
fn gpu_cases() -> Vec<(String, PreparedMesh, Pose)> {
    let mut cases = vec![
        (
            "teapot".to_string(),
            PreparedMesh::new(Mesh::load(common::case_path("meshes/teapot.stl")).unwrap()),
            Pose::from_euler_degrees([10.0, 20.0, 30.0], DVec3::new(1e5, -3.0, 2.0)),
        ),
        (
            "closed torus".to_string(),
            PreparedMesh::new(meshclash::mesh::generate::torus(1.0, 0.3, 24, 12)),
            Pose::IDENTITY,
        ),
        (
            "unwelded sphere".to_string(),
            soup_mesh("unwelded sphere", unwelded_sphere(1.0, 12, 24)),
            Pose::translation(DVec3::new(-2.0, 0.5, 7.0)),
        ),
    ];
    for how in 0..4 {
        let (m, pose) = damaged(100 + how, how);
        cases.push((format!("damaged torus ({how})"), m, pose));
    }
    cases
}

#[test]
fn gpu_winding_numbers_equal_the_cpus_to_the_bit() {
    let test = "gpu_winding_numbers_equal_the_cpus_to_the_bit";
    let Some(gpu) = gpu_of(test, None) else {
        return;
    };
    let (mut sure, mut unsure) = (0, 0);
    for (name, m, pose) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let pts = probe_points(&posed, 11, 400);
        let gm = gpu.resident(&m).unwrap();
        let got = gpu.winding_numbers(&posed, &gm, &pts).unwrap();
        for (p, w) in pts.iter().zip(&got) {
            let want = query::winding_number(*p, &posed);
            assert_eq!(w.value.to_bits(), want.value.to_bits(), "{name} at {p}");
            assert_eq!(w.bound.to_bits(), want.bound.to_bits(), "{name} at {p}");
        }
        let run = gpu.winding_counts(&posed, &gm, &pts).unwrap();
        sure += run.out.iter().filter(|o| o.unsure == 0).count();
        unsure += run.out.iter().filter(|o| o.unsure != 0).count();
        // Through the backend too.
        let b = Backend::from_gpu(
            meshclash::gpu::GpuBackend::new(common::gpu_or_skip(test).unwrap()).unwrap(),
        );
        let via = b.winding_numbers(&m, pose, &pts[..10]).unwrap();
        assert_eq!(via, got[..10].to_vec(), "{name}");
    }
    // Both paths ran: the random points answered by the GPU's rays (a few near a triangle
    // may not be), the 100 per mesh on and a hair off the surface handed to the CPU.
    assert!(
        sure > 3 * unsure && unsure >= 700,
        "{sure} sure, {unsure} unsure"
    );
}

/// The stage against its twin, on meshes split into several parts (crossings add up over
/// them): where both are sure, the same crossings; the unsure sets may differ only where a
/// fused multiply-add moved a value across its bound.
#[test]
fn the_winding_stage_equals_its_twin() {
    let Some(gpu) = gpu_of("the_winding_stage_equals_its_twin", Some(150)) else {
        return;
    };
    for (name, m, pose) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let pts = probe_points(&posed, 5, 300);
        let gm = gpu.resident(&m).unwrap();
        let run = gpu.winding_counts(&posed, &gm, &pts).unwrap();
        let q = run.query.expect("within f32");
        let host = meshclash::gpu::HostArrays::new(&m, gpu.part_limit);
        assert!(
            host.parts.len() > 1 || m.mesh.triangles.len() <= 150,
            "{name}"
        );
        let mut twin = vec![meshclash::gpu::layout::WindingOut::default(); pts.len()];
        for (k, part) in host.parts.iter().enumerate() {
            let qk = meshclash::gpu::layout::WindingQuery {
                caps: if k == 0 { q.caps } else { 0 },
                ..q
            };
            meshclash::gpu::twin::winding::main(
                &qk,
                &part.records,
                &part.nodes,
                &run.points,
                &run.caps,
                &mut twin,
            );
        }
        let mut flips = 0;
        for (i, (g, t)) in run.out.iter().zip(&twin).enumerate() {
            if g.unsure == 0 && t.unsure == 0 {
                assert_eq!(g.crossings, t.crossings, "{name}, point {i}");
            } else if g.unsure != t.unsure {
                flips += 1;
            }
        }
        assert!(flips <= 1 + pts.len() / 1000, "{name}: {flips} flips");
    }
}

/// Review findings, each a wrong answer once.
#[test]
fn a_point_on_the_surface_is_never_certain() {
    let cube = soup_mesh("cube", box_soup(1.0));
    let posed = Posed::new(&cube, Pose::IDENTITY);
    // On a face, on an edge, at a vertex: every ray's count would be an answer, and none is.
    for p in [
        DVec3::new(0.5, 0.5, 1.0),
        DVec3::new(0.25, 1.0, 1.0),
        DVec3::new(1.0, -1.0, 1.0),
    ] {
        let w = query::winding_number(p, &posed);
        assert!(!w.certain() && w.bound.is_infinite(), "{p}: {w:?}");
        assert!(!query::point_inside(p, &posed).certain, "{p}");
    }
}

/// A point on the surface has the principal value, every other triangle's solid angle summed
/// (what the solid inside subtends there), from one ray and the triangles holding it rather than
/// a pass over the mesh (12 ms a point on igea, a review's helper found). Worked by hand on the
/// cube [-1, 1]³: a face's point sees half the sphere inside, an edge's a quarter, a corner an
/// eighth. On meshes with and without caps (the teapot is open), at vertices, edges' midpoints
/// and faces' centroids, against the solid angles of every triangle summed, brute force.
#[test]
fn a_point_on_the_surface_has_the_principal_value() {
    let cube = soup_mesh("cube", box_soup(1.0));
    let posed = Posed::new(&cube, Pose::IDENTITY);
    for (p, want) in [
        (DVec3::new(0.5, 0.5, 1.0), 0.5),
        (DVec3::new(0.0, 0.0, -1.0), 0.5),
        (DVec3::new(0.25, 1.0, 1.0), 0.25),
        (DVec3::new(1.0, -1.0, 1.0), 0.125),
        (DVec3::new(-1.0, -1.0, -1.0), 0.125),
        // 2^-54 off the bottom's diagonal, inside one of its triangles: a sector's angle a
        // rounding short of a half turn, whose tan is 0/0 to rounding (a review's helper: 0.75).
        (DVec3::new(0.5, 0.49999999999999994, -1.0), 0.5),
    ] {
        let w = query::winding_number(p, &posed);
        assert!((w.value - want).abs() < 1e-12, "{p}: {w:?}");
        assert!(w.bound.is_infinite(), "{p}: {w:?}");
        // On a face (inside a triangle, or on the diagonal between two), exactly 1/2: a point
        // on a diagonal was 0.4999999999999999 and 'outside' beside points 'inside' (a
        // review's helper).
        if want == 0.5 {
            assert_eq!(w.value, 0.5, "{p}");
        }
    }
    // The unit cube: each face's centre and the points a quarter along both its diagonals,
    // on one of its triangles' shared edge or inside one.
    let unit = soup_mesh("unit cube", common::box_soup([0.0; 3], [1.0; 3]));
    let posed_unit = Posed::new(&unit, Pose::IDENTITY);
    for axis in 0..3 {
        for level in [0.0, 1.0] {
            for (s, t) in [
                (0.5, 0.5),
                (0.25, 0.25),
                (0.75, 0.75),
                (0.25, 0.75),
                (0.75, 0.25),
            ] {
                let mut p = DVec3::splat(0.0);
                p[axis] = level;
                p[(axis + 1) % 3] = s;
                p[(axis + 2) % 3] = t;
                let w = query::winding_number(p, &posed_unit);
                assert_eq!(w.value, 0.5, "{p}: {w:?}");
            }
        }
    }
    // The cube with its bottom fanned about its centre: points 1e-170 from the fan's centre,
    // on a spoke and inside a triangle, whose directions to it square below f64 (a review's
    // helper: not a number).
    let mut fanned: Soup = box_soup(1.0).into_iter().skip(2).collect();
    let rim = [[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]].map(|[x, y]| [x, y, -1.0]);
    for k in 0..4 {
        fanned.push([[0.0, 0.0, -1.0], rim[k], rim[(k + 1) % 4]]);
    }
    let fanned = soup_mesh("fanned cube", fanned);
    assert!(fanned.info.closed);
    let posed_fan = Posed::new(&fanned, Pose::IDENTITY);
    // Exactly 1/2 there, at the fan's centre and on its spokes too (four sectors at a vertex,
    // two half turns on an edge: each sector's angle summed was off by a rounding).
    for p in [
        DVec3::new(1e-170, 1e-170, -1.0),
        DVec3::new(1e-170, 1e-171, -1.0),
        DVec3::new(0.0, 0.0, -1.0),
        DVec3::new(0.5, 0.5, -1.0),
        DVec3::new(-0.25, 0.25, -1.0),
    ] {
        let w = query::winding_number(p, &posed_fan);
        assert_eq!(w.value, 0.5, "{p}: {w:?}");
    }
    // On a cap alone, not on the mesh: the winding number is continuous there, and certain
    // (a review's helper's open pyramid, whose cap's apex (2, 2.8, 0), the loop's mean, puts
    // the cap over the edge (0,0,0)-(4,0,0) in z = 0).
    let apex = [2.0, 2.8, 10.0];
    let rim = [
        [0.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [4.0, 4.0, 2.0],
        [2.0, 6.0, -1.0],
        [0.0, 4.0, -1.0],
    ];
    let pyramid: Soup = (0..5).map(|k| [apex, rim[(k + 1) % 5], rim[k]]).collect();
    let pyramid = soup_mesh("open pyramid", pyramid);
    let posed_pyr = Posed::new(&pyramid, Pose::IDENTITY);
    let p = DVec3::new(2.0, 1.0, 0.0);
    let w = query::winding_number(p, &posed_pyr);
    let tris: Vec<_> = (0..5).map(|t| posed_pyr.tri(t)).collect();
    let (want, _) = meshclash::geom::winding::winding_sum(p, tris.iter().copied());
    assert!(
        w.certain() && (w.value - want).abs() <= w.bound,
        "{w:?} against {want}"
    );
    for name in ["teapot.stl", "bunny_lowres.stl", "fandisk.stl"] {
        let m =
            PreparedMesh::new(Mesh::load(common::case_path(&format!("meshes/{name}"))).unwrap());
        let posed = Posed::new(&m, Pose::from_euler_degrees([10.0, 20.0, 30.0], DVec3::ONE));
        let n = m.mesh.triangles.len() as u32;
        let tris: Vec<_> = (0..n).map(|t| posed.tri(t)).collect();
        let mut points = Vec::new();
        for t in (0..n).step_by((n as usize / 40).max(1)) {
            let c = posed.tri(t);
            points.extend([c[0], (c[0] + c[1]) * 0.5, (c[0] + c[1] + c[2]) / 3.0]);
        }
        let mut on_surface = 0;
        for p in points {
            let w = query::winding_number(p, &posed);
            let (want, bound) = meshclash::geom::winding::winding_sum(p, tris.iter().copied());
            // Rounded midpoints and centroids may miss the surface by an ulp: then both are
            // the ordinary winding number.
            if bound.is_infinite() && w.bound.is_infinite() {
                on_surface += 1;
                assert!(
                    (w.value - want).abs() < 1e-9,
                    "{name}, {p}: {w:?} against {want}"
                );
            }
        }
        // Not vacuous: the vertices at least lie on it.
        assert!(on_surface >= 40, "{name}: {on_surface}");
    }
}

#[test]
fn sums_over_many_caps_are_the_same_bits_every_time() {
    // A soup of 3 000 triangles has 9 000 cap triangles: summed in parallel chunks.
    let m = PreparedMesh::new(common::soup(17, 0.0));
    let soup3000 = {
        let mut soup: Soup = Vec::new();
        let mut rnd = common::lcg(5);
        for _ in 0..3000 {
            let c = [rnd(), rnd(), rnd()].map(|x| x as f32);
            let t = |k: f32| [c[0] + 0.01 * k, c[1] + 0.013 * k * k, c[2] - 0.007 * k];
            soup.push([t(0.0), t(1.0), t(2.0)]);
        }
        soup_mesh("soup of 3000", soup)
    };
    for mesh in [&m, &soup3000] {
        let posed = Posed::new(mesh, Pose::IDENTITY);
        let p = DVec3::new(0.5, 0.4, 0.3);
        let first = query::winding_number(p, &posed);
        for _ in 0..5 {
            let again = query::winding_number(p, &Posed::new(mesh, Pose::IDENTITY));
            assert_eq!(first.value.to_bits(), again.value.to_bits());
        }
    }
    assert!(soup3000.caps().triangles.len() > 8192);
}

#[test]
fn far_from_an_open_mesh_the_winding_number_is_certain() {
    let mut soup = box_soup(1.0);
    soup.remove(0);
    let m = soup_mesh("open box", soup);
    let posed = Posed::new(&m, Pose::IDENTITY);
    for x in [1e50, 1e110, 1e200, 1e300] {
        let w = query::winding_number(DVec3::new(x, 0.3 * x, 1.0), &posed);
        assert!(w.value.abs() < 1e-6 && w.certain(), "{x}: {w:?}");
    }
}

/// A rod (z from 0 to 2) from inside a box without a top up through its opening: partly inside (winding 5/6
/// around its lower end), partly out, touching nothing. Its containment is not certain.
#[test]
fn a_rod_through_an_opening_is_not_certainly_inside() {
    let mut open = box_soup(1.0);
    open.retain(|t| !t.iter().all(|v| v[2] == 1.0)); // the top's two triangles
    let container = soup_mesh("box without a top", open);
    assert!(!container.info.closed);
    let rod: Soup = box_soup(0.05)
        .into_iter()
        .map(|t| t.map(|v| [v[0], v[1], v[2] * 20.0 + 1.0]))
        .collect();
    let rod = soup_mesh("rod", rod);
    let r = query::check(
        &rod,
        Pose::IDENTITY,
        &container,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert!(!r.intersects());
    assert_eq!(r.containment, Some(Containment::AInB));
    assert!(!r.containment_certain);
    // A short rod wholly in the box (z from -0.5 to 0.5): certain.
    let small: Soup = box_soup(0.05)
        .into_iter()
        .map(|t| t.map(|v| [v[0], v[1], v[2] * 10.0]))
        .collect();
    let small = soup_mesh("short rod", small);
    let r = query::check(
        &small,
        Pose::IDENTITY,
        &container,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert_eq!(
        (r.containment, r.containment_certain),
        (Some(Containment::AInB), true)
    );
    if let Some(gpu) = gpu_backend("a_rod_through_an_opening_is_not_certainly_inside") {
        let g = gpu
            .check(
                &rod,
                Pose::IDENTITY,
                &container,
                Pose::IDENTITY,
                &Default::default(),
            )
            .unwrap();
        assert_eq!(
            (g.containment, g.containment_certain),
            (Some(Containment::AInB), false)
        );
    }
}

/// A rotation written to six digits is accepted (about 1e-6 off orthonormal); carrying points
/// back by its transpose moves them by 1e-6 of their distance from the origin, which the GPU's
/// `delta` and the CPU's culls must cover. A part 1000 from the origin, a point 1e-4 outside
/// its face.
#[test]
fn a_rotation_a_little_off_orthonormal_does_not_move_points_inside() {
    let m = soup_mesh(
        "box at 1000",
        box_soup(0.5)
            .into_iter()
            .map(|t| t.map(|v| [v[0] + 1000.0, v[1], v[2]]))
            .collect(),
    );
    let (c, s) = (0.866025, 0.5);
    let pose = Pose::from_matrix(&[
        c, -s, 0.0, 0.0, s, c, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ])
    .unwrap();
    let posed = Posed::new(&m, pose);
    // Just outside the +x face (local x = 1000.5), in world coordinates.
    let p = pose.apply(DVec3::new(1000.5 + 1e-4, 0.1, 0.2));
    let cpu = query::winding_number(p, &posed);
    assert!(!cpu.inside() && cpu.certain(), "{cpu:?}");
    if let Some(gpu) = gpu_of(
        "a_rotation_a_little_off_orthonormal_does_not_move_points_inside",
        None,
    ) {
        let gm = gpu.resident(&m).unwrap();
        let w = gpu.winding_numbers(&posed, &gm, &[p]).unwrap();
        assert_eq!(w[0].value.to_bits(), cpu.value.to_bits());
    }
}

/// A part of more than 20 000 vertices against an open container is judged by one vertex per
/// body, and then never certain; against the closed one, certain.
#[test]
fn a_large_part_in_an_open_container_is_inside_but_not_certainly() {
    let big = PreparedMesh::new(meshclash::mesh::generate::sphere(0.5, 120, 240));
    assert!(big.mesh.vertices.len() > 20_000);
    let mut open = box_soup(1.0);
    open.retain(|t| !t.iter().all(|v| v[2] == 1.0));
    let open = soup_mesh("box without a top", open);
    let r = query::check(
        &big,
        Pose::IDENTITY,
        &open,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert_eq!(
        (r.containment, r.containment_certain),
        (Some(Containment::AInB), false)
    );
    let closed = soup_mesh("box", box_soup(1.0));
    let r = query::check(
        &big,
        Pose::IDENTITY,
        &closed,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert_eq!(
        (r.containment, r.containment_certain),
        (Some(Containment::AInB), true)
    );
}

/// A review's case: a closed, outward tetrahedron with a corner at the origin, and a point a
/// few subnormals from that corner, outside the face through it (exact signs: the point is on
/// the far side of one face, the centroid on the near side of all four). Shewchuk's first
/// stage certified the wrong sign where its error bound underflowed to 0, and the point read
/// as certainly inside; orientations that small are decided in integers.
// The corners are f32 values written out in full (as the review's file holds them).
#[allow(clippy::excessive_precision)]
#[test]
fn a_point_subnormally_near_a_corner_is_where_the_exact_signs_put_it() {
    let tet: Soup = vec![
        [
            [0.0, 0.0, 0.0],
            [0.382641077041626, -0.1329946368932724, 0.5539953708648682],
            [
                -0.48415881395339966,
                0.02757667377591133,
                0.47903957962989807,
            ],
        ],
        [
            [0.0, 0.0, 0.0],
            [
                -0.48415881395339966,
                0.02757667377591133,
                0.47903957962989807,
            ],
            [
                -0.028411787003278732,
                0.43093013763427734,
                -0.017246916890144348,
            ],
        ],
        [
            [0.0, 0.0, 0.0],
            [
                -0.028411787003278732,
                0.43093013763427734,
                -0.017246916890144348,
            ],
            [0.382641077041626, -0.1329946368932724, 0.5539953708648682],
        ],
        [
            [0.382641077041626, -0.1329946368932724, 0.5539953708648682],
            [
                -0.028411787003278732,
                0.43093013763427734,
                -0.017246916890144348,
            ],
            [
                -0.48415881395339966,
                0.02757667377591133,
                0.47903957962989807,
            ],
        ],
    ];
    let m = soup_mesh("tet", tet);
    let posed = Posed::new(&m, Pose::IDENTITY);
    let p = DVec3::new(-2.5e-323, -5e-324, 4e-323);
    assert!(!query::point_inside(p, &posed).inside);
    assert!(!query::winding_number(p, &posed).inside());
    // Just inside, by the same exact signs: the centroid scaled down.
    let centroid = m
        .mesh
        .vertices
        .iter()
        .map(|v| DVec3::from(v.map(f64::from)))
        .sum::<DVec3>()
        / 4.0;
    assert!(query::point_inside(centroid * 1e-300, &posed).inside);
}

/// A closed box with turned triangles (one of its bottom face's, and the whole top face) is not
/// consistently oriented: its winding number depends on which triangles are turned (0.03 just
/// inside the turned triangle, 0.97 just below it), while the parity of a ray's crossings is
/// what the closed surface bounds. `check`'s containment decided by parity, `inside` (and so
/// `closest --signed`) by the winding number, and the two disagreed about the same points (a
/// review's helper found it). Now every query takes parity there, on both backends; the
/// winding column stays the winding number. Oracle: the box [-1, 1]³, by hand.
#[test]
fn a_closed_box_with_turned_triangles_is_inside_by_parity_for_every_query() {
    let mut soup = box_soup(1.0);
    let turn = |t: [[f32; 3]; 3]| [t[0], t[2], t[1]];
    let bottom = soup
        .iter()
        .position(|t| t.iter().all(|v| v[2] == -1.0))
        .unwrap();
    soup[bottom] = turn(soup[bottom]);
    for t in soup.iter_mut().filter(|t| t.iter().all(|v| v[2] == 1.0)) {
        *t = turn(*t);
    }
    let m = soup_mesh("box with turned triangles", soup);
    assert!(m.info.closed && !m.info.oriented);
    let posed = Posed::new(&m, Pose::IDENTITY);
    let mut points = Vec::new();
    for &x in &[-0.9, -0.5, 0.0, 0.5, 0.9] {
        for &y in &[-0.9, 0.0, 0.9] {
            for &z in &[-1.02, -0.98, 0.0, 0.98, 1.02, 1.5] {
                points.push(DVec3::new(x, y, z));
            }
        }
    }
    points.push(DVec3::new(3.0, 0.1, 0.2));
    let inside = |p: DVec3| p.abs().max_element() < 1.0;
    let mut backends = vec![Backend::cpu()];
    backends.extend(gpu_backend("turned_triangles"));
    for be in &backends {
        let answers = be.points_inside(&m, Pose::IDENTITY, &points).unwrap();
        for (&p, (w, i)) in points.iter().zip(&answers) {
            let what = format!("{} at {p}", be.name());
            assert_eq!((i.inside, i.certain), (inside(p), true), "{what}");
            assert!(
                (w.value - oracle(p, &posed)).abs() <= w.bound + 1e-9,
                "{what}"
            );
        }
        // Where the winding number and the parity disagree: the test would pass without them.
        let disagree = answers
            .iter()
            .filter(|(w, i)| w.inside() != i.inside)
            .count();
        assert!(disagree >= 10, "{}: {disagree}", be.name());
    }
    // check's containment of a small cube just inside the turned triangles, and just outside.
    let cube = |z: f32| {
        let (lo, hi) = ([-0.6, -0.6, z], [-0.5, -0.5, z + 0.01]);
        soup_mesh("small cube", common::box_soup(lo, hi))
    };
    for (z, want) in [(-0.99, Some(Containment::AInB)), (-1.02, None)] {
        let r = query::check(
            &cube(z),
            Pose::IDENTITY,
            &m,
            Pose::IDENTITY,
            &Default::default(),
        );
        assert_eq!(
            (r.containment, r.containment_certain),
            (want, true),
            "z {z}"
        );
    }
}
