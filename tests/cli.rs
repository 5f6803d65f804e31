//! The command line as scripts use it: JSON shape, exit codes, one clear line on stderr.

mod common;

use common::case_path;
use std::process::Command;

fn meshclash(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meshclash"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_json_has_the_documented_keys() {
    let p = case_path("meshes/torus.stl");
    let (code, out, _) = meshclash(&["info", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["triangles"], 8700);
    assert_eq!(v["vertices"], 4350);
    assert_eq!(v["zero_area_triangles"], 0);
    assert_eq!(v["closed"], true);
    assert_eq!(v["oriented"], true);
    // torus R = 1, r = 0.5 (SOURCES.md): z within ±0.5.
    assert!(v["bbox_max"][2].as_f64().unwrap() <= 0.5);
    assert!(v["bbox_min"].as_array().unwrap().len() == 3);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let p = case_path("broken/torus_truncated.stl");
    let (code, out, err) = meshclash(&["info", p.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("torus_truncated.stl") && err.contains("8700"),
        "{err}"
    );
    let (code, _, err) = meshclash(&["info", "/no/such/file.stl"]);
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/file.stl"));
    let (code, _, _) = meshclash(&["info"]);
    assert_eq!(code, 2);
    let (code, _, _) = meshclash(&["frobnicate"]);
    assert_eq!(code, 2);
}
