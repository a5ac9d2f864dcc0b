//! What one call changes: each file's state the first time the call is about to change it,
//! kept until the call ends, then compared with the file's state after the call and written to
//! the journal as one checkpoint.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::{hash_of, Change, FileRecord, FileState, Store, ERROR_CLASS};
use crate::error::ToolError;
use crate::sandbox::Confinement;
use crate::syntax_check::{Diagnostic, SyntaxMode};

/// Contents larger than this are not kept (the state is recorded without them, so the
/// checkpoint cannot be restored), whatever the journal's byte bound.
pub const MAX_KEPT_FILE: u64 = 64 * 1024 * 1024;

/// A file's state before the call, with its content when it is a file the journal keeps.
#[derive(Debug)]
pub struct Captured {
    pub abs: PathBuf,
    pub rel: String,
    pub state: FileState,
    pub content: Option<Vec<u8>>,
    /// The content kept by a hard link to the file's old inode, in the journal's `incoming/`,
    /// instead of in `content` (no copy): the link and the content's hash.
    pub linked: Option<(PathBuf, String)>,
    /// For an absent file: its directories that were missing too (workspace-relative, deepest
    /// first); those there after the call are the directories it created.
    pub new_dirs: Vec<String>,
}

/// The journal and the syntax check of one call of a tool that changes files.
#[derive(Debug)]
pub struct CallRecord {
    pub tool: String,
    /// The journal's store for the call's workspace; `None`: no journal (only the syntax check).
    pub store: Option<Store>,
    /// The syntax check's mode and the context's kept syntax trees.
    pub syntax: Option<(SyntaxMode, std::sync::Arc<crate::syntax_check::Trees>)>,
    /// The workspace's real path: recorded paths are relative to it and must lie inside it.
    pub root: PathBuf,
    captured: Mutex<Vec<Captured>>,
    /// What the tool wrote, per real path: the content's hash and size (the last write wins).
    written: Mutex<Vec<Written>>,
    diagnostics: Mutex<Vec<Diagnostic>>,
    /// Set once the tool asked for a syntax check: its result then carries `diagnostics`.
    checked: std::sync::atomic::AtomicBool,
}

impl CallRecord {
    pub fn new(
        tool: &str,
        store: Option<Store>,
        syntax: Option<(SyntaxMode, std::sync::Arc<crate::syntax_check::Trees>)>,
        root: PathBuf,
    ) -> CallRecord {
        CallRecord {
            tool: tool.to_string(),
            store,
            syntax,
            root,
            captured: Mutex::new(Vec::new()),
            written: Mutex::new(Vec::new()),
            diagnostics: Mutex::new(Vec::new()),
            checked: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The workspace-relative form of `abs`, with `/`; `None` outside the workspace.
    pub fn relative(&self, abs: &Path) -> Option<String> {
        relative(&self.root, abs)
    }

    /// Records the state of `abs` (a resolved path inside the workspace) before the call first
    /// changes it; later calls for the same path keep the first state.
    pub fn before_change(&self, abs: &Path) -> Result<(), ToolError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        // where the tools write: through every link, as they resolve their targets
        let abs = &crate::sandbox::real_path(abs).unwrap_or_else(|_| abs.to_path_buf());
        let mut captured = self.captured.lock().unwrap_or_else(|e| e.into_inner());
        if captured.iter().any(|c| &c.abs == abs) {
            return Ok(());
        }
        let Some(rel) = self.relative(abs) else {
            // a direct handler call may work outside the workspace: nothing is journalled
            return Ok(());
        };
        let limit = MAX_KEPT_FILE.min(store.max_bytes);
        // A file the tool is about to replace by rename keeps its old inode: a hard link to it
        // keeps the content without a copy, and without a new file (whose allocation is what a
        // small copy costs most on a busy file system). With the link made, the content is only
        // hashed as it is read, not held in memory.
        let link = store.link_incoming(abs);
        let read = read_state_as(abs, &self.root, Some(limit), link.is_none());
        let (state, content) = match read {
            Ok(read) => read,
            Err(e) => {
                if let Some(link) = &link {
                    let _ = std::fs::remove_file(link);
                }
                return Err(ERROR_CLASS.internal(format!(
                    "journal: cannot read {rel} before changing it: {e}"
                )));
            }
        };
        let (content, linked) = match (&state, link) {
            (
                Some(FileState::File {
                    hash: Some(hash), ..
                }),
                Some(link),
            ) => (None, Some((link, hash.clone()))),
            (_, link) => {
                if let Some(link) = link {
                    let _ = std::fs::remove_file(link);
                }
                (content, None)
            }
        };
        if let Some(state) = state {
            let new_dirs = match state {
                FileState::Absent => missing_dirs(&rel, &self.root),
                _ => Vec::new(),
            };
            captured.push(Captured {
                abs: abs.to_path_buf(),
                rel,
                state,
                content,
                linked,
                new_dirs,
            });
        }
        Ok(())
    }

    /// Records that the tool wrote `bytes` to `abs`, so the state after the call is known
    /// without reading the file back.
    pub fn wrote(&self, abs: &Path, bytes: &[u8]) {
        if self.store.is_none() {
            return;
        }
        // the tools pass the path before_change resolved: only another is resolved again
        let resolved = self
            .captured
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|c| c.abs == abs);
        let abs = if resolved {
            abs.to_path_buf()
        } else {
            crate::sandbox::real_path(abs).unwrap_or_else(|_| abs.to_path_buf())
        };
        let hash = hash_of(bytes);
        let size = bytes.len() as u64;
        let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
        written.retain(|w| w.abs != abs);
        written.push(Written { abs, hash, size });
    }

    /// The syntax check of a change of `abs` from `old` (`None`: read from disk now, before the
    /// change) to `new`: in report mode the new errors are kept for the result; in reject mode
    /// they fail the call (`SYNTAX_ERROR`) before anything is written.
    pub fn check_syntax(
        &self,
        abs: &Path,
        old: Option<&[u8]>,
        new: &[u8],
        class: crate::error::ErrorClass,
    ) -> Result<(), ToolError> {
        let Some((mode, trees)) = &self.syntax else {
            return Ok(());
        };
        self.checked
            .store(true, std::sync::atomic::Ordering::Relaxed);
        if crate::syntax_check::language_of(abs).is_none() {
            return Ok(());
        }
        let real = crate::sandbox::real_path(abs).unwrap_or_else(|_| abs.to_path_buf());
        let shown = self
            .relative(&real)
            .unwrap_or_else(|| abs.to_string_lossy().into_owned());
        let on_disk;
        let old = match old {
            Some(old) => Some(old),
            None => {
                on_disk = std::fs::read(abs).ok();
                on_disk.as_deref()
            }
        };
        let found = crate::syntax_check::new_errors(abs, &shown, old, new, trees);
        if found.is_empty() {
            return Ok(());
        }
        match mode {
            SyntaxMode::Report => {
                self.diagnostics
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(found);
                Ok(())
            }
            SyntaxMode::Reject => {
                let details = serde_json::json!({ "diagnostics": found });
                Err(class
                    .coded(
                        crate::error::ErrorCode::SyntaxError,
                        crate::syntax_check::rejection_message(&found),
                    )
                    .with_details(details))
            }
        }
    }

    /// The diagnostics found in report mode; `None` when the tool wrote no content to check (a
    /// deletion only, a restore, a dry run).
    pub fn diagnostics(&self) -> Option<Vec<Diagnostic>> {
        if !self.checked.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        Some(
            self.diagnostics
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        )
    }

    /// The captured states, taken out (for a restore's rollback).
    pub(crate) fn take_captured(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.captured.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Writes the checkpoint of the call: every captured file whose state changed, with its
    /// content from before. Nothing when nothing changed. Returns the checkpoint's id.
    pub fn commit(&self, restored: Option<String>) -> Result<Option<String>, ToolError> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        let captured = self.take_captured();
        let written = std::mem::take(&mut *self.written.lock().unwrap_or_else(|e| e.into_inner()));
        commit_knowing(
            store, &self.tool, &self.root, captured, &written, restored, false,
        )
    }
}

/// A content a tool wrote to a file.
#[derive(Debug)]
struct Written {
    abs: PathBuf,
    hash: String,
    size: u64,
}

impl Written {
    /// The file's state after the tool's write while it is still a regular file: the written
    /// content's hash and size, the mode read now. A content another writer put there since is
    /// not taken for the tool's, so a restore over it reports the conflict.
    fn state_now(&self) -> Option<FileState> {
        let meta = std::fs::symlink_metadata(&self.abs).ok()?;
        meta.is_file().then(|| FileState::File {
            hash: Some(self.hash.clone()),
            size: self.size,
            mode: crate::sys::permission_bits(&meta),
        })
    }
}

/// The state of a captured file now (`None`: a directory).
fn state_after(c: &Captured, root: &Path) -> Result<Option<FileState>, ToolError> {
    read_state(&c.abs, root, None)
        .map(|(state, _)| state)
        .map_err(|e| {
            ERROR_CLASS.internal(format!(
                "the change was made, but its checkpoint could not be written: cannot read {}: {e}",
                c.rel
            ))
        })
}

/// The checkpoint of `captured` (states before a change), compared with the files now.
pub fn commit_captured(
    store: &Store,
    tool: &str,
    root: &Path,
    captured: Vec<Captured>,
    restored: Option<String>,
    locked: bool,
) -> Result<Option<String>, ToolError> {
    commit_knowing(store, tool, root, captured, &[], restored, locked)
}

/// [`commit_captured`], the states after taken from `written` where the tool wrote the file.
fn commit_knowing(
    store: &Store,
    tool: &str,
    root: &Path,
    captured: Vec<Captured>,
    written: &[Written],
    restored: Option<String>,
    locked: bool,
) -> Result<Option<String>, ToolError> {
    let mut changes = Vec::with_capacity(captured.len());
    for c in captured {
        let known = written.iter().find(|w| w.abs == c.abs);
        let after = match known.and_then(Written::state_now) {
            Some(state) => Some(state),
            None => state_after(&c, root)?,
        };
        match after {
            Some(after) => changes.push((c, after)),
            // a directory where the file was: the file was deleted
            None if c.state != FileState::Absent => changes.push((c, FileState::Absent)),
            None => {}
        }
    }
    commit_changes(store, tool, changes, restored, locked)
}

/// The checkpoint of `changes`: each file's state before (with its content) and after. The
/// files whose state did not change are left out; nothing is written when none changed.
pub(crate) fn commit_changes(
    store: &Store,
    tool: &str,
    changes: Vec<(Captured, FileState)>,
    restored: Option<String>,
    locked: bool,
) -> Result<Option<String>, ToolError> {
    let mut files = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    let mut contents = Vec::new();
    let mut linked = Vec::new();
    // links of contents no checkpoint will name are removed whatever happens
    let unused: Vec<PathBuf> = changes
        .iter()
        .filter_map(|(c, _)| c.linked.as_ref().map(|(link, _)| link.clone()))
        .collect();
    let _cleanup = RemoveOnDrop(unused);
    for (c, after) in changes {
        if after == c.state {
            continue;
        }
        let change = match (&c.state, &after) {
            (FileState::Absent, _) => Change::Created,
            (_, FileState::Absent) => Change::Deleted,
            _ => Change::Modified,
        };
        if after != FileState::Absent {
            let root = store.root();
            for dir in &c.new_dirs {
                let made = std::fs::symlink_metadata(root.join(dir)).is_ok_and(|m| m.is_dir());
                if made && !dirs.contains(dir) {
                    dirs.push(dir.clone());
                }
            }
        }
        match (c.linked, c.content) {
            (Some(link), _) => {
                if let FileState::File { size, .. } = &c.state {
                    linked.push((link.0, link.1, *size));
                }
            }
            (None, Some(content)) => contents.push(content),
            (None, None) => {}
        }
        files.push(FileRecord {
            path: c.rel,
            change,
            before: c.state,
            after,
        });
    }
    if files.is_empty() {
        return Ok(None);
    }
    store
        .commit(
            tool,
            files,
            dirs,
            super::Contents {
                copied: contents,
                linked,
            },
            restored,
            locked,
        )
        .map(Some)
}

/// The first directory on the way from `root` to `abs` (`root` itself and `abs` not counted)
/// that is a symbolic link now.
pub(crate) fn link_on_the_way(abs: &Path, root: &Path) -> Option<PathBuf> {
    let rel = abs.strip_prefix(root).ok()?;
    let mut at = root.to_path_buf();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            break;
        }
        at.push(part);
        let meta = std::fs::symlink_metadata(&at).ok()?;
        if meta.file_type().is_symlink() {
            return Some(at);
        }
    }
    None
}

/// The directories of the workspace-relative path `rel` that do not exist, deepest first (the
/// workspace itself is not one of them).
pub(crate) fn missing_dirs(rel: &str, root: &Path) -> Vec<String> {
    new_dirs(
        rel,
        |dir| std::fs::symlink_metadata(root.join(dir)).is_ok(),
        root,
        root,
    )
}

/// The directories of `path` (relative to `base`, with `/`) up to the first that `existed`,
/// deepest first, as workspace-relative paths (those outside the workspace, or the workspace
/// itself, are not named).
pub(crate) fn new_dirs(
    path: &str,
    existed: impl Fn(&str) -> bool,
    root: &Path,
    base: &Path,
) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut dir = path;
    while let Some((parent, _)) = dir.rsplit_once('/') {
        if existed(parent) {
            break;
        }
        match relative(root, &base.join(parent)) {
            Some(rel) => dirs.push(rel),
            None => break,
        }
        dir = parent;
    }
    dirs
}

/// `abs` relative to `root`, with `/`: how the journal names a path; `None` outside `root`, or
/// for `root` itself.
pub(crate) fn relative(root: &Path, abs: &Path) -> Option<String> {
    let rel = abs.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Paths removed when this is dropped (those already moved away are gone anyway).
struct RemoveOnDrop(Vec<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The state of the file at `abs` (`None`: a directory) and, with `keep`, its content when it
/// is a regular file of at most `keep` bytes (else its state has no hash). Without `keep` the
/// content is hashed and dropped. The file is opened without following a final link, in a
/// directory checked to lie inside `root`.
pub(crate) fn read_state(
    abs: &Path,
    root: &Path,
    keep: Option<u64>,
) -> std::io::Result<(Option<FileState>, Option<Vec<u8>>)> {
    read_state_as(abs, root, keep, true)
}

/// [`read_state`]; without `retain`, a file within `keep` is hashed but its content not kept.
fn read_state_as(
    abs: &Path,
    root: &Path,
    keep: Option<u64>,
    retain: bool,
) -> std::io::Result<(Option<FileState>, Option<Vec<u8>>)> {
    // a path beyond a link is not a file of the workspace (the journal, as git, records links,
    // not what they lead to): a directory replaced by a link took its files away
    if link_on_the_way(abs, root).is_some() {
        return Ok((Some(FileState::Absent), None));
    }
    let meta = match std::fs::symlink_metadata(abs) {
        Ok(meta) => meta,
        // not there, or one of its directories is a file now
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok((Some(FileState::Absent), None))
        }
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        return Ok((None, None));
    }
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(abs)?;
        return Ok((
            Some(FileState::Symlink {
                target: target.to_string_lossy().into_owned(),
            }),
            None,
        ));
    }
    use crate::sys::fs::{openat, Mode, OFlags};
    let (dir, name) = crate::atomic_write::open_parent(abs)?;
    if !Confinement::at(root.to_path_buf()).contains_fd(&dir) {
        return Err(std::io::Error::other("outside the workspace"));
    }
    let fd = openat(
        &dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
    )?;
    let mut file = std::fs::File::from(fd);
    let meta = file.metadata()?;
    let mode = crate::sys::permission_bits(&meta);
    let size = meta.len();
    if keep.is_some_and(|limit| size > limit) {
        return Ok((
            Some(FileState::File {
                hash: None,
                size,
                mode,
            }),
            None,
        ));
    }
    if keep.is_none() || !retain {
        // hashed as it is read: the content is not held in memory
        let mut hasher = twox_hash::XxHash3_128::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut size = 0u64;
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            hasher.write(&buf[..n]);
            size += n as u64;
        }
        let hash = format!("{:032x}", hasher.finish_128());
        return Ok((
            Some(FileState::File {
                hash: Some(hash),
                size,
                mode,
            }),
            None,
        ));
    }
    let mut content = Vec::with_capacity(size as usize);
    file.read_to_end(&mut content)?;
    let state = FileState::File {
        hash: Some(hash_of(&content)),
        size: content.len() as u64,
        mode,
    };
    Ok((Some(state), Some(content)))
}
