//! Values made once, on first use, and shared by rayon's tasks: a mesh's hierarchies, a pose's
//! vertices, boxes and spheres. They are made on a pool of their own, from a thread that waits
//! without taking work.
//!
//! `OnceLock::get_or_init` blocks every other caller until the value is made. Where the making
//! runs in parallel on rayon's pool, the thread making it takes other tasks of that pool while
//! it waits for its parts, and so do the threads helping it. A task that asks for the same
//! value then waits for a thread that is below it on its own stack, and nothing moves again.
//! `poses` hung this way on a 16-thread machine: its poses share A's vertices
//! (`tests/threads.rs`). rayon's default pool on 2 cores has 2 threads, where it never showed.
//! On the makers' pool, a thread only ever takes another value's making.

use rayon::ThreadPool;
use std::sync::{Arc, Mutex, OnceLock};

/// `lock`'s value, made by `make` where none is yet (see the module's doc).
pub(crate) fn get_or_make<T: Send>(lock: &OnceLock<T>, make: impl FnOnce() -> T + Send) -> &T {
    match lock.get() {
        Some(v) => v,
        None => lock.get_or_init(|| apart(make)),
    }
}

/// `make` on the makers' pool: for work done while holding a lock that rayon's tasks may wait
/// for (a `OnceLock` being made, a `Mutex` held through an upload). The calling thread, which
/// holds the lock, waits in a plain thread join. Without a pool (the system refused its threads), `make` runs here, as it would
/// have without this module. (A thread the system refuses panics, as rayon's pool does.)
pub(crate) fn apart<T: Send>(make: impl FnOnce() -> T + Send) -> T {
    let Some(pool) = makers() else {
        return make();
    };
    if pool.current_thread_index().is_some() {
        // A value needed while making another: this pool's tasks are all makings.
        return make();
    }
    std::thread::scope(|s| {
        s.spawn(|| pool.install(make))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The makers' pool, as many threads as the pool asking has. A forked child makes its own:
/// its copy of the parent's has no threads.
fn makers() -> Option<Arc<ThreadPool>> {
    static POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut held = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((p, pool)) = held.as_ref() {
        if *p == pid {
            return Some(pool.clone());
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("meshclash-make-{i}"))
        .build()
        .ok()
        .map(Arc::new)?;
    *held = Some((pid, pool.clone()));
    Some(pool)
}
