//! The command line's tables of rows (points, rays, spheres, poses, paths): the same bytes
//! read as `.npy`, `.csv` and `.json`, at the widths the commands ask for. The reader lives in
//! the binary crate, so it is compiled in here from its file, with a silent spinner.
#![no_main]
#![allow(dead_code)]
use libfuzzer_sys::fuzz_target;

mod progress {
    pub fn during<T>(_what: &str, work: impl FnOnce() -> T) -> T {
        work()
    }
}

#[path = "../../src/bin/meshclash/table.rs"]
mod table;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("meshclash_fuzz_rows_{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    for ext in ["npy", "csv", "json"] {
        let path = dir.join(format!("rows.{ext}"));
        if std::fs::write(&path, data).is_err() {
            return;
        }
        // Points, spheres and rays (3, 4, 6, 7) and poses (16, or 4×4 matrices).
        if let Ok(rows) = table::read_widths(&path, &[3, 4, 6, 7, 16]) {
            assert!(rows.values.iter().all(|v| v.is_finite()));
            assert_eq!(rows.values.len(), rows.len() * rows.width);
        }
    }
});
