//! Atomic file replacement for the write tools: new content goes to a temporary file in the
//! target's directory, which then replaces the target by rename, so a crash leaves the old or
//! the new content, never a mix, and a failure leaves the target untouched.

use crate::sys::OwnedFd;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sys::fs::{Mode, OFlags};

/// Prefix of temporary files; a leftover one (after a crash) is recognisable by it.
pub const TEMP_PREFIX: &str = ".atn-write-";

/// Opens the directory that holds `target` (a resolved path) and returns it with the file
/// name, for [`replace_atomically`] and for checking where the directory really is.
pub fn open_parent(target: &Path) -> io::Result<(OwnedFd, &OsStr)> {
    let dir = target
        .parent()
        .unwrap_or_else(|| Path::new(std::path::MAIN_SEPARATOR_STR));
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(crate::sys::Errno::ISDIR.raw_os_error()))?;
    let fd = crate::sys::fs::open(
        dir,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok((fd, name))
}

/// Writes `bytes` to a new file in `dir` (with permission bits `mode` when given) and renames it
/// over `name`. On any error `name` is untouched and no temporary file is left.
///
/// On Linux, where the filesystem allows it, the content is written to an unnamed file
/// (`O_TMPFILE`), so a crash while writing leaves nothing behind; only for the rename it gets a
/// name, `.atn-write-<name>.tmp`, one per target. A leftover of that name (a crash between link
/// and rename) is removed by the next write of the same target. Elsewhere (macOS has no
/// `O_TMPFILE`; Linux with the `portable-unix` feature; Windows) the content is written under
/// that per-target name, held against other writers (`flock`; no sharing on Windows, where it is
/// also marked for deletion until whole), and the next write of the target takes over what a
/// killed write left; a writer that finds the name held uses a uniquely named file.
pub fn replace_atomically(
    dir: &OwnedFd,
    name: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    #[cfg(all(portable, unix))]
    return replace_via_locked(dir, name, bytes, mode);
    #[cfg(windows)]
    return replace_via_exclusive(dir, name, bytes, mode);
    #[cfg(linux_native)]
    match rustix::fs::openat(
        dir,
        ".",
        OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    ) {
        Ok(fd) => replace_via_unnamed(dir, name, fd, bytes, mode),
        // no O_TMPFILE support here: a named temporary file from the start
        Err(_) => replace_via_named(dir, name, bytes, mode),
    }
}

/// The per-target name the new content takes for the rename (Linux) or from the start (elsewhere).
fn link_name(name: &OsStr) -> std::ffi::OsString {
    let mut link = std::ffi::OsString::from(TEMP_PREFIX);
    link.push(name);
    link.push(".tmp");
    link
}

fn fill(file: &mut fs::File, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    if let Some(mode) = mode {
        // the permission bits fit every platform's mode type (u16 on macOS)
        #[allow(clippy::unnecessary_cast)]
        let mode = Mode::from_raw_mode((mode & 0o7777) as crate::sys::fs::RawMode);
        crate::sys::fs::fchmod(&*file, mode)?;
    }
    file.write_all(bytes)
}

#[cfg(linux_native)]
fn replace_via_unnamed(
    dir: &OwnedFd,
    name: &OsStr,
    fd: OwnedFd,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    let mut file = fs::File::from(fd);
    fill(&mut file, bytes, mode)?;
    let link = link_name(name);
    let proc_path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&file));
    let link_in = || {
        rustix::fs::linkat(
            rustix::fs::CWD,
            proc_path.as_str(),
            dir,
            link.as_os_str(),
            rustix::fs::AtFlags::SYMLINK_FOLLOW,
        )
    };
    match link_in() {
        Ok(()) => {}
        Err(rustix::io::Errno::EXIST) => {
            // a leftover of a crash (or a concurrent writer's link): remove it and try once more
            let _ = rustix::fs::unlinkat(dir, link.as_os_str(), rustix::fs::AtFlags::empty());
            if link_in().is_err() {
                return replace_via_named(dir, name, bytes, mode);
            }
        }
        Err(e) => return Err(e.into()),
    }
    match rustix::fs::renameat(dir, link.as_os_str(), dir, name) {
        Ok(()) => Ok(()),
        // a concurrent writer removed our link before the rename: write under a unique name
        Err(rustix::io::Errno::NOENT) => replace_via_named(dir, name, bytes, mode),
        Err(e) => {
            let _ = rustix::fs::unlinkat(dir, link.as_os_str(), rustix::fs::AtFlags::empty());
            Err(e.into())
        }
    }
}

/// Without `O_TMPFILE` (macOS, the portable build): the content is written under the per-target
/// name `.atn-write-<name>.tmp`, held with an exclusive `flock` from creation to rename. A name
/// that already exists is either a live writer's (locked: this write takes a unique name instead)
/// or the leftover of a killed write (unlocked and still that name: removed, then created anew,
/// so it passes on no permission bits). So the next write of a target removes what a crash left.
#[cfg(all(portable, unix))]
fn replace_via_locked(
    dir: &OwnedFd,
    name: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    use rustix::fs::{flock, AtFlags, FlockOperation};
    let temp = link_name(name);
    // locked by us, and still the file of that name (not renamed away nor removed meanwhile)
    let hold = |fd: &OwnedFd| {
        flock(fd, FlockOperation::NonBlockingLockExclusive).is_ok()
            && match (
                rustix::fs::fstat(fd),
                rustix::fs::statat(dir, temp.as_os_str(), AtFlags::SYMLINK_NOFOLLOW),
            ) {
                (Ok(a), Ok(b)) => (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino),
                _ => false,
            }
    };
    for _ in 0..2 {
        match rustix::fs::openat(
            dir,
            temp.as_os_str(),
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) if hold(&fd) => {
                let mut file = fs::File::from(fd);
                let result = fill(&mut file, bytes, mode)
                    .and_then(|()| rename_over(dir, &file, temp.as_os_str(), name));
                if result.is_err() {
                    let _ = rustix::fs::unlinkat(dir, temp.as_os_str(), AtFlags::empty());
                }
                return result;
            }
            Err(rustix::io::Errno::EXIST) => {
                let Ok(held) = rustix::fs::openat(
                    dir,
                    temp.as_os_str(),
                    OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                ) else {
                    break;
                };
                if !hold(&held) {
                    break;
                }
                // a killed write's leftover
                let _ = rustix::fs::unlinkat(dir, temp.as_os_str(), AtFlags::empty());
            }
            // locked by a writer between its creation and its lock, a name too long, …
            _ => break,
        }
    }
    replace_via_named(dir, name, bytes, mode)
}

/// Windows: the content is written under the per-target name `.atn-write-<name>.tmp`, opened
/// without sharing and marked for deletion until it is whole, then renamed through its handle.
/// A file of that name that a killed write left is taken over (truncated) by the next write of
/// the target; one a live writer holds cannot be opened, and this write takes a unique name.
#[cfg(windows)]
fn replace_via_exclusive(
    dir: &OwnedFd,
    name: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    let temp = link_name(name);
    let Ok(fd) = crate::sys::fs::open_temporary_exclusive(dir, &temp) else {
        return replace_via_named(dir, name, bytes, mode);
    };
    let mut file = fs::File::from(fd);
    // on failure the handle's deletion mark removes the file, unless it was cleared
    fill(&mut file, bytes, mode)?;
    crate::sys::fs::keep(&file)?;
    let result = rename_over(dir, &file, &temp, name);
    if result.is_err() {
        let _ = crate::sys::fs::discard(&file);
    }
    result
}

fn replace_via_named(
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
    let fd = create_temporary(dir, temp_name.as_str())?;
    let result = (|| {
        let mut file = fs::File::from(fd);
        fill(&mut file, bytes, mode)?;
        #[cfg(windows)]
        crate::sys::fs::keep(&file)?;
        rename_over(dir, &file, temp_name.as_str(), name)
    })();
    if result.is_err() {
        let _ = crate::sys::fs::unlinkat(dir, temp_name.as_str(), crate::sys::fs::AtFlags::empty());
    }
    result
}

/// A new temporary file in `dir`. On Windows it is deleted when the process dies before the
/// content is whole (`sys::fs::create_temporary`; `sys::fs::keep` then clears that), so a killed
/// write leaves nothing behind there either.
fn create_temporary(dir: &OwnedFd, temp_name: &str) -> io::Result<OwnedFd> {
    #[cfg(windows)]
    return Ok(crate::sys::fs::create_temporary(dir, temp_name)?);
    #[cfg(unix)]
    Ok(crate::sys::fs::openat(
        dir,
        temp_name,
        OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )?)
}

/// Renames the temporary file (open as `_file`, named `from`) over `to` in `dir`, by its name.
#[cfg(unix)]
fn rename_over(
    dir: &OwnedFd,
    _file: &fs::File,
    from: impl AsRef<std::path::Path>,
    to: &OsStr,
) -> io::Result<()> {
    Ok(crate::sys::fs::renameat(dir, from.as_ref(), dir, to)?)
}

/// Renames the temporary file (open as `file`) over `to` in `dir`, through its handle, right
/// after its deletion mark was cleared. Another program holding `to` open without delete sharing
/// (an editor, a virus scanner), or another writer renaming over it at the same moment, makes
/// the rename fail with a sharing violation or "access denied" while it lasts: retried for up to
/// about two seconds, then the error.
#[cfg(windows)]
fn rename_over(
    dir: &OwnedFd,
    file: &fs::File,
    _from: impl AsRef<std::path::Path>,
    to: &OsStr,
) -> io::Result<()> {
    use std::time::{Duration, Instant};
    use windows_sys::Win32::Foundation::{ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION};
    let start = Instant::now();
    let mut delay = Duration::from_millis(5);
    loop {
        match crate::sys::fs::rename_open(file, dir, to) {
            Err(e)
                if start.elapsed() < Duration::from_secs(2)
                    && [ERROR_SHARING_VIOLATION, ERROR_ACCESS_DENIED]
                        .contains(&(e.raw_os_error() as u32)) =>
            {
                std::thread::sleep(delay);
                delay = (delay * 2).min(Duration::from_millis(100));
            }
            done => return Ok(done?),
        }
    }
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
        #[cfg(unix)]
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&fs::metadata(&target).unwrap().permissions())
                & 0o777,
            0o640
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_leftover_from_a_crash_is_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        fs::write(&target, "old").unwrap();
        fs::write(dir.path().join(".atn-write-t.txt.tmp"), "half").unwrap();
        let (fd, name) = open_parent(&target).unwrap();
        replace_atomically(&fd, name, b"new", None).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "the leftover is gone"
        );
    }

    #[cfg(all(portable, unix))]
    #[test]
    fn a_live_writers_temporary_name_is_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        fs::write(&target, "old").unwrap();
        let temp = dir.path().join(".atn-write-t.txt.tmp");
        fs::write(&temp, "a live writer's").unwrap();
        let held = fs::File::open(&temp).unwrap();
        rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).unwrap();
        let (fd, name) = open_parent(&target).unwrap();
        replace_atomically(&fd, name, b"new", None).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read(&temp).unwrap(), b"a live writer's");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
        drop(held);
        // unlocked, it is a leftover: taken away, and its permission bits are not passed on
        fs::set_permissions(&temp, fs::Permissions::from_mode(0o600)).unwrap();
        let fresh = dir.path().join("fresh");
        fs::write(&fresh, "").unwrap();
        fs::remove_file(&target).unwrap();
        replace_atomically(&fd, name, b"newer", None).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"newer");
        let bits = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(bits(&target), bits(&fresh));
        assert!(!temp.exists());
    }

    #[cfg(windows)]
    #[test]
    fn a_temporary_file_goes_with_its_handle_until_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (fd, _) = open_parent(&dir.path().join("t.txt")).unwrap();
        // what a killed writer leaves: its handle closed by Windows
        drop(crate::sys::fs::create_temporary(&fd, ".atn-write-1.tmp").unwrap());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        let kept = crate::sys::fs::create_temporary(&fd, ".atn-write-2.tmp").unwrap();
        crate::sys::fs::keep(&kept).unwrap();
        drop(kept);
        assert!(dir.path().join(".atn-write-2.tmp").exists());
    }

    #[cfg(windows)]
    #[test]
    fn a_leftover_is_taken_over_and_a_held_name_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        let temp = dir.path().join(".atn-write-t.txt.tmp");
        fs::write(&target, "old").unwrap();
        fs::write(&temp, "a killed write's").unwrap();
        let (fd, name) = open_parent(&target).unwrap();
        replace_atomically(&fd, name, b"new", None).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(!temp.exists(), "the leftover is gone");
        let held = crate::sys::fs::open_temporary_exclusive(&fd, ".atn-write-t.txt.tmp").unwrap();
        crate::sys::fs::keep(&held).unwrap();
        replace_atomically(&fd, name, b"newer", None).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"newer");
        drop(held);
        assert!(temp.exists(), "the live writer's file is left alone");
    }

    #[test]
    fn concurrent_writers_of_one_target_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        let writers: Vec<_> = (0..8)
            .map(|i| {
                let target = target.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let (fd, name) = open_parent(&target).unwrap();
                        replace_atomically(&fd, name, format!("writer {i}").as_bytes(), None)
                            .unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        assert!(fs::read_to_string(&target).unwrap().starts_with("writer "));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn the_named_fallback_replaces_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        fs::write(&target, "old").unwrap();
        let (fd, name) = open_parent(&target).unwrap();
        replace_via_named(&fd, name, b"new", Some(0o600)).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
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
