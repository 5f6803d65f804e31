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
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering::SeqCst};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// `lock`'s value, made by `make` where none is yet (see the module's doc).
pub(crate) fn get_or_make<T: Send>(lock: &OnceLock<T>, make: impl FnOnce() -> T + Send) -> &T {
    lock.get_or_init(|| apart(make))
}

/// A value made once on first use ([`get_or_make`]) that a process forked while another of its
/// threads was making it can still get. The child has none of the parent's other threads, so
/// a `OnceLock` being made there stays "being made" for good, and the child's first query
/// waited on it forever (a review's helper: Python's `multiprocessing` forked while a thread
/// built a mesh's hierarchy). A process that finds the making begun by another process makes
/// its own value, kept apart and freed with the cell.
pub struct Made<T> {
    value: OnceLock<T>,
    /// The last process whose thread asked for the making (0: none yet).
    asked_by: AtomicU32,
    /// A forked process's own value, with its process id: set once per process without a lock
    /// (another making may be under way in a thread that is not in this process).
    forked: AtomicPtr<(u32, T)>,
}

impl<T> Default for Made<T> {
    fn default() -> Self {
        Made {
            value: OnceLock::new(),
            asked_by: AtomicU32::new(0),
            forked: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

impl<T: Send> Made<T> {
    /// The value, made by `make` where none is yet (made apart, [`get_or_make`]).
    pub fn get_or_make(&self, make: impl FnOnce() -> T + Send) -> &T {
        if let Some(v) = self.value.get() {
            return v;
        }
        let pid = std::process::id();
        let first = self.asked_by.compare_exchange(0, pid, SeqCst, SeqCst);
        if first.is_err_and(|asked| asked != pid) {
            // Another process asked (this one's parent, before the fork): its making may be
            // under way in a thread that is not here.
            return self.forked(pid, make);
        }
        get_or_make(&self.value, make)
    }

    /// The value, if it has been made (in this process or before its fork).
    pub fn get(&self) -> Option<&T> {
        let pid = std::process::id();
        self.value.get().or_else(|| self.forked_of(pid))
    }

    fn forked_of(&self, pid: u32) -> Option<&T> {
        let p = self.forked.load(SeqCst);
        // SAFETY: a pointer stored in `forked` is a leaked Box, freed only by `drop` (&mut).
        let (owner, value) = unsafe { p.as_ref() }?;
        (*owner == pid).then_some(value)
    }

    /// This process's own value, made without waiting for any other making.
    fn forked(&self, pid: u32, make: impl FnOnce() -> T + Send) -> &T {
        if let Some(v) = self.forked_of(pid) {
            return v;
        }
        let seen = self.forked.load(SeqCst);
        let made = Box::into_raw(Box::new((pid, apart(make))));
        // One of another process's (the parent's, inherited) replaced here is not freed:
        // threads of this process that read it found it not theirs and left it.
        let kept = match self.forked.compare_exchange(seen, made, SeqCst, SeqCst) {
            Ok(_) => made,
            Err(theirs) => {
                // Another thread of this process stored its own first (only this process's
                // threads store here, each its own): ours is dropped, theirs used.
                // SAFETY: `made` was leaked just above and never shared.
                drop(unsafe { Box::from_raw(made) });
                theirs
            }
        };
        // SAFETY: a leaked Box of this process's, freed only by `drop` (&mut).
        unsafe { &(*kept).1 }
    }
}

impl<T> Drop for Made<T> {
    fn drop(&mut self) {
        let p = *self.forked.get_mut();
        // SAFETY: a leaked Box of this cell's, no longer reachable by any other thread (&mut).
        if let Some((owner, _)) = unsafe { p.as_ref() } {
            if *owner == std::process::id() {
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
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
