//! Writing an answer's file (a table, a picture) without losing the file it replaces: a write
//! that fails part way (a full disk, a quota) used to leave the old file emptied and the new
//! one cut off mid-row (a review's helper, on a 64 KiB tmpfs). The bytes go to a temporary
//! file beside the target, which is renamed over it only once they are all written, where that
//! changes nothing else about the file; elsewhere the file is written as it stands.

use crate::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path`. All or nothing where `path` is a new file, or a regular file of
/// ours with no other name (a hard link): through a temporary in the same folder, created
/// afresh (never a file or a link already there) with the file's permissions, and renamed
/// over the file (through symbolic links, which stay). Written as it stands where a rename
/// would change more than its bytes or is refused: a file another user owns or another name
/// shares, a device or `/dev/stdout` (its redirection keeps the old file), a folder that takes
/// no new file, a target mounted on its own (a container's bind mount).
pub fn file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let failed = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some((target, perms)) = replaceable(path) {
        match through_temporary(&target, perms, bytes) {
            Ok(true) => return Ok(()),
            Ok(false) => {} // no temporary, or no rename: as it stands
            Err(e) => return Err(failed(e)),
        }
    }
    std::fs::write(path, bytes).map_err(failed)
}

/// The file a write to `path` replaces (links followed) and its permissions (`None` for a new
/// one), where a temporary renamed over it changes nothing but its bytes.
fn replaceable(path: &Path) -> Option<(PathBuf, Option<std::fs::Permissions>)> {
    // Devices and the process's own descriptors (/dev/stdout redirected to a file): the
    // descriptor keeps the file it has, which a rename would take the answer from.
    if path.starts_with("/dev") || path.starts_with("/proc") {
        return None;
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && sole_and_ours(&meta) => {
            Some((path.canonicalize().ok()?, Some(meta.permissions())))
        }
        Ok(_) => None,
        // Nothing there: not even a link (which would lead somewhere not yet made).
        Err(_) if std::fs::symlink_metadata(path).is_err() => Some((path.to_path_buf(), None)),
        Err(_) => None,
    }
}

/// Whether a file has no other name and is this process's user's: a rename over it keeps its
/// owner and leaves no other name with the old bytes.
fn sole_and_ours(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        meta.nlink() == 1 && meta.uid() == unsafe { libc::geteuid() }
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        true
    }
}

/// `bytes` to a new temporary beside `target`, renamed over it: `Ok(false)` where the
/// temporary cannot be made or renamed (nothing written, the caller writes as it stands), an
/// error where the bytes cannot be written (the target as it was).
fn through_temporary(
    target: &Path,
    perms: Option<std::fs::Permissions>,
    bytes: &[u8],
) -> std::io::Result<bool> {
    let Some((mut f, temporary)) = new_temporary(target, perms.as_ref()) else {
        return Ok(false);
    };
    let pending = signals::remember(&temporary);
    let written = f.write_all(bytes).and_then(|()| f.sync_all());
    drop(f);
    let done = written.map(|()| std::fs::rename(&temporary, target).is_ok());
    if !matches!(done, Ok(true)) {
        let _ = std::fs::remove_file(&temporary);
    }
    signals::forget(pending);
    done
}

/// A file made afresh beside `target` (`create_new`: never one or a link already there), with
/// `perms` from the start, and its path; `None` where the folder takes none.
fn new_temporary(
    target: &Path,
    perms: Option<&std::fs::Permissions>,
) -> Option<(std::fs::File, PathBuf)> {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = target.file_name()?.to_string_lossy().into_owned();
    for _ in 0..16 {
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temporary = target.with_file_name(format!(
            ".{name}.{}-{n}-{nanos:x}.partial",
            std::process::id()
        ));
        let mut open = std::fs::OpenOptions::new();
        open.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(p) = perms {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            open.mode(p.mode() & 0o7777);
        }
        match open.open(&temporary) {
            Ok(f) => {
                // The mode asked for is narrowed by the umask: the file's own, exactly.
                let permitted = perms.map_or(Ok(()), |p| f.set_permissions(p.clone()));
                if permitted.is_err() {
                    // Not left behind: the caller writes the file as it stands instead.
                    drop(f);
                    let _ = std::fs::remove_file(&temporary);
                    return None;
                }
                return Some((f, temporary));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => return None,
        }
    }
    None
}

/// The temporary being written, removed by a signal that ends the process (Ctrl-C, `kill`, a
/// file size limit's SIGXFSZ) where the command line asks it ([`remove_partial_on_signal`]):
/// before, a table of a million rows cut short left its `.NAME.*.partial` beside the target.
/// Not in the library alone: a Python process keeps its own handlers.
#[cfg(unix)]
mod signals {
    use std::ffi::{c_char, c_int, CString};
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering::SeqCst};

    /// The temporary's path, owned by whoever takes it out: [`forget`] or the handler.
    static PENDING: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// Holds `temporary` for the handler; what it returns goes to [`forget`].
    pub fn remember(temporary: &Path) -> *mut c_char {
        use std::os::unix::ffi::OsStrExt;
        let Ok(path) = CString::new(temporary.as_os_str().as_bytes()) else {
            return std::ptr::null_mut();
        };
        let path = path.into_raw();
        PENDING.store(path, SeqCst);
        path
    }

    /// The temporary is gone (renamed or removed): the handler has nothing to remove.
    pub fn forget(path: *mut c_char) {
        if !path.is_null()
            && PENDING
                .compare_exchange(path, std::ptr::null_mut(), SeqCst, SeqCst)
                .is_ok()
        {
            // SAFETY: made by `CString::into_raw` in `remember`; taken out of PENDING here, so
            // the handler can no longer reach it.
            drop(unsafe { CString::from_raw(path) });
        }
    }

    extern "C" fn removing(signal: c_int) {
        let path = PENDING.swap(std::ptr::null_mut(), SeqCst);
        // SAFETY: unlink, signal and raise are async-signal-safe; the path is ours alone once
        // swapped out (never freed: the process ends here).
        unsafe {
            if !path.is_null() {
                libc::unlink(path);
            }
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }

    /// Installs [`removing`] for the signals that end a process by default, except those the
    /// process was started ignoring (`nohup`'s SIGHUP, a background job's SIGINT).
    pub fn install() {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGXFSZ] {
            // SAFETY: sigaction with a zeroed action only reads the current one; the handler
            // installed is async-signal-safe (above).
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                libc::signal(
                    signal,
                    removing as extern "C" fn(c_int) as libc::sighandler_t,
                );
            }
        }
    }
}

#[cfg(not(unix))]
mod signals {
    pub fn remember(_: &std::path::Path) {}
    pub fn forget(_: ()) {}
    pub fn install() {}
}

/// Has a signal that ends the process (Ctrl-C, `kill`, SIGXFSZ) remove the temporary of a
/// file being written: for the command line, which is killed by it as before.
pub fn remove_partial_on_signal() {
    signals::install();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("meshclash-save-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_file_is_replaced_whole_and_nothing_is_left_beside_it() {
        let d = folder("replace");
        let p = d.join("out.csv");
        file(&p, b"old").unwrap();
        file(&p, b"new, longer").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new, longer");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
    }

    /// Through a symbolic link the file is replaced and the link stays; the file keeps its
    /// permissions; devices are written as they stand. (A write that fails part way is
    /// `tests/cli_hostile.rs`'s: a file size limit in a process of its own.)
    #[cfg(target_os = "linux")]
    #[test]
    fn a_link_stays_and_the_file_keeps_its_permissions() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let d = folder("link");
        let p = d.join("out.csv");
        file(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.join("link.csv");
        symlink(&p, &link).unwrap();
        file(&link, b"through the link").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&p).unwrap(), b"through the link");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert!(file(Path::new("/dev/full"), b"x").is_err());
        assert!(file(Path::new("/dev/null"), b"x").is_ok());
    }

    /// A file with another name (a hard link) is written as it stands: both names get the
    /// new bytes, as before the temporary.
    #[cfg(unix)]
    #[test]
    fn a_file_with_another_name_is_written_in_place() {
        let d = folder("linked");
        let p = d.join("out.csv");
        file(&p, b"old").unwrap();
        std::fs::hard_link(&p, d.join("other.csv")).unwrap();
        file(&p, b"new").unwrap();
        assert_eq!(std::fs::read(d.join("other.csv")).unwrap(), b"new");
    }
}
