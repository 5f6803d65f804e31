//! Stopping long work early, for a caller that throws its answers away: Python's Ctrl-C (its
//! `KeyboardInterrupt`), which otherwise waited for a query of minutes to return. The batches'
//! loops over points, rays, spheres and poses, and a sweep's steps, look at the flag between
//! items: once it is up, each item left is answered at once with a value that means nothing.
//! Nothing in the library raises it; a caller that does must discard every answer it gets
//! until it lowers it again (`python/src/process.rs`).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

static STOP: AtomicBool = AtomicBool::new(false);

/// Whether the work under way is to stop.
pub fn requested() -> bool {
    STOP.load(Relaxed)
}

/// Raises (`true`) or lowers the flag.
pub fn set(stop: bool) {
    STOP.store(stop, Relaxed);
}
