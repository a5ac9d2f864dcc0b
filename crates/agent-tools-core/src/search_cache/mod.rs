//! Warm searches: what regexp_search and ast_grep_search learn about a workspace's files, kept
//! between calls inside the process and shared by every toolkit on the same workspace root.
//!
//! Per file (keyed by the path the walk found): its identity (device, inode, size, mtime and
//! ctime in nanoseconds), whether it holds a NUL byte or is UTF-8, its bytes from its second
//! read on while the memory budget allows, a trigram index (`trigrams::Bloom`), and
//! ast_grep_search's matches for its last few queries. What a call learns is recorded after it
//! by one idle-priority background thread (`defer`; background.rs), which also builds the
//! indexes. The walk runs on every call as a cold one does, so added, removed and renamed files,
//! `.gitignore` changes and swapped symlinks or directories are seen; what is kept for a file or
//! directory is reused only while its identity is unchanged: taken with `lstat`, or, for paths the
//! watcher trusts (`watch`), vouched for by the absence of inotify events. Results are
//! therefore byte-identical to a cold search.
//!
//! **Racily clean files.** A change in the same timestamp tick as the read that cached a file
//! could leave its identity unchanged (git's index has the same problem). Every write moves the
//! ctime, which user space cannot set back; so a file whose ctime lies less than `RACY_WINDOW_NS`
//! before the call that read it is not cached, and is read again next time. Coarse filesystem
//! clocks (one or two seconds) are covered by the window.
//!
//! **Memory.** Each workspace's cache is bounded by the budget of the context that calls
//! (`searchCacheBytes`, default 128 MiB, 0 = no cache for that context): everything held is
//! counted, and nothing is stored past the budget: a file that does not fit is kept without its
//! bytes (or not at all), and the background thread then evicts the least recently used bytes
//! (then listings and entries) down to three quarters of the budget, making room for the next
//! call. At most `MAX_WORKSPACES` caches live at once (the least recently used is dropped).
//! Parsed syntax trees are not kept: a tree-sitter tree takes 30–50 times its source
//! (`examples/syntax_tree_memory.rs`).
//!
//! Only sandboxed calls (through `invoke` or `toolkit.tools.*`) use the cache: what it holds was
//! read beneath the real workspace root.

mod background;
pub mod trigrams;
mod watch;

use std::any::Any;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::context::RunContext;
use crate::value::ArgValue;
use background::{background, Job, Room};
use trigrams::Bloom;
use watch::Watch;

/// The budget of a context that does not set `searchCacheBytes`.
pub const DEFAULT_BUDGET: usize = 128 << 20;
/// A file changed less than this long before the call that read it is not cached.
const RACY_WINDOW_NS: i128 = 2_000_000_000;
/// Workspaces with a cache at once.
const MAX_WORKSPACES: usize = 8;
/// What an entry costs besides its path, bytes and index (map slot, `Entry`, `Arc`).
const ENTRY_OVERHEAD: usize = 128;
/// Queries whose per-file results are kept for one file.
const MEMOS_PER_FILE: usize = 4;

/// A map keyed by paths as bytes: a walk spells each path one way, and a `Path` key would hash
/// and compare component by component, which dominated warm calls.
type PathMap<V> = std::collections::HashMap<OsString, V, foldhash::fast::RandomState>;

/// A file's identity: any change of content moves at least one field (see "racily clean").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl FileId {
    /// The identity `meta` (from `lstat` or `fstat`) gives.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }

    /// The identity of the open `file`, whose metadata is `meta`. On Windows, where std's
    /// metadata has neither the file index nor the change time, these come from the handle
    /// (`crate::sys::handle_identity`).
    pub fn of_open(file: &std::fs::File, meta: &std::fs::Metadata) -> FileId {
        #[cfg(unix)]
        {
            let _ = file;
            FileId::of(meta)
        }
        #[cfg(windows)]
        {
            use std::os::windows::io::AsHandle;
            FileId::of_handle(crate::sys::handle_identity(file.as_handle()), meta)
        }
    }

    /// `lstat` of `path` (`stat` when `follow`) with the identity of what is there: on Windows
    /// through a handle opened for its attributes (`crate::sys::stat_with_identity`).
    pub fn stat(path: &Path, follow: bool) -> std::io::Result<(std::fs::Metadata, FileId)> {
        #[cfg(unix)]
        {
            let meta = if follow {
                std::fs::metadata(path)?
            } else {
                std::fs::symlink_metadata(path)?
            };
            let id = FileId::of(&meta);
            Ok((meta, id))
        }
        #[cfg(windows)]
        {
            let (meta, identity) = crate::sys::stat_with_identity(path, follow)?;
            let id = FileId::of_handle(Ok(identity), &meta);
            Ok((meta, id))
        }
    }

    /// On Windows: volume serial number, file index, size, last write time and change time. A
    /// handle whose identity cannot be read gives a file changed just now: racily clean, so it
    /// is not cached, and equal to no identity kept before.
    #[cfg(windows)]
    fn of_handle(
        identity: std::io::Result<crate::sys::HandleIdentity>,
        meta: &std::fs::Metadata,
    ) -> FileId {
        match identity {
            Ok(identity) => FileId {
                dev: identity.volume,
                ino: identity.file_index,
                size: meta.len(),
                mtime_ns: identity.write_ns,
                ctime_ns: identity.change_ns,
            },
            Err(_) => {
                let (secs, nanos) = crate::sys::mtime(meta);
                FileId {
                    dev: 0,
                    ino: 0,
                    size: meta.len(),
                    mtime_ns: i128::from(secs) * 1_000_000_000 + i128::from(nanos),
                    ctime_ns: now_ns(),
                }
            }
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

/// Nanoseconds since the epoch, for the racy check.
pub fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// How a file's bytes decode, as the caller that read them found out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    pub has_nul: bool,
    pub utf8: bool,
}

impl Encoding {
    pub fn of(bytes: &[u8]) -> Encoding {
        Encoding {
            has_nul: memchr::memchr(0, bytes).is_some(),
            utf8: std::str::from_utf8(bytes).is_ok(),
        }
    }
}

/// What is known of one file with identity `id`. Immutable: changes replace the entry.
#[derive(Debug)]
pub struct Entry {
    pub id: FileId,
    pub has_nul: bool,
    pub utf8: bool,
    /// The file's bytes, unless the budget did not allow them or they were evicted.
    pub content: Option<Arc<Vec<u8>>>,
    /// Built in the background after the first read.
    pub index: Option<Arc<Bloom>>,
    last_used: AtomicU64,
}

impl Entry {
    fn cost(&self, path: impl AsRef<std::ffi::OsStr>) -> usize {
        ENTRY_OVERHEAD
            + path.as_ref().len()
            + self.content.as_ref().map_or(0, |c| c.len())
            + self.index.as_ref().map_or(0, |i| i.size())
    }

    fn with(&self, content: Option<Arc<Vec<u8>>>, index: Option<Arc<Bloom>>) -> Entry {
        Entry {
            id: self.id,
            has_nul: self.has_nul,
            utf8: self.utf8,
            content,
            index,
            last_used: AtomicU64::new(self.last_used.load(Ordering::Relaxed)),
        }
    }
}

/// What a directory held, as a cold walk reads it.
#[derive(Debug)]
pub struct Listing {
    id: FileId,
    pub entries: Vec<(std::ffi::OsString, EntryKind)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Directory,
    /// A symlink, socket, FIFO or device: never entered or read.
    Other,
}

impl Listing {
    /// What something that is no longer a directory lists (never cached).
    fn empty() -> Listing {
        Listing {
            id: FileId {
                dev: 0,
                ino: 0,
                size: 0,
                mtime_ns: 0,
                ctime_ns: 0,
            },
            entries: Vec::new(),
        }
    }

    fn cost(&self, path: impl AsRef<std::ffi::OsStr>) -> usize {
        ENTRY_OVERHEAD
            + path.as_ref().len()
            + self
                .entries
                .iter()
                .map(|(name, _)| name.len() + 32)
                .sum::<usize>()
    }
}

/// A query's results in one file with identity `FileId` (ast_grep_search's matches), what it
/// costs, and the query's text.
type Memo = (Arc<str>, FileId, Arc<dyn Any + Send + Sync>, usize);

/// The cache of one workspace root.
pub struct WorkspaceCache {
    /// Per file, the results of its last `MEMOS_PER_FILE` queries.
    memos: RwLock<PathMap<Vec<Memo>>>,
    entries: RwLock<PathMap<Arc<Entry>>>,
    /// Directory listings (regexp_search's walk), keyed like `entries`.
    listings: RwLock<PathMap<Arc<Listing>>>,
    /// Sum of the entries' costs.
    bytes: AtomicUsize,
    /// The budget of the latest call.
    budget: AtomicUsize,
    /// Counts calls; an entry's `last_used` is the call that last used it.
    clock: AtomicU64,
    /// Set when a call stored entries without an index / met a full budget (see `call_finished`).
    unindexed: std::sync::atomic::AtomicBool,
    /// What a call could not store: bytes or per-query matches (`Room::Contents`), or entries
    /// and listings (`Room::Everything`): what the next eviction may drop (`evict`).
    room_wanted: std::sync::atomic::AtomicU8,
    /// Which paths need no `lstat` (`watch`).
    watch: Watch,
    /// What calls learned, until the background thread (or the next call) records it (`defer`).
    pending: Mutex<Deferred>,
}

/// What a call learned that the cache records after it (`defer`), so that a call does no map
/// work of its own for it.
#[derive(Default)]
pub struct Deferred {
    /// Files the cache did not know.
    pub files: Vec<FirstRead>,
    /// Directories read afresh.
    pub listings: Vec<FreshListing>,
    /// Per-file results of a query (ast_grep_search's matches).
    pub matches: Vec<FoundMatches>,
}

impl Deferred {
    fn is_empty(&self) -> bool {
        self.files.is_empty() && self.listings.is_empty() && self.matches.is_empty()
    }
}

/// The results `query` gave in the file at `path` while it had identity `id` (see `memo`);
/// `cost` estimates their size.
pub struct FoundMatches {
    pub path: OsString,
    pub id: FileId,
    pub call_start_ns: i128,
    pub query: Arc<str>,
    pub results: Arc<dyn Any + Send + Sync>,
    pub cost: usize,
}

/// A file a call read that the cache did not know (`defer`).
pub struct FirstRead {
    pub path: OsString,
    pub id: FileId,
    pub call_start_ns: i128,
    pub encoding: Encoding,
}

/// A directory listing a call read afresh (`defer`).
pub struct FreshListing {
    path: OsString,
    listing: Arc<Listing>,
    call_start_ns: i128,
}

/// Why `lookup` found no fresh entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The cache knows nothing of the path.
    Unknown,
    /// The file changed (or is no longer a regular file).
    Stale,
}

/// Counters of one workspace's cache (tests and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub files: usize,
    pub indexed: usize,
    pub content_bytes: usize,
    pub bytes: usize,
    /// Paths (files and directories) a call takes as cached without an `lstat`.
    pub trusted: usize,
}

/// A workspace's real root and its cache.
type Workspace = (PathBuf, Arc<WorkspaceCache>);

/// The workspaces' caches, most recently used last.
static WORKSPACES: LazyLock<Mutex<Vec<Workspace>>> = LazyLock::new(|| Mutex::new(Vec::new()));

/// The message for a `searchCacheBytes` that is not a byte count.
pub const BUDGET_MESSAGE: &str =
    "searchCacheBytes must be a non-negative integer (bytes; 0 turns the search cache off)";

/// The budget a context asks for: `Ok(0)` for none, `Err` when the value is not a byte count.
pub fn budget_of(value: &ArgValue) -> Result<usize, &'static str> {
    match value {
        ArgValue::Undefined => Ok(DEFAULT_BUDGET),
        ArgValue::Number(n) if n.is_finite() && *n >= 0.0 && n.fract() == 0.0 => {
            Ok(if *n >= usize::MAX as f64 {
                usize::MAX
            } else {
                *n as usize
            })
        }
        _ => Err(BUDGET_MESSAGE),
    }
}

/// The cache a search call uses: `None` for unsandboxed calls, a zero budget, or a workspace
/// root that does not resolve. Starts the call's clock tick.
pub fn for_call(rc: &RunContext, budget: usize) -> Option<Arc<WorkspaceCache>> {
    if budget == 0 || rc.confinement.is_none() {
        return None;
    }
    let root = rc.ctx.real_root().ok()?.to_path_buf();
    let cache = {
        let mut workspaces = WORKSPACES.lock().ok()?;
        let found = workspaces.iter().position(|(r, _)| *r == root);
        let (root, cache) = match found {
            Some(i) => workspaces.remove(i),
            None => (root, Arc::new(WorkspaceCache::new())),
        };
        workspaces.push((root, Arc::clone(&cache)));
        if workspaces.len() > MAX_WORKSPACES {
            workspaces.remove(0);
        }
        cache
    };
    let previous = cache.budget.swap(budget, Ordering::Relaxed);
    cache.clock.fetch_add(1, Ordering::Relaxed);
    // What an earlier call left for the background thread and it has not recorded yet.
    cache.insert_pending();
    cache.watch.drain();
    if budget < previous && cache.bytes.load(Ordering::Relaxed) > budget {
        background().request(Job::Evict(Arc::downgrade(&cache), Room::Everything));
    }
    Some(cache)
}

/// The counters of the cache of a workspace whose real root is `root`, if it has one.
pub fn stats(root: &Path) -> Option<Stats> {
    let workspaces = WORKSPACES.lock().ok()?;
    let (_, cache) = workspaces.iter().find(|(r, _)| r == root)?;
    let entries = cache.entries.read().ok()?;
    Some(Stats {
        files: entries.len(),
        indexed: entries.values().filter(|e| e.index.is_some()).count(),
        content_bytes: entries
            .values()
            .map(|e| e.content.as_ref().map_or(0, |c| c.len()))
            .sum(),
        bytes: cache.bytes.load(Ordering::Relaxed),
        trusted: cache.watch.trusted_count(),
    })
}

/// Blocks until the background work queued so far (indexing, eviction) is done.
pub fn wait_idle() {
    background().wait_idle();
}

impl WorkspaceCache {
    fn new() -> WorkspaceCache {
        WorkspaceCache {
            entries: RwLock::new(PathMap::default()),
            listings: RwLock::new(PathMap::default()),
            memos: RwLock::new(PathMap::default()),
            bytes: AtomicUsize::new(0),
            budget: AtomicUsize::new(DEFAULT_BUDGET),
            clock: AtomicU64::new(0),
            unindexed: std::sync::atomic::AtomicBool::new(false),
            room_wanted: std::sync::atomic::AtomicU8::new(0),
            watch: Watch::new(),
            pending: Mutex::new(Deferred::default()),
        }
    }

    /// The entries of directory `dir`: the cached listing while the directory keeps its identity
    /// (trusted, or one `lstat`: creating, removing or renaming an entry moves its mtime and
    /// ctime), else read afresh and added to `fresh` (for `defer`). Something that is no longer a directory (swapped
    /// for a symlink since its parent was listed) lists nothing. The walk's root is followed
    /// when it is a symlink (`is_root`), as a cold walk follows it.
    pub fn listing(
        self: &Arc<Self>,
        dir: &Path,
        is_root: bool,
        call_start_ns: i128,
        fresh: &mut Vec<FreshListing>,
    ) -> std::io::Result<Arc<Listing>> {
        let cached = self
            .listings
            .read()
            .ok()
            .and_then(|l| l.get(dir.as_os_str()).cloned());
        if let Some(listing) = cached {
            if !is_root && self.watch.is_trusted(dir, listing.id) {
                return Ok(listing);
            }
            let (meta, id) = FileId::stat(dir, is_root)?;
            if !meta.is_dir() {
                return Ok(Arc::new(Listing::empty()));
            }
            if id == listing.id {
                return Ok(listing);
            }
            if is_root && (id.dev, id.ino) != (listing.id.dev, listing.id.ino) {
                // Another directory at the walk's root: nothing below it is known.
                self.watch.forget_below(dir);
            }
        }
        let Some(listing) = read_directory(dir, is_root)? else {
            return Ok(Arc::new(Listing::empty()));
        };
        let listing = Arc::new(listing);
        fresh.push(FreshListing {
            path: dir.as_os_str().to_owned(),
            listing: Arc::clone(&listing),
            call_start_ns,
        });
        Ok(listing)
    }

    /// Keeps a listing read afresh (not when racily clean, nor past the budget).
    fn insert_listing(&self, listings: &mut PathMap<Arc<Listing>>, fresh: FreshListing) {
        let FreshListing {
            path,
            listing,
            call_start_ns,
        } = fresh;
        if listing.id.ctime_ns + RACY_WINDOW_NS >= call_start_ns {
            return;
        }
        if let Some(old) = listings.remove(&path) {
            self.bytes.fetch_sub(old.cost(&path), Ordering::Relaxed);
        }
        let cost = listing.cost(&path);
        if self.bytes.load(Ordering::Relaxed) + cost <= self.budget.load(Ordering::Relaxed) {
            self.bytes.fetch_add(cost, Ordering::Relaxed);
            listings.insert(path, listing);
            self.watch.note_unchecked();
        } else {
            self.want_room(Room::Everything);
        }
    }

    /// The results `query` gave in the file at `path` while it had identity `id`, if kept.
    pub fn memo(&self, path: &Path, id: FileId, query: &str) -> Option<Arc<dyn Any + Send + Sync>> {
        let memos = self.memos.read().ok()?;
        let found = memos
            .get(path.as_os_str())?
            .iter()
            .find(|m| *m.0 == *query && m.1 == id)?;
        Some(Arc::clone(&found.2))
    }

    /// Keeps the results of `found` (not for racily clean files, nor past the budget).
    fn insert_memo(&self, memos: &mut PathMap<Vec<Memo>>, found: FoundMatches) {
        let FoundMatches {
            path,
            id,
            call_start_ns,
            query,
            results,
            cost,
        } = found;
        if id.ctime_ns + RACY_WINDOW_NS >= call_start_ns {
            return;
        }
        let cost = cost + ENTRY_OVERHEAD + path.len();
        let list = memos.entry(path).or_default();
        list.retain(|m| {
            let keep = m.1 == id && *m.0 != *query;
            if !keep {
                self.bytes.fetch_sub(m.3, Ordering::Relaxed);
            }
            keep
        });
        if list.len() >= MEMOS_PER_FILE {
            let oldest = list.remove(0);
            self.bytes.fetch_sub(oldest.3, Ordering::Relaxed);
        }
        if self.bytes.load(Ordering::Relaxed) + cost > self.budget.load(Ordering::Relaxed) {
            self.want_room(Room::Contents);
            return;
        }
        self.bytes.fetch_add(cost, Ordering::Relaxed);
        list.push((query, id, results, cost));
    }

    /// The entry of `path` if the file there still has the identity it was cached with (one
    /// `lstat` unless the path is trusted; no entry, no syscall).
    pub fn fresh(&self, path: &Path) -> Option<Arc<Entry>> {
        self.lookup(path).ok()
    }

    /// `fresh`, telling a stale entry (`Err(Lookup::Stale)`) from none (`Err(Lookup::Unknown)`).
    pub fn lookup(&self, path: &Path) -> Result<Arc<Entry>, Lookup> {
        let entry = self
            .entries
            .read()
            .ok()
            .and_then(|e| e.get(path.as_os_str()).cloned())
            .ok_or(Lookup::Unknown)?;
        if self.watch.is_trusted(path, entry.id) {
            return Ok(entry);
        }
        match FileId::stat(path, false) {
            Ok((meta, id)) if meta.is_file() && id == entry.id => Ok(entry),
            _ => Err(Lookup::Stale),
        }
    }

    /// The entry's bytes, marked as used by this call (eviction drops the least recently used).
    pub fn content_of(&self, entry: &Entry) -> Option<Arc<Vec<u8>>> {
        let content = entry.content.clone()?;
        entry
            .last_used
            .store(self.clock.load(Ordering::Relaxed), Ordering::Relaxed);
        Some(content)
    }

    /// Records a file a call just read (`read`: its identity from the descriptor it was read
    /// through) with its bytes, given what `lookup` found for it before: a file the cache did
    /// not know goes to `deferred`, recorded after the call (its bytes would be kept only from
    /// a second read on anyway); one it knew is stored at once.
    pub fn record_read(
        self: &Arc<Self>,
        read: FirstRead,
        bytes: Arc<Vec<u8>>,
        lookup: &Result<Arc<Entry>, Lookup>,
        deferred: &mut Deferred,
    ) {
        if matches!(lookup, Err(Lookup::Unknown)) {
            deferred.files.push(read);
        } else {
            let path = PathBuf::from(read.path);
            self.store(&path, read.id, read.call_start_ns, bytes, read.encoding);
        }
    }

    /// Records a file just read by a call that started at `call_start_ns`: its identity (from
    /// the descriptor it was read through) and bytes. Files changed within the racy window are
    /// forgotten instead; bytes are kept only while the budget allows.
    fn store(
        self: &Arc<Self>,
        path: &Path,
        id: FileId,
        call_start_ns: i128,
        bytes: Arc<Vec<u8>>,
        encoding: Encoding,
    ) {
        let Ok(mut entries) = self.entries.write() else {
            return;
        };
        self.insert_entry(&mut entries, path, id, call_start_ns, Some(bytes), encoding);
    }

    /// `store` with the map locked (`bytes`: `None` when they were not kept).
    fn insert_entry(
        &self,
        entries: &mut PathMap<Arc<Entry>>,
        path: &Path,
        id: FileId,
        call_start_ns: i128,
        bytes: Option<Arc<Vec<u8>>>,
        encoding: Encoding,
    ) {
        let previous = entries.remove(path.as_os_str());
        if let Some(old) = &previous {
            self.bytes.fetch_sub(old.cost(path), Ordering::Relaxed);
        }
        if id.ctime_ns + RACY_WINDOW_NS >= call_start_ns {
            return;
        }
        // Bytes are kept from a file's second read on: a first (cold) call then costs no more
        // memory than before, and files read once are never held.
        let seen_before = previous.is_some();
        let index = previous
            .filter(|old| old.id == id)
            .and_then(|old| old.index.clone());
        let needs_index = index.is_none();
        let mut entry = Entry {
            id,
            has_nul: encoding.has_nul,
            utf8: encoding.utf8,
            content: bytes.filter(|_| seen_before),
            index,
            last_used: AtomicU64::new(self.clock.load(Ordering::Relaxed)),
        };
        let budget = self.budget.load(Ordering::Relaxed);
        let used = self.bytes.load(Ordering::Relaxed);
        if used + entry.cost(path) > budget {
            let room = if entry.content.is_some() {
                Room::Contents
            } else {
                Room::Everything
            };
            entry.content = None;
            if used + entry.cost(path) > budget {
                self.want_room(Room::Everything);
                return;
            }
            self.want_room(room);
        }
        self.bytes.fetch_add(entry.cost(path), Ordering::Relaxed);
        entries.insert(path.as_os_str().to_owned(), Arc::new(entry));
        self.watch.note_unchecked();
        if needs_index {
            self.unindexed.store(true, Ordering::Relaxed);
        }
    }

    /// Hands over what a search thread learned: the background thread records it after the
    /// call (or the next call, when it starts first), so that a call does no map work for it.
    pub fn defer(&self, deferred: Deferred) {
        if deferred.is_empty() {
            return;
        }
        if let Ok(mut pending) = self.pending.lock() {
            pending.files.extend(deferred.files);
            pending.listings.extend(deferred.listings);
            pending.matches.extend(deferred.matches);
        }
    }

    /// Records what calls deferred.
    fn insert_pending(&self) {
        let Deferred {
            files,
            listings,
            matches,
        } = match self.pending.lock() {
            Ok(mut pending) => std::mem::take(&mut *pending),
            Err(_) => return,
        };
        if !listings.is_empty() {
            if let Ok(mut map) = self.listings.write() {
                for fresh in listings {
                    self.insert_listing(&mut map, fresh);
                }
            }
        }
        if !files.is_empty() {
            if let Ok(mut entries) = self.entries.write() {
                for read in files {
                    // A later call may have stored it already.
                    if !entries.contains_key(&read.path) {
                        let path = PathBuf::from(read.path);
                        self.insert_entry(
                            &mut entries,
                            &path,
                            read.id,
                            read.call_start_ns,
                            None,
                            read.encoding,
                        );
                    }
                }
            }
        }
        if !matches.is_empty() {
            if let Ok(mut memos) = self.memos.write() {
                for found in matches {
                    self.insert_memo(&mut memos, found);
                }
            }
        }
    }
}

/// Reads a directory through one descriptor: its identity (before its entries, so a change while
/// reading moves it past what is recorded) and its entries. `None` when it is no longer a
/// directory (a final symlink is followed only for the walk's root).
fn read_directory(dir: &Path, is_root: bool) -> std::io::Result<Option<Listing>> {
    use crate::sys::fs::{FileType, Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    if !is_root {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = match crate::sys::fs::open(dir, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(crate::sys::Errno::LOOP | crate::sys::Errno::NOTDIR) if !is_root => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let file = std::fs::File::from(fd);
    let id = FileId::of_open(&file, &file.metadata()?);
    // `Dir::new` reads through this descriptor (`Dir::read_from` would open the directory again).
    let mut dir = crate::sys::fs::Dir::new(crate::sys::OwnedFd::from(file))?;
    let entries = crate::sandbox::read_entries(&mut dir, |_| true)?
        .into_iter()
        .map(|(name, file_type)| {
            let kind = match file_type {
                FileType::RegularFile => EntryKind::File,
                FileType::Directory => EntryKind::Directory,
                _ => EntryKind::Other,
            };
            (crate::sys::name_from_vec(name), kind)
        })
        .collect();
    Ok(Some(Listing { id, entries }))
}

#[cfg(test)]
mod tests;
