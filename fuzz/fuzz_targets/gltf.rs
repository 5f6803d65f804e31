//! glTF 2.0, JSON or binary (GLB).
#![no_main]
use libfuzzer_sys::fuzz_target;
use meshclash::mesh::{read, Mesh};

fuzz_target!(|data: &[u8]| {
    if let Ok(soup) = read::read_gltf(data, "fuzz.glb".as_ref()).map(|l| l.soup) {
        if let Ok(m) = Mesh::from_soup("fuzz", soup) {
            let _ = m.info();
        }
    }
});
