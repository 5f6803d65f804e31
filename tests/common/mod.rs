//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod oracle;

use std::path::PathBuf;

/// `../shared/cases/<rel>`, anchored at the crate root, not the working directory.
pub fn case_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/cases")
        .join(rel)
}

/// The mesh-pair cases of `cases.json`.
pub fn load_cases() -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(case_path("cases.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

/// A case's 4×4 row-major pose.
pub fn pose(v: &serde_json::Value) -> meshclash::mesh::Pose {
    let m: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    meshclash::mesh::Pose::from_matrix(&m).unwrap()
}

/// The GPU context, or `None` with a loud message when there is no adapter. With
/// `MESHCLASH_REQUIRE_GPU=1` (CI) a missing adapter fails the test instead.
pub fn gpu_or_skip(test: &str) -> Option<meshclash::gpu::GpuContext> {
    match meshclash::gpu::GpuContext::new() {
        Ok(ctx) => {
            eprintln!(
                "{test}: GPU adapter {:?} ({})",
                ctx.info.name, ctx.info.backend
            );
            Some(ctx)
        }
        Err(e) => {
            if std::env::var("MESHCLASH_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("{test}: MESHCLASH_REQUIRE_GPU=1 but no GPU: {e}");
            }
            announce_skip(test, &e.to_string());
            None
        }
    }
}

/// The CPU backend, and the GPU's where there is one (`test` names the test for
/// [`gpu_or_skip`]).
pub fn cpu_and_gpu(test: &str) -> Vec<meshclash::Backend> {
    let mut backends = vec![meshclash::Backend::cpu()];
    if let Some(ctx) = gpu_or_skip(test) {
        let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
        backends.push(meshclash::Backend::from_gpu(gpu));
    }
    backends
}

/// The banner of a GPU test skipped for want of an adapter, written to the process's stderr
/// itself: the test harness captures `eprintln!` (and shows it only for failed tests), so a
/// skipped test would otherwise read "ok" with nothing to tell it from a pass. A direct write
/// to the stderr handle bypasses that capture and reaches the terminal or the CI log under a
/// plain `cargo test`; one `write_all` per banner keeps parallel tests' banners whole.
pub fn announce_skip(test: &str, why: &str) {
    use std::io::Write;
    let banner = format!(
        "\n************************************************************\n\
         SKIPPED {test}: no GPU adapter ({why}).\n\
         This test passed without running. Install a Vulkan driver\n\
         (lavapipe: apt-get install mesa-vulkan-drivers) or set\n\
         MESHCLASH_REQUIRE_GPU=1 to make this a failure.\n\
         ************************************************************\n"
    );
    // Nothing better to do if stderr itself is gone.
    let _ = std::io::stderr().lock().write_all(banner.as_bytes());
}

/// Uniform numbers in [0, 1) from a fixed seed (a small LCG: deterministic, no dependency).
#[allow(dead_code)] // not every test file draws numbers
pub fn lcg(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random soup: 200 triangles on random vertices of a 5 x 5 x 3 integer grid moved by `off`
/// along x (so that shared vertices and edges, duplicate and coplanar faces, touching and folded
/// neighbours are exact and frequent), every other one flat in z = 0.
pub fn soup(seed: u64, off: f32) -> meshclash::mesh::Mesh {
    let mut r = lcg(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) + 7);
    let mut vertices = Vec::new();
    for x in 0..5 {
        for y in 0..5 {
            for z in 0..3 {
                vertices.push([x as f32 + off, y as f32, z as f32]);
            }
        }
    }
    let nv = vertices.len();
    let mut triangles = Vec::new();
    while triangles.len() < 200 {
        let mut pick = || ((r() * nv as f64) as usize).min(nv - 1) as u32;
        let mut t = [pick(), pick(), pick()];
        if triangles.len() % 2 == 0 {
            t = t.map(|k| k - k % 3); // vertex k has z = k % 3
        }
        if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
            triangles.push(t);
        }
    }
    meshclash::mesh::Mesh {
        source: format!("soup {seed}").into(),
        vertices,
        triangles,
        unit: None,
    }
}

/// Whether a case of `cases.json` has one part inside the other's solid with no surface contact
/// (interference without intersection), proved here with exact comparisons rather than taken
/// from the library:
/// - `cube_inside_cube_nested`: the unit cube centred at (1,1,1) inside the cube [0,2]³;
/// - `soup_inside_cube_no_touch`: every vertex of the soup (100 triangles, an open surface)
///   strictly inside (0,1)³, which the unit cube moved by 0.5 bounds: the soup's surface lies in
///   the cube's solid. Its peers' 0.000195 is the surfaces' distance, which `check` still
///   reports; the solids share points.
pub fn swallowed_by_construction(case: &serde_json::Value) -> bool {
    let name = case["name"].as_str().unwrap();
    let vertices = |key: &str| {
        meshclash::mesh::Mesh::load(case_path(case[key].as_str().unwrap()))
            .unwrap()
            .vertices
    };
    let translation = |key: &str| pose(&case[key]).apply(glam::DVec3::ZERO);
    match name {
        "cube_inside_cube_nested" => {
            // A is the cube [0,2]³; B, the unit cube of corners ±0.5, moved to its centre.
            assert!(vertices("mesh_a")
                .iter()
                .all(|v| v.iter().all(|&c| c == 0.0 || c == 2.0)));
            assert!(vertices("mesh_b")
                .iter()
                .all(|v| v.iter().all(|c| c.abs() == 0.5)));
            assert_eq!(translation("pose_b"), glam::DVec3::ONE);
            assert_eq!(translation("pose_a"), glam::DVec3::ZERO);
            true
        }
        "soup_inside_cube_no_touch" => {
            let soup = vertices("mesh_a");
            assert!(soup.iter().all(|v| v.iter().all(|&c| c > 0.0 && c < 1.0)));
            assert!(vertices("mesh_b")
                .iter()
                .all(|v| v.iter().all(|c| c.abs() == 0.5)));
            assert_eq!(translation("pose_b"), glam::DVec3::splat(0.5));
            assert_eq!(translation("pose_a"), glam::DVec3::ZERO);
            true
        }
        _ => false,
    }
}

/// A range of random cases' seeds: `count` cases (its variable, else `default`) from `first`'s
/// (else 0). A failure names its seed, which `first` and a count of 1 replay.
pub fn seeds(first: &str, count: &str, default: u64) -> std::ops::Range<u64> {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let start = env(first, 0);
    start..start + env(count, default)
}

/// Coverage of a random test: how many cases of each kind ran. Printed always; asserted (every
/// kind at least once) when at least `ci_cases` cases ran, CI's count, so that a generator
/// that stops making a kind fails instead of printing a zero. A smaller run (replaying one
/// seed) only prints.
pub fn assert_coverage(test: &str, ran: u64, ci_cases: u64, kinds: &[(&str, u64)]) {
    eprintln!("{test}: {ran} cases, by kind: {kinds:?}");
    if ran < ci_cases {
        eprintln!("{test}: fewer cases than CI's {ci_cases}: coverage not asserted");
        return;
    }
    let missing: Vec<&str> = kinds.iter().filter(|k| k.1 == 0).map(|k| k.0).collect();
    assert!(
        missing.is_empty(),
        "{test}: {ran} cases made no {missing:?} (by kind: {kinds:?})"
    );
}

/// proptest's case count: `PROPTEST_CASES`, else its default of 256 (CI's count too).
pub fn proptest_cases() -> u64 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

/// The box `[lo, hi]` as 12 triangles facing out (corner `i` takes `hi` on the axes whose bit
/// is set in `i`: x 1, y 2, z 4).
pub fn box_soup(lo: [f32; 3], hi: [f32; 3]) -> meshclash::mesh::read::Soup {
    let v = |i: usize| -> [f32; 3] {
        std::array::from_fn(|k| if i & (1 << k) == 0 { lo[k] } else { hi[k] })
    };
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    quads
        .iter()
        .flat_map(|q| [[v(q[0]), v(q[1]), v(q[2])], [v(q[0]), v(q[2]), v(q[3])]])
        .collect()
}

/// The box `[lo, hi]` ([`box_soup`]) as a prepared mesh.
pub fn box_mesh(lo: [f32; 3], hi: [f32; 3]) -> meshclash::PreparedMesh {
    let m = meshclash::mesh::Mesh::from_soup("box", box_soup(lo, hi)).expect("a box is a mesh");
    meshclash::PreparedMesh::new(m)
}

/// The `meshclash` binary of this build, run with `args`.
pub fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(args)
        .output()
        .expect("the meshclash binary runs")
}

/// Single triangles exactly `d` apart, by hand: integer images (axes permuted, signs flipped,
/// scaled, moved) of an edge along x and an edge along (0, 3, 4) whose lines' common normal is
/// (0, -4, 3) / 5, 3 apart, nearest inside both edges; and of a vertex 9 / 3 above the plane
/// x + 2y + 2z = 0 over a triangle around its foot. The first two's f64 distances round below
/// and above `d` (17.99999999999998, 21.000000000000007); the third's is exact.
pub fn pairs_exactly_apart() -> Vec<(meshclash::PreparedMesh, meshclash::PreparedMesh, f64)> {
    let one = |t: [[f32; 3]; 3]| {
        meshclash::PreparedMesh::new(meshclash::mesh::Mesh::from_soup("tie", vec![t]).unwrap())
    };
    vec![
        (
            one([
                [104.0, -973.0, -760.0],
                [104.0, -973.0, -880.0],
                [56.0, -937.0, -820.0],
            ]),
            one([
                [140.0, -955.0, -820.0],
                [86.0, -1027.0, -820.0],
                [152.0, -1009.0, -820.0],
            ]),
            18.0,
        ),
        (
            one([
                [219.0, -1057.0, -230.0],
                [219.0, -917.0, -230.0],
                [275.0, -987.0, -272.0],
            ]),
            one([
                [177.0, -987.0, -251.0],
                [240.0, -987.0, -167.0],
                [163.0, -987.0, -188.0],
            ]),
            21.0,
        ),
        (
            one([[4.0, -1.0, -1.0], [-2.0, 2.0, -1.0], [-2.0, -1.0, 2.0]]),
            one([[1.0, 2.0, 2.0], [2.0, 4.0, 4.0], [4.0, 3.0, 4.0]]),
            3.0,
        ),
    ]
}

/// The box `[lo, hi]`'s triangles, outward, less those of its faces `skip` names (axis and
/// side, as `(2, true)` for the top): an open box.
pub fn open_box(lo: f32, hi: f32, skip: &[(usize, bool)]) -> meshclash::PreparedMesh {
    let mut soup = Vec::new();
    for axis in 0..3 {
        for high in [false, true] {
            if skip.contains(&(axis, high)) {
                continue;
            }
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |a: f32, b: f32| {
                let mut p = [0.0; 3];
                p[axis] = if high { hi } else { lo };
                (p[u], p[v]) = (a, b);
                p
            };
            let q = [
                corner(lo, lo),
                corner(hi, lo),
                corner(hi, hi),
                corner(lo, hi),
            ];
            let quad = if high { q } else { [q[3], q[2], q[1], q[0]] };
            soup.push([quad[0], quad[1], quad[2]]);
            soup.push([quad[0], quad[2], quad[3]]);
        }
    }
    meshclash::PreparedMesh::new(meshclash::mesh::Mesh::from_soup("open box", soup).unwrap())
}

/// One mesh holding `m` and a copy of it placed by `pose` (rounded to float32): a part that
/// cuts itself wherever the two cross.
pub fn with_placed_copy(
    m: &meshclash::mesh::Mesh,
    pose: meshclash::Pose,
) -> meshclash::PreparedMesh {
    let mut both = m.clone();
    let base = both.vertices.len() as u32;
    both.vertices.extend(m.vertices.iter().map(|v| {
        let p = pose.apply(glam::DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
        [p.x as f32, p.y as f32, p.z as f32]
    }));
    both.triangles
        .extend(m.triangles.iter().map(|t| t.map(|k| k + base)));
    meshclash::PreparedMesh::new(both)
}

/// A `.npy` (format 1.0, written byte by byte here, not by the code under test) of `header` (padded here) and the float64 `values`.
pub fn npy_bytes(header: &str, values: &[f64]) -> Vec<u8> {
    let mut h = header.to_string();
    h.push_str(&" ".repeat((64 - (10 + h.len() + 1) % 64) % 64));
    h.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((h.len() as u16).to_le_bytes());
    b.extend(h.as_bytes());
    b.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    b
}
