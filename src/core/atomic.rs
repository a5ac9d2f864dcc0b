//! Atomic file replacement for the write tools: new content goes to a temporary file in the
//! target's directory, which then replaces the target by rename, so a crash leaves the old or
//! the new content, never a mix, and a failure leaves the target untouched.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{Mode, OFlags};

/// Prefix of temporary files; a leftover one (after a crash) is recognisable by it.
pub const TEMP_PREFIX: &str = ".atn-write-";

/// Opens the directory that holds `target` (a resolved path) and returns it with the file
/// name, for [`replace_atomically`] and for checking where the directory really is.
pub fn open_parent(target: &Path) -> io::Result<(OwnedFd, &OsStr)> {
    let dir = target.parent().unwrap_or(Path::new("/"));
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(rustix::io::Errno::ISDIR.raw_os_error()))?;
    let fd = rustix::fs::open(
        dir,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok((fd, name))
}

/// Writes `bytes` to a fresh temporary file in `dir` (with permission bits `mode` when given)
/// and renames it over `name`. On any error the temporary file is removed and `name` is
/// untouched.
pub fn replace_atomically(
    dir: &OwnedFd,
    name: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let temp_name = format!(
        "{TEMP_PREFIX}{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let fd = rustix::fs::openat(
        dir,
        temp_name.as_str(),
        OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?;
    let result = (|| {
        if let Some(mode) = mode {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
        }
        let mut file = fs::File::from(fd);
        file.write_all(bytes)?;
        drop(file);
        rustix::fs::renameat(dir, temp_name.as_str(), dir, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, temp_name.as_str(), rustix::fs::AtFlags::empty());
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        fs::write(&target, "old").unwrap();
        let (fd, name) = open_parent(&target).unwrap();
        replace_atomically(&fd, name, b"new", Some(0o640)).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_rename_leaves_everything_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        // renaming a file over a non-empty directory fails
        let target = dir.path().join("busy");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inside.txt"), "keep").unwrap();
        let (fd, name) = open_parent(&target).unwrap();
        assert!(replace_atomically(&fd, name, b"new", None).is_err());
        assert_eq!(fs::read(target.join("inside.txt")).unwrap(), b"keep");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            vec![std::ffi::OsString::from("busy")],
            "no temporary file is left"
        );
    }
}
