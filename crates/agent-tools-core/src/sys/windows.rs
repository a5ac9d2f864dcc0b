//! The Windows stand-in for the descriptor API the filesystem side uses (see [`super`]).
//!
//! Path based, checked on the handle: `openat(dir, name)` opens `name` below the final path of
//! `dir` (`GetFinalPathNameByHandleW`) with `FILE_FLAG_OPEN_REPARSE_POINT`, so a reparse point is
//! itself what is opened and its attributes are read from that handle, never what it points to.
//! A directory opened that way is then checked to be really `name` in `dir`: its own final path
//! must be the parent's final path plus `name`, else the open fails with `EXDEV` (a directory
//! swapped in between, under whatever name). Tools re-check every opened file's final path
//! against the root ([`crate::sandbox::Confinement`]), which also expands 8.3 short names.
//! Handles are opened with the usual full sharing (as Node does), so the tools never stop anyone
//! from renaming or deleting what they hold. What stays open: a listing ([`fs::Dir`]) reads the
//! directory by its final path, so a directory swapped between that and the listing is listed
//! instead (its entries' names, never their contents: every file opened is re-checked). A walk
//! relative to handles with `NtCreateFile` (`OBJECT_ATTRIBUTES.RootDirectory`) and listings with
//! `GetFileInformationByHandleEx(FileIdBothDirectoryInfo)` are the later step
//! docs/windows-port.md describes.

use std::ffi::OsString;
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::ops::{BitOr, BitOrAssign};
use std::os::windows::ffi::OsStringExt;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::{AsHandle, AsRawHandle};
use std::path::{Path, PathBuf};

use windows_sys::Win32::Foundation as win;
use windows_sys::Win32::Storage::FileSystem as winfs;

pub use std::os::windows::io::{BorrowedHandle as BorrowedFd, OwnedHandle as OwnedFd};

/// `AsFd` of Unix: anything that lends a handle.
pub trait AsFd {
    fn as_fd(&self) -> BorrowedFd<'_>;
}

impl<T: AsHandle + ?Sized> AsFd for T {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.as_handle()
    }
}

/// A Win32 error code under the errno names the code matches on. Several Win32 codes mean one
/// errno (`ERROR_FILE_NOT_FOUND` and `ERROR_PATH_NOT_FOUND` are both `NOENT`): [`Errno::from_io_error`]
/// maps them to the one the constant holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Errno(i32);

impl Errno {
    pub const NOENT: Errno = Errno(win::ERROR_FILE_NOT_FOUND as i32);
    pub const NOTDIR: Errno = Errno(win::ERROR_DIRECTORY as i32);
    pub const ISDIR: Errno = Errno(win::ERROR_DIRECTORY_NOT_SUPPORTED as i32);
    pub const LOOP: Errno = Errno(win::ERROR_CANT_RESOLVE_FILENAME as i32);
    pub const EXIST: Errno = Errno(win::ERROR_ALREADY_EXISTS as i32);
    pub const XDEV: Errno = Errno(win::ERROR_NOT_SAME_DEVICE as i32);
    pub const NAMETOOLONG: Errno = Errno(win::ERROR_FILENAME_EXCED_RANGE as i32);
    pub const INVAL: Errno = Errno(win::ERROR_INVALID_PARAMETER as i32);
    pub const BADF: Errno = Errno(win::ERROR_INVALID_HANDLE as i32);
    pub const NOTEMPTY: Errno = Errno(win::ERROR_DIR_NOT_EMPTY as i32);
    pub const IO: Errno = Errno(win::ERROR_GEN_FAILURE as i32);
    // libuv's mapping (what Node reports on Windows): "access denied" is EPERM, a sharing
    // violation EBUSY.
    pub const PERM: Errno = Errno(win::ERROR_ACCESS_DENIED as i32);
    pub const ACCESS: Errno = Errno(win::ERROR_CANT_ACCESS_FILE as i32);
    pub const BUSY: Errno = Errno(win::ERROR_SHARING_VIOLATION as i32);
    pub const NOSPC: Errno = Errno(win::ERROR_DISK_FULL as i32);
    pub const ROFS: Errno = Errno(win::ERROR_WRITE_PROTECT as i32);
    pub const MFILE: Errno = Errno(win::ERROR_TOO_MANY_OPEN_FILES as i32);
    // No Win32 code means these: values no Win32 error has, so they never match one.
    pub const NFILE: Errno = Errno(-23);
    pub const NXIO: Errno = Errno(-6);
    pub const TXTBSY: Errno = Errno(-26);

    pub fn raw_os_error(self) -> i32 {
        self.0
    }

    pub fn from_raw_os_error(raw: i32) -> Errno {
        Errno(match raw as u32 {
            win::ERROR_PATH_NOT_FOUND => win::ERROR_FILE_NOT_FOUND as i32,
            win::ERROR_FILE_EXISTS => win::ERROR_ALREADY_EXISTS as i32,
            win::ERROR_LOCK_VIOLATION => win::ERROR_SHARING_VIOLATION as i32,
            win::ERROR_HANDLE_DISK_FULL => win::ERROR_DISK_FULL as i32,
            win::ERROR_NOACCESS => win::ERROR_CANT_ACCESS_FILE as i32,
            _ => raw,
        })
    }

    pub fn from_io_error(e: &io::Error) -> Option<Errno> {
        e.raw_os_error().map(Errno::from_raw_os_error)
    }

    fn of(e: io::Error) -> Errno {
        Errno::from_io_error(&e).unwrap_or(Errno::IO)
    }
}

impl From<Errno> for io::Error {
    fn from(e: Errno) -> io::Error {
        io::Error::from_raw_os_error(e.0)
    }
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        io::Error::from_raw_os_error(self.0).fmt(f)
    }
}

impl std::error::Error for Errno {}

pub type Result<T> = std::result::Result<T, Errno>;

const S_IFMT: u32 = 0o170000;
const S_IFREG: u32 = 0o100000;
const S_IFDIR: u32 = 0o040000;
const S_IFLNK: u32 = 0o120000;

fn is_reparse_point(meta: &Metadata) -> bool {
    meta.file_attributes() & winfs::FILE_ATTRIBUTE_REPARSE_POINT != 0
}

/// The `st_mode` type bits of a file: any reparse point is a symlink.
pub(super) fn type_bits(meta: &Metadata) -> u32 {
    if is_reparse_point(meta) {
        S_IFLNK
    } else if meta.is_dir() {
        S_IFDIR
    } else {
        S_IFREG
    }
}

/// A `FILETIME` (100 ns ticks since 1601) as seconds and nanoseconds since the Unix epoch.
pub(super) fn filetime_to_unix(ticks: u64) -> (i64, i64) {
    const EPOCH_DIFFERENCE_TICKS: i64 = 116_444_736_000_000_000;
    let since_epoch = ticks as i64 - EPOCH_DIFFERENCE_TICKS;
    (
        since_epoch.div_euclid(10_000_000),
        since_epoch.rem_euclid(10_000_000) * 100,
    )
}

/// What identifies a file's content for the search cache (`crate::search_cache::FileId`), read
/// from an open handle: the volume serial number and the file index (`GetFileInformationByHandle`),
/// the last write time and the change time (`FileBasicInfo`), both in nanoseconds since the Unix
/// epoch. The change time moves with every write and every change of the file's metadata, its
/// last write time included; `SetFileTime` cannot set it (only
/// `SetFileInformationByHandle(FileBasicInfo)` can, which writers do not use). A change time of
/// 0 (a file system that keeps none) gives the last write time instead.
pub struct HandleIdentity {
    pub volume: u64,
    pub file_index: u64,
    pub write_ns: i128,
    pub change_ns: i128,
}

/// The [`HandleIdentity`] of the file open as `handle` (any access, attributes-only included).
pub fn handle_identity(handle: BorrowedFd<'_>) -> io::Result<HandleIdentity> {
    let mut basic = winfs::FILE_BASIC_INFO::default();
    let mut info = winfs::BY_HANDLE_FILE_INFORMATION::default();
    // SAFETY: `handle` is a valid open handle for the call's duration; `basic` is the structure
    // FileBasicInfo fills, with its size, and `info` the one GetFileInformationByHandle fills.
    let done = unsafe {
        winfs::GetFileInformationByHandleEx(
            handle.as_raw_handle(),
            winfs::FileBasicInfo,
            (&mut basic as *mut winfs::FILE_BASIC_INFO).cast(),
            std::mem::size_of::<winfs::FILE_BASIC_INFO>() as u32,
        ) != 0
            && winfs::GetFileInformationByHandle(handle.as_raw_handle(), &mut info) != 0
    };
    if !done {
        return Err(io::Error::last_os_error());
    }
    let ns = |ticks: i64| {
        let (secs, nanos) = filetime_to_unix(ticks as u64);
        i128::from(secs) * 1_000_000_000 + i128::from(nanos)
    };
    let change = if basic.ChangeTime == 0 {
        basic.LastWriteTime
    } else {
        basic.ChangeTime
    };
    Ok(HandleIdentity {
        volume: u64::from(info.dwVolumeSerialNumber),
        file_index: u64::from(info.nFileIndexHigh) << 32 | u64::from(info.nFileIndexLow),
        write_ns: ns(basic.LastWriteTime),
        change_ns: ns(change),
    })
}

/// `lstat` of `path` (`stat` when `follow`) through a handle opened for its attributes only
/// (full sharing, so a file another program holds without sharing still answers), with the
/// file's [`HandleIdentity`].
pub fn stat_with_identity(path: &Path, follow: bool) -> io::Result<(Metadata, HandleIdentity)> {
    let mut flags = winfs::FILE_FLAG_BACKUP_SEMANTICS;
    if !follow {
        flags |= winfs::FILE_FLAG_OPEN_REPARSE_POINT;
    }
    let file = OpenOptions::new()
        .access_mode(winfs::FILE_READ_ATTRIBUTES)
        .share_mode(winfs::FILE_SHARE_READ | winfs::FILE_SHARE_WRITE | winfs::FILE_SHARE_DELETE)
        .custom_flags(flags)
        .open(path)?;
    let meta = file.metadata()?;
    Ok((meta, handle_identity(file.as_handle())?))
}

/// The path Windows holds for an open handle (`GetFinalPathNameByHandleW`, normalized, with its
/// drive letter), without the `\\?\` prefix (`\\?\UNC\` becomes `\\`). Short (8.3) names are
/// expanded and the casing is the one on disk.
pub fn final_path(handle: BorrowedFd<'_>) -> io::Result<PathBuf> {
    let mut buf: Vec<u16> = vec![0; 512];
    loop {
        // SAFETY: `handle` is a valid open handle for the call's duration and `buf` holds
        // `buf.len()` writable UTF-16 units.
        let len = unsafe {
            winfs::GetFinalPathNameByHandleW(
                handle.as_raw_handle(),
                buf.as_mut_ptr(),
                buf.len() as u32,
                winfs::FILE_NAME_NORMALIZED | winfs::VOLUME_NAME_DOS,
            )
        } as usize;
        if len == 0 {
            return Err(io::Error::last_os_error());
        }
        if len < buf.len() {
            let path = OsString::from_wide(&buf[..len]);
            let text = path.to_string_lossy();
            let stripped = crate::windows_path::strip_verbatim(&text);
            if stripped.len() != text.len() {
                return Ok(PathBuf::from(stripped.into_owned()));
            }
            return Ok(PathBuf::from(path));
        }
        // too small: `len` is the size needed, with the terminating NUL
        buf.resize(len + 1, 0);
    }
}

/// [`super::with_flags`] on Windows.
pub(super) fn custom_flags(options: &mut OpenOptions, flags: fs::OFlags) -> &mut OpenOptions {
    // Always BACKUP_SEMANTICS: a directory then opens (as on Unix) and the caller's type check
    // reports it, instead of the open failing with "access denied".
    let mut custom = winfs::FILE_FLAG_BACKUP_SEMANTICS;
    if flags.contains(fs::OFlags::NOFOLLOW) {
        custom |= winfs::FILE_FLAG_OPEN_REPARSE_POINT;
    }
    options.custom_flags(custom)
}

/// `open(2)` flags, as far as they mean something here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OFlagsBits(u32);

pub mod fs {
    //! `rustix::fs`'s names, on Windows.
    use super::*;

    pub type OFlags = OFlagsBits;

    impl OFlagsBits {
        pub const RDONLY: OFlags = OFlagsBits(0);
        pub const WRONLY: OFlags = OFlagsBits(1);
        pub const RDWR: OFlags = OFlagsBits(2);
        pub const CREATE: OFlags = OFlagsBits(4);
        pub const EXCL: OFlags = OFlagsBits(8);
        pub const TRUNC: OFlags = OFlagsBits(16);
        pub const DIRECTORY: OFlags = OFlagsBits(32);
        pub const NOFOLLOW: OFlags = OFlagsBits(64);
        /// Handles are not inherited unless asked: nothing to do.
        pub const CLOEXEC: OFlags = OFlagsBits(0);
        /// Windows has no FIFOs for an open to block on: nothing to do.
        pub const NONBLOCK: OFlags = OFlagsBits(0);

        pub const fn empty() -> OFlags {
            OFlagsBits(0)
        }

        pub const fn bits(self) -> u32 {
            self.0
        }

        pub const fn contains(self, other: OFlags) -> bool {
            self.0 & other.0 == other.0
        }
    }

    impl BitOr for OFlagsBits {
        type Output = OFlagsBits;
        fn bitor(self, other: OFlagsBits) -> OFlagsBits {
            OFlagsBits(self.0 | other.0)
        }
    }

    impl BitOrAssign for OFlagsBits {
        fn bitor_assign(&mut self, other: OFlagsBits) {
            self.0 |= other.0;
        }
    }

    pub type RawMode = u32;

    /// Permission bits; only "no write bit at all" means something (the read-only attribute).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Mode(RawMode);

    impl Mode {
        pub const fn empty() -> Mode {
            Mode(0)
        }
        pub const fn from_raw_mode(mode: RawMode) -> Mode {
            Mode(mode)
        }
        pub const fn as_raw_mode(self) -> RawMode {
            self.0
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct AtFlags(u32);

    impl AtFlags {
        pub const SYMLINK_NOFOLLOW: AtFlags = AtFlags(1);
        pub const REMOVEDIR: AtFlags = AtFlags(2);
        pub const SYMLINK_FOLLOW: AtFlags = AtFlags(4);
        pub const fn empty() -> AtFlags {
            AtFlags(0)
        }
        pub const fn contains(self, other: AtFlags) -> bool {
            self.0 & other.0 == other.0
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum FileType {
        RegularFile,
        Directory,
        Symlink,
        Fifo,
        Socket,
        CharacterDevice,
        BlockDevice,
        Unknown,
    }

    impl FileType {
        pub const fn from_raw_mode(mode: RawMode) -> FileType {
            match mode & S_IFMT {
                S_IFREG => FileType::RegularFile,
                S_IFDIR => FileType::Directory,
                S_IFLNK => FileType::Symlink,
                _ => FileType::Unknown,
            }
        }

        pub const fn as_raw_mode(self) -> RawMode {
            match self {
                FileType::RegularFile => S_IFREG,
                FileType::Directory => S_IFDIR,
                FileType::Symlink => S_IFLNK,
                _ => 0,
            }
        }

        fn of(meta: &Metadata) -> FileType {
            FileType::from_raw_mode(type_bits(meta))
        }
    }

    /// What `stat` gives, as far as the tools read it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Stat {
        pub st_mode: RawMode,
        pub st_size: i64,
        pub st_mtime: i64,
        pub st_mtime_nsec: i64,
    }

    impl Stat {
        fn of(meta: &Metadata) -> Stat {
            let (st_mtime, st_mtime_nsec) = filetime_to_unix(meta.last_write_time());
            Stat {
                st_mode: crate::sys::raw_mode(meta),
                st_size: meta.file_size() as i64,
                st_mtime,
                st_mtime_nsec,
            }
        }
    }

    /// `open(2)`: see the module's documentation for what `O_NOFOLLOW` and `O_DIRECTORY` do here.
    pub fn open<P: AsRef<Path>>(path: P, flags: OFlags, _mode: Mode) -> Result<OwnedFd> {
        let path = path.as_ref();
        let mut options = OpenOptions::new();
        match flags.0 & 3 {
            1 => options.write(true),
            2 => options.read(true).write(true),
            _ => options.read(true),
        };
        if flags.contains(OFlags::CREATE) {
            if flags.contains(OFlags::EXCL) {
                options.create_new(true);
            } else {
                options.create(true);
            }
        }
        if flags.contains(OFlags::TRUNC) {
            options.truncate(true);
        }
        // BACKUP_SEMANTICS: directories can be opened; OPEN_REPARSE_POINT: the link itself
        options
            .custom_flags(winfs::FILE_FLAG_BACKUP_SEMANTICS | winfs::FILE_FLAG_OPEN_REPARSE_POINT);
        let file = options.open(path).map_err(Errno::of)?;
        let meta = file.metadata().map_err(Errno::of)?;
        let file = if is_reparse_point(&meta) {
            if flags.contains(OFlags::NOFOLLOW) {
                return Err(Errno::LOOP);
            }
            // follow it: open again without OPEN_REPARSE_POINT
            drop(file);
            options.custom_flags(winfs::FILE_FLAG_BACKUP_SEMANTICS);
            let file = options.open(path).map_err(Errno::of)?;
            let meta = file.metadata().map_err(Errno::of)?;
            check_kind(flags, &meta)?;
            file
        } else {
            check_kind(flags, &meta)?;
            file
        };
        Ok(file.into())
    }

    fn check_kind(flags: OFlags, meta: &Metadata) -> Result<()> {
        if flags.contains(OFlags::DIRECTORY) && !meta.is_dir() {
            return Err(Errno::NOTDIR);
        }
        if flags.0 & 3 != 0 && meta.is_dir() {
            return Err(Errno::ISDIR);
        }
        Ok(())
    }

    /// The path of `name` below the directory `dir`.
    fn below<Fd: AsFd, P: AsRef<Path>>(dir: Fd, name: P) -> Result<PathBuf> {
        let base = final_path(dir.as_fd()).map_err(Errno::of)?;
        Ok(base.join(name.as_ref()))
    }

    pub fn openat<Fd: AsFd, P: AsRef<Path>>(
        dir: Fd,
        name: P,
        flags: OFlags,
        mode: Mode,
    ) -> Result<OwnedFd> {
        let mut expected = final_path(dir.as_fd()).map_err(Errno::of)?;
        for part in name.as_ref().components() {
            if part != std::path::Component::CurDir {
                expected.push(part);
            }
        }
        let opened = open(&expected, flags, mode)?;
        if flags.contains(OFlags::DIRECTORY) && flags.contains(OFlags::NOFOLLOW) {
            // really `name` in `dir`? (directories have one name; see the module's docs)
            let actual = final_path(opened.as_fd()).map_err(Errno::of)?;
            let same = |a: &Path, b: &Path| {
                crate::windows_path::is_within(&a.to_string_lossy(), &b.to_string_lossy())
                    && crate::windows_path::is_within(&b.to_string_lossy(), &a.to_string_lossy())
            };
            if !same(&actual, &expected) {
                return Err(Errno::XDEV);
            }
        }
        Ok(opened)
    }

    pub fn fstat<Fd: AsFd>(fd: Fd) -> Result<Stat> {
        let file = File::from(fd.as_fd().try_clone_to_owned().map_err(Errno::of)?);
        Ok(Stat::of(&file.metadata().map_err(Errno::of)?))
    }

    pub fn statat<Fd: AsFd, P: AsRef<Path>>(dir: Fd, name: P, flags: AtFlags) -> Result<Stat> {
        let path = below(dir, name)?;
        let meta = if flags.contains(AtFlags::SYMLINK_NOFOLLOW) {
            std::fs::symlink_metadata(path)
        } else {
            std::fs::metadata(path)
        };
        Ok(Stat::of(&meta.map_err(Errno::of)?))
    }

    pub fn mkdirat<Fd: AsFd, P: AsRef<Path>>(dir: Fd, name: P, _mode: Mode) -> Result<()> {
        std::fs::create_dir(below(dir, name)?).map_err(Errno::of)
    }

    pub fn unlinkat<Fd: AsFd, P: AsRef<Path>>(dir: Fd, name: P, flags: AtFlags) -> Result<()> {
        let path = below(dir, name)?;
        if flags.contains(AtFlags::REMOVEDIR) {
            std::fs::remove_dir(path)
        } else {
            std::fs::remove_file(path)
        }
        .map_err(Errno::of)
    }

    /// `renameat(2)`: `std::fs::rename`, which replaces an existing target atomically (POSIX
    /// semantics on Windows 10 1709 and later, `MoveFileExW` before).
    pub fn renameat<Fd: AsFd, Fd2: AsFd, P: AsRef<Path>, Q: AsRef<Path>>(
        old_dir: Fd,
        old: P,
        new_dir: Fd2,
        new: Q,
    ) -> Result<()> {
        std::fs::rename(below(old_dir, old)?, below(new_dir, new)?).map_err(Errno::of)
    }

    /// A new file `name` in `dir` (`O_CREAT | O_EXCL`) for writing, marked for deletion on its
    /// last close: if the process dies before [`keep`] clears the mark, Windows removes the file
    /// (the stand-in for Linux's unnamed `O_TMPFILE`).
    pub fn create_temporary<Fd: AsFd, P: AsRef<Path>>(dir: Fd, name: P) -> Result<OwnedFd> {
        open_delete_pending(OpenOptions::new().create_new(true), below(dir, name)?)
    }

    /// `name` in `dir` for writing, created or truncated, held without sharing (no one else can
    /// open it while the handle lives: a writer holding it makes this fail with a sharing
    /// violation) and marked for deletion on its last close as by [`create_temporary`]. A
    /// directory or reparse point of that name is refused (`EXIST`), never written through.
    pub fn open_temporary_exclusive<Fd: AsFd, P: AsRef<Path>>(dir: Fd, name: P) -> Result<OwnedFd> {
        open_delete_pending(
            OpenOptions::new().create(true).truncate(true).share_mode(0),
            below(dir, name)?,
        )
    }

    /// Opens `path` for writing with `options` and delete access (for the deletion mark), the
    /// name itself if it is a reparse point, and marks the file for deletion on its last close;
    /// a directory or reparse point is refused (`EXIST`).
    fn open_delete_pending(options: &mut OpenOptions, path: PathBuf) -> Result<OwnedFd> {
        let file = options
            .write(true)
            .access_mode(winfs::FILE_GENERIC_WRITE | winfs::DELETE)
            .custom_flags(winfs::FILE_FLAG_OPEN_REPARSE_POINT)
            .open(path)
            .map_err(Errno::of)?;
        let meta = file.metadata().map_err(Errno::of)?;
        if meta.is_dir() || is_reparse_point(&meta) {
            return Err(Errno::EXIST);
        }
        set_delete_pending(&file, true)?;
        Ok(file.into())
    }

    /// Clears the deletion mark [`create_temporary`] set, so the file outlives its handle.
    pub fn keep<Fd: AsFd>(fd: Fd) -> Result<()> {
        set_delete_pending(&fd.as_fd(), false)
    }

    /// Marks the file for deletion on its last close again (a write that failed after [`keep`]).
    pub fn discard<Fd: AsFd>(fd: Fd) -> Result<()> {
        set_delete_pending(&fd.as_fd(), true)
    }

    /// Renames the file open as `fd` (with delete access, as [`create_temporary`] opens it) to
    /// `name` in `dir`, replacing a file there: the rename of the handle itself, so that nothing
    /// happens to the file between its last write and its new name. With POSIX semantics
    /// (`FileRenameInfoEx`, Windows 10 1709 and later on NTFS), as `std::fs::rename` does, so a
    /// target that another program holds open with delete sharing is replaced as on Unix (its
    /// handles keep reading the old content); where they are not supported
    /// (`ERROR_INVALID_PARAMETER` or `ERROR_NOT_SUPPORTED`: older systems, other file systems,
    /// wine 8) the classic rename (`FileRenameInfo`), which refuses a target that is open.
    pub fn rename_open<Fd: AsFd, D: AsFd, P: AsRef<Path>>(fd: Fd, dir: D, name: P) -> Result<()> {
        use std::os::windows::ffi::OsStrExt;
        const FILE_RENAME_FLAG_REPLACE_IF_EXISTS: u32 = 0x1;
        const FILE_RENAME_FLAG_POSIX_SEMANTICS: u32 = 0x2;
        let target: Vec<u16> = below(dir, name)?.as_os_str().encode_wide().collect();
        let header = std::mem::offset_of!(winfs::FILE_RENAME_INFO, FileName);
        let size = header + (target.len() + 1) * std::mem::size_of::<u16>();
        // u64s: the alignment FILE_RENAME_INFO needs
        let mut buffer = vec![0u64; size.div_ceil(8)];
        let info = buffer.as_mut_ptr().cast::<winfs::FILE_RENAME_INFO>();
        // SAFETY: `buffer` holds the header and the name with its terminating NUL (zeroed)
        unsafe {
            (*info).RootDirectory = std::ptr::null_mut();
            (*info).FileNameLength = (target.len() * std::mem::size_of::<u16>()) as u32;
            std::ptr::copy_nonoverlapping(
                target.as_ptr(),
                std::ptr::addr_of_mut!((*info).FileName).cast::<u16>(),
                target.len(),
            );
        }
        let rename = |posix: bool| {
            // SAFETY: `info` points into `buffer`, alive and filled above; the union's first
            // four bytes are the flags of FileRenameInfoEx or the ReplaceIfExists of
            // FileRenameInfo (the rest zeroed), and `fd` is a live handle
            let done = unsafe {
                (*info).Anonymous.Flags = 0;
                if posix {
                    (*info).Anonymous.Flags =
                        FILE_RENAME_FLAG_REPLACE_IF_EXISTS | FILE_RENAME_FLAG_POSIX_SEMANTICS;
                } else {
                    (*info).Anonymous.ReplaceIfExists = true;
                }
                winfs::SetFileInformationByHandle(
                    fd.as_fd().as_raw_handle(),
                    if posix {
                        winfs::FileRenameInfoEx
                    } else {
                        winfs::FileRenameInfo
                    },
                    info.cast(),
                    size as u32,
                )
            };
            if done == 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        };
        match rename(true) {
            Err(e)
                if [win::ERROR_INVALID_PARAMETER, win::ERROR_NOT_SUPPORTED]
                    .contains(&(e.raw_os_error().unwrap_or(0) as u32)) =>
            {
                rename(false).map_err(Errno::of)
            }
            done => done.map_err(Errno::of),
        }
    }

    fn set_delete_pending(handle: &impl AsRawHandle, delete: bool) -> Result<()> {
        let info = winfs::FILE_DISPOSITION_INFO { DeleteFile: delete };
        // SAFETY: a live handle, a FILE_DISPOSITION_INFO of the size passed
        let done = unsafe {
            winfs::SetFileInformationByHandle(
                handle.as_raw_handle(),
                winfs::FileDispositionInfo,
                (&info as *const winfs::FILE_DISPOSITION_INFO).cast(),
                std::mem::size_of::<winfs::FILE_DISPOSITION_INFO>() as u32,
            )
        };
        if done == 0 {
            return Err(Errno::of(io::Error::last_os_error()));
        }
        Ok(())
    }

    /// `fchmod(2)`: only the read-only attribute (set when `mode` has no write bit).
    pub fn fchmod<Fd: AsFd>(fd: Fd, mode: Mode) -> Result<()> {
        let file = File::from(fd.as_fd().try_clone_to_owned().map_err(Errno::of)?);
        let mut permissions = file.metadata().map_err(Errno::of)?.permissions();
        permissions.set_readonly(mode.0 & 0o222 == 0);
        file.set_permissions(permissions).map_err(Errno::of)
    }

    /// A directory listing, read by the final path of the directory's handle (see the module's
    /// docs for what that leaves open): the names as UTF-8 (lossy for the rare name that is not Unicode) and their types, a
    /// reparse point of any kind being a symlink.
    pub struct Dir {
        fd: OwnedFd,
        entries: std::vec::IntoIter<DirEntry>,
    }

    pub struct DirEntry {
        name: Vec<u8>,
        file_type: FileType,
    }

    impl DirEntry {
        /// The name's bytes (UTF-8).
        pub fn file_name(&self) -> &[u8] {
            &self.name
        }

        pub fn file_type(&self) -> FileType {
            self.file_type
        }
    }

    impl Dir {
        pub fn new(fd: OwnedFd) -> Result<Dir> {
            let path = final_path(fd.as_fd()).map_err(Errno::of)?;
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&path).map_err(Errno::of)? {
                let entry = entry.map_err(Errno::of)?;
                // FindNextFileW's data: no further call per entry
                let file_type = match entry.metadata() {
                    Ok(meta) => FileType::of(&meta),
                    Err(_) => FileType::Unknown,
                };
                entries.push(DirEntry {
                    name: entry
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                        .into_bytes(),
                    file_type,
                });
            }
            Ok(Dir {
                fd,
                entries: entries.into_iter(),
            })
        }

        #[allow(clippy::should_implement_trait)]
        pub fn read(&mut self) -> Option<Result<DirEntry>> {
            self.entries.next().map(Ok)
        }

        pub fn fd(&self) -> Result<BorrowedFd<'_>> {
            Ok(self.fd.as_fd())
        }
    }
}
