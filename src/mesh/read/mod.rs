//! Readers: STL (binary and ASCII), Wavefront OBJ, PLY (ASCII and binary), 3MF and glTF 2.0 /
//! GLB. Every fault is a typed [`Error`] naming the file and the fault (for text, the line).
//! Nothing is allocated from a count the file declares until the file's size has confirmed it,
//! and instancing (3MF components, glTF nodes) cannot expand a small file past
//! [`expansion_limit`].

mod gltf;
mod obj;
mod ply;
mod stl;
mod threemf;

pub use self::gltf::{buffer_files, read_gltf};
pub use obj::read_obj;
pub use ply::read_ply;
pub use stl::read_stl;
pub use threemf::{read_3mf, read_3mf_capped};

use crate::error::{Error, Result};
use std::path::Path;

/// A triangle soup as read, before welding.
pub type Soup = Vec<[[f32; 3]; 3]>;

/// A file's triangles and what else it says about them.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub soup: Soup,
    /// The length unit the file declares: 3MF's `unit` ("millimeter" where the attribute is
    /// absent, as the specification says), "meter" for glTF (its specification's unit); `None`
    /// for formats that have no unit (STL, OBJ, PLY).
    pub unit: Option<String>,
}

impl From<Soup> for Loaded {
    fn from(soup: Soup) -> Loaded {
        Loaded { soup, unit: None }
    }
}

/// The extensions [`read_file`] knows, for messages.
pub const EXTENSIONS: &str = ".stl, .obj, .ply, .3mf, .gltf or .glb";

/// Read a mesh file, choosing the reader by extension (see [`EXTENSIONS`]), case-insensitively.
/// Only regular files are read (see [`read_regular_file`]).
pub fn read_file(path: &Path) -> Result<Soup> {
    read_file_with_unit(path).map(|l| l.soup)
}

/// [`read_file`], keeping the unit the file declares.
pub fn read_file_with_unit(path: &Path) -> Result<Loaded> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let bytes = match ext.as_deref() {
        Some("stl") => read_checked(path, |head, len| stl::refuse_forged(head, len, path))?,
        _ => read_regular_file(path)?,
    };
    match ext.as_deref() {
        Some("stl") => read_stl(&bytes, path).map(Loaded::from),
        Some("obj") => read_obj(&bytes, path).map(Loaded::from),
        Some("ply") => read_ply(&bytes, path).map(Loaded::from),
        Some("3mf") => read_3mf(&bytes, path),
        Some("gltf" | "glb") => read_gltf(&bytes, path),
        _ => Err(Error::UnknownFormat {
            path: path.to_path_buf(),
        }),
    }
}

/// How many triangles a file of `bytes` bytes may expand to by instancing (3MF components and
/// build items, glTF nodes that share a mesh): 64 per byte, at least 2^20 and at most 2^27
/// (4.8 GB of soup). A legitimate file instancing a part a thousand times fits; a few hundred
/// bytes of nested instances cannot ask for billions of triangles.
pub fn expansion_limit(bytes: usize) -> u64 {
    (bytes as u64).saturating_mul(64).clamp(1 << 20, 1 << 27)
}

/// What expanding an instanced object (a 3MF object, a glTF node) takes: the triangles it
/// places; the work of placing them (placements, vertices transformed, triangles written), which
/// a chain of empty instances or a large mesh placed many times makes far larger than its
/// triangles; and how deep its instances nest.
#[derive(Clone, Copy, Debug, Default)]
struct Extent {
    triangles: u64,
    work: u64,
    height: usize,
}

impl Extent {
    /// One placement of a mesh of `vertices` and `triangles`.
    fn of(vertices: usize, triangles: usize) -> Extent {
        Extent {
            triangles: triangles as u64,
            work: 1 + vertices as u64 + triangles as u64,
            height: 0,
        }
    }

    /// This and `other` together (saturating).
    fn and(self, other: Extent) -> Extent {
        Extent {
            triangles: self.triangles.saturating_add(other.triangles),
            work: self.work.saturating_add(other.work),
            height: self.height.max(other.height),
        }
    }

    /// As an instance inside another: one level deeper.
    fn under(self) -> Extent {
        Extent {
            height: self.height + 1,
            ..self
        }
    }

    /// An error unless the triangles are within `limit` and the work within four times it.
    fn within(&self, limit: u64, what: &str) -> Result<(), String> {
        if self.triangles > limit {
            return Err(format!(
                "its {what} expands to {} triangles, more than the {limit} this reader expands a file of its size to",
                self.triangles
            ));
        }
        let budget = limit.saturating_mul(4);
        if self.work > budget {
            return Err(format!(
                "its {what} takes {} placements, vertices and triangles to expand, more than the {budget} this reader spends on a file of its size",
                self.work
            ));
        }
        Ok(())
    }
}

/// The error for a fault in a file of `format`.
fn fault(path: &Path, format: &'static str, message: impl Into<String>) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        format,
        message: message.into(),
    }
}

/// The bytes of a regular file, refusing anything else before it is opened: a device
/// (`/dev/zero`) or a growing pipe never ends, and opening a FIFO that has no writer blocks.
/// The file is then opened without blocking and checked again through its handle (the path may
/// have been replaced in between), and read only up to the size its metadata gave, so a file
/// that grows while it is read cannot keep the reader going.
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>> {
    read_checked(path, |_, _| Ok(()))
}

/// [`read_regular_file`], its first bytes (up to [`stl::STL_HEADER`]) and its size shown to
/// `check` before the rest is read: a size that a header makes impossible is refused before
/// the file is held in memory.
fn read_checked(path: &Path, check: impl FnOnce(&[u8], u64) -> Result<()>) -> Result<Vec<u8>> {
    use std::io::Read;
    let io = |source: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    require_regular(path, &std::fs::metadata(path).map_err(io)?)?;
    let mut file = open_nonblocking(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    require_regular(path, &meta)?;
    let mut head = Vec::new();
    (&mut file)
        .take(stl::STL_HEADER as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    check(&head, meta.len())?;
    read_at_most(file, head, meta.len(), path)
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

/// Read `file` to its end after `head` (its first bytes, read already), but no further than one
/// byte past the `len` its metadata gave:
/// more than `len` means it grew while being read, an error rather than an endless read.
fn read_at_most(file: std::fs::File, head: Vec<u8>, len: u64, path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    // The capacity is a hint only: a size the file system reports, bounded so that a forged
    // or huge one does not reserve memory before any byte has arrived.
    let mut bytes = head;
    bytes.reserve((len.min(1 << 30) as usize).saturating_sub(bytes.len()));
    let read = bytes.len() as u64;
    file.take(len.saturating_add(1).saturating_sub(read))
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
