//! This process's own threads and backends. Rayon's global pool is made once, by the first
//! query; a process forked after that (multiprocessing's "fork", Linux's default before Python
//! 3.14, and PyTorch's data loaders) has none of its threads, and its first query waited for
//! them forever (a hunt's helper). So queries run on a pool the running process made, and a
//! backend made by another process (a GPU device the parent opened) is made again here.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::{Mutex, OnceLock};

pub use meshclash::once::{ours, Owned};

static POOL: Owned<ThreadPool> = Mutex::new(None);

/// The process that ran the first query: rayon's global pool, made then or later, is its own.
static FIRST: OnceLock<u32> = OnceLock::new();

/// `f` with the GIL released, on this process's threads (every parallel step inside it too):
/// rayon's global pool in the process that ran the first query (a pool entered costs 15 µs a
/// call, a fifth of a check of parts far apart), a pool of its own in a process forked after.
pub fn released<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    if *FIRST.get_or_init(std::process::id) == std::process::id() {
        return Ok(py.detach(f));
    }
    let pool = ours(&POOL, || {
        ThreadPoolBuilder::new()
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the query threads: {e}")))
    })?;
    Ok(py.detach(|| pool.install(f)))
}
