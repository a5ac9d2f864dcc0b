//! The undo journal (`createAgentToolkit(ctx, { checkpoints })`): every call that changes the
//! workspace records one checkpoint, the state of each file it touched from before the call, so
//! that the call and every later one can be undone exactly.
//!
//! On disk, outside the workspace (by default in the user's state directory, keyed by the
//! workspace's real path: [`default_dir`]):
//!
//! ```text
//! <dir>/workspace              the workspace's real path (for whoever browses the directory)
//! <dir>/lock                   held (exclusive) while a checkpoint is added, pruned or restored
//! <dir>/checkpoints/cp-NNNNNNNN.json   one per checkpoint, written whole then renamed into place
//! <dir>/index.json             numbers, sizes and contents of the checkpoints (rebuilt when stale
//!                              or cut short)
//! <dir>/objects/xx/yyyy…       file contents by their hash (XXH3-128), shared between checkpoints
//! ```
//!
//! A checkpoint file appears only after every content it names was written, and each checkpoint
//! and content is written to a temporary name and renamed, so a process killed at any moment
//! leaves the journal readable: a checkpoint is whole or absent (a content nobody names is removed by the next
//! pruning). Another process on the same workspace sees the same journal; the lock orders their
//! writes.

mod capture;
mod restore;
#[cfg(test)]
mod tests;

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
#[cfg(feature = "typegen")]
use ts_rs::TS;

pub use capture::{commit_captured, CallRecord, Captured};
pub(crate) use capture::{link_on_the_way, new_dirs, relative};
pub use restore::RestoreOutcome;

use crate::error::{ErrorClass, ErrorCode, ToolError};

/// The error class of the journal's own operations (list, diff, restore).
pub const ERROR_CLASS: ErrorClass = ErrorClass("CheckpointError");

/// The error of a journal operation (`toolkit.checkpoints`, checkpoint_list, checkpoint_restore)
/// when the toolkit keeps no journal.
pub fn no_journal() -> ToolError {
    ERROR_CLASS.invalid(
        "the toolkit keeps no undo journal: enable it with createAgentToolkit(context, { checkpoints: true })",
    )
}

/// Default bound of the bytes of file contents the journal keeps.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// Default bound of the number of checkpoints the journal keeps.
pub const DEFAULT_MAX_CHECKPOINTS: usize = 200;
/// The journal's format; a checkpoint of another version is not read.
const FORMAT: u32 = 1;

/// The journal's settings: where it lives and how much it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalOptions {
    /// The journal's directory; `None`: [`default_dir`] of the workspace.
    pub dir: Option<PathBuf>,
    /// The user's state directory [`default_dir`] places journals in; `None`: [`state_home`]
    /// of this process's environment.
    pub state_home: Option<PathBuf>,
    pub max_bytes: u64,
    pub max_checkpoints: usize,
}

impl Default for JournalOptions {
    fn default() -> Self {
        JournalOptions {
            dir: None,
            state_home: None,
            max_bytes: DEFAULT_MAX_BYTES,
            max_checkpoints: DEFAULT_MAX_CHECKPOINTS,
        }
    }
}

/// A file's state at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FileState {
    Absent,
    /// A regular file: its content's hash (`None`: larger than the journal keeps, so it cannot
    /// be put back), size and permission bits.
    File {
        hash: Option<String>,
        size: u64,
        mode: u32,
    },
    Symlink {
        target: String,
    },
}

/// How a call changed one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typegen", derive(TS), ts(rename = "CheckpointChange"))]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Created,
    Modified,
    Deleted,
}

/// One file a checkpoint recorded: its workspace-relative path (with `/`), the change, and its
/// states before and after the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub change: Change,
    pub before: FileState,
    pub after: FileState,
}

/// One checkpoint as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format: u32,
    pub seq: u64,
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub time: u64,
    pub tool: String,
    pub files: Vec<FileRecord>,
    /// False when a state before the call was not kept (a file over the byte bound).
    pub restorable: bool,
    /// Pruned: only the record of what the call changed is left.
    #[serde(default)]
    pub pruned: bool,
    /// The bytes of file contents this checkpoint holds (counted per checkpoint, shared contents
    /// counted in each).
    #[serde(default)]
    pub bytes: u64,
    /// For a restore: the checkpoint it went back to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<String>,
    /// The directories the call created (workspace-relative, with `/`), removed again by a
    /// restore when nothing is left in them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dirs: Vec<String>,
}

/// A checkpoint as the index has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct IndexEntry {
    seq: u64,
    bytes: u64,
    pruned: bool,
    /// The contents its states from before name.
    hashes: Vec<String>,
}

impl IndexEntry {
    fn of(cp: &Checkpoint) -> IndexEntry {
        let mut hashes: Vec<String> = cp
            .files
            .iter()
            .filter_map(|f| match &f.before {
                FileState::File { hash: Some(h), .. } if !cp.pruned => Some(h.clone()),
                _ => None,
            })
            .collect();
        hashes.sort();
        hashes.dedup();
        IndexEntry {
            seq: cp.seq,
            bytes: cp.bytes,
            pruned: cp.pruned,
            hashes,
        }
    }
}

/// The contents a new checkpoint names: copied into memory, or kept by a hard link in
/// `incoming/` (the link, the hash, the size).
#[derive(Debug, Default)]
pub struct Contents {
    pub copied: Vec<Vec<u8>>,
    pub linked: Vec<(PathBuf, String, u64)>,
}

/// One file in a listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct CheckpointFile {
    pub path: String,
    pub change: Change,
}

/// A checkpoint as `toolkit.checkpoints.list()` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct CheckpointSummary {
    pub id: String,
    pub tool: String,
    /// ISO 8601, UTC.
    pub time: String,
    pub files: Vec<CheckpointFile>,
    pub restorable: bool,
    pub pruned: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub restored: Option<String>,
}

impl Checkpoint {
    pub fn summary(&self) -> CheckpointSummary {
        let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(self.time);
        CheckpointSummary {
            id: self.id.clone(),
            tool: self.tool.clone(),
            time: humantime::format_rfc3339_millis(time).to_string(),
            files: self
                .files
                .iter()
                .map(|f| CheckpointFile {
                    path: f.path.clone(),
                    change: f.change,
                })
                .collect(),
            restorable: self.restorable && !self.pruned,
            pruned: self.pruned,
            restored: self.restored.clone(),
        }
    }
}

/// The platform's directory for state that should outlive a process: `XDG_STATE_HOME` (or
/// `~/.local/state`) on Linux and other Unix systems, `~/Library/Application Support` on macOS,
/// `%LOCALAPPDATA%` on Windows.
pub fn state_home() -> Option<PathBuf> {
    state_home_in(|name| std::env::var_os(name))
}

/// [`state_home`] from the environment variables `var` gives (a JavaScript runtime's
/// `process.env`, which Bun does not mirror into the C environment when a program changes it).
pub fn state_home_in(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if cfg!(windows) {
        return var("LOCALAPPDATA").and_then(absolute);
    }
    let home = var("HOME").and_then(absolute);
    if cfg!(target_os = "macos") {
        return home.map(|h| h.join("Library").join("Application Support"));
    }
    var("XDG_STATE_HOME")
        .and_then(absolute)
        .or_else(|| home.map(|h| h.join(".local").join("state")))
}

/// The journal directory of a workspace by default:
/// `<state home>/agent-tools-native/checkpoints/<name>-<hash of its real path>`.
pub fn default_dir(real_root: &Path) -> Option<PathBuf> {
    default_dir_in(real_root, state_home()?)
}

/// [`default_dir`] in the state directory `state_home`.
pub fn default_dir_in(real_root: &Path, state_home: PathBuf) -> Option<PathBuf> {
    let key = twox_hash::XxHash3_64::oneshot(real_root.to_string_lossy().as_bytes());
    let name: String = real_root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    Some(
        state_home
            .join("agent-tools-native")
            .join("checkpoints")
            .join(format!("{name}-{key:016x}")),
    )
}

/// The journal of one context: its settings; the directory is found per workspace.
#[derive(Debug)]
pub struct Journal {
    pub options: JournalOptions,
    /// The store opened last: every journalled call asks for it, and opening resolves paths
    /// and creates directories.
    opened: std::sync::Mutex<Option<Store>>,
    /// What the context's background processes change between calls: the state of
    /// `crate::command_journal`, which builds on this module (so it is kept here unnamed).
    pub background: std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>,
    /// The paths of the checkpoints this journal's stores wrote since it was last emptied.
    recorded: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// The index this journal's stores wrote last, with the stamp of its file.
    index: std::sync::Arc<std::sync::Mutex<Option<CachedIndex>>>,
}

/// The index as this process wrote it, valid while `index.json` still has `stamp` (every
/// writer replaces the file by rename, so another process's write changes it).
#[derive(Debug)]
struct CachedIndex {
    dir: PathBuf,
    stamp: FileStamp,
    entries: Vec<IndexEntry>,
}

/// What tells one version of a file from another: its identity, size and times.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    identity: (u64, u64),
    size: u64,
    modified: Option<std::time::SystemTime>,
    changed: i64,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        let meta = fs::metadata(path).ok()?;
        #[cfg(unix)]
        let (identity, changed) = {
            use std::os::unix::fs::MetadataExt;
            (
                (meta.dev(), meta.ino()),
                meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
            )
        };
        // Windows: the size and the last write (its creation time may be tunnelled from the
        // file the rename replaced); the next record's absence is checked as well
        #[cfg(not(unix))]
        let (identity, changed) = ((0, 0), 0);
        Some(FileStamp {
            identity,
            size: meta.len(),
            modified: meta.modified().ok(),
            changed,
        })
    }
}

impl Journal {
    pub fn new(options: JournalOptions) -> Journal {
        Journal {
            options,
            opened: std::sync::Mutex::new(None),
            background: Default::default(),
            recorded: Default::default(),
            index: Default::default(),
        }
    }

    /// The journal's store for the workspace at `real_root`, its directories created. A
    /// directory inside the workspace is refused: the tools and searches would see it. The
    /// store opened last is reused while its workspace is the same and its directory is there.
    pub fn store(&self, real_root: &Path) -> Result<Store, ToolError> {
        let mut opened = self.opened.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(store) = opened.as_ref() {
            if store.root == real_root && store.dir.join("checkpoints").is_dir() {
                return Ok(store.clone());
            }
        }
        let store = self.open(real_root)?;
        *opened = Some(store.clone());
        Ok(store)
    }

    fn open(&self, real_root: &Path) -> Result<Store, ToolError> {
        let dir = match &self.options.dir {
            Some(dir) => crate::paths::absolute(&dir.to_string_lossy()).into(),
            None => match &self.options.state_home {
                Some(home) => default_dir_in(real_root, home.clone()),
                None => default_dir(real_root),
            }
            .ok_or_else(|| {
                ERROR_CLASS.internal(
                    "no directory for the journal: set checkpoints.dir (HOME, XDG_STATE_HOME or LOCALAPPDATA is not set)",
                )
            })?,
        };
        let io_error = |e: io::Error, what: &Path| {
            ERROR_CLASS.internal(format!("journal {}: {e}", what.display()))
        };
        // checked before anything is created: a journal inside the workspace is never made
        let real_dir = crate::sandbox::real_path(&dir).map_err(|e| io_error(e, &dir))?;
        if crate::sandbox::is_within(real_root, &real_dir) {
            return Err(ERROR_CLASS.invalid(format!(
                "the journal's directory must lie outside the workspace: {}",
                dir.display()
            )));
        }
        for sub in ["checkpoints", "objects"] {
            fs::create_dir_all(real_dir.join(sub)).map_err(|e| io_error(e, &dir))?;
        }
        let marker = real_dir.join("workspace");
        let root_text = real_root.to_string_lossy();
        if fs::read_to_string(&marker).ok().as_deref() != Some(&*root_text) {
            write_whole(&marker, root_text.as_bytes()).map_err(|e| io_error(e, &marker))?;
        }
        let store = Store {
            dir: real_dir,
            root: real_root.to_path_buf(),
            max_bytes: self.options.max_bytes,
            max_checkpoints: self.options.max_checkpoints,
            recorded: self.recorded.clone(),
            index: self.index.clone(),
        };
        // what a process killed between taking a content and committing it left behind
        store.clean_incoming();
        Ok(store)
    }
}

/// The journal of one workspace, opened.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// The workspace's real path.
    root: PathBuf,
    max_bytes: u64,
    max_checkpoints: usize,
    /// The paths of every checkpoint written through this store (and the other stores of its
    /// journal), until [`Store::take_recorded`].
    recorded: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// The index last written through the journal's stores (see [`Store::load_index`]).
    index: std::sync::Arc<std::sync::Mutex<Option<CachedIndex>>>,
}

/// A held lock of the journal; released when dropped.
struct Lock(#[allow(dead_code)] fs::File);

impl Store {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The paths of the checkpoints written since the last call, taken out.
    pub fn take_recorded(&self) -> Vec<String> {
        std::mem::take(&mut *self.recorded.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn internal(&self, e: io::Error, what: &str) -> ToolError {
        ERROR_CLASS.internal(format!("journal {what} ({}): {e}", self.dir.display()))
    }

    fn lock(&self, exclusive: bool) -> Result<Lock, ToolError> {
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"))
            .map_err(|e| self.internal(e, "lock"))?;
        if exclusive {
            file.lock()
        } else {
            file.lock_shared()
        }
        .map_err(|e| self.internal(e, "lock"))?;
        Ok(Lock(file))
    }

    fn checkpoint_path(&self, seq: u64) -> PathBuf {
        self.dir
            .join("checkpoints")
            .join(format!("{}.json", checkpoint_id(seq)))
    }

    pub(crate) fn object_path(&self, hash: &str) -> PathBuf {
        let (head, tail) = hash.split_at(2.min(hash.len()));
        self.dir.join("objects").join(head).join(tail)
    }

    /// Every checkpoint, oldest first. A file that is not a checkpoint of this format (a
    /// temporary file, a newer format) is passed over.
    pub fn load_all(&self) -> Result<Vec<Checkpoint>, ToolError> {
        Ok(self.load_all_checked()?.0)
    }

    /// [`Store::load_all`], with the numbers of the records that could not be read (changed by
    /// hand, cut short, of another format or numbered other than their file).
    pub(crate) fn load_all_checked(&self) -> Result<(Vec<Checkpoint>, Vec<u64>), ToolError> {
        let seqs = self.seqs_on_disk()?;
        let mut all = Vec::with_capacity(seqs.len());
        let mut unreadable = Vec::new();
        for seq in seqs {
            let Ok(text) = fs::read(self.checkpoint_path(seq)) else {
                continue; // pruned by another process meanwhile
            };
            match serde_json::from_slice::<Checkpoint>(&text) {
                Ok(cp) if cp.format == FORMAT && cp.seq == seq && cp.id == checkpoint_id(seq) => {
                    all.push(cp)
                }
                _ => unreadable.push(seq),
            }
        }
        Ok((all, unreadable))
    }

    /// The numbers of the checkpoint files, in order (their names only: nothing is parsed).
    fn seqs_on_disk(&self) -> Result<Vec<u64>, ToolError> {
        let mut seqs: Vec<u64> = Vec::new();
        let entries =
            fs::read_dir(self.dir.join("checkpoints")).map_err(|e| self.internal(e, "list"))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if let Some(seq) = name
                .strip_prefix("cp-")
                .and_then(|n| n.strip_suffix(".json"))
                .and_then(|n| n.parse::<u64>().ok())
            {
                seqs.push(seq);
            }
        }
        seqs.sort_unstable();
        Ok(seqs)
    }

    /// The index of the checkpoints (what adding and pruning need: number, bytes, whether
    /// pruned, the contents named), kept in `index.json` beside them so that a new checkpoint
    /// does not read every record. Rebuilt from the records, with the unnamed contents removed,
    /// when it does not match the files (missing, written by a process killed in between,
    /// unreadable). Called with the lock held.
    ///
    /// When `index.json` is still the file this process wrote last, the index it wrote is used
    /// without reading the file or the directory: it matched the records then, and a process
    /// killed since after adding a checkpoint but before writing the index left that checkpoint's
    /// record behind, which is looked for.
    fn load_index(&self) -> Result<Vec<IndexEntry>, ToolError> {
        let index_path = self.dir.join("index.json");
        let cached = self.index.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(cached) = cached {
            let next = cached.entries.last().map_or(1, |e| e.seq + 1);
            if cached.dir == self.dir
                && FileStamp::of(&index_path).as_ref() == Some(&cached.stamp)
                && fs::symlink_metadata(self.checkpoint_path(next)).is_err()
            {
                return Ok(cached.entries);
            }
        }
        let seqs = self.seqs_on_disk()?;
        let kept: Option<Vec<IndexEntry>> = fs::read(self.dir.join("index.json"))
            .ok()
            .and_then(|text| serde_json::from_slice(&text).ok());
        if let Some(index) = kept {
            if index.iter().map(|e| e.seq).eq(seqs.iter().copied()) {
                return Ok(index);
            }
        }
        let all = self.load_all()?;
        self.collect_garbage(&all)?;
        self.clean_incoming();
        Ok(all.iter().map(IndexEntry::of).collect())
    }

    /// Writes the index, and keeps it for the next [`Store::load_index`] of this process. It is
    /// rewritten in place, not replaced: a new file is what costs most on a busy file system,
    /// and a write cut short leaves a prefix of the JSON, which does not parse, so the next
    /// load rebuilds the index from the records.
    fn write_index(&self, index: Vec<IndexEntry>) -> Result<(), ToolError> {
        let json = serde_json::to_vec(&index).map_err(|e| ERROR_CLASS.internal(e.to_string()))?;
        let path = self.dir.join("index.json");
        fs::write(&path, &json).map_err(|e| self.internal(e, "write"))?;
        if let Some(stamp) = FileStamp::of(&path) {
            *self.index.lock().unwrap_or_else(|e| e.into_inner()) = Some(CachedIndex {
                dir: self.dir.clone(),
                stamp,
                entries: index,
            });
        }
        Ok(())
    }

    /// The listing, oldest first.
    pub fn list(&self) -> Result<Vec<CheckpointSummary>, ToolError> {
        let _lock = self.lock(false)?;
        Ok(self.load_all()?.iter().map(Checkpoint::summary).collect())
    }

    /// Adds a checkpoint of `tool` with `files` and the `contents` their states name, then
    /// prunes. Returns its id. `locked`: the caller holds the lock already.
    pub fn commit(
        &self,
        tool: &str,
        files: Vec<FileRecord>,
        dirs: Vec<String>,
        contents: Contents,
        restored: Option<String>,
        locked: bool,
    ) -> Result<String, ToolError> {
        let Contents { copied, linked } = contents;
        let _lock = if locked { None } else { Some(self.lock(true)?) };
        // the index first (rebuilding it removes the contents no checkpoint names), then the
        // contents, under the lock: a pruning elsewhere removes only contents that no written
        // checkpoint names
        let mut index = self.load_index()?;
        for content in &copied {
            self.put_object(content)?;
        }
        for (link, hash, _) in &linked {
            let path = self.object_path(hash);
            if !path.exists() {
                let parent = path.parent().unwrap_or(&self.dir);
                fs::create_dir_all(parent).map_err(|e| self.internal(e, "store"))?;
                fs::rename(link, &path).map_err(|e| self.internal(e, "store"))?;
            }
        }
        let bytes = copied.iter().map(|c| c.len() as u64).sum::<u64>()
            + linked.iter().map(|(_, _, size)| size).sum::<u64>();
        let seq = index.last().map_or(1, |e| e.seq + 1);
        let id = checkpoint_id(seq);
        // restorable while every state from before is kept (a file over the bound is not)
        let restorable = !files
            .iter()
            .any(|f| matches!(f.before, FileState::File { hash: None, .. }));
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        self.recorded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(files.iter().map(|f| f.path.clone()));
        let cp = Checkpoint {
            format: FORMAT,
            seq,
            id: id.clone(),
            time,
            tool: tool.to_string(),
            files,
            restorable,
            pruned: false,
            bytes,
            restored,
            dirs,
        };
        self.write_checkpoint(&cp)?;
        index.push(IndexEntry::of(&cp));
        self.prune(&mut index)?;
        self.write_index(index)?;
        Ok(id)
    }

    fn write_checkpoint(&self, cp: &Checkpoint) -> Result<(), ToolError> {
        let json = serde_json::to_vec(cp).map_err(|e| ERROR_CLASS.internal(e.to_string()))?;
        write_whole(&self.checkpoint_path(cp.seq), &json).map_err(|e| self.internal(e, "write"))
    }

    /// Keeps at most `max_checkpoints` whole checkpoints holding at most `max_bytes`: once
    /// either is passed, the oldest become records without contents (`pruned`) until both are
    /// back under nine tenths of their bound (so pruning comes in batches, not with every
    /// call), and as many such records are kept again; the contents only the pruned ones named
    /// are removed. Called with the lock held.
    fn prune(&self, index: &mut Vec<IndexEntry>) -> Result<(), ToolError> {
        let mut total: u64 = index.iter().filter(|e| !e.pruned).map(|e| e.bytes).sum();
        let mut count = index.iter().filter(|e| !e.pruned).count();
        if count <= self.max_checkpoints && total <= self.max_bytes {
            return Ok(());
        }
        let keep_count = (self.max_checkpoints * 9 / 10).max(1);
        let keep_bytes = self.max_bytes / 10 * 9;
        let mut freed: Vec<String> = Vec::new();
        for entry in index.iter_mut().filter(|e| !e.pruned) {
            if count <= keep_count && total <= keep_bytes {
                break;
            }
            total -= entry.bytes;
            count -= 1;
            if let Ok(text) = fs::read(self.checkpoint_path(entry.seq)) {
                if let Ok(mut cp) = serde_json::from_slice::<Checkpoint>(&text) {
                    cp.pruned = true;
                    cp.bytes = 0;
                    for f in &mut cp.files {
                        f.before = FileState::Absent;
                        f.after = FileState::Absent;
                    }
                    self.write_checkpoint(&cp)?;
                }
            }
            entry.pruned = true;
            entry.bytes = 0;
            freed.append(&mut entry.hashes);
        }
        // records of pruned checkpoints: as many as whole ones may be kept
        let tombstones = index.iter().filter(|e| e.pruned).count();
        if tombstones > self.max_checkpoints {
            let mut over = tombstones - self.max_checkpoints;
            index.retain(|e| {
                if over > 0 && e.pruned {
                    over -= 1;
                    let _ = fs::remove_file(self.checkpoint_path(e.seq));
                    false
                } else {
                    true
                }
            });
        }
        if !freed.is_empty() {
            let named: std::collections::HashSet<&String> =
                index.iter().flat_map(|e| e.hashes.iter()).collect();
            for hash in freed.iter().filter(|h| !named.contains(h)) {
                let _ = fs::remove_file(self.object_path(hash));
            }
        }
        Ok(())
    }

    /// Removes every stored content that no whole checkpoint names.
    fn collect_garbage(&self, all: &[Checkpoint]) -> Result<(), ToolError> {
        let mut named = std::collections::HashSet::new();
        for cp in all.iter().filter(|c| !c.pruned) {
            for f in &cp.files {
                if let FileState::File { hash: Some(h), .. } = &f.before {
                    named.insert(h.clone());
                }
            }
        }
        let objects = self.dir.join("objects");
        let Ok(heads) = fs::read_dir(&objects) else {
            return Ok(());
        };
        for head in heads.flatten() {
            let head_name = head.file_name().to_string_lossy().into_owned();
            let Ok(tails) = fs::read_dir(head.path()) else {
                continue;
            };
            for tail in tails.flatten() {
                let hash = format!("{head_name}{}", tail.file_name().to_string_lossy());
                if !named.contains(&hash) {
                    let _ = fs::remove_file(tail.path());
                }
            }
        }
        Ok(())
    }

    /// A hard link to the file at `abs` in the journal's `incoming/`, when the file has no
    /// other link and lies on the journal's file system (Unix): its inode then keeps the old
    /// content once the tool has replaced the file by rename. `None`: copy the content instead.
    pub(crate) fn link_incoming(&self, abs: &Path) -> Option<PathBuf> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if fs::symlink_metadata(abs).ok()?.nlink() != 1 {
                return None;
            }
            let incoming = self.dir.join("incoming");
            fs::create_dir_all(&incoming).ok()?;
            let link = incoming.join(uuid::Uuid::new_v4().simple().to_string());
            fs::hard_link(abs, &link).ok()?;
            Some(link)
        }
        #[cfg(not(unix))]
        {
            let _ = abs;
            None
        }
    }

    /// Removes what killed processes left in `incoming/` (older than an hour: a call under way
    /// elsewhere keeps its links a moment only).
    fn clean_incoming(&self) {
        let Ok(entries) = fs::read_dir(self.dir.join("incoming")) else {
            return;
        };
        let hour = std::time::Duration::from_secs(3600);
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > hour);
            if old {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Stores `bytes` under their hash (unless already there) and returns the hash.
    pub(crate) fn put_object(&self, bytes: &[u8]) -> Result<String, ToolError> {
        let hash = hash_of(bytes);
        let path = self.object_path(&hash);
        if !path.exists() {
            let parent = path.parent().unwrap_or(&self.dir);
            fs::create_dir_all(parent).map_err(|e| self.internal(e, "store"))?;
            write_whole(&path, bytes).map_err(|e| self.internal(e, "store"))?;
        }
        Ok(hash)
    }

    /// The stored content of `hash`, checked against it: a content changed in the journal is
    /// not given back.
    pub(crate) fn get_object(&self, hash: &str) -> Result<Vec<u8>, ToolError> {
        if hash.len() != 32 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(corrupt(format!("not a content hash: {hash:?}")));
        }
        let mut bytes = Vec::new();
        fs::File::open(self.object_path(hash))
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| corrupt(format!("content {hash} is missing: {e}")))?;
        if hash_of(&bytes) != hash {
            return Err(corrupt(format!("content {hash} was changed")));
        }
        Ok(bytes)
    }
}

/// The id of checkpoint number `seq` (`cp-00000042`), which also names its record's file.
pub(crate) fn checkpoint_id(seq: u64) -> String {
    format!("cp-{seq:08}")
}

/// A journal that does not hold what it should (a content missing or changed, a record that
/// cannot be read).
pub(crate) fn corrupt(text: String) -> ToolError {
    ERROR_CLASS.coded(ErrorCode::CheckpointCorrupt, text)
}

/// The content hash the journal names contents by (XXH3, 128 bits, lowercase hex).
pub fn hash_of(bytes: &[u8]) -> String {
    format!("{:032x}", twox_hash::XxHash3_128::oneshot(bytes))
}

/// Writes `path` whole or not at all: a temporary file beside it, then a rename.
fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        drop(file);
        crate::test_hooks::journal_write_pause();
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}
