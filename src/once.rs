//! Values made once, on first use, and shared by rayon's tasks: a mesh's hierarchies, a pose's
//! vertices, boxes and spheres. They are made on a pool of their own, from a thread that waits
//! without taking work; or, small ones asked for by a task, in order by that task's thread.
//!
//! `OnceLock::get_or_init` blocks every other caller until the value is made. Where the making
//! runs in parallel on rayon's pool, the thread making it takes other tasks of that pool while
//! it waits for its parts, and so do the threads helping it. A task that asks for the same
//! value then waits for a thread that is below it on its own stack, and nothing moves again.
//! `poses` hung this way on a 16-thread machine: its poses share A's vertices
//! (`tests/threads.rs`). rayon's default pool on 2 cores has 2 threads, where it never showed.
//!
//! On the makers' pool a thread only ever takes part of another making, and no making waits
//! for another: each one's inputs made once are made before it starts (its caller asks for
//! them first), so a thread there never waits for a value that a making below it on its own
//! stack is making. (An upload waits for the GPU, which finishes whatever the threads do.)

use rayon::prelude::*;
use rayon::ThreadPool;
use std::cell::Cell;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// `lock`'s value, made by `make` where none is yet (see the module's doc).
pub(crate) fn get_or_make<T: Send>(lock: &OnceLock<T>, make: impl FnOnce() -> T + Send) -> &T {
    lock.get_or_init(|| apart(make))
}

/// `lock`'s value, `f` of each of `0..n` where none is yet. A few (at most [`IN_ORDER`]) asked
/// for on a thread of a pool (a task of a parallel query, such as one pose of many) are made
/// there in order: a thread making in order takes no other task, and a thread started for a
/// making apart would cost a pose of a small part a tenth of its time. Else in parallel on the
/// makers' pool.
pub(crate) fn get_or_collect<T: Send + Sync>(
    lock: &OnceLock<Vec<T>>,
    n: usize,
    f: impl Fn(usize) -> T + Send + Sync,
) -> &[T] {
    if let Some(v) = lock.get() {
        return v;
    }
    if n <= IN_ORDER && rayon::current_thread_index().is_some() && !ON_MAKERS.get() {
        return lock.get_or_init(|| (0..n).map(f).collect());
    }
    lock.get_or_init(|| apart(|| (0..n).into_par_iter().map(f).collect()))
}

/// The most values [`get_or_collect`] makes in order on a pool's thread: about a millisecond
/// of posing, against some tens of microseconds to start a thread.
const IN_ORDER: usize = 1 << 16;

/// `make` on the makers' pool: for work done while holding a lock that rayon's tasks may wait
/// for (a `OnceLock` being made, a `Mutex` held through an upload). The thread holding the
/// lock waits without taking work: a plain thread in the pool's own wait, a thread of another
/// pool (which would take that pool's tasks there) in the join of a thread started for it.
/// Without a pool (the system refused its threads), `make` runs here, as it would have
/// without this module. (A thread the system refuses panics, as rayon's pool does.)
pub(crate) fn apart<T: Send>(make: impl FnOnce() -> T + Send) -> T {
    // A making that asks for another value made once breaks the module's rule (the test
    // suite's debug build holds it). Even so it is made apart, as a pool's thread's would be:
    // on this thread it could wait for a making below it.
    debug_assert!(!ON_MAKERS.get(), "a making asked for a value made once");
    let Some(pool) = makers() else {
        return make();
    };
    if rayon::current_thread_index().is_none() {
        return pool.install(make);
    }
    std::thread::scope(|s| {
        s.spawn(|| pool.install(make))
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

thread_local! {
    /// Set on the makers' pool's threads (read without a lock: a pose asks several times).
    static ON_MAKERS: Cell<bool> = const { Cell::new(false) };
}

/// The makers' pool: as many threads as the pool that first asks has (rayon's default, the
/// cores, for a plain thread).
fn makers() -> Option<Arc<ThreadPool>> {
    static POOL: Owned<ThreadPool> = Mutex::new(None);
    ours(&POOL, || {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("meshclash-make-{i}"))
            .start_handler(|_| ON_MAKERS.set(true))
            .build()
    })
    .ok()
}

/// Something one process made (a pool, a lock, a backend), with that process's id.
pub type Owned<T> = Mutex<Option<(u32, Arc<T>)>>;

/// `slot`'s value where this process made it, else `make`'s, kept there. Another process's (a
/// forked child inherits its parent's) is forgotten, not dropped: its threads, devices and the
/// thread holding a lock are not in this one, and dropping it would signal or free them.
pub fn ours<T, E>(slot: &Owned<T>, make: impl FnOnce() -> Result<T, E>) -> Result<Arc<T>, E> {
    ours_while(slot, |_| true, make)
}

/// [`ours`], with a value this process made replaced where it is no longer `usable` (a lost
/// device); the one replaced is forgotten too, as other holders may still use it.
pub fn ours_while<T, E>(
    slot: &Owned<T>,
    usable: impl Fn(&T) -> bool,
    make: impl FnOnce() -> Result<T, E>,
) -> Result<Arc<T>, E> {
    let pid = std::process::id();
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    match slot.take() {
        Some((owner, x)) if owner == pid && usable(&x) => {
            *slot = Some((owner, x.clone()));
            return Ok(x);
        }
        inherited_or_spent => std::mem::forget(inherited_or_spent),
    }
    let x = Arc::new(make()?);
    *slot = Some((pid, x.clone()));
    Ok(x)
}
