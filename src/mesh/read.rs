//! Readers: binary and ASCII STL, Wavefront OBJ. Every fault is a typed [`Error`] naming the
//! file and, for text formats, the line. Nothing is allocated from a count the file declares
//! until the file's size has confirmed it.

use crate::error::{Error, Result};
use std::path::Path;

/// A triangle soup as read, before welding.
pub type Soup = Vec<[[f32; 3]; 3]>;

const STL_HEADER: usize = 84;
const STL_RECORD: usize = 50;

/// Read a mesh file, choosing the reader by extension (`.stl`, `.obj`), case-insensitively.
/// Only regular files are read (see [`read_regular_file`]).
pub fn read_file(path: &Path) -> Result<Soup> {
    let bytes = read_regular_file(path)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("stl") => read_stl(&bytes, path),
        Some("obj") => read_obj(&bytes, path),
        _ => Err(Error::UnknownFormat {
            path: path.to_path_buf(),
        }),
    }
}

/// The bytes of a regular file, refusing anything else before it is opened: a device
/// (`/dev/zero`) or a growing pipe never ends, and opening a FIFO that has no writer blocks.
/// The file is then opened without blocking and checked again through its handle (the path may
/// have been replaced in between), and read only up to the size its metadata gave, so a file
/// that grows while it is read cannot keep the reader going.
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>> {
    let io = |source: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    require_regular(path, &std::fs::metadata(path).map_err(io)?)?;
    let file = open_nonblocking(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    require_regular(path, &meta)?;
    read_at_most(file, meta.len(), path)
}

/// [`Error::NotAFile`] unless `meta` describes a regular file.
fn require_regular(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::NotAFile {
        path: path.to_path_buf(),
        kind: file_kind(&meta.file_type()),
    })
}

/// What a file that is not a regular file is, in words for the error message.
fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Open for reading; on Unix with `O_NONBLOCK`, so that a FIFO swapped in after the metadata
/// check cannot block the open (the flag changes nothing for a regular file's reads).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Read `file` to its end, but no further than one byte past the `len` its metadata gave:
/// more than `len` means it grew while being read, an error rather than an endless read.
fn read_at_most(file: std::fs::File, len: u64, path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    // The capacity is a hint only: a size the file system reports, bounded so that a forged
    // or huge one does not reserve memory before any byte has arrived.
    let mut bytes = Vec::with_capacity(len.min(1 << 30) as usize);
    file.take(len.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > len {
        return Err(Error::Grew {
            path: path.to_path_buf(),
            len,
        });
    }
    Ok(bytes)
}

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

/// Wavefront OBJ: `v x y z [w]` and `f a b c …` (indices 1-based or negative, `i/t/n` forms);
/// polygons are triangulated as fans from their first vertex. Other statements are ignored.
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
        let mut tok = raw.split_whitespace();
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
