//! Trust without a stat: an inotify watcher lets warm calls skip the `lstat` of the files and
//! directories that cannot have changed since the cache last checked them.
//!
//! After each call, the background pass (`Watch::verify`) watches every cached directory (an
//! entry created, removed or renamed in it; its own attributes, removal or move) and every
//! cached file's inode (written, truncated, attributes or link count changed, removed, moved:
//! through any of its names, hard links included), then takes each one's identity with `lstat`
//! and, when it still matches what is cached, marks the path *trusted*. A call starts by draining
//! the watcher's queue (`Watch::drain`): every event untrusts what it names, and an event about
//! a directory, or about a name that now means something else, also forgets every watch and
//! trust below that name. The kernel queues an event before the changing syscall returns, so
//! after the drain a trusted path holds what the cache recorded; every other path gets its
//! `lstat` as without the watcher.
//!
//! Never trusted (always checked with `lstat`): the walk's root (its own parent is not watched),
//! a path whose parent directory is not watched, files on filesystems where changes can bypass
//! this kernel (only ext2/3/4, XFS, Btrfs, tmpfs, F2FS and ZFS are watched: not NFS, SMB, FUSE,
//! 9p, virtiofs or overlayfs, whose lower layers change unseen), and whatever lies beyond the
//! process's watch allowance (half of `fs.inotify.max_user_watches`). A queue overflow or a
//! change of the mount table (polled through `/proc/self/mountinfo`) untrusts everything until
//! the next pass. Writes through a shared writable mapping raise no event (nor move the
//! timestamps `lstat` compares): the cache's one blind spot, with or without the watcher.
//!
//! Elsewhere than on Linux (and on Linux with the `portable-unix` feature) nothing is trusted:
//! every call checks every path with `lstat`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

use super::{FileId, PathMap};

/// What a cached path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Directory,
    File,
}

/// The trusted paths of one workspace's cache and the watcher that keeps them honest.
pub struct Watch {
    /// Paths whose identity is known to be the one recorded, as of the last drain.
    trusted: RwLock<PathMap<FileId>>,
    /// Set when something cached may not be trusted: the next pass has work.
    unchecked: AtomicBool,
    #[cfg(linux_native)]
    inotify: std::sync::Mutex<Option<linux::Inotify>>,
}

impl Watch {
    pub fn new() -> Watch {
        Watch {
            trusted: RwLock::new(PathMap::default()),
            unchecked: AtomicBool::new(true),
            #[cfg(linux_native)]
            inotify: std::sync::Mutex::new(None),
        }
    }

    /// Whether `path` is known to still have identity `id` (no syscall).
    pub fn is_trusted(&self, path: &Path, id: FileId) -> bool {
        self.trusted.read().is_ok_and(|t| {
            t.get(path.as_os_str())
                .is_some_and(|trusted| *trusted == id)
        })
    }

    /// Notes that something was cached (or untrusted) that the next pass should check.
    pub fn note_unchecked(&self) {
        self.unchecked.store(true, Ordering::Relaxed);
    }

    /// Whether a pass has work (`note_unchecked` since the last call).
    pub fn take_unchecked(&self) -> bool {
        self.unchecked.swap(false, Ordering::Relaxed)
    }

    /// How many paths are trusted (diagnostics).
    pub fn trusted_count(&self) -> usize {
        self.trusted.read().map_or(0, |t| t.len())
    }

    /// Forgets every trust and watch at and below `path` (a walk root that is no longer the
    /// directory it was).
    pub fn forget_below(&self, path: &Path) {
        let Ok(mut trusted) = self.trusted.write() else {
            return;
        };
        trusted.retain(|p, _| !Path::new(p).starts_with(path));
        self.note_unchecked();
        #[cfg(linux_native)]
        if let Ok(mut inotify) = self.inotify.lock() {
            if let Some(inotify) = inotify.as_mut() {
                inotify.forget(|p| p.starts_with(path));
            }
        }
    }

    /// Drops every trust and watch (eviction: the cache no longer holds what they protect).
    pub fn reset(&self) {
        let Ok(mut trusted) = self.trusted.write() else {
            return;
        };
        trusted.clear();
        self.note_unchecked();
        #[cfg(linux_native)]
        if let Ok(mut inotify) = self.inotify.lock() {
            *inotify = None;
        }
    }
}

#[cfg(portable)]
impl Watch {
    /// Nothing is ever trusted here.
    pub fn drain(&self) {}

    pub fn verify(&self, _candidates: Vec<(std::path::PathBuf, FileId, Kind)>) {}
}

#[cfg(linux_native)]
mod linux {
    use std::collections::{HashMap, HashSet};
    use std::ffi::OsStr;
    use std::mem::MaybeUninit;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::LazyLock;

    use rustix::event::{PollFd, PollFlags};
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

    use super::{FileId, Kind, Watch};

    /// Paths checked and trusted per hold of the locks (a starting call waits at most that long).
    const BATCH: usize = 256;

    /// Watches in use by the whole process.
    static WATCHES_USED: AtomicUsize = AtomicUsize::new(0);

    /// The process's watch allowance: half of the user's limit, leaving the rest to other tools.
    static WATCH_ALLOWANCE: LazyLock<usize> = LazyLock::new(|| {
        std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|s| s.trim().parse::<usize>().ok())
            .unwrap_or(8192)
            / 2
    });

    /// Filesystems whose every change passes through this kernel (superblock magic numbers).
    const LOCAL_FILESYSTEMS: [i64; 7] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // xfs
        0x9123_683E, // btrfs
        0x0102_1994, // tmpfs
        0xF2F5_2010, // f2fs
        0x2FC1_2FC1, // zfs
        0x8584_58F6, // ramfs
    ];

    const DIRECTORY_EVENTS: WatchFlags = WatchFlags::CREATE
        .union(WatchFlags::DELETE)
        .union(WatchFlags::MOVED_FROM)
        .union(WatchFlags::MOVED_TO)
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::ONLYDIR)
        .union(WatchFlags::DONT_FOLLOW);

    const FILE_EVENTS: WatchFlags = WatchFlags::MODIFY
        .union(WatchFlags::ATTRIB)
        .union(WatchFlags::DELETE_SELF)
        .union(WatchFlags::MOVE_SELF)
        .union(WatchFlags::DONT_FOLLOW);

    /// Events that make a name mean something else.
    const NAME_EVENTS: ReadFlags = ReadFlags::CREATE
        .union(ReadFlags::DELETE)
        .union(ReadFlags::MOVED_FROM)
        .union(ReadFlags::MOVED_TO);

    /// Events after which a watch no longer stands for its path.
    const GONE_EVENTS: ReadFlags = ReadFlags::DELETE_SELF
        .union(ReadFlags::MOVE_SELF)
        .union(ReadFlags::IGNORED)
        .union(ReadFlags::UNMOUNT);

    /// One inotify instance and what its watches stand for.
    pub struct Inotify {
        fd: OwnedFd,
        /// The paths each watch was added for (a file's inode can have several names).
        by_wd: HashMap<i32, Vec<PathBuf>>,
        /// Each watched path's watch and the kind it was watched as (its event mask).
        by_path: HashMap<PathBuf, (i32, Kind)>,
        /// Per device: whether its filesystem is one of `LOCAL_FILESYSTEMS`.
        local: HashMap<u64, bool>,
        /// Polled for mount table changes.
        mounts: Option<std::fs::File>,
        /// Set when the allowance (or the kernel's limit) was reached.
        full: bool,
    }

    impl Drop for Inotify {
        fn drop(&mut self) {
            WATCHES_USED.fetch_sub(self.by_wd.len(), Ordering::Relaxed);
        }
    }

    impl Inotify {
        fn new() -> Option<Inotify> {
            let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
            Some(Inotify {
                fd,
                by_wd: HashMap::new(),
                by_path: HashMap::new(),
                local: HashMap::new(),
                mounts: std::fs::File::open("/proc/self/mountinfo").ok(),
                full: false,
            })
        }

        /// Whether `path` is watched as `kind` (with that kind's events).
        fn is_watched_as(&self, path: &Path, kind: Kind) -> bool {
            self.by_path.get(path).is_some_and(|(_, k)| *k == kind)
        }

        /// Watches `path` (a directory or a file, per `kind`) unless it already is; whether it is.
        fn watch(&mut self, path: &Path, dev: u64, kind: Kind) -> bool {
            match self.by_path.get(path) {
                Some((_, watched)) if *watched == kind => return true,
                // Watched as the other kind: a candidate recorded before the path changed kind
                // (a file replaced by a directory) watched it with the wrong events. Watch it
                // again with this kind's.
                Some(_) => self.forget(|p| p == path),
                None => {}
            }
            if self.full || self.mounts.is_none() {
                return false;
            }
            // `f_type`'s width differs between targets.
            #[allow(clippy::unnecessary_cast)]
            let local = *self.local.entry(dev).or_insert_with(|| {
                rustix::fs::statfs(path)
                    .is_ok_and(|s| LOCAL_FILESYSTEMS.contains(&(s.f_type as i64)))
            });
            if !local {
                return false;
            }
            if WATCHES_USED.load(Ordering::Relaxed) >= *WATCH_ALLOWANCE {
                self.full = true;
                return false;
            }
            let events = match kind {
                Kind::Directory => DIRECTORY_EVENTS,
                Kind::File => FILE_EVENTS,
            };
            match inotify::add_watch(&self.fd, path, events) {
                Ok(wd) => {
                    let paths = self.by_wd.entry(wd).or_insert_with(|| {
                        WATCHES_USED.fetch_add(1, Ordering::Relaxed);
                        Vec::new()
                    });
                    if !paths.iter().any(|p| p == path) {
                        paths.push(path.to_path_buf());
                    }
                    self.by_path.insert(path.to_path_buf(), (wd, kind));
                    true
                }
                Err(rustix::io::Errno::NOSPC) => {
                    self.full = true;
                    false
                }
                Err(_) => false,
            }
        }

        /// Forgets the watches of every path `gone` says, removing watches left with no path.
        pub fn forget(&mut self, gone: impl Fn(&Path) -> bool) {
            let mut emptied = Vec::new();
            self.by_path.retain(|path, (wd, _)| {
                if !gone(path) {
                    return true;
                }
                if let Some(paths) = self.by_wd.get_mut(wd) {
                    paths.retain(|p| p != path);
                    if paths.is_empty() {
                        emptied.push(*wd);
                    }
                }
                false
            });
            for wd in emptied {
                self.by_wd.remove(&wd);
                WATCHES_USED.fetch_sub(1, Ordering::Relaxed);
                // Already gone when the kernel removed it (IN_IGNORED): nothing to undo.
                let _ = inotify::remove_watch(&self.fd, wd);
            }
        }

        /// Whether the mount table changed since the last poll.
        fn mounts_changed(&self) -> bool {
            let Some(mounts) = &self.mounts else {
                return true;
            };
            let mut fds = [PollFd::new(mounts, PollFlags::PRI)];
            let now = rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            matches!(rustix::event::poll(&mut fds, Some(&now)), Ok(n) if n > 0)
                && fds[0].revents().intersects(PollFlags::PRI | PollFlags::ERR)
        }
    }

    impl Watch {
        /// Applies every event queued since the last drain (a call starts with this).
        pub fn drain(&self) {
            let Ok(mut trusted) = self.trusted.write() else {
                return;
            };
            let Ok(mut slot) = self.inotify.lock() else {
                return;
            };
            let Some(inotify) = slot.as_mut() else {
                return;
            };
            let mut gone: HashSet<PathBuf> = HashSet::new();
            let mut overflow = inotify.mounts_changed();
            let mut buffer = [MaybeUninit::<u8>::uninit(); 16 << 10];
            let mut reader = inotify::Reader::new(&inotify.fd, &mut buffer);
            while !overflow {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(rustix::io::Errno::AGAIN) => break,
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => {
                        overflow = true;
                        break;
                    }
                };
                self.note_unchecked();
                let mask = event.events();
                if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
                    overflow = true;
                    break;
                }
                let Some(paths) = inotify.by_wd.get(&event.wd()) else {
                    continue;
                };
                let name = event
                    .file_name()
                    .map(|n| OsStr::from_bytes(n.to_bytes()))
                    .filter(|n| !n.is_empty());
                for path in paths {
                    match name {
                        Some(name) => {
                            let child = path.join(name);
                            if mask.intersects(NAME_EVENTS) {
                                trusted.remove(path.as_os_str());
                                gone.insert(child);
                            } else if mask.contains(ReadFlags::ISDIR) {
                                gone.insert(child);
                            } else {
                                trusted.remove(child.as_os_str());
                            }
                        }
                        None if mask.contains(ReadFlags::ISDIR) || mask.intersects(GONE_EVENTS) => {
                            gone.insert(path.clone());
                        }
                        None => {
                            trusted.remove(path.as_os_str());
                        }
                    }
                }
            }
            if overflow {
                self.note_unchecked();
                trusted.clear();
                *slot = None;
                return;
            }
            if !gone.is_empty() {
                let below_gone = |p: &Path| p.ancestors().any(|a| gone.contains(a));
                trusted.retain(|p, _| !below_gone(Path::new(p)));
                inotify.forget(below_gone);
            }
        }

        /// Watches the candidates (paths the cache holds that are not trusted, with their
        /// recorded identity) and trusts those whose identity, taken after their watch and their
        /// parent's were in place, is still the recorded one. Directories are taken first, from
        /// the shortest path on, so that a parent's watch precedes its children's checks.
        pub fn verify(&self, mut candidates: Vec<(PathBuf, FileId, Kind)>) {
            candidates.sort_by_key(|(path, _, kind)| (*kind == Kind::File, path.as_os_str().len()));
            for chunk in candidates.chunks(BATCH) {
                {
                    let Ok(mut slot) = self.inotify.lock() else {
                        return;
                    };
                    if slot.is_none() {
                        *slot = Inotify::new();
                    }
                    let Some(inotify) = slot.as_mut() else {
                        return;
                    };
                    for (path, id, kind) in chunk {
                        let parent_watched = path
                            .parent()
                            .is_some_and(|p| inotify.is_watched_as(p, Kind::Directory));
                        if *kind == Kind::Directory || parent_watched {
                            inotify.watch(path, id.dev, *kind);
                        }
                    }
                }
                let Ok(mut trusted) = self.trusted.write() else {
                    return;
                };
                let Ok(slot) = self.inotify.lock() else {
                    return;
                };
                let Some(inotify) = slot.as_ref() else {
                    return;
                };
                for (path, id, kind) in chunk {
                    let watched = inotify.is_watched_as(path, *kind)
                        && path
                            .parent()
                            .is_some_and(|p| inotify.is_watched_as(p, Kind::Directory));
                    if !watched {
                        continue;
                    }
                    let Ok(meta) = std::fs::symlink_metadata(path) else {
                        continue;
                    };
                    let right_kind = match kind {
                        Kind::Directory => meta.is_dir(),
                        Kind::File => meta.is_file(),
                    };
                    if right_kind && FileId::of(&meta) == *id {
                        trusted.insert(path.as_os_str().to_owned(), *id);
                    }
                }
            }
        }
    }
}

#[cfg(all(test, linux_native))]
mod tests {
    use super::*;

    /// A candidate recorded while a path was a file, checked after the file was replaced by a
    /// directory, watched the directory with a file's events (no event for an entry created in
    /// it); the directory's own candidate then took that watch and trusted the directory, whose
    /// new entries went unseen. Found under load by the watched-cache sequence of seed 5.
    #[test]
    fn a_path_watched_as_a_file_is_watched_again_as_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let path = root.join("m0.py");
        std::fs::write(&path, "file").unwrap();
        let id = |p: &Path| FileId::of(&std::fs::symlink_metadata(p).unwrap());
        let file_id = id(&path);
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside.ts"), "x").unwrap();
        let watch = Watch::new();
        // The stale candidate first (as a pass that started before the change would have it).
        watch.verify(vec![
            (root.clone(), id(&root), Kind::Directory),
            (path.clone(), file_id, Kind::File),
        ]);
        assert!(!watch.is_trusted(&path, file_id));
        let dir_id = id(&path);
        watch.verify(vec![(path.clone(), dir_id, Kind::Directory)]);
        if !watch.is_trusted(&path, dir_id) {
            // A filesystem the watcher does not trust (nothing is ever trusted there).
            assert_eq!(watch.trusted_count(), 0);
            return;
        }
        std::fs::write(path.join("renamed_in.py"), "y").unwrap();
        watch.drain();
        assert!(
            !watch.is_trusted(&path, dir_id),
            "a new entry in the directory left it trusted"
        );
    }
}
