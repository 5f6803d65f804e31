//! Binary and ASCII STL.

use super::Soup;
use crate::error::{Error, Result};
use std::path::Path;

const STL_HEADER: usize = 84;
const STL_RECORD: usize = 50;

/// Binary or ASCII STL from bytes.
///
/// Binary is recognised by size (84 + 50·N bytes for the N in its header), whatever the header
/// says: many binary files begin with "solid". A file that begins with "solid" and does not fit
/// that size is read as ASCII. Up to 49 bytes after the last declared record (less than one
/// record, so no triangle can be in them) are ignored, as numpy-stl does; more is an error.
pub fn read_stl(bytes: &[u8], path: &Path) -> Result<Soup> {
    let looks_ascii = bytes
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(5)
        .copied()
        .eq(*b"solid")
        // Binary files often begin with "solid" too; text has no NUL bytes and is UTF-8.
        && !bytes.contains(&0)
        && std::str::from_utf8(bytes).is_ok();
    if bytes.len() >= STL_HEADER {
        let declared = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as u64;
        let expected = STL_HEADER as u64 + STL_RECORD as u64 * declared;
        let actual = bytes.len() as u64;
        let fits = actual >= expected && actual - expected < STL_RECORD as u64;
        if fits {
            return read_binary_stl(bytes, declared as usize, path);
        }
        if !looks_ascii {
            return Err(Error::StlSizeMismatch {
                path: path.to_path_buf(),
                declared,
                expected,
                actual,
            });
        }
    } else if !looks_ascii {
        return Err(Error::StlTooShort {
            path: path.to_path_buf(),
            actual: bytes.len() as u64,
        });
    }
    read_ascii_stl(bytes, path)
}

/// Binary STL through `stl_io`, whose reader picks ASCII for any header starting with
/// "solid ": such a header (80 free bytes) is blanked in a copy; other files are read in place.
/// The size is already checked.
fn read_binary_stl(bytes: &[u8], count: usize, path: &Path) -> Result<Soup> {
    let io = |source: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let body = &bytes[..STL_HEADER + count * STL_RECORD];
    let data: std::borrow::Cow<[u8]> = if body.starts_with(b"solid") {
        let mut copy = body.to_vec();
        copy[..80].fill(0);
        copy.into()
    } else {
        body.into()
    };
    let mut cursor = std::io::Cursor::new(data.as_ref());
    let reader = stl_io::create_stl_reader(&mut cursor).map_err(io)?;
    let mut soup = Vec::with_capacity(count);
    for t in reader {
        let t = t.map_err(io)?;
        soup.push([t.vertices[0].0, t.vertices[1].0, t.vertices[2].0]);
    }
    Ok(soup)
}

/// What the next keyword of an ASCII STL must be: a tiny state machine over the grammar.
#[derive(PartialEq)]
enum State {
    Solid,
    FacetOrEnd,
    OuterLoop,
    Vertex,
    EndLoop,
    EndFacet,
}

impl State {
    /// The keyword expected, for the error message.
    fn expected(&self) -> &'static str {
        match self {
            State::Solid => "\"solid\"",
            State::FacetOrEnd => "\"facet\" or \"endsolid\"",
            State::OuterLoop => "\"outer loop\"",
            State::Vertex => "\"vertex x y z\"",
            State::EndLoop => "\"endloop\" (a facet has 3 vertices)",
            State::EndFacet => "\"endfacet\"",
        }
    }
}

/// A `vertex` line's three coordinates, or what is wrong with them.
fn coordinates<'a>(tok: &mut impl Iterator<Item = &'a str>) -> Result<[f32; 3], String> {
    let mut v = [0f32; 3];
    for (k, slot) in v.iter_mut().enumerate() {
        let t = tok
            .next()
            .ok_or_else(|| format!("vertex has {k} coordinates, expected 3"))?;
        *slot = t
            .parse::<f32>()
            .map_err(|_| format!("not a number: {t:?}"))?;
    }
    Ok(v)
}

/// ASCII STL by hand: `stl_io` stops at the first `endsolid` (multi-body files hold several
/// solids) and its errors carry no line number.
fn read_ascii_stl(bytes: &[u8], path: &Path) -> Result<Soup> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::Syntax {
        path: path.to_path_buf(),
        line: 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        message: "ASCII STL is not valid text".into(),
    })?;
    let err = |line: usize, message: String| Error::Syntax {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut soup = Vec::new();
    let mut vertex = 0usize;
    let mut current = [[0f32; 3]; 3];
    let mut state = State::Solid;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        let mut tok = raw.split_whitespace();
        let Some(word) = tok.next() else { continue };
        // Exporters write keywords in either case ("ENDLOOP" in numpy-stl's HalfDonut).
        let lower = word.to_ascii_lowercase();
        match (&state, lower.as_str()) {
            (State::Solid, "solid") => state = State::FacetOrEnd,
            (State::FacetOrEnd, "facet") => state = State::OuterLoop,
            (State::FacetOrEnd, "endsolid") => state = State::Solid,
            (State::OuterLoop, "outer")
                if tok.next().is_some_and(|t| t.eq_ignore_ascii_case("loop")) =>
            {
                state = State::Vertex;
                vertex = 0;
            }
            (State::Vertex, "vertex") => {
                current[vertex] = coordinates(&mut tok).map_err(|m| err(line, m))?;
                vertex += 1;
                if vertex == 3 {
                    state = State::EndLoop;
                }
            }
            (State::EndLoop, "endloop") => state = State::EndFacet,
            (State::EndFacet, "endfacet") => {
                soup.push(current);
                state = State::FacetOrEnd;
            }
            _ => {
                let want = state.expected();
                return Err(err(
                    line,
                    format!("ASCII STL: expected {want}, found {word:?}"),
                ));
            }
        }
    }
    if state != State::Solid {
        return Err(err(
            last_line,
            "ASCII STL ends inside a solid (missing \"endsolid\"): the file is truncated".into(),
        ));
    }
    Ok(soup)
}
