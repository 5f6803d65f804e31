//! Wavefront OBJ.

use super::Soup;
use crate::error::{Error, Result};
use std::path::Path;

/// Wavefront OBJ: `v x y z [w]` and `f a b c …` (indices 1-based or negative, `i/t/n` forms);
/// polygons are triangulated as fans from their first vertex. Other statements, and comments
/// from `#` to the end of a line, are ignored.
pub fn read_obj(bytes: &[u8], path: &Path) -> Result<Soup> {
    let text = String::from_utf8_lossy(bytes);
    let err = |line: usize, message: String| Error::Syntax {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut verts: Vec<[f32; 3]> = Vec::new();
    let mut soup = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        // A comment runs from `#` to the end of its line, after a statement too: `f 1 2 3 # lid`
        // was refused (a bad face index "#") where `v 0 0 0 # tip` was read.
        let statement = raw.split('#').next().unwrap_or("");
        let mut tok = statement.split_whitespace();
        match tok.next() {
            Some("v") => {
                let mut v = [0f32; 3];
                for (k, slot) in v.iter_mut().enumerate() {
                    let t = tok.next().ok_or_else(|| {
                        err(line, format!("vertex has {k} coordinates, expected 3"))
                    })?;
                    *slot = t
                        .parse::<f32>()
                        .map_err(|_| err(line, format!("not a number: {t:?}")))?;
                }
                verts.push(v);
            }
            Some("f") => {
                let mut idx = Vec::new();
                for t in tok {
                    let first = t.split('/').next().unwrap_or("");
                    let n: i64 = first
                        .parse()
                        .map_err(|_| err(line, format!("bad face index {t:?}")))?;
                    let resolved = if n > 0 { n - 1 } else { verts.len() as i64 + n };
                    if n == 0 || resolved < 0 || resolved >= verts.len() as i64 {
                        return Err(err(
                            line,
                            format!(
                                "face index {n} out of range ({} vertices so far)",
                                verts.len()
                            ),
                        ));
                    }
                    idx.push(verts[resolved as usize]);
                }
                if idx.len() < 3 {
                    return Err(err(
                        line,
                        format!("face has {} vertices, needs 3", idx.len()),
                    ));
                }
                for k in 1..idx.len() - 1 {
                    soup.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    Ok(soup)
}
