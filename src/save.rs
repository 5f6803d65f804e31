//! Writing an answer's file (a table, a picture) without losing the file it replaces: a write
//! that fails part way (a full disk, a quota) used to leave the old file emptied and the new
//! one cut off mid-row (a review's helper, on a 64 KiB tmpfs). The bytes go to a temporary
//! file beside the target, which is renamed over it only once they are all written.

use crate::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path`, all or nothing where `path` is a regular file or none yet:
/// through a temporary file in the same folder, renamed over the file (through symbolic
/// links, which stay). An existing file keeps its permissions; a hard link to it is no longer
/// one (its other names keep the old bytes). Anything else (a device such as `/dev/null`, a
/// dangling link) is written as it stands.
pub fn file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let failed = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    match replaced(path) {
        Some((target, perms)) => through_temporary(&target, perms, bytes).map_err(failed),
        None => std::fs::write(path, bytes).map_err(failed),
    }
}

/// The file a write to `path` replaces (links followed) and its permissions (`None` for a new
/// one), where a temporary file can stand in for it: not a device, a FIFO or a dangling link.
fn replaced(path: &Path) -> Option<(PathBuf, Option<std::fs::Permissions>)> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Some((path.canonicalize().ok()?, Some(meta.permissions()))),
        Ok(_) => None,
        // Nothing there: not even a link (which would lead somewhere not yet made).
        Err(_) if std::fs::symlink_metadata(path).is_err() => Some((path.to_path_buf(), None)),
        Err(_) => None,
    }
}

fn through_temporary(
    target: &Path,
    perms: Option<std::fs::Permissions>,
    bytes: &[u8],
) -> std::io::Result<()> {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let temporary = target.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&temporary)?;
        f.write_all(bytes)?;
        if let Some(p) = perms {
            f.set_permissions(p)?;
        }
        f.sync_all()?;
        std::fs::rename(&temporary, target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
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

    #[cfg(unix)]
    #[test]
    fn a_write_that_fails_leaves_the_old_file_and_its_link() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let d = folder("fails");
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
        // A write that fails (here: its temporary cannot be made, a folder standing where it
        // goes; on a full disk, part way) leaves the file as it was.
        let temporary = d.join(format!(".out.csv.{}.partial", std::process::id()));
        std::fs::create_dir(&temporary).unwrap();
        assert!(file(&link, b"lost").is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"through the link");
        assert!(file(Path::new("/dev/full"), b"x").is_err());
        assert!(file(Path::new("/dev/null"), b"x").is_ok());
    }
}
