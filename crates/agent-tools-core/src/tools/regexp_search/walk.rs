//! The parallel walk of regexp_search, with the result of upstream's sequential one.
//!
//! Upstream walks depth-first, each directory's entries sorted by `localeCompare`, and stops as
//! soon as `max_results` items exist; which files were searched, counted and skipped depends on
//! that order. Here the `ignore` crate walks in parallel (hidden files included, no ignore
//! files, symlinks never followed) and every file outcome is recorded with its path. The
//! sequential order is the lexicographic order of the paths' components under the collation
//! (`traversal_cmp`), so sorting the records afterwards replays upstream's walk exactly.
//!
//! Early stop: once the files seen so far hold `max_results` matches, the file where the
//! replayed walk would stop is known (the *cutoff*); files and directories after it in walk
//! order cannot change the result and are skipped. The cutoff only moves earlier.

use crate::sys::{AsFd, OwnedFd};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use crate::sys::fs::{Mode, OFlags};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use super::matcher::JsRegex;
use super::scan::{search_text, Hit};
use crate::collation::locale_compare_total;
use crate::error::node_io_message;
use crate::glob::Glob;
use crate::sandbox::Confinement;
use crate::search_cache::trigrams::Requirement;
use crate::search_cache::{Deferred, Encoding, EntryKind, FileId, FirstRead, WorkspaceCache};
use crate::thread_priority::{
    run_on_threads, sort_by_yielding, PeriodicYield, VisitorPriority, WalkerPriorities,
};
use crate::tools::read_sized;

/// Directory names never entered (files with these names are searched).
const SKIPPED_DIRECTORIES: [&str; 6] =
    [".git", "node_modules", "dist", "build", "target", ".vscode"];

/// What a search needs besides the walk root.
pub struct SearchSpec<'a> {
    pub regex: &'a JsRegex,
    pub prefilter: Option<&'a regex::Regex>,
    pub include: Vec<Glob>,
    pub exclude: Vec<Glob>,
    pub max_results: usize,
    pub max_file_size: u64,
    pub deadline: Instant,
    /// The walk root, opened (and, when confined, verified) by the caller. Files are opened
    /// relative to it (with `openat2`, Linux only); failures are checked against it.
    pub root_dir: &'a OwnedFd,
    /// When set, every file read must lie inside it.
    pub confinement: Option<&'a Confinement>,
    /// The workspace's search cache, when this call uses one.
    pub cache: Option<&'a Arc<WorkspaceCache>>,
    /// What a file must contain to hold a match (checked against cached indexes).
    pub requirement: &'a Requirement,
    /// When the call started (the search cache's racy check).
    pub call_start_ns: i128,
}

/// The files with matches, in walk order, and the counters of upstream's walk.
#[derive(Debug, Default)]
pub struct SearchResult {
    pub files: Vec<(String, Vec<Hit>)>,
    pub truncated: bool,
    pub scanned_files: u64,
    pub skipped_binary: u64,
    pub skipped_size: u64,
}

#[derive(Debug, PartialEq)]
pub enum SearchError {
    Timeout,
    /// An I/O failure upstream's walk would have met (message in Node's wording).
    Io(String),
}

/// The outcome for one path, in walk order.
enum Outcome {
    Searched(Vec<Hit>),
    Binary,
    TooLarge,
    Failed(String),
}

struct Record {
    rel: String,
    outcome: Outcome,
}

/// Upstream's walk order of two root-relative paths: component by component, each compared
/// with `localeCompare` (ties by code units), a directory's contents right after its name.
pub fn traversal_cmp(a: &str, b: &str) -> Ordering {
    let mut left = a.split('/');
    let mut right = b.split('/');
    loop {
        match (left.next(), right.next()) {
            (Some(x), Some(y)) => match locale_compare_total(x, y) {
                Ordering::Equal => continue,
                other => return other,
            },
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
        }
    }
}

/// A root-relative path ordered by `traversal_cmp`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WalkKey(String);

impl Ord for WalkKey {
    fn cmp(&self, other: &Self) -> Ordering {
        traversal_cmp(&self.0, &other.0)
    }
}

impl PartialOrd for WalkKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// State shared by the walker threads and the directory filter.
struct Shared {
    root: PathBuf,
    exclude: Vec<Glob>,
    max_results: usize,
    deadline: Instant,
    timed_out: AtomicBool,
    /// Match counts of the files with matches at or before the cutoff.
    matching: Mutex<BTreeMap<WalkKey, usize>>,
    has_cutoff: AtomicBool,
    cutoff: RwLock<Option<WalkKey>>,
    records: Mutex<Vec<Record>>,
    /// Set once `openat2` turned out to be unavailable (old kernel, seccomp).
    #[cfg_attr(portable, allow(dead_code))]
    no_openat2: AtomicBool,
    /// The priorities of the cold walk's threads.
    priorities: WalkerPriorities,
}

impl Shared {
    fn rel(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        parts.join("/")
    }

    fn excluded(&self, rel: &str) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let with_slash = format!("{rel}/");
        self.exclude
            .iter()
            .any(|g| g.is_match(rel) || g.is_match(&with_slash))
    }

    fn past_deadline(&self) -> bool {
        if Instant::now() > self.deadline {
            self.timed_out.store(true, AtomicOrdering::Relaxed);
        }
        self.timed_out.load(AtomicOrdering::Relaxed)
    }

    fn beyond_cutoff(&self, rel: &str) -> bool {
        if !self.has_cutoff.load(AtomicOrdering::Acquire) {
            return false;
        }
        match self.cutoff.read() {
            Ok(cutoff) => cutoff
                .as_ref()
                .is_some_and(|c| traversal_cmp(rel, &c.0) == Ordering::Greater),
            Err(_) => false,
        }
    }

    /// Records a file's match count and moves the cutoff if the walk would now stop earlier.
    fn add_matches(&self, rel: &str, count: usize) {
        let Ok(mut matching) = self.matching.lock() else {
            return;
        };
        matching.insert(WalkKey(rel.to_string()), count);
        let mut total = 0;
        let mut stop = None;
        for (key, n) in matching.iter() {
            total += n;
            if total >= self.max_results {
                stop = Some(key.clone());
                break;
            }
        }
        if let Some(stop) = stop {
            // Later files can no longer contribute.
            let mut after = matching.split_off(&stop);
            if let Some((key, n)) = after.pop_first() {
                matching.insert(key, n);
            }
            if let Ok(mut cutoff) = self.cutoff.write() {
                *cutoff = Some(stop);
            }
            self.has_cutoff.store(true, AtomicOrdering::Release);
        }
    }

    fn cutoff(&self) -> Option<WalkKey> {
        self.cutoff.read().ok().and_then(|c| c.clone())
    }
}

/// Searches the tree at `root` (already checked to be a directory).
pub fn search(root: &str, spec: &SearchSpec) -> Result<SearchResult, SearchError> {
    let shared = Arc::new(Shared {
        root: PathBuf::from(root),
        exclude: spec.exclude.clone(),
        max_results: spec.max_results,
        deadline: spec.deadline,
        timed_out: AtomicBool::new(false),
        matching: Mutex::new(BTreeMap::new()),
        has_cutoff: AtomicBool::new(false),
        cutoff: RwLock::new(None),
        records: Mutex::new(Vec::new()),
        no_openat2: AtomicBool::new(false),
        priorities: WalkerPriorities::new(),
    });
    match spec.cache {
        Some(cache) => walk_listings(&shared, spec, cache),
        None => {
            let filter_state = Arc::clone(&shared);
            let mut builder = WalkBuilder::new(root);
            builder
                .standard_filters(false)
                .follow_links(false)
                .skip_stdout(false)
                .filter_entry(move |entry| keep_directory(&filter_state, entry));
            let mut visitors = VisitorBuilder {
                shared: &shared,
                spec,
            };
            builder.build_parallel().visit(&mut visitors);
        }
    }

    if shared.past_deadline() {
        return Err(SearchError::Timeout);
    }
    let records = shared
        .records
        .lock()
        .map(|mut r| std::mem::take(&mut *r))
        .unwrap_or_default();
    replay(records, shared.cutoff(), spec.max_results)
}

/// The walk's prune decision for directories: default names, `exclude`, the cutoff.
fn keep_directory(shared: &Shared, entry: &DirEntry) -> bool {
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    !is_dir || enters(shared, entry.file_name(), &shared.rel(entry.path()))
}

/// Whether the walk enters the directory `name` (root-relative path `rel`).
fn enters(shared: &Shared, name: &std::ffi::OsStr, rel: &str) -> bool {
    if shared.timed_out.load(AtomicOrdering::Relaxed) {
        return false;
    }
    if SKIPPED_DIRECTORIES.contains(&name.to_string_lossy().as_ref()) {
        return false;
    }
    !shared.excluded(rel) && !shared.beyond_cutoff(rel)
}

/// The root-relative path of `name` in the directory at `dir_rel` (`""` for the root).
fn child_rel(dir_rel: &str, name: &std::ffi::OsStr) -> String {
    let name = name.to_string_lossy();
    if dir_rel.is_empty() {
        name.into_owned()
    } else {
        format!("{dir_rel}/{name}")
    }
}

/// The same walk over the search cache's directory listings (`WorkspaceCache::listing`): one
/// `lstat` per unchanged directory instead of reading it. One thread per core walks depth-first
/// from its own stack and hands half of it to the common stack when another thread waits.
fn walk_listings(shared: &Shared, spec: &SearchSpec, cache: &Arc<WorkspaceCache>) {
    struct Work {
        /// Directories with their root-relative paths.
        pending: Vec<(PathBuf, String)>,
        /// Threads holding directories: the walk ends when none do and none are pending.
        busy: usize,
    }
    let work = Mutex::new(Work {
        pending: vec![(shared.root.clone(), String::new())],
        busy: 0,
    });
    let waiting = AtomicUsize::new(0);
    let changed = std::sync::Condvar::new();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let worker = || {
        let mut visitor = Visitor::new(shared, spec);
        let mut local: Vec<(PathBuf, String)> = Vec::new();
        let mut holding = false;
        let mut turns = PeriodicYield::new();
        loop {
            turns.between_items();
            if local.is_empty() {
                let Ok(mut w) = work.lock() else { return };
                if holding {
                    w.busy -= 1;
                }
                loop {
                    if let Some(dir) = w.pending.pop() {
                        w.busy += 1;
                        holding = true;
                        local.push(dir);
                        break;
                    }
                    if w.busy == 0 {
                        changed.notify_all();
                        return;
                    }
                    waiting.fetch_add(1, AtomicOrdering::SeqCst);
                    w = match changed.wait(w) {
                        Ok(w) => w,
                        Err(_) => return,
                    };
                    waiting.fetch_sub(1, AtomicOrdering::SeqCst);
                }
            }
            let Some((dir, dir_rel)) = local.pop() else {
                continue;
            };
            if shared.past_deadline() {
                local.clear();
                continue;
            }
            let is_root = dir == shared.root;
            match cache.listing(
                &dir,
                is_root,
                spec.call_start_ns,
                &mut visitor.deferred.listings,
            ) {
                Ok(listing) => {
                    for (name, kind) in &listing.entries {
                        if *kind == EntryKind::Other {
                            continue;
                        }
                        let path = dir.join(name);
                        let rel = child_rel(&dir_rel, name);
                        match kind {
                            EntryKind::File => visitor.visit_file(&path, rel),
                            _ if enters(shared, name, &rel) => local.push((path, rel)),
                            _ => {}
                        }
                    }
                }
                Err(e) => visitor.record_failure(Record {
                    rel: dir_rel,
                    outcome: Outcome::Failed(node_io_message(
                        &e,
                        "scandir",
                        &dir.to_string_lossy(),
                    )),
                }),
            }
            if local.len() > 1 && waiting.load(AtomicOrdering::SeqCst) > 0 {
                if let Ok(mut w) = work.lock() {
                    let half = local.len() / 2;
                    w.pending.extend(local.drain(..half));
                    changed.notify_all();
                }
            }
        }
    };
    run_on_threads(threads, worker);
}

/// Replays upstream's sequential walk over the recorded outcomes.
fn replay(
    mut records: Vec<Record>,
    cutoff: Option<WalkKey>,
    max_results: usize,
) -> Result<SearchResult, SearchError> {
    let mut result = SearchResult::default();
    let Some(cutoff) = cutoff else {
        // The walk ran to the end: it met every failure (the first one ends it), and counted
        // every file.
        if let Some(first) = records
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Failed(_)))
            .min_by(|a, b| traversal_cmp(&a.rel, &b.rel))
        {
            if let Outcome::Failed(message) = &first.outcome {
                return Err(SearchError::Io(message.clone()));
            }
        }
        let mut files = Vec::new();
        for record in records {
            match record.outcome {
                Outcome::Searched(hits) => {
                    result.scanned_files += 1;
                    if !hits.is_empty() {
                        files.push((record.rel, hits));
                    }
                }
                Outcome::Binary => result.skipped_binary += 1,
                Outcome::TooLarge => result.skipped_size += 1,
                Outcome::Failed(_) => {}
            }
        }
        sort_by_yielding(&mut files, |a, b| traversal_cmp(&a.0, &b.0));
        result.files = files;
        return Ok(result);
    };
    records.retain(|r| traversal_cmp(&r.rel, &cutoff.0) != Ordering::Greater);
    sort_by_yielding(&mut records, |a, b| traversal_cmp(&a.rel, &b.rel));
    let mut items = 0;
    for record in records {
        match record.outcome {
            Outcome::Failed(message) => return Err(SearchError::Io(message)),
            Outcome::Binary => result.skipped_binary += 1,
            Outcome::TooLarge => result.skipped_size += 1,
            Outcome::Searched(mut hits) => {
                result.scanned_files += 1;
                if hits.is_empty() {
                    continue;
                }
                hits.truncate(max_results - items);
                items += hits.len();
                result.files.push((record.rel, hits));
                if items >= max_results {
                    result.truncated = true;
                    break;
                }
            }
        }
    }
    Ok(result)
}

struct VisitorBuilder<'s> {
    shared: &'s Shared,
    spec: &'s SearchSpec<'s>,
}

impl<'s> ParallelVisitorBuilder<'s> for VisitorBuilder<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor::new(self.shared, self.spec))
    }
}

/// One walker thread: searches files and keeps its records (and what the search cache learns
/// for the first time) until it ends.
struct Visitor<'s> {
    shared: &'s Shared,
    spec: &'s SearchSpec<'s>,
    records: Vec<Record>,
    priority: VisitorPriority<'s>,
    /// What the search cache learns for the first time, handed over when the thread ends.
    deferred: Deferred,
}

impl<'s> Visitor<'s> {
    fn new(shared: &'s Shared, spec: &'s SearchSpec<'s>) -> Visitor<'s> {
        Visitor {
            shared,
            spec,
            records: Vec::new(),
            priority: shared.priorities.visitor(),
            deferred: Deferred::default(),
        }
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.shared.records.lock() {
            all.append(&mut self.records);
        }
        if let Some(cache) = self.spec.cache {
            cache.defer(std::mem::take(&mut self.deferred));
        }
    }
}

impl ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        self.priority.on_visit();
        if self.shared.past_deadline() {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                self.record_failure(self.failure(&err));
                return WalkState::Continue;
            }
        };
        if entry.depth() == 0 {
            return WalkState::Continue;
        }
        let Some(file_type) = entry.file_type() else {
            return WalkState::Continue;
        };
        // directories are entered; symlinks and others skipped
        if file_type.is_file() {
            self.visit_file(entry.path(), self.shared.rel(entry.path()));
        }
        WalkState::Continue
    }
}

impl Visitor<'_> {
    /// A regular file the walk found (root-relative path `rel`): filtered, searched, recorded.
    fn visit_file(&mut self, path: &Path, rel: String) {
        if self.shared.excluded(&rel) {
            return;
        }
        if !self.spec.include.is_empty() && !self.spec.include.iter().any(|g| g.is_match(&rel)) {
            return;
        }
        if self.shared.beyond_cutoff(&rel) {
            return;
        }
        let Some(outcome) = self.search_file(path) else {
            return;
        };
        if let Outcome::Searched(hits) = &outcome {
            if !hits.is_empty() {
                self.shared.add_matches(&rel, hits.len());
            }
        }
        self.record_failure_or(Record { rel, outcome });
    }

    /// Keeps a record; a failure only when its path names an entry of the tree the checked root
    /// descriptor holds (see `record_failure`).
    fn record_failure_or(&mut self, record: Record) {
        match record.outcome {
            Outcome::Failed(_) => self.record_failure(record),
            _ => self.records.push(record),
        }
    }

    /// Keeps a failure only when its path (`rel`) names an entry that exists, right now, beneath
    /// the root descriptor the call checked, reached without following any symlink. The walk
    /// lists directories by path: one swapped for a symlink meanwhile can make it list names of a
    /// directory elsewhere, which then fail to open beneath the root. Such a failure, or one for
    /// an entry removed since it was listed, is dropped rather than reported, so an error text
    /// only ever names what the checked tree holds, under the path the caller gave.
    fn record_failure(&mut self, record: Record) {
        let rel = Path::new(&record.rel);
        if crate::sandbox::lstat_beneath(self.spec.root_dir.as_fd(), rel).is_ok() {
            self.records.push(record);
        }
    }

    /// A walk error (an unreadable directory), placed where upstream's walk meets it.
    fn failure(&self, err: &ignore::Error) -> Record {
        let path = error_path(err);
        let message = match (err.io_error(), path) {
            (Some(io), Some(path)) => node_io_message(io, "scandir", &path.to_string_lossy()),
            _ => err.to_string(),
        };
        Record {
            rel: path.map(|p| self.shared.rel(p)).unwrap_or_default(),
            outcome: Outcome::Failed(message),
        }
    }

    /// Reads and searches one regular file; `None` when it turns out not to be one we may read
    /// (replaced by a symlink or special file since the listing, or outside the confinement).
    fn search_file(&mut self, path: &Path) -> Option<Outcome> {
        let lookup = self.spec.cache.map(|cache| (cache, cache.lookup(path)));
        if let Some((cache, Ok(entry))) = &lookup {
            if entry.id.size() > self.spec.max_file_size {
                return Some(Outcome::TooLarge);
            }
            if entry.has_nul || !entry.utf8 {
                return Some(Outcome::Binary);
            }
            if let Some(index) = &entry.index {
                if !self.spec.requirement.admits(index) {
                    return Some(Outcome::Searched(Vec::new()));
                }
            }
            if let Some(content) = cache.content_of(entry) {
                return Some(self.search_bytes(&content));
            }
        }
        let display = path.to_string_lossy();
        let file = match self.open_file(path) {
            Ok(Some(file)) => file,
            Ok(None) => return None,
            Err(e) => return Some(Outcome::Failed(node_io_message(&e, "open", &display))),
        };
        let mut file = std::fs::File::from(file);
        let meta = match file.metadata() {
            Ok(meta) => meta,
            Err(e) => return Some(Outcome::Failed(node_io_message(&e, "stat", &display))),
        };
        if !meta.is_file() {
            return None;
        }
        if meta.len() > self.spec.max_file_size {
            return Some(Outcome::TooLarge);
        }
        let bytes = match read_sized(&mut file, meta.len()) {
            Ok(bytes) => bytes,
            Err(e) => return Some(Outcome::Failed(node_io_message(&e, "read", &display))),
        };
        let Some((cache, lookup)) = lookup else {
            return Some(self.search_bytes(&bytes));
        };
        // The cache needs to know whether the file is UTF-8 even when it has a NUL byte.
        let has_nul = memchr::memchr(0, &bytes).is_some();
        let text = std::str::from_utf8(&bytes);
        let encoding = Encoding {
            has_nul,
            utf8: text.is_ok(),
        };
        let outcome = match text {
            Ok(text) if !has_nul => self.search_str(text),
            _ => Outcome::Binary,
        };
        let read = FirstRead {
            path: path.as_os_str().to_owned(),
            id: FileId::of_open(&file, &meta),
            call_start_ns: self.spec.call_start_ns,
            encoding,
        };
        cache.record_read(read, Arc::new(bytes), &lookup, &mut self.deferred);
        Some(outcome)
    }

    /// Searches a file's bytes: NUL bytes or invalid UTF-8 make it binary.
    fn search_bytes(&self, bytes: &[u8]) -> Outcome {
        if memchr::memchr(0, bytes).is_some() {
            return Outcome::Binary;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => self.search_str(text),
            Err(_) => Outcome::Binary,
        }
    }

    /// Searches a file's text (a leading BOM is not part of it).
    fn search_str(&self, text: &str) -> Outcome {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Outcome::Searched(search_text(
            self.spec.regex,
            self.spec.prefilter,
            text,
            self.spec.max_results,
        ))
    }

    /// Opens a file without following any symlink on the way: `openat2` beneath the root
    /// descriptor with `RESOLVE_NO_SYMLINKS` (one syscall, race-free), else a plain open whose
    /// descriptor is then checked against the confinement. `Ok(None)`: skip the file.
    /// Without `openat2` (macOS, the `portable-unix` feature) the file is opened beneath the
    /// root descriptor one name at a time (`sandbox::open_beneath`), then checked the same way.
    fn open_file(&self, path: &Path) -> io::Result<Option<OwnedFd>> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        #[cfg(portable)]
        if let Ok(rel) = path.strip_prefix(&self.shared.root) {
            let Some(fd) = crate::sandbox::open_beneath(self.spec.root_dir.as_fd(), rel, flags)?
            else {
                return Ok(None);
            };
            return match self.spec.confinement {
                Some(confinement) if !confinement.contains_fd(&fd) => Ok(None),
                _ => Ok(Some(fd)),
            };
        }
        #[cfg(linux_native)]
        if !self.shared.no_openat2.load(AtomicOrdering::Relaxed) {
            if let Ok(rel) = path.strip_prefix(&self.shared.root) {
                use rustix::fs::ResolveFlags;
                let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH;
                match rustix::fs::openat2(self.spec.root_dir, rel, flags, Mode::empty(), resolve) {
                    Ok(fd) => return Ok(Some(fd)),
                    Err(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) => return Ok(None),
                    Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                        self.shared.no_openat2.store(true, AtomicOrdering::Relaxed);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        let fd = match crate::sys::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(crate::sys::Errno::LOOP) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        match self.spec.confinement {
            Some(confinement) if !confinement.contains_fd(&fd) => Ok(None),
            _ => Ok(Some(fd)),
        }
    }
}

/// The path an `ignore` error is about, if it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path through a directory symlink (as after a directory was swapped for one during the
    /// walk) is never opened, with or without `openat2`.
    #[test]
    #[cfg_attr(
        windows,
        ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
    )]
    fn files_are_opened_only_beneath_the_root_without_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir
            .path()
            .canonicalize()
            .map(crate::sys::plain_path)
            .unwrap();
        let root = base.join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(root.join("src/a.txt"), "a").unwrap();
        std::fs::write(base.join("outside/secret.txt"), "s").unwrap();
        crate::sys::symlink(base.join("outside"), root.join("swapped")).unwrap();
        crate::sys::symlink("src", root.join("inner")).unwrap();
        let root_str = root.to_string_lossy().into_owned();
        let root_dir: OwnedFd = crate::sandbox::open_dir_at(None, root.as_os_str()).unwrap();
        let regex = JsRegex::new("x", "").unwrap();
        let confinement = Confinement::new(&root_str).unwrap();
        let spec = SearchSpec {
            regex: &regex,
            prefilter: None,
            include: Vec::new(),
            exclude: Vec::new(),
            max_results: 1,
            max_file_size: 1 << 20,
            deadline: Instant::now(),
            root_dir: &root_dir,
            confinement: Some(&confinement),
            cache: None,
            requirement: &Requirement::Anything,
            call_start_ns: 0,
        };
        for without_openat2 in [false, true] {
            let shared = Shared {
                root: root.clone(),
                exclude: Vec::new(),
                max_results: 1,
                deadline: Instant::now(),
                timed_out: AtomicBool::new(false),
                matching: Mutex::new(BTreeMap::new()),
                has_cutoff: AtomicBool::new(false),
                cutoff: RwLock::new(None),
                records: Mutex::new(Vec::new()),
                no_openat2: AtomicBool::new(without_openat2),
                priorities: WalkerPriorities::new(),
            };
            let visitor = Visitor::new(&shared, &spec);
            assert!(visitor
                .open_file(&root.join("src/a.txt"))
                .unwrap()
                .is_some());
            assert!(visitor
                .open_file(&root.join("swapped/secret.txt"))
                .unwrap()
                .is_none());
            if !without_openat2 {
                // Even a symlink that stays inside is refused on the way (upstream: symlinks
                // below the root are never followed).
                assert!(visitor
                    .open_file(&root.join("inner/a.txt"))
                    .unwrap()
                    .is_none());
            }
            assert!(visitor.open_file(&root.join("src/missing")).is_err());
        }
    }

    fn hit(line: u64) -> Hit {
        Hit {
            line,
            column: 1,
            text: super::super::matcher::MatchText::Text("x".into()),
            line_text: "x".into(),
        }
    }

    fn record(rel: &str, outcome: Outcome) -> Record {
        Record {
            rel: rel.to_string(),
            outcome,
        }
    }

    /// docs/compat.md, "An unreadable directory fails the whole tree or regexp_search call": an unreadable directory aborts the call when the sequential walk reaches it,
    /// i.e. unless the walk stopped (max_results) before it.
    #[test]
    fn replay_meets_failures_in_walk_order() {
        let failed = |m: &str| Outcome::Failed(m.to_string());
        let records = || {
            vec![
                record("z.txt", Outcome::Searched(vec![hit(1)])),
                record("b", failed("EACCES: permission denied, scandir '/ws/b'")),
                record("a.txt", Outcome::Searched(vec![hit(1), hit(2)])),
                record(
                    "a/deep",
                    failed("EACCES: permission denied, scandir '/ws/a/deep'"),
                ),
            ]
        };
        // No stop: the first failure in walk order wins.
        assert_eq!(
            replay(records(), None, 100).unwrap_err(),
            SearchError::Io("EACCES: permission denied, scandir '/ws/a/deep'".into())
        );
        // Stopped at a.txt: `a/deep` is still met (directory `a` sorts before `a.txt`).
        let stop = Some(WalkKey("a.txt".into()));
        assert!(matches!(
            replay(records(), stop, 2),
            Err(SearchError::Io(_))
        ));
        // Without the `a/deep` failure, stopping at a.txt never reaches `b`.
        let mut without = records();
        without.pop();
        let result = replay(without, Some(WalkKey("a.txt".into())), 2).unwrap();
        assert!(result.truncated);
        assert_eq!(result.scanned_files, 1);
        assert_eq!(result.files.len(), 1);
    }

    #[test]
    fn replay_counts_only_up_to_the_stop() {
        let records = vec![
            record("c.txt", Outcome::Binary),
            record("a.txt", Outcome::Searched(vec![hit(1), hit(2), hit(3)])),
            record("b.txt", Outcome::TooLarge),
            record("0.txt", Outcome::Binary),
            record("d.txt", Outcome::Searched(vec![])),
        ];
        let result = replay(records, Some(WalkKey("a.txt".into())), 2).unwrap();
        assert!(result.truncated);
        assert_eq!(result.files[0].1.len(), 2, "hits cut at max_results");
        assert_eq!(
            (
                result.scanned_files,
                result.skipped_binary,
                result.skipped_size
            ),
            (1, 1, 0)
        );
    }

    #[test]
    fn walk_order_is_component_wise_collation() {
        let mut paths = vec![
            "src-a",
            "src/a.ts",
            "src/sub/b.ts",
            "src_a",
            "B.txt",
            "a.txt",
            "src/build",
            "srcA",
            "é.txt",
            "10.txt",
            "9.txt",
            "_u.txt",
            ".env",
            ".hidden/h.ts",
        ];
        paths.sort_by(|a, b| traversal_cmp(a, b));
        assert_eq!(
            paths,
            [
                "_u.txt",
                ".env",
                ".hidden/h.ts",
                "10.txt",
                "9.txt",
                "a.txt",
                "B.txt",
                "é.txt",
                // directory `src` sorts by its name, before `src_a` would if compared whole
                "src/a.ts",
                "src/build",
                "src/sub/b.ts",
                "src_a",
                "src-a",
                "srcA",
            ]
        );
        assert_eq!(traversal_cmp("", "a"), Ordering::Less);
        assert_eq!(traversal_cmp("a", "a/b"), Ordering::Less);
    }
}
