//! PLY, ASCII and binary.
#![no_main]
use libfuzzer_sys::fuzz_target;
use meshclash::mesh::{read, Mesh};

fuzz_target!(|data: &[u8]| {
    if let Ok(soup) = read::read_ply(data, "fuzz.ply".as_ref()) {
        if let Ok(m) = Mesh::from_soup("fuzz", soup) {
            let _ = m.info();
        }
    }
});
