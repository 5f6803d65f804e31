//! The command line given paths that are not files: it exits 2 with one line naming the path
//! and what it is, and never hangs (`/dev/zero` is endless; a FIFO with no writer blocks an
//! ordinary open).

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `meshclash args`, killing it if it has not ended after a minute: a hang guard (the
/// regression this file tests is an endless read), not a timing assertion.
fn meshclash_or_hang(args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("meshclash {args:?} did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn info_on_dev_zero_exits_2_naming_a_character_device() {
    let (code, out, err) = meshclash_or_hang(&["info", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("/dev/zero: is a character device, not a file"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn check_against_a_fifo_exits_2_without_blocking() {
    let dir = fresh_dir("fifo");
    let fifo = dir.join("b.stl");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let cube = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/cases/meshes/cube_trimesh.stl"
    );
    let (code, _, err) = meshclash_or_hang(&["check", cube, fifo.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("b.stl: is a named pipe (FIFO), not a file"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A batch's rows and a pose file are read as a mesh is: a FIFO and `/dev/zero` are refused
/// (they blocked, and read until memory ran out); `--out` into a FIFO is refused before the
/// work (it blocked); `--out` through a link to a file not yet there writes that file.
#[cfg(unix)]
#[test]
fn tables_in_and_out_are_regular_files() {
    let dir = fresh_dir("tables");
    let fifo = dir.join("rows.csv");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let f = fifo.to_str().unwrap();
    for args in [
        vec!["closest", CUBE, f],
        vec!["sweep", CUBE, CUBE, "--path", f],
    ] {
        let (code, _, err) = meshclash_or_hang(&args);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("rows.csv: is a named pipe (FIFO), not a file"),
            "{err}"
        );
    }
    let zero = dir.join("zero.npy");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let (code, _, err) = meshclash_or_hang(&["inside", CUBE, zero.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("zero.npy: is a character device, not a file"),
        "{err}"
    );

    let rows = scratch_file("tables_rows.csv", b"0,0,2\n");
    let (code, _, err) = meshclash_or_hang(&["closest", CUBE, &rows, "--out", f]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--out") && err.contains("is a named pipe or a socket"),
        "{err}"
    );
    // A chain of links to a file not yet there, as the write follows it.
    let (link, hop, target) = (
        dir.join("link.csv"),
        dir.join("hop.csv"),
        dir.join("target.csv"),
    );
    std::os::unix::fs::symlink("hop.csv", &link).unwrap();
    std::os::unix::fs::symlink(&target, &hop).unwrap();
    let (code, _, err) =
        meshclash_or_hang(&["closest", CUBE, &rows, "--out", link.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(
        written.starts_with("distance,") && written.lines().count() == 2,
        "{written}"
    );
    // A picture drawn to /dev/null (to time it) is written, as before paths were checked.
    let (code, _, err) = meshclash_or_hang(&["check", CUBE, CUBE, "--render", "/dev/null"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn info_on_a_directory_exits_2_naming_a_directory() {
    let dir = std::env::temp_dir();
    let (code, _, err) = meshclash_or_hang(&["info", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a directory, not a file"), "{err}");
}

// Hostile input tables and STL text: each refusal exits 2 naming the file and the line (a CSV
// row's own line; line 1 and the row for JSON and `.npy`); the good forms give the right answer.

const CUBE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/cases/meshes/cube_trimesh.stl"
); // [-0.5, 0.5]³

/// An empty folder of this run's, for a test's files.
fn fresh_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("meshclash-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The path of a scratch file `name` holding `body`.
fn scratch_file(name: &str, body: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("meshclash-cli-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_string()
}

/// `closest` of the cube to the points of table `name` holding `body`.
fn closest(name: &str, body: &[u8]) -> (i32, String, String) {
    let p = scratch_file(name, body);
    meshclash_or_hang(&["closest", CUBE, &p, "--json", "--backend", "cpu"])
}

/// The table `name` holding `body` is refused, the message holding `want` (`name:line: ...`).
fn refused(name: &str, body: &[u8], want: &str) {
    let (code, out, err) = closest(name, body);
    assert_eq!(code, 2, "{name}: {out}{err}");
    assert!(err.contains(want), "{name}: {err}");
}

/// The points (2, 0, 0) and (0, 0, 4), 1.5 and 3.5 from the cube, are read from `name`.
fn reads_two_points(name: &str, body: &[u8]) {
    let (code, out, err) = closest(name, body);
    assert_eq!(code, 0, "{name}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["count"].as_u64(), Some(2), "{name}: {out}");
    assert_eq!(v["min_distance"].as_f64(), Some(1.5), "{name}: {out}");
    assert_eq!(v["max_distance"].as_f64(), Some(3.5), "{name}: {out}");
}

#[test]
fn a_first_csv_line_of_numbers_is_never_a_header() {
    // Space-separated (np.savetxt's default), quoted, or `nan`: numbers, so not a header.
    refused(
        "space.csv",
        b"2 0.5 0.5\n",
        "space.csv:1: not a number: \"2 0.5 0.5\"",
    );
    refused(
        "quoted.csv",
        b"\"2\",\"0.5\",\"0.5\"\n0.5,3,0.5\n",
        "quoted.csv:1: not a number",
    );
    refused(
        "nanhead.csv",
        b"nan,inf,infinity\n2,0,0\n",
        "nanhead.csv:1: row 0 holds NaN",
    );
    // A header of names is still one.
    reads_two_points("header.csv", b"x,y,z\n2,0,0\n0,0,4\n");
}

#[test]
fn a_csv_value_error_names_its_own_line() {
    // Row 1 is on line 4, after the header and a blank line.
    refused(
        "late.csv",
        b"x,y,z\n\n2,0,0\n1,inf,0\n",
        "late.csv:4: row 1 holds inf",
    );
}

#[test]
fn json_rows_of_no_numbers_or_other_nesting_are_refused() {
    refused(
        "empty_rows.json",
        b"[[],[]]",
        "empty_rows.json:1: row 0 holds no numbers",
    );
    refused(
        "nested.json",
        b"[[[2,0.5],[0.5]]]",
        "nested.json:1: row 0 is not a list of numbers",
    );
    refused(
        "nested2.json",
        b"[[0,0,0],[[0,0,0],[1,0,0],0.5]]",
        "nested2.json:1: row 1 is not a list of numbers",
    );
    // `[]` is a batch of none.
    let (code, out, err) = closest("none.json", b"[]");
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["count"].as_u64(), Some(0), "{out}");
}

#[test]
fn npy_headers_are_parsed_not_searched() {
    // Without NumPy's spaces, in Fortran order: refused, not read transposed.
    let fort = common::npy_bytes(
        "{'descr':'<f8','fortran_order':True,'shape':(2,3)}",
        &[2.0, 0.0, 0.0, 0.0, 0.0, 4.0],
    );
    refused(
        "fort.npy",
        &fort,
        "fort.npy:1: not a readable .npy: Fortran order",
    );
    // The keys in another order, C order: read.
    let reordered = common::npy_bytes(
        "{'shape':(2,3),'fortran_order':False,'descr':'<f8'}",
        &[2.0, 0.0, 0.0, 0.0, 0.0, 4.0],
    );
    reads_two_points("reordered.npy", &reordered);
    // A structured array whose fields hold '<f8'.
    let structured = common::npy_bytes(
        "{'descr': [('x', '<f8'), ('y', '<f8'), ('z', '<f8')], 'fortran_order': False, 'shape': (2,), }",
        &[2.0, 0.0, 0.0, 0.0, 0.0, 4.0],
    );
    refused(
        "structured.npy",
        &structured,
        "structured.npy:1: not a readable .npy: a structured array",
    );
    // Shape (5, 0): five rows of nothing.
    let w0 = common::npy_bytes(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 0), }",
        &[],
    );
    refused("w0.npy", &w0, "w0.npy:1: row 0 holds no numbers");
    // One point saved 1-D, np.array([x, y, z]): a column of three, said so.
    let flat = common::npy_bytes(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
        &[2.0, 0.0, 0.0],
    );
    refused("flat.npy", &flat, "save one row as shape (1, k)");
    // A header that is not text is not "cut short" (a review's helper).
    let mut latin = common::npy_bytes(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }",
        &[0.0; 3],
    );
    latin[12] = 0xe9;
    refused(
        "latin.npy",
        &latin,
        "latin.npy:1: not a readable .npy: header not UTF-8 text",
    );
}

const FACET: &str = " facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n endfacet\n";

#[test]
fn ascii_stl_begins_with_solid_in_any_case() {
    for (name, text) in [
        (
            "upper.stl",
            format!("SOLID t\n{}ENDSOLID t\n", FACET.to_uppercase()),
        ),
        (
            "capital.stl",
            format!("\u{feff}  Solid t\n{FACET}endsolid t\n"),
        ),
    ] {
        let p = scratch_file(name, text.as_bytes());
        let (code, out, err) = meshclash_or_hang(&["info", &p, "--json"]);
        assert_eq!(code, 0, "{name}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["triangles"].as_u64(), Some(1), "{name}: {out}");
    }
}

#[test]
fn ascii_stl_refuses_more_on_a_line() {
    for (k, (from, to)) in [
        ("vertex 0 0 0\n", "vertex 0 0 0 7\n"),
        ("vertex 0 0 0\n", "vertex 0 0 0 vertex 9 9 9\n"),
        ("endloop\n", "endloop 1 2 3\n"),
        ("endfacet\n", "endfacet junk\n"),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("extra{k}.stl");
        let text = format!("solid t\n{}endsolid t\n", FACET.replace(from, to));
        let line = text.lines().position(|l| l.trim() == to.trim()).unwrap() + 1;
        let p = scratch_file(&name, text.as_bytes());
        let (code, _, err) = meshclash_or_hang(&["info", &p]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains(&format!("{name}:{line}: ASCII STL: ")),
            "{name}: {err}"
        );
    }
}

/// An output that is one of the command's inputs is refused before the work, the input left
/// as it was (a review's helper: `--render a.stl` wrote a PNG over the mesh), through hard and
/// symbolic links too; `--render` and `--glb` to one file are refused; and a picture that
/// cannot be written does not lose the answer, printed before it.
#[cfg(unix)]
#[test]
fn outputs_that_are_inputs_are_refused_and_answers_come_before_pictures() {
    let dir = fresh_dir("inputs");
    let mesh = dir.join("a.stl");
    std::fs::copy(CUBE, &mesh).unwrap();
    let (hard, soft) = (dir.join("hard.stl"), dir.join("soft.stl"));
    std::fs::hard_link(&mesh, &hard).unwrap();
    std::os::unix::fs::symlink(&mesh, &soft).unwrap();
    let rows = scratch_file("inputs_rows.csv", b"0,0,2\n");
    let poses = scratch_file("inputs_poses.json", b"[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]]");
    let before = std::fs::read(&mesh).unwrap();
    let m = mesh.to_str().unwrap();
    let png = dir.join("x.png");
    let png = png.to_str().unwrap();
    for (args, named) in [
        (vec!["check", m, CUBE, "--render", m], m),
        (vec!["check", CUBE, m, "--glb", hard.to_str().unwrap()], m),
        (vec!["self", m, "--render", soft.to_str().unwrap()], m),
        (vec!["closest", CUBE, &rows, "--out", &rows], &rows),
        (vec!["poses", CUBE, m, &poses, "--out", &poses], &poses),
    ] {
        let (code, out, err) = meshclash_or_hang(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("is an input of this command") && err.contains(named),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(&mesh).unwrap(), before);
    assert_eq!(std::fs::read(&rows).unwrap(), b"0,0,2\n");
    let (code, _, err) = meshclash_or_hang(&["check", CUBE, CUBE, "--render", png, "--glb", png]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--render and --glb are one file"), "{err}");
    // Both to /dev/null is taken (to time them).
    let (code, _, err) = meshclash_or_hang(&[
        "check",
        CUBE,
        CUBE,
        "--render",
        "/dev/null",
        "--glb",
        "/dev/null",
    ]);
    assert_eq!(code, 0, "{err}");
    // A GLB the disk cannot hold: the answer is out before the error.
    let (code, out, err) =
        meshclash_or_hang(&["check", CUBE, CUBE, "--json", "--glb", "/dev/full"]);
    assert_ne!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("the answer, as JSON");
    assert_eq!(v["intersects"], true);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Stderr that cannot be written (`2>/dev/full`) changes no exit status: `eprintln!` panicked
/// there (101, a review's helper), after the answer on stdout or in place of exit 2.
#[cfg(target_os = "linux")]
#[test]
fn stderr_that_cannot_be_written_is_no_panic() {
    let bin = env!("CARGO_BIN_EXE_meshclash");
    let full = || {
        Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
    };
    let code = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .stderr(full())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (status, stdout) = code(&["check", CUBE, CUBE, "--json"]);
    assert_eq!(status, Some(0));
    assert!(stdout.contains("\"interferes\":true"), "{stdout}");
    assert_eq!(code(&["info", "/nonexistent.stl"]).0, Some(2));
    assert_eq!(code(&["check", CUBE]).0, Some(2)); // a usage error, through clap
}

/// `--size` is a picture's: with `--quick`, which draws none, it is refused as with no
/// `--render` (it was silently ignored there, a review's helper).
#[test]
fn a_picture_size_without_a_picture_is_refused() {
    let bin = env!("CARGO_BIN_EXE_meshclash");
    for quick in [&["--quick"][..], &[]] {
        let out = Command::new(bin)
            .args(["check", CUBE, CUBE, "--size", "10x10"])
            .args(quick)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{quick:?}");
    }
}

/// An empty XDG_RUNTIME_DIR is no runtime directory either: Mesa's drivers printed
/// `error: XDG_RUNTIME_DIR is invalid or not set` twice on stderr (a review's helper).
#[test]
fn an_empty_runtime_dir_puts_no_foreign_lines_on_stderr() {
    let out = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(["check", CUBE, CUBE])
        .env("XDG_RUNTIME_DIR", "")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
}

/// A glTF's buffers, in files beside it, are inputs too: `--out` and `--render` naming one are
/// refused before the work, in a .gltf (its URI percent-escaped) and in a .glb (its
/// JSON chunk read alone). Before, only the .gltf itself was checked, and a review's helper's
/// `inside t.gltf pts.csv --out buf0.json` wrote the table over the mesh's buffer.
#[test]
fn an_output_naming_a_gltf_buffer_is_refused() {
    let dir = fresh_dir("buffers");
    let formats = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/formats");
    let gltf = std::fs::read_to_string(format!("{formats}/cube_external.gltf")).unwrap();
    let gltf = gltf.replace("cube%20external.bin", "cube%20external.json");
    std::fs::write(dir.join("cube.gltf"), gltf).unwrap();
    let buffer = std::fs::read(format!("{formats}/cube external.bin")).unwrap();
    std::fs::write(dir.join("cube external.json"), &buffer).unwrap();
    std::fs::write(dir.join("points.csv"), "0.5,0.5,0.5\n").unwrap();
    // A GLB whose only buffer is a file beside it (not loaded: refused before).
    let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"side.png"}]}"#;
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend((20 + json.len() as u32).to_le_bytes());
    glb.extend((json.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(json);
    std::fs::write(dir.join("part.glb"), glb).unwrap();
    std::fs::write(dir.join("side.png"), "buffer").unwrap();

    let bin = env!("CARGO_BIN_EXE_meshclash");
    let run = |args: &[&str]| {
        Command::new(bin)
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap()
    };
    let refused = [
        &[
            "inside",
            "cube.gltf",
            "points.csv",
            "--out",
            "cube external.json",
        ][..],
        &["check", "cube.gltf", "part.glb", "--render", "side.png"][..],
        &["self", "part.glb", "--render", "./side.png"][..],
    ];
    for args in refused {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is an input of this command"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        std::fs::read(dir.join("cube external.json")).unwrap(),
        buffer
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("side.png")).unwrap(),
        "buffer"
    );
    // The mesh still reads, and a table beside it is written.
    let out = run(&["inside", "cube.gltf", "points.csv", "--out", "inside.csv"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `closest` of 4 000 points about the cube, its table written over `out.csv` ("old table") in
/// a shell limited to files of 64 KiB (`ulimit -f`), `trap` first: the folder, the table's
/// path and the run.
#[cfg(target_os = "linux")]
fn closest_within_64_kib(
    tag: &str,
    trap: &str,
) -> (std::path::PathBuf, std::path::PathBuf, std::process::Output) {
    let dir = fresh_dir(tag);
    let points: String = (0..4000)
        .map(|i| format!("{}.25,0.5,0.125\n", i % 7))
        .collect();
    let rows = dir.join("points.csv");
    std::fs::write(&rows, points).unwrap();
    let out = dir.join("out.csv");
    std::fs::write(&out, "old table\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_meshclash");
    let script = format!(
        "{trap} ulimit -f 64; exec '{bin}' closest '{CUBE}' '{}' --out '{}' --backend cpu",
        rows.display(),
        out.display()
    );
    let run = Command::new("sh").args(["-c", &script]).output().unwrap();
    (dir, out, run)
}

/// A table whose writing is cut short by a signal that ends the process (here the file size
/// limit's own SIGXFSZ, as Ctrl-C or `kill` would) leaves the old one as it was and nothing
/// beside it: the temporary, `.out.csv.*.partial`, used to stay (a review's helper).
#[cfg(target_os = "linux")]
#[test]
fn a_table_cut_short_by_a_signal_leaves_no_partial_file() {
    use std::os::unix::process::ExitStatusExt;
    let (dir, out, run) = closest_within_64_kib("killed", "");
    assert_eq!(run.status.signal(), Some(libc::SIGXFSZ), "{run:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old table\n");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

/// A table that cannot be written whole leaves the one it was to replace as it was: a file
/// size limit (`ulimit -f`, SIGXFSZ ignored, in a shell of its own) stands in for a full disk.
/// Before, the old table was emptied first and left cut off at the limit (a review's helper).
#[cfg(target_os = "linux")]
#[test]
fn a_table_that_cannot_be_written_leaves_the_old_one() {
    let (dir, out, run) = closest_within_64_kib("full", "trap '' XFSZ;");
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("out.csv"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old table\n");
    // Nothing left beside it.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 2, "{left:?}");
    // Within the limit, it is replaced.
    let few = dir.join("few.csv");
    std::fs::write(&few, "0.25,0.5,0.125\n").unwrap();
    let script = format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' closest '{CUBE}' '{}' --out '{}' --backend cpu",
        env!("CARGO_BIN_EXE_meshclash"),
        few.display(),
        out.display()
    );
    let run = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("distance,"));
}
