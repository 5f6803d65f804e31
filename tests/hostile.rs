//! Hostile input: every reader fed mutated bytes (a bounded, seeded fuzz run that CI executes;
//! the unbounded cargo-fuzz targets are in `fuzz/`), and hostile meshes that must get a correct
//! answer or a typed error: all zero-area, duplicated faces, open, non-manifold, 1e7 from the
//! origin. Iterations: `MESHCLASH_FUZZ_CASES` (default 2000 per reader).

mod common;

use common::case_path;
use glam::DVec3;
use meshclash::mesh::{read, Mesh, Pose};
use meshclash::query::{self};
use meshclash::PreparedMesh;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Mutations of a real file: flipped bytes, overwritten runs, truncations, duplicated slices,
/// forged counts, injected numbers and keywords. Every outcome must be Ok or a typed error, and
/// return promptly (no hang, no allocation from a forged count: a 4-billion-triangle header in a
/// small file is refused before anything is allocated, see mesh_read.rs).
fn mutate(seed: &[u8]) -> impl Strategy<Value = Vec<u8>> {
    let n = seed.len().max(1);
    let edit = prop_oneof![
        (0..n, any::<u8>()).prop_map(|(i, b)| (0u8, i, vec![b])),
        (0..n, proptest::collection::vec(any::<u8>(), 1..64)).prop_map(|(i, v)| (1u8, i, v)),
        (0..n).prop_map(|i| (2u8, i, vec![])),
        (0..n, 0..n).prop_map(|(i, j)| (
            3u8,
            i.min(j),
            vec![(i.max(j) - i.min(j)).min(4096) as u8]
        )),
        (
            0..n,
            prop::sample::select(vec![
                "nan",
                "inf",
                "-1e39",
                "1e-45",
                "vertex",
                "endloop",
                "facet normal",
                "\n",
                "f 0 0 0",
                "f -99",
                "v 1 2"
            ])
        )
            .prop_map(|(i, s)| (4u8, i, s.as_bytes().to_vec())),
        (any::<u32>()).prop_map(|c| (5u8, 80, c.to_le_bytes().to_vec())),
    ];
    let seed = seed.to_vec();
    proptest::collection::vec(edit, 1..8).prop_map(move |edits| {
        let mut b = seed.clone();
        for (kind, i, v) in edits {
            let i = i.min(b.len());
            match kind {
                0 if i < b.len() => b[i] = v[0],
                1 => {
                    let end = (i + v.len()).min(b.len());
                    b.splice(i..end, v);
                }
                2 => b.truncate(i),
                3 => {
                    let end = (i + v[0] as usize * 16).min(b.len());
                    let dup = b[i..end].to_vec();
                    b.splice(i..i, dup);
                }
                4 => {
                    b.splice(i..i, v);
                }
                5 if b.len() >= 84 => b[80..84].copy_from_slice(&v),
                _ => {}
            }
        }
        b
    })
}

fn fuzz(
    name: &str,
    seed_file: &str,
    read: fn(&[u8], &std::path::Path) -> meshclash::Result<read::Soup>,
) {
    fuzz_from(name, &case_path(seed_file), read)
}

/// The formats' own test files (tests/data/formats), written by trimesh or by hand.
fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats")
        .join(name)
}

fn fuzz_from(
    name: &str,
    seed_file: &std::path::Path,
    read: fn(&[u8], &std::path::Path) -> meshclash::Result<read::Soup>,
) {
    let cases = std::env::var("MESHCLASH_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let seed = std::fs::read(seed_file).unwrap();
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    // A fixed seed: the same inputs in every run, so CI is repeatable.
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]));
    let (ok, err) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&mutate(&seed), |bytes| {
            let t = std::time::Instant::now();
            match read(&bytes, name.as_ref()).and_then(|soup| Mesh::from_soup(name, soup)) {
                Ok(m) => {
                    ok.set(ok.get() + 1);
                    let _ = m.info();
                }
                Err(e) => {
                    err.set(err.get() + 1);
                    prop_assert!(!e.to_string().is_empty());
                }
            }
            prop_assert!(t.elapsed().as_secs_f64() < 5.0, "slow input");
            Ok(())
        })
        .unwrap();
    eprintln!(
        "{name}: {cases} mutated inputs, {} read, {} typed errors, no panic",
        ok.get(),
        err.get()
    );
    assert_eq!(ok.get() + err.get(), cases, "every case ran");
    // Mutations that all fail would reach the error paths only, and none failing would mean
    // they no longer reach them.
    common::assert_coverage(
        &format!("{name} from {}", seed_file.display()),
        cases as u64,
        2000,
        &[("read", ok.get() as u64), ("typed error", err.get() as u64)],
    );
}

#[test]
fn binary_stl_reader_survives_mutation() {
    fuzz("fuzz.stl", "meshes/halfdonut_ascii.stl", read::read_stl);
}

#[test]
fn ascii_stl_reader_survives_mutation() {
    fuzz("fuzz.stl", "originals/numpy-stl/Cube.stl", read::read_stl);
}

#[test]
fn obj_reader_survives_mutation() {
    fuzz(
        "fuzz.obj",
        "originals/common-3d-test-models/fandisk.obj",
        read::read_obj,
    );
}

#[test]
fn ascii_ply_reader_survives_mutation() {
    fuzz_from("fuzz.ply", &fixture("ball_ascii.ply"), read::read_ply);
}

#[test]
fn binary_ply_reader_survives_mutation() {
    fuzz_from("fuzz.ply", &fixture("cube_big_endian.ply"), read::read_ply);
}

#[test]
fn threemf_reader_survives_mutation() {
    fuzz_from("fuzz.3mf", &fixture("components_stored.3mf"), |b, p| {
        read::read_3mf(b, p).map(|l| l.soup)
    });
}

#[test]
fn glb_reader_survives_mutation() {
    fuzz_from("fuzz.glb", &fixture("scene.glb"), |b, p| {
        read::read_gltf(b, p).map(|l| l.soup)
    });
}

#[test]
fn gltf_reader_survives_mutation() {
    fuzz_from("fuzz.gltf", &fixture("cube_data_uri.gltf"), |b, p| {
        read::read_gltf(b, p).map(|l| l.soup)
    });
}

#[test]
fn all_zero_area_duplicated_open_and_non_manifold_meshes() {
    let load =
        |n: &str| PreparedMesh::new(Mesh::load(case_path(&format!("meshes/{n}.stl"))).unwrap());
    // All zero-area (cgal_all_degen): no self-intersection, 7 counted; against a cube it touches
    // in 41 pairs (proved with the LP oracle in peer_cases.rs) and has distance 0.
    let degen = load("cgal_all_degen");
    let r = query::self_intersections(&degen);
    assert_eq!((r.pairs.len(), r.zero_area_triangles), (0, 7));
    // Duplicated faces (bunny_lowres: 93 pairs, SOURCES.md).
    assert_eq!(
        query::self_intersections(&load("bunny_lowres")).count(query::SelfKind::DuplicateFace),
        93
    );
    // Open and non-manifold: an open part bounds no solid; the teapot, 100 away, is in no
    // other; the non-manifold mesh touches the cube (containment is asked only of parts whose
    // surfaces do not meet). An open part inside a solid is: tests/queries.rs.
    let (open, cube) = (load("teapot"), load("cube_trimesh"));
    let far = Pose::translation(DVec3::new(100.0, 0.0, 0.0));
    let r = query::check(&open, Pose::IDENTITY, &cube, far, &Default::default());
    assert!(!r.intersects() && r.containment.is_none());
    let nm = load("cgal_non_manifold");
    assert!(!nm.info.closed);
    let r = query::check(
        &nm,
        Pose::IDENTITY,
        &cube,
        Pose::IDENTITY,
        &Default::default(),
    );
    assert!(r.containment.is_none());
}

#[test]
fn touching_and_nested_cubes_1e7_from_the_origin() {
    // f32 coordinates at 1e7 have a spacing of 1: flush faces there are a clash for any tool that
    // poses in f32. Poses here are f64, and both cubes move by the same exactly representable
    // 1e7, so every contact is the same as at the origin: 64 face pairs touching, and the nested
    // cubes contained with their surfaces 0.5 apart.
    let cube = PreparedMesh::new(Mesh::load(case_path("meshes/cube_trimesh.stl")).unwrap());
    let big = PreparedMesh::new(Mesh::load(case_path("meshes/cube_numpystl_ascii.stl")).unwrap());
    let far = DVec3::new(1e7, -1e7, 1e7);
    let r = query::check(
        &cube,
        Pose::translation(far),
        &cube,
        Pose::translation(far + DVec3::X),
        &Default::default(),
    );
    assert_eq!(r.intersect.pairs.len(), 64);
    assert!(r.intersect.pairs.iter().all(|p| p.contact.touching));
    // One ulp of 1e7 (2^-29 · 2^23… = 1.86e-9) apart: no contact, distance that gap.
    let gap = (1e7f64 + 1.0).next_up() - (1e7 + 1.0);
    let r = query::check(
        &cube,
        Pose::translation(far),
        &cube,
        Pose::translation(far + DVec3::X + DVec3::new(gap, 0.0, 0.0)),
        &Default::default(),
    );
    assert!(!r.intersects());
    assert!(r.distance.distance > 0.0 && r.distance.distance <= 2.0 * gap);
    // The unit cube (centred at 0) nested in the 2-cube [0,2]³, both moved.
    let r = query::check(
        &cube,
        Pose::translation(far + DVec3::ONE),
        &big,
        Pose::translation(far),
        &Default::default(),
    );
    assert_eq!(r.containment, Some(query::Containment::AInB));
    assert_eq!(r.distance.distance, 0.5);
}

/// A fresh empty directory for one test (no tempfile dependency): under the system's temp dir,
/// named by the process and the test, removed first in case an earlier run left it.
fn scratch_dir(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("meshclash-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `read_file` on another thread, so that a regression that blocks (a FIFO opened with no
/// writer) or reads forever (`/dev/zero`) fails the test instead of hanging it. The limit is a
/// hang guard, not a timing assertion: a working reader answers in microseconds.
fn read_file_or_hang(path: &std::path::Path) -> meshclash::Result<read::Soup> {
    let (tx, rx) = std::sync::mpsc::channel();
    let p = path.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(read::read_file(&p));
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{}: read_file did not return", path.display()))
}

#[cfg(unix)]
#[test]
fn dev_zero_is_refused_as_a_character_device() {
    let p = std::path::Path::new("/dev/zero");
    let e = read_file_or_hang(p).unwrap_err();
    assert!(
        matches!(&e, meshclash::Error::NotAFile { path, kind: "a character device" } if path == p),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "/dev/zero: is a character device, not a file"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_without_a_writer_is_refused_without_blocking() {
    let dir = scratch_dir("fifo");
    // Named like a mesh, so the extension cannot be what refuses it.
    let fifo = dir.join("pipe.stl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let e = read_file_or_hang(&fifo).unwrap_err();
    assert!(
        matches!(
            &e,
            meshclash::Error::NotAFile {
                kind: "a named pipe (FIFO)",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .ends_with("pipe.stl: is a named pipe (FIFO), not a file"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_is_refused() {
    let dir = scratch_dir("dir");
    let sub = dir.join("folder.obj");
    std::fs::create_dir(&sub).unwrap();
    let e = read_file_or_hang(&sub).unwrap_err();
    assert!(
        matches!(
            &e,
            meshclash::Error::NotAFile {
                kind: "a directory",
                ..
            }
        ),
        "{e:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The cap on what is read: procfs files are regular files whose metadata gives 0 bytes and
/// whose reads yield more, as a file growing while it is read would. The reader stops one
/// byte past the size it was given and refuses the file.
#[cfg(target_os = "linux")]
#[test]
fn a_file_yielding_more_than_its_size_is_refused() {
    let p = std::path::Path::new("/proc/self/status");
    assert_eq!(std::fs::metadata(p).unwrap().len(), 0);
    let e = read_file_or_hang(p).unwrap_err();
    assert!(matches!(&e, meshclash::Error::Grew { len: 0, .. }), "{e:?}");
}
