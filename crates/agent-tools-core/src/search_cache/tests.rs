use super::*;

fn id_of(path: &Path) -> FileId {
    FileId::of(&std::fs::symlink_metadata(path).unwrap())
}

/// A file last changed an hour ago (its ctime cannot be set back, so the call "starts" later).
fn call_start_after(path: &Path) -> i128 {
    id_of(path).ctime_ns + 3600 * 1_000_000_000
}

fn cache(budget: usize) -> Arc<WorkspaceCache> {
    let cache = Arc::new(WorkspaceCache::new());
    cache.budget.store(budget, Ordering::Relaxed);
    cache
}

#[test]
fn a_cached_file_is_fresh_until_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "hello world").unwrap();
    let cache = cache(1 << 20);
    assert!(cache.fresh(&file).is_none(), "nothing cached yet");
    cache.store(
        &file,
        id_of(&file),
        call_start_after(&file),
        Arc::new(b"hello world".to_vec()),
    );
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
    // replaced by a symlink to a file with the same content
    let other = dir.path().join("b.txt");
    std::fs::write(&other, "hello world").unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&other, &file).unwrap();
    assert!(cache.fresh(&file).is_none(), "a symlink is never fresh");
}

#[test]
fn racily_clean_files_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "x").unwrap();
    let cache = cache(1 << 20);
    // the call started just after the file changed: a change in the same tick could follow
    cache.store(
        &file,
        id_of(&file),
        id_of(&file).ctime_ns + 1_000_000,
        Arc::new(b"x".to_vec()),
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
        cache.store(path, id_of(path), call_start_after(path), Arc::new(bytes));
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
    cache.evict();
    let held = cache.bytes.load(Ordering::Relaxed);
    assert!(held <= 36 * 1024, "evicted to three quarters: {held}");
    let entries = cache.entries.read().unwrap();
    let total: usize = entries.iter().map(|(p, e)| e.cost(p)).sum();
    assert_eq!(total, held, "the count matches what is held");
    for path in &used {
        assert!(
            entries[*path].content.is_some(),
            "recently used bytes are kept"
        );
    }
    drop(entries);
    assert!(with_bytes(&cache) < before, "older bytes were evicted");
}

#[test]
fn the_background_builds_indexes_that_rule_files_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.rs");
    std::fs::write(&file, "fn main() { println!(\"Hello\"); }").unwrap();
    let cache = cache(1 << 20);
    let bytes = std::fs::read(&file).unwrap();
    cache.store(
        &file,
        id_of(&file),
        call_start_after(&file),
        Arc::new(bytes),
    );
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
