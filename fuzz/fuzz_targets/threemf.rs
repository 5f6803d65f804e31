//! 3MF packages (zip of XML model parts).
#![no_main]
use libfuzzer_sys::fuzz_target;
use meshclash::mesh::{read, Mesh};

fuzz_target!(|data: &[u8]| {
    if let Ok(soup) = read::read_3mf(data, "fuzz.3mf".as_ref()).map(|l| l.soup) {
        if let Ok(m) = Mesh::from_soup("fuzz", soup) {
            let _ = m.info();
        }
    }
});
