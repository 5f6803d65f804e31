//! Progress on stderr, only for a person watching: nothing is drawn into a pipe, a file or a CI
//! log. Work that ends within a second shows nothing; longer work shows a spinner with what is
//! being done and for how long (indicatif), cleared when it ends.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

/// How long work runs before its spinner appears.
const QUIET: Duration = Duration::from_secs(1);

/// A line on stderr (what was loaded, which adapter answers), when stderr is a terminal.
pub fn note(msg: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("{msg}");
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
        let bar = indicatif::ProgressBar::new_spinner().with_message(what);
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
