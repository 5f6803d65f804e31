//! Binary and ASCII STL.

use super::Soup;
use crate::error::{Error, Result};
use std::borrow::Cow;
use std::path::Path;

pub(super) const STL_HEADER: usize = 84;
const STL_RECORD: usize = 50;

/// Binary or ASCII STL from bytes.
///
/// Binary is recognised by size (84 + 50·N bytes for the N in its header), whatever the header
/// says: many binary files begin with "solid". A file that begins with "solid" (any case, after
/// an optional UTF-8 byte-order mark and whitespace) and does not fit that size is read as
/// ASCII. Up to 49 bytes after the last declared record (less than one record, so no triangle
/// can be in them) are ignored, as numpy-stl does; more is an error.
pub fn read_stl(bytes: &[u8], path: &Path) -> Result<Soup> {
    // Binary files often begin with "solid" too; text has no NUL bytes, but for padding at
    // its end. Not that it be UTF-8: a solid's name may be in another encoding (a review's
    // helper: "solid café" in Latin-1 was refused as a binary STL of a billion triangles).
    let looks_ascii = starts_with_solid(bytes) && !text_part(bytes).contains(&0);
    match binary_size(bytes, bytes.len() as u64, path) {
        Ok(declared) => read_binary_stl(bytes, declared as usize, path),
        Err(_) if looks_ascii => read_ascii_stl(bytes, path),
        Err(e) => Err(e),
    }
}

/// A file of `len` bytes beginning with `head` (at least its first 84 bytes, where it has
/// them) refused before it is read: binary by its size, and not text ("solid"), the count in
/// its header forged (a review's helper: a sparse file of 1 GB declaring 4e9 triangles was
/// read whole, 10 GB ran out of memory, before this error).
pub fn refuse_forged(head: &[u8], len: u64, path: &Path) -> Result<()> {
    match binary_size(head, len, path) {
        Err(e) if !could_be_text(head) => Err(e),
        _ => Ok(()),
    }
}

/// Whether a file beginning with `head` may be an ASCII STL: "solid" after an optional
/// byte-order mark and whitespace (or as much of it as `head` holds: a text may begin with
/// more whitespace than that), and no NUL but as padding at the end. Binary exporters write
/// "solid ..." in their header too, followed by NULs and then the count (a review's helper:
/// such a header with a forged count was still read whole).
fn could_be_text(head: &[u8]) -> bool {
    let word = first_five(head);
    b"solid"[..word.len()].eq_ignore_ascii_case(word) && !text_part(head).contains(&0)
}

/// The triangles a binary STL of `len` bytes declares in `head` (its first 84 bytes at least),
/// where its size fits them; else why not.
fn binary_size(head: &[u8], len: u64, path: &Path) -> Result<u64> {
    let Some(count) = head.get(80..STL_HEADER) else {
        return Err(Error::StlTooShort {
            path: path.to_path_buf(),
            actual: len,
        });
    };
    let declared = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as u64;
    let expected = STL_HEADER as u64 + STL_RECORD as u64 * declared;
    if len >= expected && len - expected < STL_RECORD as u64 {
        return Ok(declared);
    }
    Err(Error::StlSizeMismatch {
        path: path.to_path_buf(),
        declared,
        expected,
        actual: len,
    })
}

/// `bytes` less the NUL padding some exporters end a text file with.
fn text_part(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    &bytes[..end]
}

/// Whether the first word of `bytes`, after an optional UTF-8 byte-order mark and whitespace,
/// begins with "solid" in any case.
fn starts_with_solid(bytes: &[u8]) -> bool {
    first_five(bytes).eq_ignore_ascii_case(b"solid")
}

/// The first five bytes of `bytes` after an optional UTF-8 byte-order mark and whitespace (as
/// many as there are).
fn first_five(bytes: &[u8]) -> &[u8] {
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    &text[start..text.len().min(start + 5)]
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

/// The three numbers of a `vertex` line (or a facet's normal) and nothing after them, or what
/// is wrong with them; `what` is the line's form, for the message.
fn three_numbers(tokens: &[&str], what: &str) -> std::result::Result<[f32; 3], String> {
    if tokens.len() < 3 {
        return Err(format!(
            "ASCII STL: {what} has {} numbers, expected 3",
            tokens.len()
        ));
    }
    let mut v = [0f32; 3];
    for (slot, t) in v.iter_mut().zip(tokens) {
        *slot = t
            .parse::<f32>()
            .map_err(|_| format!("ASCII STL: not a number: {t:?}"))?;
    }
    nothing_after(&tokens[3..], what)?;
    Ok(v)
}

/// An error naming the first of `tokens`, which should not be there after `what`.
fn nothing_after(tokens: &[&str], what: &str) -> std::result::Result<(), String> {
    match tokens.first() {
        Some(t) => Err(format!(
            "ASCII STL: {t:?} after {what}, which ends its line"
        )),
        None => Ok(()),
    }
}

/// ASCII STL by hand: `stl_io` stops at the first `endsolid` (multi-body files hold several
/// solids) and its errors carry no line number.
/// Text that is not UTF-8 is read as far as its keywords and numbers go (a name's bytes do not
/// matter; a number's would not parse, an error naming its line); lines end at `\n`, `\r\n` or
/// `\r` alone (old Mac exporters).
fn read_ascii_stl(bytes: &[u8], path: &Path) -> Result<Soup> {
    let text = String::from_utf8_lossy(text_part(bytes));
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
    // A byte-order mark is no part of the first keyword.
    // Every line end, `\r\n`, `\n` or `\r` alone, counted once (a review's helper: a file of
    // CR ends with one LF at its end read as one line).
    let text = match text.contains('\r') {
        true => Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n")),
        false => text,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        let tokens: Vec<&str> = raw.split_whitespace().collect();
        let Some((word, rest)) = tokens.split_first() else {
            continue;
        };
        let at = |m: String| err(line, m);
        // Exporters write keywords in either case ("ENDLOOP" in numpy-stl's HalfDonut).
        let lower = word.to_ascii_lowercase();
        match (&state, lower.as_str()) {
            // A solid's name is the rest of its line, on `solid` and `endsolid` alike.
            (State::Solid, "solid") => state = State::FacetOrEnd,
            (State::FacetOrEnd, "facet") => {
                // `facet normal nx ny nz`, or `facet` alone.
                if let Some((normal, n)) = rest.split_first() {
                    if !normal.eq_ignore_ascii_case("normal") {
                        return Err(at(format!(
                            "ASCII STL: expected \"facet normal nx ny nz\", found {normal:?} after \"facet\""
                        )));
                    }
                    // The normal is not used (the corners' order says the side), and some
                    // exporters write it as they please ("1.#QNAN"): three words, not numbers.
                    if n.len() != 3 {
                        return Err(at(format!(
                            "ASCII STL: \"facet normal\" has {} values, expected 3",
                            n.len()
                        )));
                    }
                }
                state = State::OuterLoop;
            }
            (State::FacetOrEnd, "endsolid") => state = State::Solid,
            (State::OuterLoop, "outer")
                if rest.first().is_some_and(|t| t.eq_ignore_ascii_case("loop")) =>
            {
                nothing_after(&rest[1..], "\"outer loop\"").map_err(at)?;
                state = State::Vertex;
                vertex = 0;
            }
            (State::Vertex, "vertex") => {
                current[vertex] = three_numbers(rest, "\"vertex x y z\"").map_err(at)?;
                vertex += 1;
                if vertex == 3 {
                    state = State::EndLoop;
                }
            }
            (State::EndLoop, "endloop") => {
                nothing_after(rest, "\"endloop\"").map_err(at)?;
                state = State::EndFacet;
            }
            (State::EndFacet, "endfacet") => {
                nothing_after(rest, "\"endfacet\"").map_err(at)?;
                soup.push(current);
                state = State::FacetOrEnd;
            }
            _ => {
                let want = state.expected();
                return Err(at(format!("ASCII STL: expected {want}, found {word:?}")));
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
