//! The one error type of the library. Every fault a user can cause (bad files, bad poses, bad
//! arguments, a missing GPU) reaches them as one of these, never as a panic.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A path that is not a regular file (a device, FIFO, socket or directory): refused before
    /// it is opened, since reading one may never end and opening a FIFO may block.
    #[error("{path}: is {kind}, not a file")]
    NotAFile { path: PathBuf, kind: &'static str },
    /// A file that held more bytes than its metadata gave when it was opened.
    #[error("{path}: grew while being read (its size was {len} bytes when opened)")]
    Grew { path: PathBuf, len: u64 },
    #[error("{path}: binary STL header declares {declared} triangles ({expected} bytes) but the file has {actual} bytes: {}", stl_size_hint(*expected, *actual))]
    StlSizeMismatch {
        path: PathBuf,
        declared: u64,
        expected: u64,
        actual: u64,
    },
    #[error("{path}: file of {actual} bytes is too short for a binary STL (84-byte header) and does not start with \"solid\"")]
    StlTooShort { path: PathBuf, actual: u64 },
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: triangle {triangle} has a non-finite coordinate ({value}): infinite or NaN in the file, or beyond f32's range (3.4e38), which coordinates are read as")]
    NonFinite {
        path: PathBuf,
        triangle: usize,
        value: f32,
    },
    /// A fault in a PLY, 3MF or glTF file (text formats' line faults are [`Error::Syntax`]).
    #[error("{path}: {format}: {message}")]
    Format {
        path: PathBuf,
        format: &'static str,
        message: String,
    },
    #[error("{path}: the mesh has no triangles")]
    Empty { path: PathBuf },
    #[error("{path}: the mesh has {count} triangles, more than the {limit} this build indexes")]
    TooLarge {
        path: PathBuf,
        count: u64,
        limit: u64,
    },
    #[error(
        "{path}: unknown mesh format (expected {})",
        crate::mesh::read::EXTENSIONS
    )]
    UnknownFormat { path: PathBuf },
    #[error("invalid pose: {0}")]
    Pose(String),
    #[error("invalid argument: {0}")]
    Argument(String),
    /// A clearance under which lie more triangle pairs than a report lists
    /// ([`crate::query::MAX_PAIRS`]).
    #[error(transparent)]
    TooManyPairs(#[from] crate::query::TooMany),
    /// A distance beyond the largest `f64`: no number to give (JSON would say `null`), so the
    /// command line and Python refuse the query rather than answer `inf`. `what` names the
    /// pose, path or row.
    #[error("{what} places the parts farther apart than the largest f64 (1.8e308): their distance cannot be given")]
    PartsBeyondF64 { what: String },
    #[error("{what}: its distance to the mesh overflows f64 (beyond 1.8e308)")]
    PointBeyondF64 { what: String },
    #[error("no GPU adapter found{0}")]
    NoAdapter(String),
    #[error("GPU error: {0}")]
    Gpu(String),
    #[error("{path}: cannot write: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a binary STL's length disagrees with its header's count: too short is a file cut off
/// (or a count too large); too long is a count too small (some exporters write 0) or bytes
/// after the triangles.
fn stl_size_hint(expected: u64, actual: u64) -> &'static str {
    match actual < expected {
        true => "the file is truncated or its triangle count is corrupt",
        false => "its triangle count is corrupt or something follows the triangles",
    }
}
