//! ASCII STL: the input follows a "solid" line.
#![no_main]
use libfuzzer_sys::fuzz_target;
use meshclash::mesh::{read, Mesh};

fuzz_target!(|data: &[u8]| {
    let mut bytes = b"solid fuzz\n".to_vec();
    bytes.extend_from_slice(data);
    if let Ok(soup) = read::read_stl(&bytes, "fuzz.stl".as_ref()) {
        if let Ok(m) = Mesh::from_soup("fuzz", soup) {
            let _ = m.info();
        }
    }
});
