//! The workspace sandbox: upstream's lexical rule (docs/compat.md, "The lexical path rule") plus symlink resolution
//! (docs/compat.md, "The sandbox follows symlinks"): the real location of a path, following every symlink that exists, even a dangling
//! one, must lie inside the real workspace root.

use crate::sys::{AsFd, BorrowedFd, OwnedFd};
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::paths;

/// A denied path. The message is upstream's, quoting the `\`→`/` normalised input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SandboxViolation {
    pub message: String,
}

impl SandboxViolation {
    fn outside(normalised: &str) -> Self {
        SandboxViolation {
            message: crate::error::outside_workspace_message(normalised),
        }
    }
}

/// Maximum number of symlinks followed while resolving one path (Linux's MAXSYMLINKS).
const MAX_SYMLINK_HOPS: usize = 40;

/// Linux's PATH_MAX: the longest path (with its NUL) a system call accepts.
const PATH_MAX: usize = 4096;

/// Resolves `target` (a user path, `\` already allowed) inside `root` and returns the absolute,
/// lexically normalised path that tools receive. Denies paths that leave the root lexically or
/// through symlinks.
pub fn resolve_in_workspace(target: &str, root: &str) -> Result<String, SandboxViolation> {
    let real_root = real_path(Path::new(&paths::absolute(root)));
    resolve_in_root(target, root, real_root.as_deref().ok())
}

/// [`resolve_in_workspace`] with the root's real location already known (`None`: it cannot be
/// resolved, so only the lexical rule applies and the tool reports the root's problem).
pub fn resolve_in_root(
    target: &str,
    root: &str,
    real_root: Option<&Path>,
) -> Result<String, SandboxViolation> {
    // Windows: a verbatim path (`\\?\C:\ws`, from Rust's `fs::canonicalize`) is taken without
    // its prefix, as `paths::win32::resolve` takes it (after `\` → `/` it would read as a share).
    #[cfg(windows)]
    let target = crate::windows_path::strip_verbatim(target);
    let normalised = target.replace('\\', "/");
    if normalised.contains('\0') {
        // The OS cannot represent it; let the tool report its own error on the lexical path.
        return lexical(&normalised, root);
    }
    let (abs, rel) = lexical_with_rel(&normalised, root)?;
    // Windows: names Win32 rewrites or sends elsewhere (streams, devices, trailing dots) are
    // refused before any OS call sees them (src/windows_path.rs).
    #[cfg(windows)]
    if crate::windows_path::check_requested(&rel).is_err() {
        return Err(SandboxViolation::outside(&normalised));
    }
    let Some(real_root) = real_root else {
        return Ok(abs);
    };
    // The root's part of the path is already resolved: continue below its real location.
    match resolve_below(real_root.to_path_buf(), Path::new(&rel)).map(normalize_final) {
        Ok(t) if is_within(real_root, &t) => Ok(abs),
        _ => Err(SandboxViolation::outside(&normalised)),
    }
}

/// Upstream's purely lexical check.
fn lexical(normalised: &str, root: &str) -> Result<String, SandboxViolation> {
    lexical_with_rel(normalised, root).map(|(abs, _)| abs)
}

/// The lexical check, with the path relative to the root.
fn lexical_with_rel(normalised: &str, root: &str) -> Result<(String, String), SandboxViolation> {
    let abs_root = paths::absolute(root);
    let abs = paths::resolve(&abs_root, normalised);
    let rel = paths::relative(&abs_root, &abs);
    if rel.starts_with("..") || rel.starts_with('/') || outside_root_lexically(&rel) {
        return Err(SandboxViolation::outside(normalised));
    }
    Ok((abs, rel))
}

/// A relative result of `path.relative` that is not below the root: on Windows another drive or
/// share (`D:\x`, `\\s\x`) comes back absolute.
fn outside_root_lexically(rel: &str) -> bool {
    #[cfg(windows)]
    {
        rel.starts_with('\\') || rel.as_bytes().get(1) == Some(&b':')
    }
    #[cfg(not(windows))]
    {
        let _ = rel;
        false
    }
}

/// Whether `path` (a real location) is `root` or below it: component-wise, and on Windows as
/// Windows compares names (case-insensitively, `src/windows_path.rs`).
pub(crate) fn is_within(root: &Path, path: &Path) -> bool {
    #[cfg(windows)]
    {
        crate::windows_path::is_within(&root.to_string_lossy(), &path.to_string_lossy())
    }
    #[cfg(not(windows))]
    {
        path.starts_with(root)
    }
}

/// The physical location of `path`: every existing symlink on the way is followed (also a
/// dangling final one); components below the first missing one are appended as they are.
/// On Windows every reparse point counts as a symlink, and the existing part of the result is
/// the final path Windows holds for it (short 8.3 names expanded, the casing on disk).
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    resolve_below(root_of(path), path).map(normalize_final)
}

/// Where an absolute path starts: `/`; on Windows the drive's or share's root (`C:\`,
/// `\\server\share\`), a `\\?\` prefix taken off first.
pub(crate) fn root_of(path: &Path) -> PathBuf {
    #[cfg(windows)]
    {
        let text = path.to_string_lossy();
        let plain = crate::windows_path::strip_verbatim(&text);
        Path::new(plain.as_ref())
            .components()
            .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
            .collect()
    }
    #[cfg(not(windows))]
    {
        let _ = path;
        PathBuf::from("/")
    }
}

/// The resolved `path` as Windows names it: its longest existing part replaced by its final path
/// (`GetFinalPathNameByHandleW`, through `fs::canonicalize`), the rest appended. Elsewhere the
/// path as it is.
fn normalize_final(path: PathBuf) -> PathBuf {
    #[cfg(windows)]
    {
        let mut existing = path.as_path();
        let mut rest = Vec::new();
        loop {
            if let Ok(real) = fs::canonicalize(existing) {
                let text = real.to_string_lossy();
                let mut out = PathBuf::from(crate::windows_path::strip_verbatim(&text).as_ref());
                out.extend(rest.iter().rev());
                return out;
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    existing = parent;
                }
                _ => return path,
            }
        }
    }
    #[cfg(not(windows))]
    path
}

/// Whether `meta` (not followed) is a link the resolution follows: a symlink; on Windows any
/// reparse point (a junction, a mount point, or a kind `read_link` cannot read, which then fails
/// the resolution and so denies the path).
fn is_link(meta: &fs::Metadata) -> bool {
    #[cfg(windows)]
    {
        use std::os::windows::fs::MetadataExt;
        meta.file_type().is_symlink()
            || meta.file_attributes()
                & windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_REPARSE_POINT
                != 0
    }
    #[cfg(not(windows))]
    {
        meta.file_type().is_symlink()
    }
}

/// [`real_path`] of `rest` taken relative to `start`, an existing directory already free of
/// symlinks.
fn resolve_below(start: PathBuf, rest: &Path) -> io::Result<PathBuf> {
    let mut resolved = start;
    let mut pending: Vec<std::ffi::OsString> = components_reversed(rest);
    let mut hops = 0;
    let mut exists = true;
    while let Some(part) = pending.pop() {
        match part.to_str() {
            Some(".") => continue,
            Some("..") => {
                resolved.pop();
                continue;
            }
            _ => {}
        }
        let next = resolved.join(&part);
        if !exists {
            resolved = next;
            continue;
        }
        match fs::symlink_metadata(&next) {
            Ok(meta) if is_link(&meta) => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(io::Error::from_raw_os_error(
                        crate::sys::Errno::LOOP.raw_os_error(),
                    ));
                }
                let link = fs::read_link(&next)?;
                if link.is_absolute() {
                    resolved = root_of(&link);
                }
                pending.extend(components_reversed(&link));
            }
            Ok(_) => resolved = next,
            Err(e) if e.kind() == io::ErrorKind::NotFound || is_not_a_directory(&e) => {
                exists = false;
                resolved = next;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(resolved)
}

fn components_reversed(path: &Path) -> Vec<std::ffi::OsString> {
    let mut parts: Vec<std::ffi::OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_os_string()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    parts.reverse();
    parts
}

fn is_not_a_directory(e: &io::Error) -> bool {
    e.raw_os_error() == Some(crate::sys::Errno::NOTDIR.raw_os_error())
}

/// Where a sandboxed call may touch the filesystem: the real workspace root. Tools that receive
/// one re-check the objects they actually opened, which closes the window between the path check
/// and the use (a directory swapped for a symlink in between).
#[derive(Debug, Clone)]
pub struct Confinement {
    real_root: PathBuf,
}

impl Confinement {
    pub fn new(workspace_root: &str) -> io::Result<Confinement> {
        Ok(Confinement::at(real_path(Path::new(&paths::absolute(
            workspace_root,
        )))?))
    }

    /// A confinement to an already resolved real root.
    pub fn at(real_root: PathBuf) -> Confinement {
        Confinement { real_root }
    }

    /// True when the real path of an open file descriptor lies inside the root.
    pub fn contains_fd<Fd: AsFd>(&self, fd: Fd) -> bool {
        match fd_path(fd) {
            Some(path) => is_within(&self.real_root, &path),
            None => false,
        }
    }

    /// `Ok` when `fd` (what a tool opened for `path`) lies inside the root; else the tool's
    /// error `INTERNAL: [Sandbox Violation] ...` for `path` (`reason: Sandbox`).
    pub fn confine<Fd: AsFd>(
        &self,
        fd: Fd,
        path: &str,
        class: crate::error::ErrorClass,
    ) -> Result<(), crate::error::ToolError> {
        if self.contains_fd(fd) {
            Ok(())
        } else {
            Err(class.outside_workspace(path))
        }
    }

    /// `fs::create_dir_all(path)` (symlinks on the way followed, as it does) that never creates
    /// a directory outside the root: each missing directory is made with `mkdirat` in an open
    /// descriptor of its parent whose real location was checked first, so a directory swapped
    /// for a symlink after the path check cannot lead the creation outside. Creating the root
    /// itself and its missing ancestors stays possible (a workspace that does not exist yet).
    /// An existing non-directory component fails like `create_dir_all`: `EEXIST` for the last
    /// component, `ENOTDIR` before it. A creation that would land outside fails with `EXDEV`
    /// (what `openat2`'s `RESOLVE_BENEATH` reports for an escape).
    pub fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.create_dir_all_recording(path, &mut Vec::new())
    }

    /// [`Confinement::create_dir_all`] that appends each directory it creates to `recorded`, in
    /// creation order, as its parent's open descriptor and its name: what a caller needs to
    /// remove exactly those directories again (`unlinkat(parent, name, AT_REMOVEDIR)`), even when
    /// a failure stops the creation halfway.
    pub fn create_dir_all_recording(
        &self,
        path: &Path,
        recorded: &mut Vec<(OwnedFd, std::ffi::OsString)>,
    ) -> io::Result<()> {
        use crate::sys::fs::{mkdirat, openat, Mode, OFlags};
        use crate::sys::Errno;
        if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Ok(());
        }
        // `mkdir` on the whole path fails for a path this long before anything is created, and
        // so does `create_dir_all`; relative to descriptors it would go on past PATH_MAX.
        if path.as_os_str().len() >= PATH_MAX {
            return Err(Errno::NAMETOOLONG.into());
        }
        let flags = OFlags::DIRECTORY | OFlags::CLOEXEC;
        #[cfg(linux_native)]
        let flags = flags | OFlags::PATH;
        #[cfg(portable)]
        let flags = flags | OFlags::RDONLY;
        let names: Vec<&std::ffi::OsStr> = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name),
                Component::ParentDir => Some("..".as_ref()),
                _ => None,
            })
            .collect();
        let mut dir = crate::sys::fs::open(root_of(path), flags, Mode::empty())?;
        for (i, name) in names.iter().enumerate() {
            let last = i + 1 == names.len();
            dir = match openat(&dir, *name, flags, Mode::empty()) {
                Ok(next) => next,
                Err(Errno::NOTDIR) if last => return Err(Errno::EXIST.into()),
                Err(Errno::NOENT) => {
                    let here = fd_path(&dir).ok_or_else(|| io::Error::from(Errno::NOENT))?;
                    let created = here.join(name);
                    if !is_within(&self.real_root, &created)
                        && !is_within(&created, &self.real_root)
                    {
                        return Err(Errno::XDEV.into());
                    }
                    match mkdirat(&dir, *name, Mode::from_raw_mode(0o777)) {
                        Ok(()) => recorded.push((dir.try_clone()?, name.to_os_string())),
                        Err(Errno::EXIST) => {}
                        Err(e) => return Err(e.into()),
                    }
                    openat(&dir, *name, flags, Mode::empty()).map_err(|e| match e {
                        // a dangling symlink or a non-directory where the directory belongs
                        Errno::NOENT | Errno::NOTDIR => io::Error::from(Errno::EXIST),
                        e => e.into(),
                    })?
                }
                Err(e) => return Err(e.into()),
            };
        }
        Ok(())
    }
}

/// Walking by descriptor: a directory is opened relative to the descriptor of its parent, never
/// following a symlink in its place, so a directory swapped for a symlink after its parent was
/// checked (or listed) cannot lead a walk outside. tree, find_files and the search cache list
/// directories this way.
///
/// `open_dir_at(Some(parent), name)` opens the directory `name` in `parent`; `None` opens `name`
/// as a path, without following a final symlink.
pub(crate) fn open_dir_at(parent: Option<BorrowedFd>, name: &OsStr) -> crate::sys::Result<OwnedFd> {
    use crate::sys::fs::{Mode, OFlags};
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match parent {
        Some(fd) => crate::sys::fs::openat(fd, name, flags, Mode::empty()),
        None => crate::sys::fs::open(name, flags, Mode::empty()),
    }
}

/// The entries of a directory stream (without `.` and `..`) whose raw names `keep` accepts, with
/// their types; a type the listing does not give (rare) comes from an `lstat` relative to the
/// stream's own descriptor.
pub(crate) fn read_entries(
    stream: &mut crate::sys::fs::Dir,
    mut keep: impl FnMut(&[u8]) -> bool,
) -> crate::sys::Result<Vec<(Vec<u8>, crate::sys::fs::FileType)>> {
    use crate::sys::fs::{AtFlags, FileType};
    // The listing borrows the stream, so the stats wait until it is done.
    let mut listed = Vec::new();
    while let Some(entry) = stream.read() {
        let entry = entry?;
        #[cfg(unix)]
        let raw = entry.file_name().to_bytes();
        #[cfg(windows)]
        let raw = entry.file_name();
        if raw == b"." || raw == b".." || !keep(raw) {
            continue;
        }
        listed.push((raw.to_vec(), entry.file_type()));
    }
    let dir = stream.fd()?;
    for (name, file_type) in listed.iter_mut() {
        if *file_type == FileType::Unknown {
            let st = crate::sys::fs::statat(
                dir,
                crate::sys::name_from_bytes(name),
                AtFlags::SYMLINK_NOFOLLOW,
            )?;
            *file_type = FileType::from_raw_mode(st.st_mode);
        }
    }
    Ok(listed)
}

/// `lstat` of `rel` (a relative path) beneath the directory `root`, each directory on the way
/// opened with [`open_dir_at`]: what `rel` names inside the tree `root` holds right now, whatever
/// the path `root` was opened by names meanwhile.
pub(crate) fn lstat_beneath(
    root: BorrowedFd,
    rel: &Path,
) -> crate::sys::Result<crate::sys::fs::Stat> {
    use crate::sys::fs::AtFlags;
    let names: Vec<&OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let Some((last, parents)) = names.split_last() else {
        return crate::sys::fs::fstat(root);
    };
    let mut dir: Option<OwnedFd> = None;
    for name in parents {
        let parent = dir.as_ref().map_or(root, |d| d.as_fd());
        dir = Some(open_dir_at(Some(parent), name)?);
    }
    let parent = dir.as_ref().map_or(root, |d| d.as_fd());
    crate::sys::fs::statat(parent, *last, AtFlags::SYMLINK_NOFOLLOW)
}

/// Opens `rel` (a relative path without `..`) beneath the directory `root` with `flags`, each
/// directory on the way opened with [`open_dir_at`] and the last name with `O_NOFOLLOW`: what
/// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` does in one call, for systems without
/// it (the portable build's searches). `Ok(None)`: a symlink on the way or at the end.
#[cfg_attr(linux_native, allow(dead_code))]
pub(crate) fn open_beneath(
    root: BorrowedFd,
    rel: &Path,
    flags: crate::sys::fs::OFlags,
) -> crate::sys::Result<Option<OwnedFd>> {
    use crate::sys::fs::{AtFlags, FileType, Mode, OFlags};
    use crate::sys::Errno;
    let mut names = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            _ => return Err(Errno::INVAL),
        }
    }
    let Some((last, parents)) = names.split_last() else {
        return crate::sys::fs::openat(root, ".", flags, Mode::empty()).map(Some);
    };
    let is_symlink = |dir: BorrowedFd, name: &OsStr| {
        crate::sys::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink)
    };
    let mut dir: Option<OwnedFd> = None;
    for name in parents {
        let parent = dir.as_ref().map_or(root, |d| d.as_fd());
        dir = Some(match open_dir_at(Some(parent), name) {
            Ok(next) => next,
            // O_DIRECTORY | O_NOFOLLOW on a symlink: ELOOP or ENOTDIR, depending on the system
            Err(Errno::LOOP) => return Ok(None),
            Err(Errno::NOTDIR) if is_symlink(parent, name) => return Ok(None),
            Err(e) => return Err(e),
        });
    }
    let parent = dir.as_ref().map_or(root, |d| d.as_fd());
    match crate::sys::fs::openat(parent, *last, flags | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => Ok(Some(fd)),
        Err(Errno::LOOP) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The path the kernel holds for an open descriptor.
#[cfg(linux_native)]
pub(crate) fn fd_path<Fd: std::os::fd::AsFd>(fd: Fd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd())).ok()
}

/// The path the kernel holds for an open descriptor (`fcntl(F_GETPATH)` on macOS).
#[cfg(all(portable, unix))]
pub(crate) fn fd_path<Fd: std::os::fd::AsFd>(fd: Fd) -> Option<PathBuf> {
    f_getpath(fd.as_fd())
        .ok()
        .map(|p| PathBuf::from(p.to_string_lossy().into_owned()))
}

/// The path Windows holds for an open handle (`GetFinalPathNameByHandleW`, normalized: short
/// names expanded, the casing on disk), without the `\\?\` prefix.
#[cfg(windows)]
pub(crate) fn fd_path<Fd: AsFd>(fd: Fd) -> Option<PathBuf> {
    crate::sys::windows_final_path(fd.as_fd()).ok()
}

#[cfg(all(portable, unix, not(target_os = "linux")))]
use rustix::fs::getpath as f_getpath;

/// STAND-IN, Linux with the `portable-unix` feature only: Linux has no `F_GETPATH`, so the path
/// comes from `/proc/self/fd`, with `F_GETPATH`'s answers where the two differ: a descriptor
/// whose file was removed has no path (`ENOENT`; `/proc` would append " (deleted)") and one
/// that is not a file or directory (a pipe, a socket) is refused (`EBADF`).
#[cfg(all(portable, target_os = "linux"))]
fn f_getpath(fd: BorrowedFd<'_>) -> crate::sys::Result<std::ffi::CString> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStringExt;
    let path = fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map_err(|e| rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::BADF))?;
    if !path.is_absolute() {
        return Err(rustix::io::Errno::BADF); // "pipe:[…]", "socket:[…]", "anon_inode:…"
    }
    if crate::sys::fs::fstat(fd)?.st_nlink == 0 {
        return Err(rustix::io::Errno::NOENT);
    }
    std::ffi::CString::new(path.into_os_string().into_vec()).map_err(|_| rustix::io::Errno::INVAL)
}

#[cfg(test)]
mod tests {
    // Unix paths, symlinks and descriptors; the Windows counterparts are `windows_tests` below.
    #![cfg(unix)]
    #![allow(clippy::mixed_attributes_style)]

    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        _dir: tempfile::TempDir,
        root: String,
        outside: String,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = dir
            .path()
            .canonicalize()
            .map(crate::sys::plain_path)
            .unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "secret").unwrap();
        Fixture {
            root: root.to_string_lossy().into_owned(),
            outside: outside.to_string_lossy().into_owned(),
            _dir: dir,
        }
    }

    #[test]
    fn lexical_rules_follow_the_contract() {
        let f = fixture();
        let r = &f.root;
        assert_eq!(
            resolve_in_workspace("src/main.ts", r).unwrap(),
            format!("{r}/src/main.ts")
        );
        assert_eq!(resolve_in_workspace("", r).unwrap(), *r);
        assert_eq!(resolve_in_workspace(".", r).unwrap(), *r);
        assert_eq!(
            resolve_in_workspace("src\\tools", r).unwrap(),
            format!("{r}/src/tools")
        );
        assert_eq!(
            resolve_in_workspace("C:\\work", r).unwrap(),
            format!("{r}/C:/work")
        );
        for bad in [
            "../x",
            "../../etc/passwd",
            "/etc/shadow",
            "src/../../x",
            "..foo",
            "...",
        ] {
            assert!(
                resolve_in_workspace(bad, r).is_err(),
                "{bad} must be denied"
            );
        }
        assert_eq!(
            resolve_in_workspace("..\\x", r).unwrap_err().message,
            "[Sandbox Violation] Attempted to access path outside of workspace: \"../x\""
        );
    }

    #[test]
    fn symlinks_out_of_the_root_are_denied() {
        let f = fixture();
        let r = &f.root;
        symlink(&f.outside, format!("{r}/dlink")).unwrap();
        symlink(format!("{}/secret.txt", f.outside), format!("{r}/flink")).unwrap();
        symlink(
            format!("{}/missing.txt", f.outside),
            format!("{r}/dangling"),
        )
        .unwrap();
        symlink("dlink", format!("{r}/chain")).unwrap();
        symlink("../../outside", format!("{r}/src/rel")).unwrap();
        for bad in [
            "dlink",
            "dlink/secret.txt",
            "dlink/new/deep.txt",
            "flink",
            "dangling",
            "chain/x",
            "src/rel/secret.txt",
        ] {
            assert!(
                resolve_in_workspace(bad, r).is_err(),
                "{bad} must be denied"
            );
        }
    }

    #[test]
    fn symlinks_inside_the_root_are_allowed() {
        let f = fixture();
        let r = &f.root;
        symlink("src", format!("{r}/srclink")).unwrap();
        symlink(format!("{r}/src"), format!("{r}/abslink")).unwrap();
        symlink("missing-inside", format!("{r}/dangling-in")).unwrap();
        for ok in ["srclink/a.ts", "abslink", "dangling-in", "new/dir/file.txt"] {
            assert!(resolve_in_workspace(ok, r).is_ok(), "{ok} must be allowed");
        }
        // The returned path stays lexical (upstream's messages quote it).
        assert_eq!(
            resolve_in_workspace("srclink/a.ts", r).unwrap(),
            format!("{r}/srclink/a.ts")
        );
    }

    #[test]
    fn symlinked_root_is_compared_by_its_real_path() {
        let f = fixture();
        let link_root = format!("{}/../wslink", f.root);
        symlink(&f.root, &link_root).unwrap();
        assert!(resolve_in_workspace("src/a.ts", &link_root).is_ok());
        symlink(&f.outside, format!("{}/out", f.root)).unwrap();
        assert!(resolve_in_workspace("out/secret.txt", &link_root).is_err());
    }

    #[test]
    fn symlink_loops_are_denied_not_hung() {
        let f = fixture();
        let r = &f.root;
        symlink("loop2", format!("{r}/loop1")).unwrap();
        symlink("loop1", format!("{r}/loop2")).unwrap();
        assert!(resolve_in_workspace("loop1/x", r).is_err());
    }

    #[test]
    fn confined_create_dir_all_never_creates_outside() {
        let f = fixture();
        let r = Path::new(&f.root);
        let c = Confinement::new(&f.root).unwrap();
        c.create_dir_all(&r.join("a/b/c")).unwrap();
        assert!(r.join("a/b/c").is_dir());
        c.create_dir_all(&r.join("a/b/c")).unwrap();
        // symlinks inside are followed, as fs::create_dir_all does
        symlink("src", r.join("srclink")).unwrap();
        c.create_dir_all(&r.join("srclink/new/deep")).unwrap();
        assert!(r.join("src/new/deep").is_dir());
        // a symlink out of the root (e.g. swapped in after the path check) stops the creation
        symlink(&f.outside, r.join("out")).unwrap();
        let err = c.create_dir_all(&r.join("out/x/y")).unwrap_err();
        assert_eq!(
            err.raw_os_error(),
            Some(rustix::io::Errno::XDEV.raw_os_error())
        );
        assert_eq!(
            fs::read_dir(&f.outside).unwrap().count(),
            1,
            "nothing created"
        );
        // a missing workspace root itself may be created
        let fresh = Path::new(&f.outside).join("../fresh-ws");
        let c2 = Confinement::new(&fresh.to_string_lossy()).unwrap();
        c2.create_dir_all(&fresh.join("sub")).unwrap();
        assert!(fresh.join("sub").is_dir());
    }

    #[test]
    fn confined_create_dir_all_records_what_it_created() {
        let f = fixture();
        let r = Path::new(&f.root);
        let c = Confinement::new(&f.root).unwrap();
        let mut created = Vec::new();
        c.create_dir_all_recording(&r.join("src/a/b"), &mut created)
            .unwrap();
        let names: Vec<_> = created.iter().map(|(_, n)| n.clone()).collect();
        assert_eq!(names, ["a", "b"], "src existed");
        for (parent, name) in created.iter().rev() {
            rustix::fs::unlinkat(parent, name, rustix::fs::AtFlags::REMOVEDIR).unwrap();
        }
        assert!(!r.join("src/a").exists() && r.join("src").is_dir());
    }

    #[test]
    fn confined_create_dir_all_fails_like_std_on_files() {
        let f = fixture();
        let r = Path::new(&f.root);
        fs::write(r.join("file"), "x").unwrap();
        let c = Confinement::new(&f.root).unwrap();
        let deep = "d".repeat(200) + "/";
        for target in ["file".to_string(), "file/x".to_string(), deep.repeat(25)] {
            let ours = c.create_dir_all(&r.join(&target)).unwrap_err();
            let std = fs::create_dir_all(r.join(&target)).unwrap_err();
            assert_eq!(ours.raw_os_error(), std.raw_os_error(), "{target}");
        }
        assert_eq!(fs::read_dir(r).unwrap().count(), 2, "nothing created");
    }

    #[test]
    fn confinement_checks_open_descriptors() {
        let f = fixture();
        let c = Confinement::new(&f.root).unwrap();
        let inside = fs::File::open(&f.root).unwrap();
        let outside = fs::File::open(format!("{}/secret.txt", f.outside)).unwrap();
        assert!(c.contains_fd(&inside));
        assert!(!c.contains_fd(&outside));
        // the tools' one check: the error they return, with its reason as data
        let class = crate::error::ErrorClass("ReadFileError");
        assert!(c.confine(&inside, "a", class).is_ok());
        let e = c.confine(&outside, "/x/secret.txt", class).unwrap_err();
        assert_eq!(
            e.message,
            "INTERNAL: [Sandbox Violation] Attempted to access path outside of workspace: \"/x/secret.txt\""
        );
        assert_eq!(
            (e.class_name, e.code),
            ("ReadFileError", crate::ErrorCode::Internal)
        );
        assert_eq!(e.reason, Some(crate::error::Reason::Sandbox));
        let unconfined = crate::context::RunContext {
            ctx: &crate::ToolContext::allow_all(&f.root),
            confinement: None,
        };
        assert!(unconfined.confine(&outside, "x", class).is_ok());
    }

    #[test]
    fn descriptor_walks_never_pass_a_symlink() {
        let f = fixture();
        let r = Path::new(&f.root);
        fs::write(r.join("src/a.txt"), "a").unwrap();
        symlink(&f.outside, r.join("out")).unwrap();
        symlink("src", r.join("srclink")).unwrap();
        let root = fs::File::open(r).unwrap();
        let st = lstat_beneath(root.as_fd(), Path::new("src/a.txt")).unwrap();
        assert_eq!(st.st_size, 1);
        assert!(lstat_beneath(root.as_fd(), Path::new("")).is_ok());
        // a symlink is never passed, even one that stays inside; as the last component it is
        // what is stat'ed
        for rel in ["out/secret.txt", "srclink/a.txt"] {
            assert!(
                lstat_beneath(root.as_fd(), Path::new(rel)).is_err(),
                "{rel}"
            );
        }
        let link = lstat_beneath(root.as_fd(), Path::new("out")).unwrap();
        assert_eq!(
            rustix::fs::FileType::from_raw_mode(link.st_mode),
            rustix::fs::FileType::Symlink
        );
        assert!(open_dir_at(Some(root.as_fd()), OsStr::new("out")).is_err());
        let src = open_dir_at(Some(root.as_fd()), OsStr::new("src")).unwrap();
        let mut stream = rustix::fs::Dir::new(src).unwrap();
        let entries = read_entries(&mut stream, |name| name != b"skipped").unwrap();
        assert_eq!(
            entries,
            [(b"a.txt".to_vec(), rustix::fs::FileType::RegularFile)]
        );
    }

    /// `open_beneath` (the search's `openat2` for systems without it) passes no symlink, on the
    /// way or at the end, refuses `..`, and resolves in the tree it was given even after that
    /// tree's path was taken by another directory.
    #[test]
    fn open_beneath_passes_no_symlink_and_stays_in_the_opened_tree() {
        use rustix::fs::{Mode, OFlags};
        use rustix::io::Errno;
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        for (tree, text) in [("ws", "checked"), ("other", "other")] {
            fs::create_dir_all(base.join(tree).join("sub")).unwrap();
            fs::write(base.join(tree).join("sub/a.txt"), text).unwrap();
        }
        symlink(base.join("other"), base.join("ws/out")).unwrap();
        symlink("sub", base.join("ws/inner")).unwrap();
        symlink("sub/a.txt", base.join("ws/file-link")).unwrap();
        let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
        let root = rustix::fs::open(base.join("ws"), flags, Mode::empty()).unwrap();
        let open = |rel: &str| open_beneath(root.as_fd(), Path::new(rel), OFlags::RDONLY);
        let read = |rel: &str| {
            open(rel).unwrap().map(|fd| {
                let mut text = String::new();
                fs::File::from(fd).read_to_string(&mut text).unwrap();
                text
            })
        };
        assert_eq!(read("sub/a.txt").as_deref(), Some("checked"));
        assert_eq!(read("./sub/a.txt").as_deref(), Some("checked"));
        assert_eq!(read("out/sub/a.txt"), None, "a symlink leading outside");
        assert_eq!(read("inner/a.txt"), None, "a symlink staying inside");
        assert_eq!(read("file-link"), None, "a symlink at the end");
        assert_eq!(open("../other/sub/a.txt").unwrap_err(), Errno::INVAL);
        assert_eq!(open("sub/missing").unwrap_err(), Errno::NOENT);
        assert_eq!(open("sub/a.txt/x").unwrap_err(), Errno::NOTDIR);
        fs::rename(base.join("ws"), base.join("moved")).unwrap();
        fs::rename(base.join("other"), base.join("ws")).unwrap();
        assert_eq!(read("sub/a.txt").as_deref(), Some("checked"));
    }

    /// The `F_GETPATH` stand-in of the portable build on Linux answers as `F_GETPATH` does: the
    /// path of a file or directory, no path for a removed file or for a pipe.
    #[cfg(all(portable, target_os = "linux"))]
    #[test]
    fn the_f_getpath_stand_in_answers_as_f_getpath() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir
            .path()
            .canonicalize()
            .map(crate::sys::plain_path)
            .unwrap();
        let file = fs::File::create(base.join("f.txt")).unwrap();
        let opened = fs::File::open(&base).unwrap();
        assert_eq!(fd_path(&opened), Some(base.clone()));
        assert_eq!(fd_path(&file), Some(base.join("f.txt")));
        fs::remove_file(base.join("f.txt")).unwrap();
        assert_eq!(
            f_getpath(file.as_fd()).unwrap_err(),
            rustix::io::Errno::NOENT
        );
        let (read, _write) = rustix::pipe::pipe().unwrap();
        assert_eq!(
            f_getpath(read.as_fd()).unwrap_err(),
            rustix::io::Errno::BADF
        );
    }
}

/// The sandbox on Windows: the escape classes that need the OS (a directory link or junction
/// pointing out, case aliases and trailing dots, alternate data streams, reserved device names)
/// and the handle re-check.
#[cfg(test)]
mod windows_tests {
    #![cfg(windows)]
    #![allow(clippy::mixed_attributes_style)]

    use super::*;

    struct Fixture {
        _dir: tempfile::TempDir,
        root: String,
        outside: PathBuf,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = real_path(dir.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("ws_evil");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src").join("a.txt"), "inside").unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "secret").unwrap();
        Fixture {
            root: root.to_string_lossy().into_owned(),
            outside,
            _dir: dir,
        }
    }

    #[test]
    fn paths_resolve_with_backslashes_and_stay_inside() {
        let f = fixture();
        let r = &f.root;
        assert_eq!(
            resolve_in_workspace("src/a.txt", r).unwrap(),
            format!("{r}\\src\\a.txt")
        );
        assert_eq!(resolve_in_workspace("", r).unwrap(), *r);
        for bad in [
            "../ws_evil/secret.txt",
            "..\\x",
            "/Windows",
            "D:\\x",
            "//server/share/x",
        ] {
            assert!(
                resolve_in_workspace(bad, r).is_err(),
                "{bad} must be denied"
            );
        }
    }

    #[test]
    fn another_casing_of_the_root_is_the_root_and_its_sibling_is_not() {
        let f = fixture();
        let upper = f.root.to_uppercase();
        let inside = format!("{upper}\\SRC\\A.TXT");
        assert!(resolve_in_workspace(&inside, &f.root).is_ok(), "{inside}");
        let sibling = format!("{}\\secret.txt", f.outside.to_string_lossy().to_uppercase());
        assert!(
            resolve_in_workspace(&sibling, &f.root).is_err(),
            "{sibling}"
        );
        // an opened handle is compared by its final path, whatever casing opened it
        let c = Confinement::new(&f.root).unwrap();
        assert!(c.contains_fd(fs::File::open(&inside).unwrap()));
        assert!(!c.contains_fd(fs::File::open(&sibling).unwrap()));
    }

    #[test]
    fn names_windows_rewrites_are_refused() {
        let f = fixture();
        for bad in [
            "src.",
            "src /a.txt",
            "src/a.txt:secret",
            "src/a.txt::$DATA",
            "nul",
            "src/con.txt",
            "COM1",
            "src/a?.txt",
        ] {
            assert!(
                resolve_in_workspace(bad, &f.root).is_err(),
                "{bad} must be denied"
            );
        }
        assert!(resolve_in_workspace("src/console.log", &f.root).is_ok());
    }

    /// A junction (a directory mount point) at `link` leading to the directory `target`, made
    /// as `mklink /J` makes one: an empty directory given a mount-point reparse point
    /// (`FSCTL_SET_REPARSE_POINT`) whose substitute name is the target's NT path
    /// (`\??\C:\...`). Unlike a symlink it needs no privilege.
    fn junction(target: &Path, link: &Path) -> io::Result<()> {
        use std::os::windows::ffi::OsStrExt;
        use std::os::windows::fs::OpenOptionsExt;
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::Storage::FileSystem as winfs;
        const FSCTL_SET_REPARSE_POINT: u32 = 0x0009_00A4;
        const IO_REPARSE_TAG_MOUNT_POINT: u32 = 0xA000_0003;
        #[link(name = "kernel32")]
        extern "system" {
            fn DeviceIoControl(
                device: windows_sys::Win32::Foundation::HANDLE,
                code: u32,
                input: *const std::ffi::c_void,
                input_size: u32,
                output: *mut std::ffi::c_void,
                output_size: u32,
                returned: *mut u32,
                overlapped: *mut std::ffi::c_void,
            ) -> i32;
        }
        let wide = |text: &OsStr| -> Vec<u16> { text.encode_wide().collect() };
        let substitute = wide(OsStr::new(&format!("\\??\\{}", target.display())));
        let print = wide(target.as_os_str());
        // REPARSE_DATA_BUFFER for a mount point: tag, data length, reserved; then the offsets
        // and lengths (bytes, without the NULs) of both names, and the names, each with its NUL
        let mut data: Vec<u8> = Vec::new();
        for field in [
            0,
            substitute.len() * 2,
            (substitute.len() + 1) * 2,
            print.len() * 2,
        ] {
            data.extend((field as u16).to_le_bytes());
        }
        for unit in substitute.iter().chain([&0]).chain(&print).chain([&0]) {
            data.extend(unit.to_le_bytes());
        }
        let mut buffer = IO_REPARSE_TAG_MOUNT_POINT.to_le_bytes().to_vec();
        buffer.extend((data.len() as u16).to_le_bytes());
        buffer.extend(0u16.to_le_bytes());
        buffer.extend(data);
        fs::create_dir(link)?;
        let set = fs::OpenOptions::new()
            .write(true)
            .custom_flags(winfs::FILE_FLAG_BACKUP_SEMANTICS | winfs::FILE_FLAG_OPEN_REPARSE_POINT)
            .open(link)
            .and_then(|dir| {
                let mut returned = 0;
                // SAFETY: `dir` is an open handle for the call's duration, `buffer` holds
                // `buffer.len()` readable bytes, and no output or overlapped structure is given.
                let done = unsafe {
                    DeviceIoControl(
                        dir.as_raw_handle(),
                        FSCTL_SET_REPARSE_POINT,
                        buffer.as_ptr().cast(),
                        buffer.len() as u32,
                        std::ptr::null_mut(),
                        0,
                        &mut returned,
                        std::ptr::null_mut(),
                    )
                };
                if done == 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(())
                }
            });
        if set.is_err() {
            let _ = fs::remove_dir(link);
        }
        set
    }

    /// Every operation of the sandbox that takes a path refuses to go through `name`, a
    /// directory link in the root leading to `f.outside`, and the handle re-check finds what
    /// was opened through it outside.
    fn assert_refused_through(f: &Fixture, name: &str) {
        use crate::sys::fs::{Dir, FileType, Mode, OFlags};
        use crate::sys::Errno;
        let r = Path::new(&f.root);
        let link = r.join(name);
        // the OS itself goes through it
        assert_eq!(
            fs::read_to_string(link.join("secret.txt")).unwrap(),
            "secret"
        );
        assert_eq!(
            real_path(&link).unwrap(),
            real_path(&f.outside).unwrap(),
            "followed to its target"
        );
        // the path check
        for bad in [
            name.to_string(),
            format!("{name}/secret.txt"),
            format!("{name}\\secret.txt"),
            format!("{name}/new/deep.txt"),
            format!("src/../{name}/secret.txt"),
        ] {
            assert!(
                resolve_in_workspace(&bad, &f.root).is_err(),
                "{bad} must be denied"
            );
        }
        // the handle re-check: a file opened through the link is outside
        let c = Confinement::new(&f.root).unwrap();
        let behind = fs::File::open(link.join("secret.txt")).unwrap();
        assert!(!c.contains_fd(&behind));
        let class = crate::error::ErrorClass("ReadFileError");
        let e = c.confine(&behind, "x", class).unwrap_err();
        assert_eq!(e.reason, Some(crate::error::Reason::Sandbox));
        assert!(!c.contains_fd(fs::File::open(&link).unwrap()));
        // directory creation below it
        for target in [link.join("x"), link.join("x").join("y")] {
            let mut created = Vec::new();
            let err = c
                .create_dir_all_recording(&target, &mut created)
                .unwrap_err();
            assert_eq!(err.raw_os_error(), Some(Errno::XDEV.raw_os_error()));
            assert!(created.is_empty());
            let err = c.create_dir_all(&target).unwrap_err();
            assert_eq!(err.raw_os_error(), Some(Errno::XDEV.raw_os_error()));
        }
        assert_eq!(
            fs::read_dir(&f.outside).unwrap().count(),
            1,
            "nothing created outside"
        );
        // the walk layer: never opened as a directory, never passed, listed as a link
        let root =
            crate::sys::fs::open(r, OFlags::DIRECTORY | OFlags::RDONLY, Mode::empty()).unwrap();
        assert_eq!(
            open_dir_at(Some(root.as_fd()), OsStr::new(name)).unwrap_err(),
            Errno::LOOP
        );
        assert_eq!(
            open_dir_at(None, link.as_os_str()).unwrap_err(),
            Errno::LOOP
        );
        let beneath = |rel: &str| lstat_beneath(root.as_fd(), Path::new(rel));
        assert_eq!(
            beneath(&format!("{name}/secret.txt")).unwrap_err(),
            Errno::LOOP
        );
        assert_eq!(
            FileType::from_raw_mode(beneath(name).unwrap().st_mode),
            FileType::Symlink
        );
        for (rel, flags) in [
            (format!("{name}/secret.txt"), OFlags::RDONLY),
            (name.to_string(), OFlags::RDONLY),
            (name.to_string(), OFlags::RDONLY | OFlags::DIRECTORY),
        ] {
            assert!(
                open_beneath(root.as_fd(), Path::new(&rel), flags)
                    .unwrap()
                    .is_none(),
                "{rel}"
            );
        }
        let listed_root = open_dir_at(None, r.as_os_str()).unwrap();
        let entries = read_entries(&mut Dir::new(listed_root).unwrap(), |_| true).unwrap();
        assert!(
            entries.contains(&(name.as_bytes().to_vec(), FileType::Symlink)),
            "{entries:?}"
        );
        // a root reached through the link is the target itself
        let c = Confinement::new(&link.to_string_lossy()).unwrap();
        assert!(c.contains_fd(&behind));
        assert!(resolve_in_workspace("secret.txt", &link.to_string_lossy()).is_ok());
    }

    #[test]
    #[ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing); on Windows it needs the symlink privilege or developer mode"]
    fn a_directory_symlink_pointing_out_is_refused_by_every_operation() {
        let f = fixture();
        let link = Path::new(&f.root).join("out");
        if let Err(e) = std::os::windows::fs::symlink_dir(&f.outside, &link) {
            panic!(
                "no directory symlink could be created (without the symlink privilege or \
                 developer mode Windows refuses: ERROR_PRIVILEGE_NOT_HELD): {e}"
            );
        }
        assert!(
            fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
            "symlink_dir reported success, but there is no symlink at {}",
            link.display()
        );
        assert_refused_through(&f, "out");
    }

    #[test]
    #[ignore = "wine 8 cannot create junctions: FSCTL_SET_REPARSE_POINT fails with ERROR_NOT_SUPPORTED (and `mklink /J` creates nothing); Windows needs no privilege for them"]
    fn a_junction_pointing_out_is_refused_by_every_operation() {
        use std::os::windows::fs::MetadataExt;
        let f = fixture();
        let link = Path::new(&f.root).join("junction");
        if let Err(e) = junction(&f.outside, &link) {
            panic!("no junction could be created at {}: {e}", link.display());
        }
        let meta = fs::symlink_metadata(&link).unwrap();
        assert!(
            meta.file_attributes()
                & windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_REPARSE_POINT
                != 0,
            "a reparse point"
        );
        assert_refused_through(&f, "junction");
    }

    #[test]
    fn listings_and_stats_go_through_handles() {
        let f = fixture();
        let r = Path::new(&f.root);
        use crate::sys::fs::{Dir, FileType};
        let root = open_dir_at(None, r.as_os_str()).unwrap();
        let st = lstat_beneath(root.as_fd(), Path::new("src/a.txt")).unwrap();
        assert_eq!(st.st_size, 6);
        let src = open_dir_at(Some(root.as_fd()), OsStr::new("src")).unwrap();
        let mut stream = Dir::new(src).unwrap();
        let entries = read_entries(&mut stream, |name| name != b"skipped").unwrap();
        assert_eq!(entries, [(b"a.txt".to_vec(), FileType::RegularFile)]);
        let c = Confinement::new(&f.root).unwrap();
        assert!(c.contains_fd(&root));
        c.create_dir_all(&r.join("n1").join("n2")).unwrap();
        assert!(r.join("n1").join("n2").is_dir());
    }

    #[test]
    #[ignore = "wine 8 has no POSIX-semantics rename (FileRenameInfoEx fails with ERROR_INVALID_PARAMETER) and its classic rename refuses a target that is open (access denied); Windows 10 1709+ on NTFS replaces it"]
    fn atomic_replace_works_while_another_reader_holds_the_file() {
        let f = fixture();
        let target = Path::new(&f.root).join("src").join("a.txt");
        // std opens with FILE_SHARE_DELETE, as Node does: a POSIX rename may replace it
        let held = fs::File::open(&target).unwrap();
        let (dir, name) = crate::atomic_write::open_parent(&target).unwrap();
        crate::atomic_write::replace_atomically(&dir, name, b"new", Some(0o644)).unwrap();
        drop(held);
        assert_eq!(fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn atomic_replace_leaves_one_file_and_keeps_only_the_read_only_flag() {
        let f = fixture();
        let target = Path::new(&f.root).join("src").join("a.txt");
        let (dir, name) = crate::atomic_write::open_parent(&target).unwrap();
        crate::atomic_write::replace_atomically(&dir, name, b"new", Some(0o644)).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(target.parent().unwrap()).unwrap().count(), 1);
        // a mode without write bits keeps only what Windows has: the read-only flag
        crate::atomic_write::replace_atomically(&dir, name, b"ro", Some(0o444)).unwrap();
        assert!(fs::metadata(&target).unwrap().permissions().readonly());
    }
}
