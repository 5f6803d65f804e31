//! Standard output that a full disk cannot turn into a panic: `println!` panics where standard
//! output cannot be written (`meshclash info m.stl > /dev/full` exited 101 with a panic's
//! lines, a review's helper found). Lines go through [`out!`]; the first failure is kept, and
//! `main` reports it as any output it cannot write (exit 2, one line). A reader that stops
//! reading still ends the run by SIGPIPE (see `main`).

use std::io::Write;
use std::sync::Mutex;

static FAILED: Mutex<Option<std::io::Error>> = Mutex::new(None);

/// Writes one line to standard output; after a failure, nothing more.
pub fn line(args: std::fmt::Arguments) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_some() {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")) {
        *failed = Some(e);
    }
}

/// Writes `value` as one line of JSON, straight to standard output through a buffer: an answer
/// whose lists are made as they are written ([`meshclash::json::Listed`]) is never held whole,
/// as a value or as text.
pub fn json(value: &impl serde::Serialize) {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_some() {
        return;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = serde_json::to_writer(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        *failed = Some(e);
    }
}

/// Writes `text` as it is and flushes it, for output that must show as it comes (`bench`'s
/// scenes, a minute apart); a failure is returned at once, for the caller to stop on.
pub fn text(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush())
}

/// Flushes standard output: the first failure of a line or of the flush, if any.
pub fn finish() -> Option<std::io::Error> {
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    if failed.is_none() {
        if let Err(e) = std::io::stdout().flush() {
            *failed = Some(e);
        }
    }
    failed.take()
}

/// `println!` through [`line`].
macro_rules! out {
    () => {
        $crate::output::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}
