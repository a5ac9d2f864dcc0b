//! The platform layer of the filesystem side: one set of names the tools use for descriptors,
//! descriptor-relative file operations and their errors, whatever the system.
//!
//! On Unix every name is a re-export of what the code used before (`std::os::fd`, `rustix::fs`,
//! `rustix::io::Errno`), so nothing changes there. On Windows ([`windows`]) the same names are a
//! small stand-in with the same shapes: a descriptor is an `OwnedHandle`, `openat(dir, name)` opens
//! `name` below the final path of the directory handle, `O_NOFOLLOW` refuses a reparse point of
//! any kind (symlink, junction, mount point, anything else) as `ELOOP` does a symlink, and errors
//! are Win32 error codes behind the errno names the code matches on. See docs/windows-port.md,
//! "The filesystem layer on Windows".

#[cfg(unix)]
pub use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

#[cfg(unix)]
pub use rustix::io::{Errno, Result};

/// The descriptor-relative file operations (`rustix::fs` on Unix).
#[cfg(unix)]
pub mod fs {
    pub use rustix::fs::*;
}

#[cfg(windows)]
mod windows;

#[cfg(windows)]
pub use windows::{
    final_path as windows_final_path, fs, handle_identity, stat_with_identity, AsFd, BorrowedFd,
    Errno, HandleIdentity, OwnedFd, Result,
};

/// The raw bytes of a name (`OsStrExt::as_bytes` on Unix; on Windows the UTF-8 of names, which
/// is all [`crate::sandbox::read_entries`] produces there).
pub fn name_bytes(name: &std::ffi::OsStr) -> &[u8] {
    name.as_encoded_bytes()
}

/// The name whose raw bytes are `bytes` (what [`crate::sandbox::read_entries`] lists).
#[cfg(unix)]
pub fn name_from_bytes(bytes: &[u8]) -> &std::ffi::OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(bytes)
}

/// The name whose raw bytes are `bytes` (what [`crate::sandbox::read_entries`] lists: always
/// UTF-8 on Windows; other bytes give the replacement character, a name no file has).
#[cfg(windows)]
pub fn name_from_bytes(bytes: &[u8]) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(std::str::from_utf8(bytes).unwrap_or("\u{FFFD}"))
}

/// The name whose raw bytes are `bytes` (what [`crate::sandbox::read_entries`] lists), owned.
#[cfg(unix)]
pub fn name_from_vec(bytes: Vec<u8>) -> std::ffi::OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

/// The name whose raw bytes are `bytes` (UTF-8 on Windows, see [`name_from_bytes`]), owned.
#[cfg(windows)]
pub fn name_from_vec(bytes: Vec<u8>) -> std::ffi::OsString {
    match String::from_utf8(bytes) {
        Ok(name) => name.into(),
        Err(_) => "\u{FFFD}".into(),
    }
}

/// `options` with the `open(2)` flags `flags` (`OpenOptionsExt::custom_flags` on Unix). On
/// Windows `O_NOFOLLOW` becomes `FILE_FLAG_OPEN_REPARSE_POINT` (a reparse point is opened itself,
/// so it is not a regular file to the caller's check that follows), and every open gets
/// `FILE_FLAG_BACKUP_SEMANTICS` (what opening a directory takes: a directory opens as on Unix and
/// the caller's type check reports it); the rest has no meaning there.
pub fn with_flags(
    options: &mut std::fs::OpenOptions,
    flags: fs::OFlags,
) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        std::os::unix::fs::OpenOptionsExt::custom_flags(options, flags.bits() as i32)
    }
    #[cfg(windows)]
    {
        windows::custom_flags(options, flags)
    }
}

/// The permission bits of a file (`st_mode & 0o7777`). On Windows, which has no mode bits, the
/// read-only attribute alone: `0o444` when set, else `0o666`; [`fs::fchmod`] there applies only
/// that attribute, so "keep the existing file's mode" keeps its read-only flag.
pub fn permission_bits(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777
    }
    #[cfg(windows)]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o666
        }
    }
}

/// `st_mode` of a file (type and permission bits), as patches record it. On Windows the type
/// (`S_IFREG`, `S_IFDIR`, `S_IFLNK` for a reparse point) and [`permission_bits`].
pub fn raw_mode(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::mode(meta)
    }
    #[cfg(windows)]
    {
        windows::type_bits(meta) | permission_bits(meta)
    }
}

/// Modification time of a file as (seconds, nanoseconds) since the Unix epoch.
pub fn mtime(meta: &std::fs::Metadata) -> (i64, i64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.mtime(), meta.mtime_nsec())
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt;
        windows::filetime_to_unix(meta.last_write_time())
    }
}

/// Tests: a symlink at `link` to `target` (`symlink_dir` on Windows when the target, taken
/// relative to the link's directory, is a directory; `symlink_file` otherwise).
#[cfg(test)]
pub fn symlink<P: AsRef<std::path::Path>, Q: AsRef<std::path::Path>>(
    target: P,
    link: Q,
) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(windows)]
    {
        let (target, link) = (target.as_ref(), link.as_ref());
        let resolved = link
            .parent()
            .map_or(target.to_path_buf(), |d| d.join(target));
        if resolved.is_dir() {
            std::os::windows::fs::symlink_dir(target, link)
        } else {
            std::os::windows::fs::symlink_file(target, link)
        }
    }
}

/// Tests: `path` (from `fs::canonicalize`) as callers write it: on Windows without the `\\?\`
/// prefix `canonicalize` adds (under which `/` is not a separator).
#[cfg(test)]
pub fn plain_path(path: std::path::PathBuf) -> std::path::PathBuf {
    #[cfg(windows)]
    {
        let text = path.to_string_lossy();
        std::path::PathBuf::from(crate::windows_path::strip_verbatim(&text).into_owned())
    }
    #[cfg(not(windows))]
    path
}
