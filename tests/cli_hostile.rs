//! The command line given paths that are not files: it exits 2 with one line naming the path
//! and what it is, and never hangs (`/dev/zero` is endless; a FIFO with no writer blocks an
//! ordinary open).

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
    let dir = std::env::temp_dir().join(format!("meshclash-cli-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
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

#[test]
fn info_on_a_directory_exits_2_naming_a_directory() {
    let dir = std::env::temp_dir();
    let (code, _, err) = meshclash_or_hang(&["info", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a directory, not a file"), "{err}");
}
