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
/// Watched as [`interruptible`]'s queries are, though it cannot be interrupted itself: one
/// under way while another is stopped reads the stop too ([`meshclash::stop`] is the
/// process's), and raises rather than answer (a review's helper: `interferes` in one thread
/// said `False` of a box inside another while a batch in the main thread stopped).
pub fn released<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let pool = own_pool()?;
    let watch = Watch::begin()?;
    let answer = match pool {
        None => py.detach(f),
        Some(pool) => py.detach(|| pool.install(f)),
    };
    match watch.cut_short() {
        true => Err(stopped()),
        false => Ok(answer),
    }
}

/// The pool a query of this process runs on: `None` for rayon's global one (this is the
/// process that ran the first query).
fn own_pool() -> PyResult<Option<std::sync::Arc<ThreadPool>>> {
    if *FIRST.get_or_init(std::process::id) == std::process::id() {
        return Ok(None);
    }
    let pool = ours(&POOL, || {
        ThreadPoolBuilder::new()
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the query threads: {e}")))
    })?;
    Ok(Some(pool))
}

/// Queries under way ([`released`], [`interruptible`]), and the stops asked since the process
/// began: a query during which that count changed was cut short.
#[derive(Clone, Copy)]
struct Watched {
    /// The process they belong to: a child forked while a query was under way in another of
    /// the parent's threads inherits its count, which no query of its own ends (a review's
    /// helper: the stop then stayed up for good after the child's first Ctrl-C).
    process: u32,
    running: usize,
    stops: u64,
}

static WATCHED: Mutex<Watched> = Mutex::new(Watched {
    process: 0,
    running: 0,
    stops: 0,
});

/// [`WATCHED`], this process's: a parent's, inherited by a fork, is started afresh, its stop
/// lowered.
fn watched() -> std::sync::MutexGuard<'static, Watched> {
    let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
    let process = std::process::id();
    if watched.process != process {
        *watched = Watched {
            process,
            running: 0,
            stops: 0,
        };
        meshclash::stop::set(false);
    }
    watched
}

/// [`released`], with Ctrl-C heard while `f` runs (a batch, poses, a sweep: minutes, where
/// `KeyboardInterrupt` used to wait for the end). `f` runs on the query threads while the
/// calling thread waits for it a tenth of a second at a time, and between waits lets Python
/// run its signal handlers. An exception they raise stops the work ([`meshclash::stop`]),
/// whose answers are thrown away, and is raised once it has stopped. Every such query under
/// way in the process stops with it (in another thread it raises `KeyboardInterrupt` too: its
/// answers would mean nothing), and one begun while they stop is refused the same way.
/// Waiting costs a task handed to a query thread, tens of microseconds: the quick queries
/// (`interferes`, a `check` of parts of fewer than a million triangles) stay [`released`].
pub fn interruptible<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let pool = own_pool()?;
    let watch = Watch::begin()?;
    let mut heard: Option<PyErr> = None;
    let answer = py.detach(|| match &pool {
        Some(pool) => pool.in_place_scope(|scope| wait_for(scope, f, &mut heard)),
        None => rayon::in_place_scope(|scope| wait_for(scope, f, &mut heard)),
    });
    let cut_short = watch.cut_short();
    match (heard, answer) {
        (Some(e), _) => Err(e),
        (None, _) if cut_short => Err(stopped()),
        (None, Some(answer)) => Ok(answer),
        // `f` panicked: the scope has raised its panic already, so this is not reached.
        (None, None) => Err(PyRuntimeError::new_err("the query ended without an answer")),
    }
}

/// Parts of more triangles than this together may keep a query a second or more: it listens
/// for Ctrl-C ([`interruptible_if`]).
pub const LONG_TRIANGLES: usize = 1_000_000;

/// [`interruptible`] where `long`, else [`released`]: waiting costs a quick query a fifth of
/// its time (a `check` of parts far apart: 40 → 59 µs from Python), and one that ends within
/// a second needs no Ctrl-C.
pub fn interruptible_if<T: Send>(
    py: Python<'_>,
    long: bool,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    match long {
        true => interruptible(py, f),
        false => released(py, f),
    }
}

/// One query under way through [`interruptible`], counted in [`WATCHED`] until it is
/// dropped (a panic too): the last one out lowers the stop.
struct Watch {
    stops: u64,
}

impl Watch {
    /// Refused while queries stop: its answers would mean nothing.
    fn begin() -> PyResult<Watch> {
        let mut watched = watched();
        if meshclash::stop::requested() {
            return Err(stopped());
        }
        watched.running += 1;
        Ok(Watch {
            stops: watched.stops,
        })
    }

    /// Whether a stop was asked while it ran.
    fn cut_short(&self) -> bool {
        watched().stops != self.stops
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut watched = watched();
        // A query begun in the parent of a fork ends here with a count started afresh.
        watched.running = watched.running.saturating_sub(1);
        if watched.running == 0 {
            meshclash::stop::set(false);
        }
    }
}

/// `f` on one of `scope`'s threads, waited for here a tenth of a second at a time, Python's
/// signal handlers run between waits until one raises (`heard`): then the work is stopped.
/// `None` where `f` panicked (the scope raises its panic as it ends).
fn wait_for<'s, T: Send + 's>(
    scope: &rayon::Scope<'s>,
    f: impl FnOnce() -> T + Send + 's,
    heard: &mut Option<PyErr>,
) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    scope.spawn(move |_| {
        let _ = tx.send(f());
    });
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(answer) => return Some(answer),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if heard.is_none() => {
                *heard = Python::attach(|py| py.check_signals()).err();
                if heard.is_some() {
                    // Both under the lock: a query begun between them would record the new
                    // count and answer through the stop as though it had never been cut
                    // short (a review's helper, holding this thread in a debugger).
                    let mut watched = watched();
                    watched.stops += 1;
                    meshclash::stop::set(true);
                }
            }
            Err(_) => {}
        }
    }
}

/// The exception of a query stopped by another's interrupt (Ctrl-C, or a signal handler's
/// exception) in another thread.
fn stopped() -> PyErr {
    pyo3::exceptions::PyKeyboardInterrupt::new_err(
        "stopped: a query under way in another thread was interrupted",
    )
}
