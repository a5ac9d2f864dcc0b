//! The search cache's background work: one idle-priority thread for the whole process that
//! records what calls deferred, builds trigram indexes, checks cached paths (`watch`) and evicts
//! down to three quarters of the budget (least recently used bytes first).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, Weak};

use super::trigrams::Bloom;
use super::watch::Kind;
use super::{FileId, WorkspaceCache};

impl WorkspaceCache {
    /// Called when a search call ends: queues the indexing of what it stored (one job for the
    /// whole call, so reading files costs no wake-up of the background thread).
    pub fn call_finished(self: &Arc<Self>) {
        if self.pending.lock().is_ok_and(|p| !p.is_empty()) {
            background().request(Job::InsertPending(Arc::downgrade(self)));
        }
        if self.unindexed.swap(false, Ordering::Relaxed) {
            background().request(Job::IndexAll(Arc::downgrade(self)));
        }
        background().request(Job::Verify(Arc::downgrade(self)));
        if self.bytes.load(Ordering::Relaxed) > self.budget.load(Ordering::Relaxed) / 4 * 3 {
            match self.room_wanted.swap(0, Ordering::Relaxed) {
                0 => {}
                1 => background().request(Job::Evict(Arc::downgrade(self), Room::Contents)),
                _ => background().request(Job::Evict(Arc::downgrade(self), Room::Everything)),
            }
        }
    }

    /// Builds the indexes of every entry without one (background).
    fn index_all(&self) {
        let missing: Vec<OsString> = match self.entries.read() {
            Ok(entries) => entries
                .iter()
                .filter(|(_, e)| e.index.is_none() && !e.has_nul && e.utf8)
                .map(|(p, _)| p.clone())
                .collect(),
            Err(_) => return,
        };
        for path in missing {
            self.index(Path::new(&path));
        }
    }

    /// Builds the index of one entry (background).
    fn index(&self, path: &Path) {
        let Some(entry) = self
            .entries
            .read()
            .ok()
            .and_then(|e| e.get(path.as_os_str()).cloned())
        else {
            return;
        };
        if entry.index.is_some() || entry.has_nul || !entry.utf8 {
            return;
        }
        // No room (and no bytes of its own to give up for it): not worth reading the file.
        let size = usize::try_from(entry.id.size()).unwrap_or(usize::MAX);
        if entry.content.is_none()
            && self.bytes.load(Ordering::Relaxed) + Bloom::size_for(size)
                > self.budget.load(Ordering::Relaxed)
        {
            return;
        }
        let bloom = match &entry.content {
            Some(content) => Bloom::build(content),
            None => match read_if_unchanged(path, entry.id) {
                Some(bytes) => Bloom::build(&bytes),
                None => return,
            },
        };
        let Ok(mut entries) = self.entries.write() else {
            return;
        };
        // Only if the entry is still the one indexed.
        let Some(current) = entries.get(path.as_os_str()) else {
            return;
        };
        if current.id != entry.id {
            return;
        }
        let current = Arc::clone(current);
        let budget = self.budget.load(Ordering::Relaxed);
        let index = Some(Arc::new(bloom));
        let mut grown = current.with(current.content.clone(), index.clone());
        let used = self.bytes.load(Ordering::Relaxed) - current.cost(path);
        if used + grown.cost(path) > budget {
            // An index is worth more than bytes: drop this file's bytes first.
            grown = current.with(None, index);
            if used + grown.cost(path) > budget {
                return;
            }
        }
        self.bytes.fetch_sub(current.cost(path), Ordering::Relaxed);
        self.bytes.fetch_add(grown.cost(path), Ordering::Relaxed);
        entries.insert(path.as_os_str().to_owned(), Arc::new(grown));
    }

    /// Watches and checks every cached path not trusted yet (background; `watch`), unless
    /// nothing was cached or untrusted since the last pass.
    fn verify(&self) {
        if !self.watch.take_unchecked() {
            return;
        }
        let mut candidates = Vec::new();
        if let Ok(listings) = self.listings.read() {
            candidates.extend(
                listings
                    .iter()
                    .filter(|(path, l)| !self.watch.is_trusted(Path::new(path), l.id))
                    .map(|(path, l)| (PathBuf::from(path), l.id, Kind::Directory)),
            );
        }
        if let Ok(entries) = self.entries.read() {
            candidates.extend(
                entries
                    .iter()
                    .filter(|(path, e)| !self.watch.is_trusted(Path::new(path), e.id))
                    .map(|(path, e)| (PathBuf::from(path), e.id, Kind::File)),
            );
        }
        if !candidates.is_empty() {
            self.watch.verify(candidates);
        }
    }

    /// Asks the next eviction for room (the larger request wins).
    pub(super) fn want_room(&self, room: Room) {
        self.room_wanted.fetch_max(room as u8, Ordering::Relaxed);
    }

    /// Evicts down to three quarters of the budget: the least recently used bytes first, then
    /// per-query matches; for `Room::Everything` also directory listings, then whole entries.
    /// Bytes that did not fit never cost an entry or a listing: those are what let a warm call
    /// skip a directory read or a file's `lstat`.
    pub(super) fn evict(&self, room: Room) {
        let budget = self.budget.load(Ordering::Relaxed);
        let target = budget / 4 * 3;
        if self.bytes.load(Ordering::Relaxed) <= target {
            return;
        }
        let Ok(mut entries) = self.entries.write() else {
            return;
        };
        let mut order: Vec<(u64, OsString)> = entries
            .iter()
            .map(|(p, e)| (e.last_used.load(Ordering::Relaxed), p.clone()))
            .collect();
        order.sort_unstable();
        for (_, path) in &order {
            if self.bytes.load(Ordering::Relaxed) <= target {
                return;
            }
            if let Some(entry) = entries.get_mut(path) {
                if entry.content.is_some() {
                    let lighter = Arc::new(entry.with(None, entry.index.clone()));
                    self.bytes.fetch_sub(entry.cost(path), Ordering::Relaxed);
                    self.bytes.fetch_add(lighter.cost(path), Ordering::Relaxed);
                    *entry = lighter;
                }
            }
        }
        if let Ok(mut memos) = self.memos.write() {
            for memo in memos.drain().flat_map(|(_, list)| list) {
                self.bytes.fetch_sub(memo.3, Ordering::Relaxed);
            }
        }
        if room == Room::Contents || self.bytes.load(Ordering::Relaxed) <= target {
            return;
        }
        if let Ok(mut listings) = self.listings.write() {
            for (path, listing) in listings.drain() {
                self.bytes.fetch_sub(listing.cost(path), Ordering::Relaxed);
            }
        }
        // What the watches protected is mostly gone: start them over with the next pass.
        self.watch.reset();
        for (_, path) in &order {
            if self.bytes.load(Ordering::Relaxed) <= target {
                return;
            }
            if let Some(entry) = entries.remove(path) {
                self.bytes.fetch_sub(entry.cost(path), Ordering::Relaxed);
            }
        }
    }
}

/// The file's bytes if it still has identity `id` (read without following a final symlink).
fn read_if_unchanged(path: &Path, id: FileId) -> Option<Vec<u8>> {
    use crate::sys::fs::OFlags;
    let mut file = crate::sys::with_flags(
        std::fs::OpenOptions::new().read(true),
        OFlags::NOFOLLOW | OFlags::NONBLOCK,
    )
    .open(path)
    .ok()?;
    let meta = file.metadata().ok()?;
    if FileId::of_open(&file, &meta) != id {
        return None;
    }
    let bytes = crate::file_read::read_sized(&mut file, meta.len()).ok()?;
    let after = file.metadata().ok()?;
    (FileId::of_open(&file, &after) == id).then_some(bytes)
}

/// What an eviction may drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Room {
    Contents = 1,
    Everything = 2,
}

pub(super) enum Job {
    /// `insert_pending`, then `index_all`.
    InsertPending(Weak<WorkspaceCache>),
    IndexAll(Weak<WorkspaceCache>),
    Evict(Weak<WorkspaceCache>, Room),
    Verify(Weak<WorkspaceCache>),
}

/// One low-priority thread for the whole process: indexing and eviction.
pub(super) struct Background {
    queue: Mutex<(VecDeque<Job>, bool)>,
    /// Signalled when a job arrives.
    work: Condvar,
    /// Signalled when the queue runs empty.
    idle: Condvar,
    started: std::sync::Once,
}

static BACKGROUND: Background = Background {
    queue: Mutex::new((VecDeque::new(), false)),
    work: Condvar::new(),
    idle: Condvar::new(),
    started: std::sync::Once::new(),
};

pub(super) fn background() -> &'static Background {
    BACKGROUND.started.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("search-cache".into())
            .spawn(|| BACKGROUND.run());
        drop(spawned);
    });
    &BACKGROUND
}

impl Background {
    pub(super) fn request(&self, job: Job) {
        if let Ok(mut queue) = self.queue.lock() {
            let queued = |j: &Job| match (j, &job) {
                (Job::Evict(a, x), Job::Evict(b, y)) => a.ptr_eq(b) && x == y,
                (Job::Verify(a), Job::Verify(b)) => a.ptr_eq(b),
                _ => false,
            };
            if queue.0.iter().any(queued) {
                return;
            }
            queue.0.push_back(job);
            self.work.notify_one();
        }
    }

    pub(super) fn wait_idle(&self) {
        let Ok(mut queue) = self.queue.lock() else {
            return;
        };
        while !queue.0.is_empty() || queue.1 {
            queue = match self.idle.wait(queue) {
                Ok(q) => q,
                Err(_) => return,
            };
        }
    }

    fn run(&self) {
        crate::thread_priority::become_idle_priority_thread();
        loop {
            let job = {
                let Ok(mut queue) = self.queue.lock() else {
                    return;
                };
                queue.1 = false;
                loop {
                    if let Some(job) = queue.0.pop_front() {
                        queue.1 = true;
                        break job;
                    }
                    self.idle.notify_all();
                    queue = match self.work.wait(queue) {
                        Ok(q) => q,
                        Err(_) => return,
                    };
                }
            };
            // A panic here must not end the thread (or reach a caller).
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match job {
                Job::InsertPending(cache) => {
                    if let Some(cache) = cache.upgrade() {
                        cache.insert_pending();
                        cache.index_all();
                    }
                }
                Job::IndexAll(cache) => {
                    if let Some(cache) = cache.upgrade() {
                        cache.index_all();
                    }
                }
                Job::Evict(cache, room) => {
                    if let Some(cache) = cache.upgrade() {
                        cache.evict(room);
                    }
                }
                Job::Verify(cache) => {
                    if let Some(cache) = cache.upgrade() {
                        cache.verify();
                    }
                }
            }));
        }
    }
}
