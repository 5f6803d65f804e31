//! Points against a placed mesh: the nearest point against brute force over every triangle,
//! and `meshclash inside` / `closest` as scripts use them: tables in (.npy float32 and float64,
//! .csv with and without a header, .json) and out (.csv, structured .npy, .json), and bad rows
//! refused by name.

mod common;

use glam::DVec3;
use meshclash::geom::closest::closest_point_triangle;
use meshclash::mesh::{generate, Mesh, Pose};
use meshclash::query::{self, Posed};
use meshclash::PreparedMesh;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The smallest (distance², triangle) over every triangle, by the same primitive.
fn brute(p: DVec3, m: &Posed) -> (f64, u32) {
    (0..m.prep.mesh.triangles.len() as u32)
        .map(|t| (closest_point_triangle(p, &m.tri(t)).distance_squared(p), t))
        .min_by(|x, y| x.partial_cmp(y).unwrap())
        .unwrap()
}

#[test]
fn batched_nearest_points_are_brute_forces_in_any_order() {
    // The batch searches in Morton order, each search bounded by its neighbour's answer: every
    // answer must still be brute force's (distance and smallest tied triangle), whatever the
    // order the points come in, ties included (points on a grid over an integer box: centres
    // of faces and edges are equidistant from several triangles), and with a limit.
    // The batch walks the oriented boxes it builds, four to a node; a single query on a mesh
    // that has the boxes alone walks them two to a node, and on a mesh that has none the
    // axis-aligned ones: the same answers. Placed at the origin, and turned and moved 1e6
    // away.
    let make = || {
        [
            common::box_mesh([0.0; 3], [4.0; 3]),
            PreparedMesh::new(generate::torus(1.0, 0.3, 20, 10)),
        ]
    };
    let (meshes, aligned, binary) = (make(), make(), make());
    for m in &binary {
        m.oriented();
    }
    let far = Pose::from_euler_degrees([30.0, -50.0, 70.0], DVec3::new(1e6, -2e6, 5e5));
    let mut rnd = common::lcg(7);
    for (((m, plain), two), pose) in meshes
        .iter()
        .zip(&aligned)
        .zip(&binary)
        .flat_map(|pair| [(pair, Pose::IDENTITY), (pair, far)])
    {
        let posed = Posed::new(m, pose);
        let b = posed.node_box(0);
        let mut points: Vec<DVec3> = (0..9)
            .flat_map(|i| {
                (0..9).flat_map(move |j| {
                    (0..9).map(move |k| DVec3::new(i as f64, j as f64, k as f64))
                })
            })
            .map(|g| b.min - 1.0 + (b.max - b.min + 2.0) * g / 8.0)
            .collect();
        points.extend((0..300).map(|_| b.min + (b.max - b.min) * DVec3::new(rnd(), rnd(), rnd())));
        points.reverse();
        let (unboxed, two_wide) = (Posed::new(plain, pose), Posed::new(two, pose));
        for limit in [f64::INFINITY, 0.25] {
            let batch = query::closest_points(&points, &posed, limit);
            assert!(m.nearest_tree_if_made().is_some() && plain.oriented_if_made().is_none());
            assert!(two.oriented_if_made().is_some() && two.nearest_tree_if_made().is_none());
            assert_eq!(batch.len(), points.len());
            for (p, c) in points.iter().zip(&batch) {
                let (d2, t) = brute(*p, &posed);
                match c {
                    Some(c) => {
                        assert_eq!(c.triangle, t, "{p}");
                        let e2 = c.point.distance_squared(*p);
                        assert_eq!(e2, d2, "{p}: the same primitive, the same value");
                        assert_eq!(Some(*c), query::closest_point(*p, &posed, limit));
                    }
                    None => assert!(d2 > limit * limit, "{p}: {d2}"),
                }
                assert_eq!(*c, query::closest_point(*p, &unboxed, limit), "{p}");
                assert_eq!(*c, query::closest_point(*p, &two_wide, limit), "{p}");
            }
        }
    }
}

#[test]
fn the_nearest_point_is_brute_forces_with_its_ties_and_limits() {
    let meshes = [
        PreparedMesh::new(generate::torus(1.0, 0.3, 20, 10)),
        PreparedMesh::new(Mesh::load(common::case_path("meshes/teapot.stl")).unwrap()),
        PreparedMesh::new(common::soup(3, 0.0)),
    ];
    let mut rnd = common::lcg(42);
    for m in &meshes {
        for pose in [
            Pose::IDENTITY,
            Pose::from_euler_degrees([30.0, -60.0, 10.0], DVec3::new(1e4, -2.0, 3.0)),
        ] {
            let posed = Posed::new(m, pose);
            let b = posed.node_box(0);
            for k in 0..150 {
                let t = DVec3::new(rnd(), rnd(), rnd()) * 1.6 - 0.3;
                // Some points exactly on vertices: ties between the triangles that share it.
                let p = if k % 10 == 0 {
                    posed.vertex(k as u32 % m.mesh.vertices.len() as u32)
                } else {
                    b.min + (b.max - b.min) * t
                };
                let (d2, tri) = brute(p, &posed);
                let c = query::closest_point(p, &posed, f64::INFINITY).unwrap();
                assert_eq!((c.triangle, c.point.distance_squared(p)), (tri, d2), "{p}");
                assert!((c.distance - d2.sqrt()).abs() <= 1e-12 * (1.0 + d2.sqrt()));
                // Barycentric coordinates give the point back.
                let [v0, v1, v2] = posed.tri(tri);
                let back = v0 * (1.0 - c.u - c.v) + v1 * c.u + v2 * c.v;
                assert!(back.distance(c.point) <= 1e-9 * (1.0 + b.diagonal()), "{p}");
                // A limit below the distance finds nothing; one above, the same.
                let d = d2.sqrt();
                if d > 0.0 {
                    assert_eq!(query::closest_point(p, &posed, d * 0.999), None);
                }
                assert_eq!(query::closest_point(p, &posed, d * 1.001 + 1e-300), Some(c));
            }
        }
    }
}

/// `--max-distance` is decided on the distance reported: a point exactly D away (3k, 4k from
/// a corner, k dyadic: 5k exactly, and so reported) is found at D, and one whose reported
/// distance is above D is not, in batches and single queries (the GPU's answers pass through
/// the same `closest_among`). A limit whose
/// square overflows (1e155) still limits: points 1e160 and 1e300 away are beyond it, one
/// 2e154 away within.
#[test]
fn a_max_distance_is_decided_on_the_distance_reported() {
    let tri = PreparedMesh::new(
        Mesh::from_soup(
            "t",
            vec![[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]],
        )
        .unwrap(),
    );
    let posed = Posed::new(&tri, Pose::IDENTITY);
    let p = DVec3::new(-4.071991370536125, -5.4293218273815, 0.0);
    let d = query::closest_point(p, &posed, f64::INFINITY)
        .unwrap()
        .distance;
    assert_eq!(d, 6.786652284226875);
    let below = f64::from_bits(d.to_bits() - 1);
    assert!(query::closest_point(p, &posed, d).is_some());
    assert!(query::closest_point(p, &posed, below).is_none());
    assert_eq!(
        query::closest_points(&[p, p], &posed, d)
            .iter()
            .flatten()
            .count(),
        2
    );
    assert!(query::closest_points(&[p], &posed, below)[0].is_none());
    let far = [2e154, 1e160, 1e300].map(|x| DVec3::new(x, 0.0, 0.0));
    let found = query::closest_points(&far, &posed, 1e155);
    assert_eq!(
        found.iter().map(Option::is_some).collect::<Vec<_>>(),
        [true, false, false]
    );
    for (q, f) in far.iter().zip(&found) {
        assert_eq!(
            query::closest_point(*q, &posed, 1e155).is_some(),
            f.is_some()
        );
    }
}

/// A review's sliver (sin² of its smallest angle about 1e-11): the nearest point is on edge
/// V0V1 (worked in rationals: u = 0.8912669, v = 0), and its barycentric coordinates give it
/// back. The normal equations had given v = -0.00028, 1.9e-4 off the point.
// The corners are f32 values written out in full (as the review's file holds them).
#[allow(clippy::excessive_precision)]
#[test]
fn a_slivers_barycentric_coordinates_give_its_point_back() {
    let t = [
        [
            -0.9516337513923645,
            -0.29778990149497986,
            0.07176918536424637,
        ],
        [0.06733687222003937, -0.7775506973266602, 0.5784482955932617],
        [
            -0.5634722709655762,
            -0.4805475175380707,
            0.26478150486946106,
        ],
    ];
    let m = PreparedMesh::new(Mesh::from_soup("sliver", vec![t]).unwrap());
    let posed = Posed::new(&m, Pose::IDENTITY);
    let p = DVec3::new(0.8220940828323364, 0.8650022745132446, 0.28855660557746887);
    let c = query::closest_point(p, &posed, f64::INFINITY).unwrap();
    assert!((c.u - 0.8912669).abs() < 1e-6 && c.v.abs() < 1e-6, "{c:?}");
    let [v0, v1, v2] = posed.tri(0);
    let back = v0 * (1.0 - c.u - c.v) + v1 * c.u + v2 * c.v;
    assert!(back.distance(c.point) < 1e-9, "{back} {c:?}");
}

/// A point or a sphere whose distance to the mesh is beyond f64 is refused by row, as rays
/// are: its answer would otherwise read as nothing within reach. So is a pose of `poses` that
/// puts the parts that far apart, as `check` refuses it.
#[test]
fn distances_beyond_f64_are_refused_not_read_as_none() {
    let teapot = common::case_path("meshes/teapot.stl");
    let t = teapot.to_str().unwrap();
    // The largest f64 on every axis: its nearest triangle is found and its distance overflows
    // (it was answered, inf at triangle 0, exit 0; a review's helper found it).
    let max = f64::MAX;
    for (cmd, name, row) in [
        (
            "closest",
            "max-points.csv",
            format!("0,0,0\n{max:e},{max:e},{max:e}\n"),
        ),
        (
            "spheres",
            "max-spheres.csv",
            format!("0,0,0,1\n{max:e},{max:e},{max:e},0\n"),
        ),
    ] {
        let rows = scratch(name);
        std::fs::write(&rows, row).unwrap();
        for backend in ["cpu", "gpu"] {
            if backend == "gpu" && common::gpu_or_skip("max-points").is_none() {
                continue;
            }
            let args = [cmd, t, rows.to_str().unwrap(), "--backend", backend];
            let (code, _, err) = meshclash(&args);
            assert_eq!(code, 2, "{cmd} {backend}: {err}");
            // The file's line too, as every other row's message names it.
            assert!(
                err.contains(":2: row 1: its distance to the mesh overflows f64"),
                "{err}"
            );
        }
    }
    for (cmd, name, row) in [
        ("closest", "far-points.csv", "0,0,0\n1.7e308,0,0\n"),
        ("spheres", "far-spheres.csv", "0,0,0,1\n1.7e308,0,0,1\n"),
    ] {
        let rows = scratch(name);
        std::fs::write(&rows, row).unwrap();
        let r = rows.to_str().unwrap();
        let (code, _, err) = meshclash(&[cmd, t, r, "--translate=-1.7e308,0,0"]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains(":2: row 1: its distance to the mesh overflows f64"),
            "{err}"
        );
        // Nearer, the same rows are answered.
        let (code, _, err) = meshclash(&[cmd, t, r, "--translate=-1e300,0,0"]);
        assert_eq!(code, 0, "{cmd}: {err}");
    }
    let poses = scratch("far-poses.json");
    std::fs::write(&poses, "[[1,0,0,1.7e308, 0,1,0,0, 0,0,1,0, 0,0,0,1]]").unwrap();
    let p = poses.to_str().unwrap();
    let (code, _, err) = meshclash(&["poses", t, t, p, "--translate-a=-1.7e308,0,0"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("pose 0 places the parts farther apart"),
        "{err}"
    );
}

/// An `--out` the answers could not be written to is refused before the work, naming it: an
/// unknown format, a folder that does not exist, a folder.
#[test]
fn an_out_that_cannot_be_written_is_refused_first() {
    let teapot = common::case_path("meshes/teapot.stl");
    let pts = scratch("out-check.csv");
    std::fs::write(&pts, "0,0,0\n").unwrap();
    let dir = std::env::temp_dir();
    let cases = [
        (dir.join("answers.txt"), "unknown table format"),
        (
            dir.join("no-such-folder/answers.csv"),
            "its folder does not exist",
        ),
        (dir.clone(), "unknown table format"),
        (dir.join("a-folder.csv"), "is a folder"),
    ];
    std::fs::create_dir_all(dir.join("a-folder.csv")).unwrap();
    for (out, why) in &cases {
        for cmd in ["closest", "inside"] {
            let (code, _, err) = meshclash(&[
                cmd,
                teapot.to_str().unwrap(),
                pts.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 2, "{out:?}: {err}");
            assert!(
                err.contains(why) && err.contains(out.to_str().unwrap()),
                "{err}"
            );
        }
    }
}

fn meshclash(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meshclash-points-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A `.npy` of `rows` (N×3) in float64 or float32, written byte by byte here (NumPy's format
/// 1.0), not by the code under test.
fn npy(path: &Path, rows: &[[f64; 3]], f32s: bool) {
    let shape = format!("({}, 3)", rows.len());
    npy_shaped(path, &shape, rows.as_flattened(), f32s);
}

/// A `.npy` of `values` in C order, of the shape written as NumPy writes it, e.g. `(1, 3, 1)`.
fn npy_shaped(path: &Path, shape: &str, values: &[f64], f32s: bool) {
    let descr = if f32s { "<f4" } else { "<f8" };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((header.len() as u16).to_le_bytes());
    b.extend(header.as_bytes());
    for x in values {
        if f32s {
            b.extend((*x as f32).to_le_bytes());
        } else {
            b.extend(x.to_le_bytes());
        }
    }
    std::fs::write(path, b).unwrap();
}

#[test]
fn inside_and_closest_read_and_write_every_table_format() {
    let teapot = common::case_path("meshes/teapot.stl");
    let t = teapot.to_str().unwrap();
    // The teapot's belly (winding 1.005: inside), far outside, and its lid's rim region.
    let rows = [[0.0, 0.0, 12.0], [100.0, 0.0, 0.0], [0.0, 0.0, 12.5]];
    let inputs = [
        ("a.npy", None),
        ("b.npy", Some(true)),
        ("c.csv", None),
        ("d.json", None),
    ];
    for (name, f32s) in inputs {
        let p = scratch(name);
        match name.rsplit('.').next() {
            Some("npy") => npy(&p, &rows, f32s.unwrap_or(false)),
            Some("csv") => std::fs::write(&p, "x,y,z\n0,0,12\n100,0,0\n0,0,12.5\n").unwrap(),
            _ => std::fs::write(&p, "[[0,0,12],[100,0,0],[0,0,12.5]]").unwrap(),
        }
        let out = scratch(&format!("{name}.out.json"));
        let (code, stdout, err) = meshclash(&[
            "inside",
            t,
            p.to_str().unwrap(),
            "--json",
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            (v["count"].as_u64(), v["inside"].as_u64()),
            (Some(3), Some(2)),
            "{name}"
        );
        let rows_out: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(rows_out[0]["inside"], true);
        assert_eq!(rows_out[1]["inside"], false);
        assert_eq!(rows_out[1]["certain"], true);
    }
    // closest to .csv and .npy: the far point's nearest is on the spout's tip side (x max).
    let p = scratch("pts.csv");
    std::fs::write(&p, "0,0,12\n100,0,0\n").unwrap();
    let csv = scratch("closest.csv");
    let (code, _, err) = meshclash(&[
        "closest",
        t,
        p.to_str().unwrap(),
        "--signed",
        "--backend",
        "cpu",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("distance,triangle,x,y,z,u,v"));
    let first: Vec<f64> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(first[0] < 0.0, "inside: negative, {text}");
    let second: Vec<f64> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(second[0] > 60.0 && second[2] > 34.0, "{text}");
    // A limit leaves the far point without a triangle: empty fields in CSV, -1 and NaN in .npy.
    let npy_out = scratch("closest.npy");
    let (code, _, err) = meshclash(&[
        "closest",
        t,
        p.to_str().unwrap(),
        "--max-distance",
        "20",
        "--backend",
        "cpu",
        "--out",
        npy_out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&npy_out).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(
        header.contains("('distance', '<f8'), ('triangle', '<i8')"),
        "{header}"
    );
    assert!(header.contains("'shape': (2,)"), "{header}");
    assert_eq!((10 + header_len) % 64, 0);
    let record = 7 * 8;
    let second = &bytes[10 + header_len + record..];
    let f = |k: usize| f64::from_le_bytes(second[8 * k..8 * k + 8].try_into().unwrap());
    assert!(f(0).is_nan());
    assert_eq!(i64::from_le_bytes(second[8..16].try_into().unwrap()), -1);
}

/// `inside` writes each winding number's bound, last: beside the seam of the fan closing an open
/// cube's top (6e-14 above and below it) the f64 sum is 2e-4 off, within its bound (a review's
/// helper, who had no bound to read). The winding number is continuous through the open top,
/// where it is 1/2: within 1e-13 of it there.
#[test]
fn inside_writes_a_bound_that_holds_the_winding_number_beside_a_seam() {
    let mut text = String::from("solid open\n");
    for t in common::box_soup([0.0; 3], [1.0; 3]) {
        if t.iter().all(|v| v[2] == 1.0) {
            continue; // the top, left open
        }
        text += " facet normal 0 0 0\n  outer loop\n";
        for v in t {
            text += &format!("   vertex {} {} {}\n", v[0], v[1], v[2]);
        }
        text += "  endloop\n endfacet\n";
    }
    text += "endsolid open\n";
    let mesh = scratch("open_top.stl");
    std::fs::write(&mesh, text).unwrap();
    let rows = scratch("seam.csv");
    let h = 2f64.powi(-44);
    std::fs::write(
        &rows,
        format!("0.25,0.25,{}\n0.25,0.25,{}\n", 1.0 + h, 1.0 - h),
    )
    .unwrap();
    let out = scratch("seam.out.csv");
    let (code, _, err) = meshclash(&[
        "inside",
        mesh.to_str().unwrap(),
        rows.to_str().unwrap(),
        "--backend",
        "cpu",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("winding,inside,certain,bound"));
    for line in lines {
        let f: Vec<f64> = [0, 3]
            .map(|k| line.split(',').nth(k).unwrap().parse().unwrap())
            .to_vec();
        // In f64 it was 2e-4 off, within a bound of 0.09; in double-double it holds.
        assert!((f[0] - 0.5).abs() <= 1e-13 && f[1] <= 1e-13, "{line}");
    }
}

#[test]
fn bad_point_tables_are_refused_by_row() {
    let teapot = common::case_path("meshes/teapot.stl");
    let t = teapot.to_str().unwrap();
    let cases = [
        ("nan.csv", "0,0,0\n1,nan,2\n", "row 1"),
        // Every row too wide: the first row's line is named (it named none).
        (
            "wide.csv",
            "x,y,z\n0,0,0,1\n",
            ":2: row 0 has 4 numbers, expected 3",
        ),
        (
            "wide.json",
            "[[0,0,0,1]]",
            ":1: row 0 has 4 numbers, expected 3",
        ),
        (
            "ragged.csv",
            "0,0,0\n1,2\n",
            ":2: row 1 has 2 numbers, the rows before have 3",
        ),
        // Rows of a width the command does not take, then one that it does: the first rows
        // are what is wrong (the message blamed the line that differed).
        (
            "narrow.csv",
            "x,y,z\n1,2\n3,4\n5,6,7\n",
            ":2: row 0 has 2 numbers, expected 3",
        ),
        ("word.csv", "0,0,0\n1,x,2\n", ":2: not a number"),
        ("rows.json", "[[0,0,0],[1,2]]", "row 1 has 2 numbers"),
        (
            "narrow.json",
            "[[1,2],[3,4,5]]",
            "row 0 has 2 numbers, expected 3",
        ),
        // After a byte-order mark, which a CSV may also have (it was "expected value").
        (
            "bom.json",
            "\u{feff}[[0,0,0,1]]",
            ":1: row 0 has 4 numbers, expected 3",
        ),
        ("bad.npy", "not numpy", "not a readable .npy"),
        ("points.txt", "0 0 0", "unknown table format"),
    ];
    for (name, body, want) in cases {
        let p = scratch(name);
        std::fs::write(&p, body).unwrap();
        let (code, _, err) = meshclash(&["inside", t, p.to_str().unwrap(), "--backend", "cpu"]);
        assert_eq!(code, 2, "{name}");
        assert!(err.contains(want), "{name}: {err}");
    }
    let p = scratch("neg.csv");
    std::fs::write(&p, "0,0,0\n").unwrap();
    // An --out that cannot be made (a folder that takes no new file, as Linux's /proc): refused
    // before the work, where it was found only when the answers were written.
    #[cfg(target_os = "linux")]
    {
        let out = "/proc/meshclash-out.csv";
        let args = [
            "inside",
            t,
            p.to_str().unwrap(),
            "--out",
            out,
            "--backend",
            "cpu",
        ];
        let (code, _, err) = meshclash(&args);
        assert_eq!(code, 2);
        assert!(
            err.contains("--out /proc/meshclash-out.csv: cannot be written"),
            "{err}"
        );
    }
    let (code, _, err) = meshclash(&[
        "closest",
        t,
        p.to_str().unwrap(),
        "--max-distance",
        "-1",
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--max-distance"), "{err}");
}

/// A `.npy` of three dimensions is a table of 4×4 matrices or nothing: points saved as
/// (1, 3, 1) were read as one row of three, and (1, 3, 2) as a ray of six numbers.
#[test]
fn tables_of_three_dimensions_other_than_matrices_are_refused() {
    let teapot = common::case_path("meshes/teapot.stl");
    let table = scratch("three.npy");
    npy_shaped(&table, "(1, 3, 1)", &[0.0, 0.5, 1.0], false);
    let (code, _, err) = meshclash(&[
        "closest",
        teapot.to_str().unwrap(),
        table.to_str().unwrap(),
        "--backend",
        "cpu",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("only K×4×4 matrices"), "{err}");
}

/// A table of no rows is a batch of none in every format: a CSV of its header alone, an empty
/// CSV, `[]` and a `.npy` of shape (0, 3) alike (the first two were refused as "rows of 0
/// numbers"); the answer is a count of 0 and a table of its header alone.
#[test]
fn tables_of_no_rows_are_batches_of_none() {
    let teapot = common::case_path("meshes/teapot.stl");
    let t = teapot.to_str().unwrap();
    let none = scratch("none.npy");
    npy(&none, &[], false);
    let mut tables = vec![none];
    for (name, body) in [
        ("header.csv", "x,y,z\n"),
        ("blank.csv", ""),
        ("none.json", "[]"),
    ] {
        let p = scratch(name);
        std::fs::write(&p, body).unwrap();
        tables.push(p);
    }
    for table in &tables {
        let out = scratch("none-out.csv");
        let (code, stdout, err) = meshclash(&[
            "closest",
            t,
            table.to_str().unwrap(),
            "--json",
            "--out",
            out.to_str().unwrap(),
            "--backend",
            "cpu",
        ]);
        assert_eq!(code, 0, "{table:?}: {err}");
        let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(summary["count"], 0, "{table:?}");
        let written = std::fs::read_to_string(&out).unwrap();
        assert_eq!(written.trim(), "distance,triangle,x,y,z,u,v", "{table:?}");
    }
}

/// The meshes and poses the GPU's nearest points run over: a box with integer corners (points
/// on a grid tie between triangles), a torus far from the origin and turned, the teapot (open),
/// a random soup.
fn gpu_cases() -> Vec<(&'static str, PreparedMesh, Pose)> {
    vec![
        ("box", common::box_mesh([0.0; 3], [4.0; 3]), Pose::IDENTITY),
        (
            "torus far away",
            PreparedMesh::new(generate::torus(1.0, 0.3, 40, 16)),
            Pose::from_euler_degrees([30.0, -60.0, 10.0], DVec3::new(1e4, -2.0, 3.0)),
        ),
        (
            "teapot",
            PreparedMesh::new(Mesh::load(common::case_path("meshes/teapot.stl")).unwrap()),
            Pose::translation(DVec3::new(-2.0, 0.5, 7.0)),
        ),
        (
            "soup",
            PreparedMesh::new(common::soup(3, 0.0)),
            Pose::IDENTITY,
        ),
        (
            "torus off rigid",
            PreparedMesh::new(generate::torus(1.0, 0.3, 40, 16)),
            {
                let e = 0.499 * Pose::RIGID_TOLERANCE;
                let (c, s) = (1.0 + e, e);
                let m = [
                    c, s, s, 3.0, s, c, s, -2.0, s, s, c, 1.0, 0.0, 0.0, 0.0, 1.0,
                ];
                Pose::from_matrix(&m).unwrap()
            },
        ),
    ]
}

/// Points for a case: random ones in and around its box, a grid over it (ties), and its
/// vertices (on the surface: every triangle around them ties at 0).
fn gpu_points(posed: &Posed, seed: u64) -> Vec<DVec3> {
    let mut rnd = common::lcg(seed);
    let b = posed.node_box(0);
    let mut points: Vec<DVec3> = (0..700)
        .map(|_| b.min + (b.max - b.min) * (DVec3::new(rnd(), rnd(), rnd()) * 1.6 - 0.3))
        .collect();
    for i in 0..6 {
        for j in 0..6 {
            for k in 0..6 {
                let g = DVec3::new(i as f64, j as f64, k as f64) / 5.0;
                points.push(b.min + (b.max - b.min) * g);
            }
        }
    }
    let verts = posed.prep.mesh.vertices.len() as u32;
    points.extend((0..60).map(|k| posed.vertex(k * 7 % verts)));
    points
}

#[test]
fn gpu_nearest_points_and_spheres_equal_the_cpus_to_the_bit() {
    let test = "gpu_nearest_points_and_spheres_equal_the_cpus_to_the_bit";
    let Some(ctx) = common::gpu_or_skip(test) else {
        return;
    };
    let mut gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let (mut sure, mut unsure, mut ties) = (0, 0, 0);
    for (name, m, pose) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let points = gpu_points(&posed, 5);
        let gm = gpu.resident(&m).unwrap();
        // A software adapter's eight points a thread and a GPU's one (the thread's first
        // search has no hint).
        for (limit, per_thread) in [(f64::INFINITY, 8), (0.05, 8), (f64::INFINITY, 1)] {
            gpu.closest_per_thread = per_thread;
            let got = gpu.closest_points(&posed, &gm, &points, limit).unwrap();
            let want = query::closest_points(&points, &posed, limit);
            assert_eq!(got, want, "{name}, {per_thread} a thread");
        }
        gpu.closest_per_thread = 8;
        let run = gpu.closest_run(&posed, &gm, &points).unwrap();
        for o in &run.out {
            match o.unsure {
                0 => sure += 1,
                _ => unsure += 1,
            }
            ties += (o.unsure == 0 && o.count > 1) as usize;
        }
        let spheres: Vec<(DVec3, f64)> = points
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, 0.01 * (i % 7) as f64))
            .collect();
        let got = gpu.sphere_contacts(&posed, &gm, &spheres).unwrap();
        for (s, g) in spheres.iter().zip(&got) {
            assert_eq!(*g, query::sphere_contact(s.0, s.1, &posed), "{name}: {s:?}");
        }
    }
    // The GPU answered most, often among several candidates; the CPU some.
    assert!(
        sure > 2000 && ties > 500 && unsure > 0 && unsure * 10 < sure,
        "{sure} sure ({ties} among several), {unsure} unsure"
    );
    // Through the backend, as the CLI and Python ask.
    let (name, m, pose) = gpu_cases().remove(1);
    let points = gpu_points(&Posed::new(&m, pose), 6);
    let b = meshclash::Backend::from_gpu(gpu);
    let cpu = meshclash::Backend::cpu();
    assert_eq!(
        b.closest_points(&m, pose, &points, f64::INFINITY).unwrap(),
        cpu.closest_points(&m, pose, &points, f64::INFINITY)
            .unwrap(),
        "{name}"
    );
    let spheres: Vec<(DVec3, f64)> = points.iter().map(|&p| (p, 0.1)).collect();
    assert_eq!(
        b.sphere_contacts(&m, pose, &spheres).unwrap(),
        cpu.sphere_contacts(&m, pose, &spheres).unwrap(),
        "{name}"
    );
}

/// The stage against its twin, in the order the points were sent: where both are sure, the
/// same candidates, and the unsure sets the same, but where a fused multiply-add moved a value
/// across its bound. The candidates are compared as sets: a GPU fuses where the twin rounds
/// twice, so two boxes' bounds that tie can swap which is searched first, and the candidates
/// come in another order (an H200's did, lavapipe's never have). The host takes the least
/// `(distance², triangle)` among them, whatever their order. On a GPU a sure point may also
/// keep a candidate on one side only (the H200: 2 of 976); on lavapipe never.
#[test]
fn the_closest_stage_equals_its_twin() {
    let Some(ctx) = common::gpu_or_skip("the_closest_stage_equals_its_twin") else {
        return;
    };
    let mut gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    // Eight points a thread (a software adapter's) and one (a GPU's), whichever this is.
    for ((name, m, pose), per_thread) in gpu_cases().into_iter().zip([8, 1].into_iter().cycle()) {
        gpu.closest_per_thread = per_thread;
        let posed = Posed::new(&m, pose);
        let points = gpu_points(&posed, 9);
        let gm = gpu.resident(&m).unwrap();
        let run = gpu.closest_run(&posed, &gm, &points).unwrap();
        assert_eq!(run.query.map(|q| q.per_thread), Some(per_thread));
        let twin = twin_of(&posed, &gm, &run);
        let mut flips = 0;
        for (g, t) in run.out.iter().zip(&twin) {
            if g.unsure == 0 && t.unsure == 0 && gpu.ctx.software {
                assert_eq!(sorted(g), sorted(t), "{name}");
            } else if g.unsure == 0 && t.unsure == 0 {
                // A candidate whose lower bound the fused sums moved across the least upper
                // bound: kept on one side only.
                flips += (sorted(g) != sorted(t)) as usize;
            } else if g.unsure != t.unsure {
                flips += 1;
            }
        }
        // A GPU fuses more than lavapipe does: an H200 flipped 2 of the soup's 976 points (its
        // grid points and vertices tie with many triangles).
        let most = 1 + points.len() / if gpu.ctx.software { 1000 } else { 200 };
        assert!(flips <= most, "{name}: {flips} flips");
    }
}

/// Walks given less room for the nodes they keep than they need (what a hierarchy deeper than
/// 32 levels would overflow; these are shallower, so the tests lower the room): such a point is
/// unsure on the GPU as in its twin, never answered from a walk cut short, and the backend's
/// answers are still the CPU's.
#[test]
fn points_whose_walks_overflow_their_room_are_unsure_and_answered_as_on_the_cpu() {
    use meshclash::gpu::layout::SlotsOut;
    let test = "points_whose_walks_overflow_their_room_are_unsure_and_answered_as_on_the_cpu";
    let Some(ctx) = common::gpu_or_skip(test) else {
        return;
    };
    let mut gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let unsure =
        |run: &meshclash::gpu::ClosestRun| run.out.iter().filter(|o| o.unsure != 0).count();
    // Unsure points with room to spare, with none and with six (a mix: most walks keep more);
    // points.
    let (mut roomy, mut cramped, mut count) = (0, [0, 0], 0);
    for (name, m, pose) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let points = gpu_points(&posed, 10);
        let gm = gpu.resident(&m).unwrap();
        gpu.walk_room = meshclash::gpu::twin::KEPT as u32;
        roomy += unsure(&gpu.closest_run(&posed, &gm, &points).unwrap());
        count += points.len();
        for room in [0, 6] {
            gpu.walk_room = room;
            let run = gpu.closest_run(&posed, &gm, &points).unwrap();
            assert_eq!(run.query.map(|q| q.kept), Some(room));
            let twin = twin_of(&posed, &gm, &run);
            // As the stage's own test allows: a fused multiply-add may move a bound across.
            let same = |g: &SlotsOut, t: &SlotsOut| {
                g.unsure == t.unsure && (g.unsure != 0 || sorted(g) == sorted(t))
            };
            let flips = run
                .out
                .iter()
                .zip(&twin)
                .filter(|(g, t)| !same(g, t))
                .count();
            let most = 1 + points.len() / if gpu.ctx.software { 1000 } else { 200 };
            assert!(flips <= most, "{name}, room {room}: {flips} flips");
            cramped[(room > 0) as usize] += unsure(&run);
            let got = gpu.closest_points(&posed, &gm, &points, f64::INFINITY);
            let want = query::closest_points(&points, &posed, f64::INFINITY);
            assert_eq!(got.unwrap(), want, "{name}, room {room}");
        }
    }
    // Not vacuous: a walk that opens two nodes keeps one.
    assert!(
        cramped[0] > roomy + count / 4 && cramped[1] > roomy + count / 10,
        "{cramped:?} unsure against {roomy} with room, of {count}"
    );
}

/// The twin's answers to a run's points (in the order sent), on the host arrays its hierarchy
/// and oriented boxes were uploaded from.
fn twin_of(
    posed: &Posed,
    gm: &meshclash::gpu::GpuMesh,
    run: &meshclash::gpu::ClosestRun,
) -> Vec<meshclash::gpu::layout::SlotsOut> {
    let q = run.query.expect("within f32");
    let (nodes, corners) = meshclash::gpu::bvh_arrays(posed, gm);
    let obbs = meshclash::gpu::obb_nodes(posed, gm);
    let mut twin = vec![Default::default(); q.points as usize];
    meshclash::gpu::twin::closest::main(&q, &nodes, &obbs, &corners, &run.points, &mut twin);
    twin
}

/// A stage's candidates in ascending order.
fn sorted(o: &meshclash::gpu::layout::SlotsOut) -> Vec<u32> {
    let mut s = o.slots[..o.count as usize].to_vec();
    s.sort_unstable();
    s
}

/// On a large mesh a software adapter cuts long loops short (lavapipe: 65535 iterations a SIMD
/// group): those points must come back unsure and be answered by the CPU, never be answered
/// wrong. igea (268 686 triangles), 20 000 points in its box; and rays from them.
#[test]
fn gpu_answers_on_a_large_mesh_equal_the_cpus() {
    let test = "gpu_answers_on_a_large_mesh_equal_the_cpus";
    let Some(ctx) = common::gpu_or_skip(test) else {
        return;
    };
    let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let m = PreparedMesh::new(Mesh::load(common::case_path("meshes/igea.stl")).unwrap());
    let posed = Posed::new(&m, Pose::IDENTITY);
    let gm = gpu.resident(&m).unwrap();
    let b = posed.node_box(0);
    let mut rnd = common::lcg(11);
    let points: Vec<DVec3> = (0..20_000)
        .map(|_| b.min + (b.max - b.min) * DVec3::new(rnd(), rnd(), rnd()))
        .collect();
    let got = gpu
        .closest_points(&posed, &gm, &points, f64::INFINITY)
        .unwrap();
    assert_eq!(got, query::closest_points(&points, &posed, f64::INFINITY));
    let rays: Vec<(DVec3, DVec3)> = points
        .iter()
        .map(|&o| (o, DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5)))
        .collect();
    let hits = query::Hits::First;
    let got = gpu
        .ray_hits(&posed, &gm, &rays, f64::INFINITY, hits)
        .unwrap();
    for (i, &(o, d)) in rays.iter().enumerate() {
        assert_eq!(
            got[i],
            query::ray_hits(o, d, &posed, f64::INFINITY, hits),
            "ray {i}"
        );
    }
}

/// A review's counterexample: next to a sliver (U), the CPU's f64 nearest point on it was off
/// by 2e-5 (the face region's Lagrange identities lose eps / sin²), so the CPU answered the
/// small triangle T beside it, 6.6e-6 away, where U is 1.9e-9 away (exact, by the review's
/// rationals). Thin triangles now take the foot on their plane. The GPU's bounds hold the
/// exact geometry, and a sliver gives it no upper bound: it answers as the CPU does.
#[test]
fn nearest_points_next_to_a_sliver_are_on_the_sliver() {
    let u = [
        [
            -0.008845828473567963,
            0.15964125096797943,
            0.11337409168481827,
        ],
        [-0.9704003930091858, 0.0873170793056488, 0.37829291820526123],
        [
            -0.8403318524360657,
            0.09709925204515457,
            0.34245768189430237,
        ],
    ];
    let t = [
        [-0.5073504447937012, 0.131918266415596, 0.24859531223773956],
        [-0.5106256008148193, 0.11555811017751694, 0.2439456433057785],
        [-0.5040752291679382, 0.11896238476037979, 0.2596142292022705],
    ];
    let f = |t: [[f64; 3]; 3]| t.map(|v| v.map(|x| x as f32));
    let m = PreparedMesh::new(Mesh::from_soup("sliver", vec![f(u), f(t)]).unwrap());
    let posed = Posed::new(&m, Pose::IDENTITY);
    let p = DVec3::new(-0.5073443069753852, 0.12214570354812371, 0.2507159288326462);
    let c = query::closest_point(p, &posed, f64::INFINITY).unwrap();
    assert_eq!(c.triangle, 0, "{c:?}");
    assert!((c.distance - 1.895e-9).abs() < 1e-11, "{c:?}");
    let Some(ctx) = common::gpu_or_skip("nearest_points_next_to_a_sliver_are_on_the_sliver") else {
        return;
    };
    let mut rnd = common::lcg(3);
    let points: Vec<DVec3> = std::iter::once(p)
        .chain((0..200).map(|_| p + DVec3::new(rnd(), rnd(), rnd()) * 1e-4 - 0.5e-4))
        .collect();
    let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    let gm = gpu.resident(&m).unwrap();
    let got = gpu
        .closest_points(&posed, &gm, &points, f64::INFINITY)
        .unwrap();
    assert_eq!(got, query::closest_points(&points, &posed, f64::INFINITY));
}

/// A review's counterexample to the first thin-triangle fix: the foot on the plane of a sliver
/// (sin² 1.5e-24) was 1e-5 off it and its distance 32 % low. The point is now a convex
/// combination of the corners: the distance is the exact one (6.288164e-6, by the review's
/// rationals) to within rounding, and never below it.
#[test]
fn the_nearest_point_of_a_sliver_is_on_it() {
    let t = [
        DVec3::new(
            -0.05447985204257349,
            -0.25212969994148104,
            0.11685945711833941,
        ),
        DVec3::new(
            -0.21959672088101073,
            0.48787651408690447,
            -0.5351583515528386,
        ),
        DVec3::new(
            -0.17072755619508892,
            0.26885900366022253,
            -0.3421825163493154,
        ),
    ];
    let p = DVec3::new(
        -0.19810910543185073,
        0.39159975424358473,
        -0.45033246077077854,
    );
    let d = closest_point_triangle(p, &t).distance(p);
    assert!((d - 6.288164e-6).abs() < 1e-12, "{d}");
}

/// A rotation as far off orthonormal as accepted ([`Pose::RIGID_TOLERANCE`], as six-digit
/// matrices can be), then a translation by `t` along every axis.
fn off_rigid(t: f64) -> Pose {
    let e = 0.499 * Pose::RIGID_TOLERANCE;
    let (c, s) = (1.0 + e, e);
    let matrix = [c, s, s, t, s, c, s, t, s, s, c, t, 0.0, 0.0, 0.0, 1.0];
    Pose::from_matrix(&matrix).unwrap()
}

/// A rotation off orthonormal (accepted: six-digit matrices are) stretches distances in
/// the mesh's own frame along one direction; an oriented box turned to that direction must be
/// padded for the whole stretch, not the per-axis share an axis-aligned box needs. Found by a
/// review: the nearest point 1.8763859981 away was pruned by a box bound of 1.8763883749.
#[test]
fn oriented_boxes_hold_under_a_rotation_a_little_off_rigid() {
    let pose = off_rigid(-1.0);
    let mesh = Mesh {
        source: "one triangle".into(),
        vertices: vec![[1.0, 1.0, 0.75], [1.0, 0.75, 1.0], [0.75, 1.0, 1.0]],
        triangles: vec![[0, 1, 2]],
        unit: None,
    };
    // Four to a node (a batch makes them so) and two to a node (the boxes alone).
    let (m, two) = (PreparedMesh::new(mesh.clone()), PreparedMesh::new(mesh));
    two.oriented();
    let p = DVec3::ONE;
    let (d2, _) = brute(p, &Posed::new(&m, pose));
    // Limits just above the distance: the point must be found whatever the boxes.
    for limit in [d2.sqrt() * (1.0 + 1e-12), 1.8763872] {
        let batch = query::closest_points(&[p], &Posed::new(&m, pose), limit);
        assert!(m.nearest_tree_if_made().is_some());
        let single = query::closest_point(p, &Posed::new(&two, pose), limit);
        assert!(two.nearest_tree_if_made().is_none());
        for found in [batch[0], single] {
            let found = found.expect("within the limit");
            assert_eq!(found.point.distance_squared(p), d2);
        }
    }
}

/// The same rotation on a mesh whose own coordinates are 1e6 from its origin: there the
/// stretch between the mesh's frame and the world's reaches a few units, far beyond any
/// rounding margin, and only the pad (`Posed::cull_pad`) covers it. Points near the surface,
/// batched (boxes four to a node) and one at a time (two to a node): brute force's answers.
#[test]
fn nearest_points_hold_under_a_rotation_off_rigid_far_from_the_origin() {
    let pose = off_rigid(-1e6);
    let mut mesh = generate::torus(1.0, 0.3, 24, 12);
    for v in &mut mesh.vertices {
        *v = v.map(|x| x + 1e6);
    }
    let (m, two) = (PreparedMesh::new(mesh.clone()), PreparedMesh::new(mesh));
    two.oriented();
    let (posed, posed_two) = (Posed::new(&m, pose), Posed::new(&two, pose));
    let mut rnd = common::lcg(11);
    let points: Vec<DVec3> = (0..400)
        .map(|_| {
            let t = posed.tri((rnd() * m.mesh.triangles.len() as f64) as u32);
            let off = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
            t[0] + off * 10f64.powf(-3.0 + 3.0 * rnd())
        })
        .collect();
    let batch = query::closest_points(&points, &posed, f64::INFINITY);
    assert!(m.nearest_tree_if_made().is_some() && two.nearest_tree_if_made().is_none());
    for (p, c) in points.iter().zip(&batch) {
        let (d2, t) = brute(*p, &posed);
        let single = query::closest_point(*p, &posed_two, f64::INFINITY);
        for found in [c, &single] {
            let found = found.expect("no limit");
            assert_eq!(
                (found.triangle, found.point.distance_squared(*p)),
                (t, d2),
                "{p}"
            );
        }
    }
}

/// A triangle 1e-23 across at the origin: squared distances there are below f32's smallest
/// normal, where rounding is absolute; the nearest-point tree's bound came out at 2^-149,
/// above the true 7.84e-46, and lost the triangle (found by a review).
#[test]
fn nearest_points_on_a_mesh_of_subnormal_size_are_found() {
    let mesh = Mesh {
        source: "a tiny triangle".into(),
        vertices: vec![[0.0, 0.0, 0.0], [1e-23, 0.0, 0.0], [0.0, 1e-23, 0.0]],
        triangles: vec![[0, 1, 2]],
        unit: None,
    };
    let m = PreparedMesh::new(mesh);
    let posed = Posed::new(&m, Pose::IDENTITY);
    // The GPU's boxes too, where there is an adapter.
    let gpu = common::gpu_or_skip("nearest_points_on_a_mesh_of_subnormal_size")
        .map(|ctx| meshclash::gpu::GpuBackend::new(ctx).unwrap());
    for z in [2.8e-23, 6.7e-21, 1e-24] {
        let p = DVec3::new(0.0, 0.0, z);
        let (d2, t) = brute(p, &posed);
        let limit = d2.sqrt() * 1.07;
        let found = query::closest_points(&[p], &posed, limit)[0].expect("within the limit");
        assert!(m.nearest_tree_if_made().is_some());
        assert_eq!((found.triangle, found.point.distance_squared(p)), (t, d2));
        if let Some(gpu) = &gpu {
            let gm = gpu.resident(&m).unwrap();
            let got = gpu.closest_points(&posed, &gm, &[p], limit).unwrap();
            assert_eq!(got, vec![Some(found)], "{z}");
        }
    }
}

/// A torus 1e-21 across, 1 200 triangles: the squares of its lengths are below f32's normal
/// range, where rounding is absolute, and the GPU's closest stage, whose margins are relative
/// to the mesh, pruned the nearest triangle of hundreds of points (found by a probe: distance
/// 0.0356 of the size for 0.0259). The same torus 1e20 across: squares overflow f32, and the
/// stage gave half the points no nearest point at all. Such batches are the CPU's now
/// (`SMALLEST_SCALE`, `LARGEST_SCALE`): every nearest point is brute force's, and the GPU
/// backend's equal the CPU's, for nearest points, winding numbers and rays alike; at 1e-3
/// across the GPU stages answer, the same.
#[test]
fn meshes_too_small_or_too_large_for_f32_squares_are_answered_as_brute_force() {
    let gpu = common::gpu_or_skip("meshes_too_small_or_too_large_for_f32_squares")
        .map(|ctx| meshclash::gpu::GpuBackend::new(ctx).unwrap());
    for size in [1e-21, 1e20, 1e-3] {
        let mut mesh = generate::torus(1.0, 0.3, 40, 15);
        for c in mesh.vertices.iter_mut().flatten() {
            *c = (*c as f64 * size) as f32;
        }
        let m = PreparedMesh::new(mesh);
        let posed = Posed::new(&m, Pose::IDENTITY);
        let mut rnd = common::lcg(7);
        let mut near = || DVec3::new(rnd() * 3.0 - 1.5, rnd() * 3.0 - 1.5, rnd() - 0.5) * size;
        let points: Vec<DVec3> = (0..1500).map(|_| near()).collect();
        let found = query::closest_points(&points, &posed, f64::INFINITY);
        for (p, f) in points.iter().zip(&found).step_by(5) {
            let f = f.expect("a nearest point");
            assert_eq!(
                (f.point.distance_squared(*p), f.triangle),
                brute(*p, &posed)
            );
        }
        let Some(gpu) = &gpu else { continue };
        let gm = gpu.resident(&m).unwrap();
        let on_gpu = gpu.closest_points(&posed, &gm, &points, f64::INFINITY);
        assert_eq!(on_gpu.unwrap(), found, "{size}: nearest points");
        let w = gpu.winding_numbers(&posed, &gm, &points).unwrap();
        for (p, w) in points.iter().zip(&w) {
            let cpu = query::winding_number(*p, &posed);
            assert_eq!(
                w.value.to_bits(),
                cpu.value.to_bits(),
                "{size}: winding at {p}"
            );
        }
        let rays: Vec<(DVec3, DVec3)> = points.iter().map(|&p| (p, near() - p)).collect();
        let hits = gpu.ray_hits(&posed, &gm, &rays, f64::INFINITY, query::Hits::First);
        for ((o, d), h) in rays.iter().zip(hits.unwrap()) {
            assert_eq!(
                h,
                query::ray_hits(*o, *d, &posed, f64::INFINITY, query::Hits::First)
            );
        }
    }
}

/// The GPU's oriented boxes (`gpu::obb_nodes`: f32 centre and axes, each half-extent grown for
/// that rounding) hold every vertex of their nodes, checked in f64 against the f32 box: the
/// host formula the closest stage's bound rests on, apart from the answers it leads to.
#[test]
fn the_gpus_oriented_boxes_hold_their_nodes() {
    let Some(ctx) = common::gpu_or_skip("the_gpus_oriented_boxes_hold_their_nodes") else {
        return;
    };
    let gpu = meshclash::gpu::GpuBackend::new(ctx).unwrap();
    for (name, m, pose) in gpu_cases() {
        let posed = Posed::new(&m, pose);
        let gm = gpu.resident(&m).unwrap();
        let boxes = meshclash::gpu::obb_nodes(&posed, &gm);
        let bvh = m.bvh();
        let slots = bvh.slot_ranges();
        let f = |v: [f32; 4]| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64);
        for (n, b) in boxes.iter().enumerate() {
            let c = f(b.center);
            for &t in &bvh.tris[slots[n].clone()] {
                for v in m.mesh.triangle(t as usize) {
                    let x = v - gm.center - c;
                    for a in &b.axes {
                        assert!(x.dot(f(*a)).abs() <= a[3] as f64, "{name}: node {n}");
                    }
                }
            }
        }
    }
}

/// The same points written to `.csv` and `.json` with 17 significant digits are read as the
/// same `f64`s: their answers are equal to the bit. Without serde_json's exact float parsing,
/// about one number in eight came back an ulp off (a review's helper found rays' `t` and
/// poses' distances differing between the formats).
#[test]
fn json_tables_read_numbers_as_exactly_as_csv() {
    let teapot = common::case_path("meshes/teapot.stl");
    let t = teapot.to_str().unwrap();
    let mut x = 0x9e3779b97f4a7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0
    };
    let rows: Vec<[f64; 3]> = (0..300).map(|_| [next(), next(), next() + 10.0]).collect();
    let text = |sep: &str, open: &str, close: &str| -> Vec<String> {
        rows.iter()
            .map(|r| {
                format!(
                    "{open}{:.16e}{sep}{:.16e}{sep}{:.16e}{close}",
                    r[0], r[1], r[2]
                )
            })
            .collect()
    };
    let (csv, json) = (scratch("exact.csv"), scratch("exact.json"));
    std::fs::write(&csv, text(",", "", "").join("\n")).unwrap();
    std::fs::write(&json, format!("[{}]", text(",", "[", "]").join(","))).unwrap();
    let answers = |input: &PathBuf, name: &str| {
        let out = scratch(name);
        let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
        let (code, _, err) = meshclash(&["closest", t, i, "--backend", "cpu", "--out", o]);
        assert_eq!(code, 0, "{err}");
        std::fs::read_to_string(out).unwrap()
    };
    let (a, b) = (
        answers(&csv, "exact.csv.out.csv"),
        answers(&json, "exact.json.out.csv"),
    );
    assert_eq!(a.lines().count(), 301);
    assert_eq!(a, b);
}

/// With `--signed` the summary's least and greatest distances are the table's own, signed (the
/// least had been the least unsigned distance, not the table's least); `--max-distance` limits
/// the unsigned distance, inside or not.
#[test]
fn a_signed_summary_reports_the_tables_distances() {
    let teapot = common::case_path("meshes/teapot.stl");
    let t = teapot.to_str().unwrap();
    let rows = scratch("signed.csv");
    // The belly (inside) and a point outside.
    std::fs::write(&rows, "0,0,12\n100,0,0\n").unwrap();
    let r = rows.to_str().unwrap();
    let run = |extra: &[&str]| {
        let out = scratch("signed.out.json");
        let mut args = vec!["closest", t, r, "--signed", "--json", "--backend", "cpu"];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        let (code, stdout, err) = meshclash(&args);
        assert_eq!(code, 0, "{err}");
        let table: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
        let d: Vec<Option<f64>> = (0..2).map(|i| table[i]["distance"].as_f64()).collect();
        let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        (d, summary)
    };
    let (d, s) = run(&[]);
    let (inside, outside) = (d[0].unwrap(), d[1].unwrap());
    assert!(inside < 0.0 && outside > 0.0, "{d:?}");
    assert_eq!(s["min_distance"].as_f64(), Some(inside));
    assert_eq!(s["max_distance"].as_f64(), Some(outside));
    // A limit between the two unsigned distances keeps the belly, inside, and drops the other.
    let limit = ((-inside + outside) / 2.0).to_string();
    let (d, s) = run(&["--max-distance", &limit]);
    assert_eq!(d, vec![Some(inside), None]);
    assert_eq!(
        (s["found"].as_u64(), s["inside"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(s["max_distance"].as_f64(), Some(inside));
}

/// Points exactly on a cube's faces, edges and corners read distance 0, themselves their
/// nearest points, on both backends, and `max_distance` 0 keeps them: exact signs decide
/// where the rounded nearest point is within roundings of the point. On a face's plane they
/// read about 1e-16 (1 781 of 10 000, a review's helper), and a limit of 0 dropped them. A
/// point a rounding off the surface keeps its distance.
#[test]
fn points_on_the_surface_are_at_distance_zero() {
    let cube = common::box_mesh([-0.5; 3], [0.5; 3]);
    let mut next = common::lcg(17);
    let mut on: Vec<DVec3> = (0..500)
        .map(|i| {
            let (x, y) = (next() - 0.5, next() - 0.5);
            let side = if i % 2 == 0 { 0.5 } else { -0.5 };
            [
                DVec3::new(x, y, side),
                DVec3::new(side, x, y),
                DVec3::new(y, side, x),
            ][i % 3]
        })
        .collect();
    on.extend([
        DVec3::new(0.5, 0.5, 0.1),
        DVec3::splat(-0.5),
        DVec3::new(0.1, 0.2, 0.5),
    ]);
    for b in common::cpu_and_gpu("points_on_the_surface_are_at_distance_zero") {
        let found = b.closest_points(&cube, Pose::IDENTITY, &on, 0.0).unwrap();
        for (p, c) in on.iter().zip(&found) {
            let c = c.as_ref().unwrap_or_else(|| panic!("{p} dropped"));
            assert_eq!((c.distance, c.point), (0.0, *p), "{p}");
        }
    }
    let off = DVec3::new(0.1, 0.2, 0.5 + f64::EPSILON);
    let c = query::closest_point(off, &Posed::new(&cube, Pose::IDENTITY), f64::INFINITY).unwrap();
    assert!(c.distance > 0.0 && c.distance < 1e-15, "{}", c.distance);
}

/// A review's helper's case: points exactly on a triangle of corners at ±2^30 (the plane
/// z = 7x/8 + y/4), each with a small triangle 1e-8 above it. The big triangle's rounding
/// (about 2e-7 there) let the small one be found nearest, and the point read 1e-8; the band in
/// which a point is asked whether it lies on the surface is the whole mesh's magnitude's.
#[test]
fn points_on_a_large_triangle_beside_small_ones_are_on_it() {
    let x = (1u64 << 30) as f32;
    let plane = |x: f64, y: f64| 7.0 * x / 8.0 + y / 4.0;
    let corner = |a: f32, b: f32| [a, b, plane(a as f64, b as f64) as f32];
    let mut soup = vec![[corner(-x, -x), corner(x, -x), corner(0.0, x)]];
    let n = DVec3::new(7.0 / 8.0, 0.25, -1.0).normalize();
    let (e1, e2) = (
        n.cross(DVec3::X).normalize(),
        n.cross(n.cross(DVec3::X).normalize()),
    );
    let mut points = Vec::new();
    // The helper's points, in units of 2^-14 (those at 469, 515 and 979, 54 among the ones
    // that read 1e-8).
    let at = [
        (671, 805),
        (23, 808),
        (469, 515),
        (630, 286),
        (979, 54),
        (278, 383),
        (571, 409),
        (131, 46),
        (2, 49),
        (149, 999),
        (191, 652),
        (750, 235),
        (282, 435),
        (263, 974),
        (178, 897),
        (797, 844),
        (116, 393),
        (628, 493),
        (666, 677),
        (663, 61),
    ];
    for (i, j) in at {
        let (px, py) = (i as f64 / 16384.0, j as f64 / 16384.0);
        let p = DVec3::new(px, py, plane(px, py));
        let c = p + n * 1e-8;
        let f = |v: DVec3| v.as_vec3().to_array();
        soup.push([f(c + e1 * 1e-5), f(c + e2 * 1e-5), f(c - (e1 + e2) * 1e-5)]);
        points.push(p);
    }
    let m = PreparedMesh::new(Mesh::from_soup("big and small", soup).unwrap());
    for b in common::cpu_and_gpu("points_on_a_large_triangle_beside_small_ones_are_on_it") {
        let found = b.closest_points(&m, Pose::IDENTITY, &points, 0.0).unwrap();
        for (p, c) in points.iter().zip(&found) {
            let c = c.as_ref().unwrap_or_else(|| panic!("{p} dropped"));
            assert_eq!((c.distance, c.triangle, c.point), (0.0, 0, *p), "{p}");
        }
    }
}
