//! Binary STL: the input becomes records behind a header whose count matches, or not (the
//! first byte chooses), so both the record parser and the size checks are reached.
#![no_main]
use libfuzzer_sys::fuzz_target;
use meshclash::mesh::{read, Mesh};

fuzz_target!(|data: &[u8]| {
    let honest = data.first().is_some_and(|b| b & 1 == 0);
    let count = if honest { (data.len() / 50) as u32 } else { u32::from_le_bytes([data.get(1).copied().unwrap_or(0), 0xff, 0xff, 0x7f]) };
    let mut bytes = vec![0u8; 80];
    bytes.extend_from_slice(&count.to_le_bytes());
    bytes.extend_from_slice(data);
    if let Ok(soup) = read::read_stl(&bytes, "fuzz.stl".as_ref()) {
        if let Ok(m) = Mesh::from_soup("fuzz", soup) {
            let _ = m.info();
        }
    }
});
