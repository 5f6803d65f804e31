//! Progress on stderr, only for a person watching: nothing is drawn into a pipe, a file or a CI
//! log. Work that ends within a second shows nothing; longer work shows a spinner with what is
//! being done and for how long (indicatif), cleared when it ends.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

/// How long work runs before its spinner appears.
const QUIET: Duration = Duration::from_secs(1);

/// A line on stderr, whatever becomes of it: `eprintln!` panics where stderr cannot be written
/// (`2>/dev/full` exited 101, a review's helper), and there is nowhere left to say so.
pub fn say(msg: impl std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

/// A line on stderr (what was loaded, which adapter answers), when stderr is a terminal.
pub fn note(msg: &str) {
    if std::io::stderr().is_terminal() {
        say(msg);
    }
}

/// Notices held until the command has answered (see [`notice`]).
static HELD: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A notice a script should see (why `auto` answers on the CPU): at once for a person at a
/// terminal; otherwise held and written by [`release`] once the command has answered, so that a
/// refusal stays the one line on stderr the exit status 2 promises (a review's helper: the
/// notice came first wherever the backend was chosen before the input was refused).
pub fn notice(msg: String) {
    if std::io::stderr().is_terminal() {
        say(msg);
    } else {
        HELD.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }
}

/// The held notices, written after an answer (`answered`), or dropped after a refusal.
pub fn release(answered: bool) {
    let held = std::mem::take(&mut *HELD.lock().unwrap_or_else(|e| e.into_inner()));
    if answered {
        for msg in held {
            say(msg);
        }
    }
}

/// Runs `work`; if stderr is a terminal and it takes longer than a second, a spinner saying
/// `what` turns until it ends.
pub fn during<T>(what: &str, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let (done, wait) = mpsc::channel::<()>();
    let what = what.to_string();
    let spinner = std::thread::spawn(move || {
        if wait.recv_timeout(QUIET) != Err(mpsc::RecvTimeoutError::Timeout) {
            return;
        }
        // Counting from the start of the work, not from the spinner's first second.
        let bar = indicatif::ProgressBar::new_spinner()
            .with_message(what)
            .with_elapsed(QUIET);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        let _ = wait.recv();
        bar.finish_and_clear();
    });
    let out = work();
    drop(done);
    let _ = spinner.join();
    out
}
