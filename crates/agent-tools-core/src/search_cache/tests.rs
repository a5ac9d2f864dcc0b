use super::*;

fn id_of(path: &Path) -> FileId {
    FileId::stat(path, false).unwrap().1
}

/// A file last changed an hour ago (its ctime cannot be set back, so the call "starts" later).
fn call_start_after(path: &Path) -> i128 {
    id_of(path).ctime_ns + 3600 * 1_000_000_000
}

/// Stores `bytes` as what was read from `path` by a call that started at `start`.
fn put(cache: &Arc<WorkspaceCache>, path: &Path, start: i128, bytes: Vec<u8>) {
    let encoding = Encoding::of(&bytes);
    cache.store(path, id_of(path), start, Arc::new(bytes), encoding);
    cache.call_finished();
}

/// A directory holding one file `name` with `text`, and an empty cache of 1 MiB.
fn one_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf, Arc<WorkspaceCache>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap();
    (dir, file, cache(1 << 20))
}

fn cache(budget: usize) -> Arc<WorkspaceCache> {
    let cache = Arc::new(WorkspaceCache::new());
    cache.budget.store(budget, Ordering::Relaxed);
    cache
}

#[test]
fn a_cached_file_is_fresh_until_it_changes() {
    let (_dir, file, cache) = one_file("a.txt", "hello world");
    assert!(cache.fresh(&file).is_none(), "nothing cached yet");
    let read = || {
        put(
            &cache,
            &file,
            call_start_after(&file),
            b"hello world".to_vec(),
        )
    };
    read();
    let entry = cache.fresh(&file).expect("cached");
    assert!(
        entry.content.is_none(),
        "bytes are kept from the second read on"
    );
    read();
    let entry = cache.fresh(&file).expect("cached");
    assert!(entry.utf8 && !entry.has_nul);
    assert_eq!(
        entry.content.as_deref().map(Vec::as_slice),
        Some(&b"hello world"[..])
    );
    // same size, mtime set back: the ctime still moves
    let mtime = std::fs::metadata(&file).unwrap().modified().unwrap();
    std::fs::write(&file, "HELLO WORLD").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert!(cache.fresh(&file).is_none(), "a changed file is not fresh");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "wine 8's CreateSymbolicLinkW is a stub (reports success, creates nothing): needs real Windows with the symlink privilege"
)]
fn a_file_replaced_by_a_symlink_is_not_fresh() {
    let (dir, file, cache) = one_file("a.txt", "hello world");
    for _ in 0..2 {
        put(
            &cache,
            &file,
            call_start_after(&file),
            b"hello world".to_vec(),
        );
    }
    assert!(cache.fresh(&file).is_some(), "cached");
    // replaced by a symlink to a file with the same content
    let other = dir.path().join("b.txt");
    std::fs::write(&other, "hello world").unwrap();
    std::fs::remove_file(&file).unwrap();
    crate::sys::symlink(&other, &file).unwrap();
    assert!(std::fs::symlink_metadata(&file)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(cache.fresh(&file).is_none(), "a symlink is never fresh");
}

#[test]
fn racily_clean_files_are_not_cached() {
    let (_dir, file, cache) = one_file("a.txt", "x");
    // the call started just after the file changed: a change in the same tick could follow
    put(
        &cache,
        &file,
        id_of(&file).ctime_ns + 1_000_000,
        b"x".to_vec(),
    );
    assert!(cache.fresh(&file).is_none());
    assert_eq!(cache.bytes.load(Ordering::Relaxed), 0);
}

#[test]
fn the_budget_bounds_what_is_held_and_eviction_keeps_the_recently_used() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache(64 * 1024);
    let paths: Vec<PathBuf> = (0..40)
        .map(|i| {
            let path = dir.path().join(format!("f{i}.txt"));
            std::fs::write(&path, vec![b'a' + (i % 26) as u8; 4096]).unwrap();
            path
        })
        .collect();
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        put(&cache, path, call_start_after(path), bytes.clone());
        put(&cache, path, call_start_after(path), bytes);
        assert!(
            cache.bytes.load(Ordering::Relaxed) <= 64 * 1024,
            "never past the budget"
        );
    }
    wait_idle();
    // a later call uses the bytes of three files
    let used: Vec<&PathBuf> = paths
        .iter()
        .filter(|p| cache.fresh(p).is_some_and(|e| e.content.is_some()))
        .take(3)
        .collect();
    assert_eq!(used.len(), 3);
    cache.clock.fetch_add(1, Ordering::Relaxed);
    for path in &used {
        let entry = cache.fresh(path).expect("an entry");
        assert!(cache.content_of(&entry).is_some());
    }
    // a smaller budget evicts: what was used last keeps its bytes
    // (40 entries with their indexes take about 18 KiB, the three files 12 KiB)
    let with_bytes = |cache: &WorkspaceCache| {
        let entries = cache.entries.read().unwrap();
        entries.values().filter(|e| e.content.is_some()).count()
    };
    let before = with_bytes(&cache);
    cache.budget.store(48 * 1024, Ordering::Relaxed);
    cache.evict(Room::Everything);
    let held = cache.bytes.load(Ordering::Relaxed);
    assert!(held <= 36 * 1024, "evicted to three quarters: {held}");
    let entries = cache.entries.read().unwrap();
    let total: usize = entries.iter().map(|(p, e)| e.cost(p)).sum();
    assert_eq!(total, held, "the count matches what is held");
    for path in &used {
        assert!(
            entries[path.as_os_str()].content.is_some(),
            "recently used bytes are kept"
        );
    }
    drop(entries);
    assert!(with_bytes(&cache) < before, "older bytes were evicted");
}

#[test]
fn the_background_builds_indexes_that_rule_files_out() {
    let (_dir, file, cache) = one_file("a.rs", "fn main() { println!(\"Hello\"); }");
    let bytes = std::fs::read(&file).unwrap();
    put(&cache, &file, call_start_after(&file), bytes);
    wait_idle();
    let entry = cache.fresh(&file).unwrap();
    let index = entry.index.as_ref().expect("indexed");
    assert!(trigrams::Requirement::of_regex("println").admits(index));
    assert!(
        trigrams::Requirement::of_regex("HELLO").admits(index),
        "folded"
    );
    assert!(!trigrams::Requirement::of_regex("no_such_identifier").admits(index));
}

#[test]
fn budgets() {
    assert_eq!(budget_of(&ArgValue::Undefined), Ok(DEFAULT_BUDGET));
    assert_eq!(budget_of(&ArgValue::Number(0.0)), Ok(0));
    assert_eq!(budget_of(&ArgValue::Number(4096.0)), Ok(4096));
    for bad in [
        ArgValue::Number(-1.0),
        ArgValue::Number(1.5),
        ArgValue::Number(f64::NAN),
        ArgValue::from("1"),
    ] {
        assert_eq!(budget_of(&bad), Err(BUDGET_MESSAGE));
    }
}

#[test]
fn a_first_read_is_recorded_after_the_call_and_a_later_one_at_once() {
    let (_dir, file, cache) = one_file("a.txt", "hello");
    let start = call_start_after(&file);
    let read = || FirstRead {
        path: file.as_os_str().to_owned(),
        id: id_of(&file),
        call_start_ns: start,
        encoding: Encoding::of(b"hello"),
    };
    let bytes = || Arc::new(b"hello".to_vec());
    let mut deferred = Deferred::default();
    let lookup = cache.lookup(&file);
    assert_eq!(lookup.as_ref().err(), Some(&Lookup::Unknown));
    cache.record_read(read(), bytes(), &lookup, &mut deferred);
    assert_eq!(
        deferred.files.len(),
        1,
        "an unknown file waits in the call's list"
    );
    assert!(
        cache.fresh(&file).is_none(),
        "nothing recorded during the call"
    );
    cache.defer(deferred);
    cache.insert_pending();
    let entry = cache.fresh(&file).expect("recorded after the call");
    assert!(entry.content.is_none(), "no bytes from a first read");

    let mut deferred = Deferred::default();
    let lookup = cache.lookup(&file);
    assert!(lookup.is_ok());
    cache.record_read(read(), bytes(), &lookup, &mut deferred);
    assert!(deferred.is_empty(), "a known file is not deferred");
    let entry = cache.fresh(&file).expect("still cached");
    assert_eq!(
        entry.content.as_deref().map(Vec::as_slice),
        Some(&b"hello"[..])
    );
}

/// Keeps a query's results in one file, as a call's deferred matches recorded after it.
fn keep(
    cache: &Arc<WorkspaceCache>,
    path: &Path,
    id: FileId,
    call_start_ns: i128,
    query: &Arc<str>,
    results: Arc<Vec<u32>>,
    cost: usize,
) {
    cache.defer(Deferred {
        matches: vec![FoundMatches {
            path: path.as_os_str().to_owned(),
            id,
            call_start_ns,
            query: Arc::clone(query),
            results,
            cost,
        }],
        ..Deferred::default()
    });
    cache.insert_pending();
}

#[test]
fn results_are_kept_per_query_for_the_file_they_came_from() {
    let (_dir, file, cache) = one_file("a.ts", "f(1)");
    let (one, two): (Arc<str>, Arc<str>) = ("q1".into(), "q2".into());
    let id = id_of(&file);
    let start = call_start_after(&file);
    keep(&cache, &file, id, start, &one, Arc::new(vec![1u32]), 10);
    keep(&cache, &file, id, start, &two, Arc::new(vec![2u32]), 10);
    let got = |q: &str, id| {
        cache
            .memo(&file, id, q)
            .and_then(|m| m.downcast_ref::<Vec<u32>>().cloned())
    };
    assert_eq!(got("q1", id), Some(vec![1]));
    assert_eq!(got("q2", id), Some(vec![2]));
    assert_eq!(got("q3", id), None);
    // the file changed: nothing of the old identity is served
    std::fs::write(&file, "f(2)").unwrap();
    assert_eq!(got("q1", id_of(&file)), None);
    // racily clean: not kept
    let recent = id_of(&file);
    keep(
        &cache,
        &file,
        recent,
        recent.ctime_ns + 1,
        &one,
        Arc::new(vec![3u32]),
        10,
    );
    assert_eq!(got("q1", recent), None);
    // a new identity replaces the old results
    keep(
        &cache,
        &file,
        recent,
        call_start_after(&file),
        &one,
        Arc::new(vec![4u32]),
        10,
    );
    assert_eq!(got("q1", recent), Some(vec![4]));
    assert_eq!(
        got("q2", id),
        None,
        "results of the old identity are dropped"
    );
}

/// Whether the filesystem of `path` is one the watcher trusts (`watch`).
#[cfg(linux_native)]
#[allow(clippy::unnecessary_cast)] // `f_type`'s width differs between targets
fn watched_filesystem(path: &Path) -> bool {
    let magic = rustix::fs::statfs(path).unwrap().f_type as i64;
    [
        0xEF53,
        0x5846_5342,
        0x9123_683E,
        0x0102_1994,
        0xF2F5_2010,
        0x2FC1_2FC1,
        0x8584_58F6,
    ]
    .contains(&magic)
}

/// The watcher trusts what it watches and checked, and every change untrusts what it touches:
/// writes (also through a hard link made outside), renames over a name, a directory's
/// permissions (everything below), a directory moved away and replaced.
#[cfg(linux_native)]
#[test]
fn watched_paths_are_trusted_until_an_event_names_them() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("ws");
    let sub = root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let outside = base.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let files: Vec<PathBuf> = ["a.txt", "b.txt", "c.txt", "sub/d.txt", "sub/e.txt"]
        .iter()
        .map(|name| {
            let path = root.join(name);
            std::fs::write(&path, name.as_bytes()).unwrap();
            path
        })
        .collect();
    let cache = cache(1 << 20);
    // What a call would record: the two listings and the files.
    let cache_all = |cache: &Arc<WorkspaceCache>| {
        for (dir, is_root) in [(&root, true), (&sub, false)] {
            let mut fresh = Vec::new();
            cache
                .listing(dir, is_root, call_start_after(dir), &mut fresh)
                .unwrap();
            cache.defer(Deferred {
                listings: fresh,
                ..Deferred::default()
            });
        }
        for file in &files {
            if let Ok(bytes) = std::fs::read(file) {
                put(cache, file, call_start_after(file), bytes);
            }
        }
        wait_idle();
    };
    cache_all(&cache);
    let trusted = |path: &Path| {
        cache.watch.drain();
        let id = match std::fs::symlink_metadata(path) {
            Ok(meta) => FileId::of(&meta),
            Err(_) => return false,
        };
        cache.watch.is_trusted(path, id)
    };
    if !watched_filesystem(base.path()) {
        assert_eq!(cache.watch.trusted_count(), 0, "nothing trusted here");
        return;
    }
    assert!(!trusted(&root), "the walk's root is always checked");
    assert!(trusted(&sub));
    for file in &files {
        assert!(trusted(file), "{} is trusted", file.display());
    }
    // a write through the path
    std::fs::write(&files[0], "changed").unwrap();
    assert!(!trusted(&files[0]));
    assert!(trusted(&files[1]));
    // a write through a hard link made outside the workspace
    let link = outside.join("b-link");
    std::fs::hard_link(&files[1], &link).unwrap();
    assert!(!trusted(&files[1]), "the link count moved");
    cache_all(&cache);
    assert!(trusted(&files[1]), "trusted again once checked");
    std::fs::write(&link, "through the link").unwrap();
    assert!(!trusted(&files[1]), "written through the other name");
    // a rename over a name: the name and its directory
    cache_all(&cache);
    assert!(trusted(&files[2]) && trusted(&sub));
    std::fs::rename(&files[0], &files[2]).unwrap();
    assert!(!trusted(&files[2]));
    // a directory's permissions: everything below it
    cache_all(&cache);
    assert!(trusted(&files[3]) && trusted(&files[4]));
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(!trusted(&sub) && !trusted(&files[3]) && !trusted(&files[4]));
    // a directory moved away and another put in its place
    cache_all(&cache);
    assert!(trusted(&files[3]));
    std::fs::rename(&sub, outside.join("sub")).unwrap();
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(&files[3], "sub/d.txt").unwrap();
    assert!(!trusted(&sub) && !trusted(&files[3]));
    // eviction starts over
    cache_all(&cache);
    assert!(trusted(&files[3]));
    cache.watch.reset();
    assert!(!trusted(&files[3]));
}

/// Bytes that do not fit evict only older bytes: the listings and entries that spare a warm call
/// its directory reads and `lstat`s stay, even when they alone hold over three quarters of the
/// budget (the eviction target).
#[test]
fn bytes_that_do_not_fit_never_cost_listings_or_entries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let paths: Vec<PathBuf> = (0..6)
        .map(|i| {
            let path = root.join(format!("f{i}.txt"));
            std::fs::write(&path, vec![b'a' + i as u8; 4096]).unwrap();
            path
        })
        .collect();
    let cache = cache(1 << 20);
    let mut fresh = Vec::new();
    cache
        .listing(&root, false, call_start_after(&root), &mut fresh)
        .unwrap();
    cache.defer(Deferred {
        listings: fresh,
        ..Deferred::default()
    });
    let read_all = || {
        for path in &paths {
            put(
                &cache,
                path,
                call_start_after(path),
                std::fs::read(path).unwrap(),
            );
        }
        wait_idle();
    };
    // First reads: entries, indexes and the listing, no bytes.
    read_all();
    let structure = cache.bytes.load(Ordering::Relaxed);
    assert_eq!(cache.listings.read().unwrap().len(), 1);
    // A budget the structure fills beyond three quarters, with no room for a file's bytes.
    cache
        .budget
        .store(structure + structure / 8, Ordering::Relaxed);
    read_all();
    read_all();
    assert_eq!(cache.bytes.load(Ordering::Relaxed), structure);
    assert_eq!(cache.listings.read().unwrap().len(), 1, "the listing stays");
    let entries = cache.entries.read().unwrap();
    assert_eq!(entries.len(), 6, "every entry stays");
    assert!(entries
        .values()
        .all(|e| e.content.is_none() && e.index.is_some()));
}
