//! This process's own threads and backends. Rayon's global pool is made once, by the first
//! query; a process forked after that (multiprocessing's "fork", Linux's default before Python
//! 3.14, and PyTorch's data loaders) has none of its threads, and its first query waited for
//! them forever (a hunt's helper). So queries run on a pool the running process made, and a
//! backend made by another process (a GPU device the parent opened) is made again here.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Something one process made, with that process's id.
pub type Owned<T> = Mutex<Option<(u32, Arc<T>)>>;

static POOL: Owned<ThreadPool> = Mutex::new(None);

/// `slot`'s value where this process made it, else `make`'s, kept there. Another process's is
/// forgotten, not dropped: its threads and devices are not in this one, and dropping it would
/// signal or free them.
pub fn ours<T, E>(slot: &Owned<T>, make: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E> {
    let pid = std::process::id();
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    match slot.take() {
        Some((owner, x)) if owner == pid => {
            *slot = Some((owner, x.clone()));
            return Ok(x);
        }
        inherited => std::mem::forget(inherited),
    }
    let x = Arc::new(make()?);
    *slot = Some((pid, x.clone()));
    Ok(x)
}

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
