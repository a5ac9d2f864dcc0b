//! The search itself: the walk in the CLI's file order, parallel matching, the deadline.

use super::output::{to_item, SUPPRESSION_MARKER};
use super::stoppable::StoppableDoc;
use super::*;

/// Why a search stopped without a result.
enum Abort {
    Timeout,
    Error(ToolError),
}

/// How long a timed-out search is given to stop before the call answers `TIMEOUT` anyway.
const STOP_GRACE: Duration = Duration::from_millis(500);

pub(super) struct Search {
    pub(super) lang: SupportLang,
    pub(super) rule: RuleConfig<SupportLang>,
    /// Texts a file must contain to hold a match (see `required_texts`).
    pub(super) required_texts: Vec<String>,
    /// `required_texts` for the search cache's indexes.
    pub(super) requirement: Requirement,
    /// The query (language and rule) as the search cache's key of per-file results.
    pub(super) query_key: Arc<str>,
    /// The workspace's search cache, when this call uses one.
    pub(super) cache: Option<Arc<WorkspaceCache>>,
    /// When the call started (the search cache's racy check).
    pub(super) call_start_ns: i128,
    /// The absolute (lexical) directory walked.
    pub(super) root_abs: String,
    /// `root_abs` relative to the workspace root (`.` for the root).
    pub(super) root_rel: String,
    pub(super) overrides: Override,
    pub(super) types: Types,
    pub(super) max_results: usize,
    pub(super) confinement: Option<Confinement>,
    pub(super) deadline: Instant,
    pub(super) cancelled: Arc<AtomicBool>,
}

/// A file to search: its `file` field and where it is.
struct Candidate {
    file: String,
    path: PathBuf,
}

impl Search {
    /// Runs the search on its own thread and waits for it until the deadline at most (then for
    /// [`STOP_GRACE`] more at most, while it stops).
    pub(super) fn run_until_deadline(self) -> Result<(Vec<AstGrepJsonMatch>, bool), ToolError> {
        let cancelled = Arc::clone(&self.cancelled);
        let deadline = self.deadline;
        let (sender, receiver) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("ast-grep-search".into())
            .spawn(move || {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run()));
                let _ = sender.send(outcome);
            });
        if let Err(e) = spawned {
            return Err(ERROR_CLASS.coded(ErrorCode::Internal, e.to_string()));
        }
        let wait = deadline.saturating_duration_since(Instant::now());
        let timeout = || ERROR_CLASS.coded(ErrorCode::Timeout, "search timed out");
        match receiver.recv_timeout(wait) {
            Ok(Ok(Ok(found))) => Ok(found),
            Ok(Ok(Err(Abort::Error(e)))) => Err(e),
            Ok(Ok(Err(Abort::Timeout))) => Err(timeout()),
            Ok(Err(panic)) => {
                let text = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(ERROR_CLASS.coded(
                    ErrorCode::Internal,
                    format!("ast-grep search failed: {text}"),
                ))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                cancelled.store(true, Ordering::Relaxed);
                // The search stops at its next file (a parse in progress is cancelled): let it,
                // for a bounded while, so that no file it had open outlives the call (Windows
                // refuses to remove a directory while a file below it is open).
                let _ = receiver.recv_timeout(STOP_GRACE);
                Err(timeout())
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(ERROR_CLASS.coded(ErrorCode::Internal, "ast-grep search failed unexpectedly"))
            }
        }
    }

    fn should_stop(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || Instant::now() >= self.deadline
    }

    fn run(&self) -> Result<(Vec<AstGrepJsonMatch>, bool), Abort> {
        let mut candidates = self.walk()?;
        sort_by_yielding(&mut candidates, |a, b| {
            locale_compare(&a.file, &b.file).then_with(|| a.file.cmp(&b.file))
        });
        let items = self.scan_in_order(&candidates)?;
        let truncated = items.len() >= self.max_results;
        Ok((items, truncated))
    }

    fn threads() -> usize {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
    }

    /// The files `sg scan` would visit.
    fn walk(&self) -> Result<Vec<Candidate>, Abort> {
        let mut builder = WalkBuilder::new(&self.root_abs);
        builder
            .hidden(true)
            .parents(true)
            .ignore(true)
            .git_global(true)
            .git_ignore(true)
            .git_exclude(true)
            .follow_links(false)
            .overrides(self.overrides.clone())
            .types(self.types.clone())
            .threads(Self::threads());
        let found = Mutex::new(Vec::new());
        let stopped = AtomicBool::new(false);
        let priorities = WalkerPriorities::new();
        builder.build_parallel().run(|| {
            let (found, stopped) = (&found, &stopped);
            let mut priority = priorities.visitor();
            Box::new(move |entry| {
                priority.on_visit();
                if self.should_stop() {
                    stopped.store(true, Ordering::Relaxed);
                    return WalkState::Quit;
                }
                // Unreadable entries are skipped, as the CLI does (it only logs them).
                if let Ok(entry) = entry {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        let path = entry.into_path();
                        let file = self.file_field(&path);
                        if let Ok(mut found) = found.lock() {
                            found.push(Candidate { file, path });
                        }
                    }
                }
                WalkState::Continue
            })
        });
        if stopped.load(Ordering::Relaxed) {
            return Err(Abort::Timeout);
        }
        Ok(found.into_inner().unwrap_or_default())
    }

    /// The workspace-relative `file` of a walked path (`/`-separated).
    fn file_field(&self, path: &Path) -> String {
        let below = path
            .strip_prefix(&self.root_abs)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        if self.root_rel == "." {
            below
        } else {
            format!("{}/{below}", self.root_rel)
        }
    }

    /// Matches the sorted candidates in parallel, in order, until a complete prefix of files
    /// holds `max_results` items; returns the first `max_results` items of that prefix.
    fn scan_in_order(&self, candidates: &[Candidate]) -> Result<Vec<AstGrepJsonMatch>, Abort> {
        struct Progress {
            /// Per file: its items once scanned.
            done: Vec<Option<Vec<AstGrepJsonMatch>>>,
            /// Files `0..prefix` are all scanned ...
            prefix: usize,
            /// ... and hold this many items.
            prefix_items: usize,
            failure: Option<Abort>,
        }
        let progress = Mutex::new(Progress {
            done: (0..candidates.len()).map(|_| None).collect(),
            prefix: 0,
            prefix_items: 0,
            failure: None,
        });
        let next = AtomicUsize::new(0);
        let enough = AtomicBool::new(false);
        let worker = || {
            let mut turns = PeriodicYield::new();
            let mut deferred = Deferred::default();
            loop {
                turns.between_items();
                if enough.load(Ordering::Relaxed) {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= candidates.len() {
                    break;
                }
                let result = if self.should_stop() {
                    Err(Abort::Timeout)
                } else {
                    self.scan_file(&candidates[index], &mut deferred)
                };
                let Ok(mut p) = progress.lock() else { break };
                match result {
                    Ok(items) => p.done[index] = Some(items),
                    Err(abort) => {
                        p.failure.get_or_insert(abort);
                        enough.store(true, Ordering::Relaxed);
                        break;
                    }
                }
                while p.prefix < candidates.len() {
                    let Some(items) = &p.done[p.prefix] else {
                        break;
                    };
                    p.prefix_items += items.len();
                    p.prefix += 1;
                }
                if p.prefix_items >= self.max_results {
                    enough.store(true, Ordering::Relaxed);
                }
            }
            if let Some(cache) = &self.cache {
                cache.defer(deferred);
            }
        };
        run_on_threads(Self::threads().min(candidates.len().max(1)), worker);
        let progress = progress.into_inner().map_err(|_| {
            Abort::Error(
                ERROR_CLASS.coded(ErrorCode::Internal, "ast-grep search failed unexpectedly"),
            )
        })?;
        if let Some(failure) = progress.failure {
            return Err(failure);
        }
        let mut items = Vec::new();
        for file_items in progress.done.into_iter().take(progress.prefix).flatten() {
            items.extend(file_items);
        }
        items.truncate(self.max_results);
        Ok(items)
    }

    /// All matches in one file, in range order; what the search cache learns goes to `deferred`.
    fn scan_file(
        &self,
        candidate: &Candidate,
        deferred: &mut Deferred,
    ) -> Result<Vec<AstGrepJsonMatch>, Abort> {
        let Some(file_lang) = SupportLang::from_path(&candidate.path) else {
            return Ok(Vec::new());
        };
        let as_host = file_lang == self.lang;
        if !as_host && !embeds(file_lang, self.lang) {
            return Ok(Vec::new());
        }
        let lookup = self
            .cache
            .as_ref()
            .map(|cache| cache.lookup(&candidate.path));
        if let (Some(cache), Some(Ok(entry))) = (&self.cache, &lookup) {
            let memo = cache.memo(&candidate.path, entry.id, &self.query_key);
            if let Some(items) = memo
                .as_ref()
                .and_then(|m| m.downcast_ref::<Vec<AstGrepJsonMatch>>())
            {
                return Ok(items.clone());
            }
        }
        let Some((bytes, id)) = self.read_source(candidate, lookup, deferred) else {
            return Ok(Vec::new());
        };
        let lacks = |text: &String| memchr::memmem::find(&bytes, text.as_bytes()).is_none();
        if self.required_texts.iter().any(lacks) {
            return Ok(Vec::new());
        }
        // Checked by `read_source`.
        let Ok(source) = std::str::from_utf8(&bytes) else {
            return Ok(Vec::new());
        };
        let Some(doc) = self.parse(source.to_string(), file_lang)? else {
            return Ok(Vec::new());
        };
        let stoppable = |doc: StrDoc<SupportLang>| {
            AstGrep::doc(StoppableDoc::new(doc, Arc::clone(&self.cancelled)))
        };
        let mut items = Vec::new();
        if as_host {
            self.collect(&stoppable(doc), &candidate.file, &mut items);
        } else {
            let embedded =
                AstGrep::doc(doc).get_injections(|name| SupportLang::from_str(name).ok());
            for root in embedded.iter().filter(|d| *d.lang() == self.lang) {
                let doc = root.root().get_doc().clone();
                self.collect(&stoppable(doc), &candidate.file, &mut items);
            }
        }
        // A stopped search's tree answered "nothing there" part-way: its matches are incomplete.
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(Abort::Timeout);
        }
        items.sort_by_key(|item| (item.range.start, item.range.end));
        if let Some(id) = id {
            deferred.matches.push(FoundMatches {
                path: candidate.path.as_os_str().to_owned(),
                id,
                call_start_ns: self.call_start_ns,
                query: Arc::clone(&self.query_key),
                results: Arc::new(items.clone()),
                cost: items.iter().map(|i| 256 + 2 * i.text.len()).sum(),
            });
        }
        Ok(items)
    }

    /// The file's bytes, UTF-8 as the CLI requires: `None` for files it skips (unreadable, not
    /// UTF-8, empty, too large) and for files the search cache's index rules out.
    /// With the file's identity when the search cache may keep what is found in it (`lookup`:
    /// what the cache knew of it; a file it did not know goes to `deferred`).
    fn read_source(
        &self,
        candidate: &Candidate,
        lookup: Option<Result<Arc<Entry>, Lookup>>,
        deferred: &mut Deferred,
    ) -> Option<(Arc<Vec<u8>>, Option<FileId>)> {
        if let (Some(cache), Some(Ok(entry))) = (&self.cache, &lookup) {
            if !entry.utf8 {
                return None;
            }
            if let Some(index) = &entry.index {
                if !self.requirement.admits(index) {
                    return None;
                }
            }
            if let Some(content) = cache.content_of(entry) {
                return Some((self.searchable(content)?, Some(entry.id)));
            }
        }
        let opened = crate::sys::with_flags(
            fs::OpenOptions::new().read(true),
            crate::sys::fs::OFlags::NOFOLLOW | crate::sys::fs::OFlags::CLOEXEC,
        )
        .open(&candidate.path);
        let mut file = opened.ok()?;
        // The walk goes by path, so a directory swapped for a symlink while it runs can list
        // files outside: what was opened is checked, and a file outside is skipped without a
        // trace (as regexp_search does), so not even its name reaches the caller.
        if let Some(confinement) = &self.confinement {
            if !confinement.contains_fd(&file) {
                return None;
            }
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).ok()?;
        let utf8 = std::str::from_utf8(&bytes).is_ok();
        let bytes = Arc::new(bytes);
        let mut id = None;
        if let (Some(cache), Some(lookup)) = (&self.cache, &lookup) {
            if let Ok(meta) = file.metadata() {
                let read = FirstRead {
                    path: candidate.path.as_os_str().to_owned(),
                    id: FileId::of_open(&file, &meta),
                    call_start_ns: self.call_start_ns,
                    encoding: Encoding {
                        has_nul: memchr::memchr(0, &bytes).is_some(),
                        utf8,
                    },
                };
                id = Some(read.id);
                cache.record_read(read, Arc::clone(&bytes), lookup, deferred);
            }
        }
        if !utf8 {
            return None;
        }
        Some((self.searchable(bytes)?, id))
    }

    /// `bytes` (UTF-8) unless the CLI skips the file: empty, or over both size limits.
    fn searchable(&self, bytes: Arc<Vec<u8>>) -> Option<Arc<Vec<u8>>> {
        let too_large = bytes.len() > MAX_FILE_BYTES && line_count(&bytes) > MAX_FILE_LINES;
        (!bytes.is_empty() && !too_large).then_some(bytes)
    }

    /// Parses with tree-sitter, giving up when the search is cancelled or out of time.
    fn parse(
        &self,
        source: String,
        lang: SupportLang,
    ) -> Result<Option<StrDoc<SupportLang>>, Abort> {
        let mut parser = tree_sitter::Parser::new();
        if parser.set_language(&lang.get_ts_language()).is_err() {
            return Ok(None);
        }
        let bytes = source.as_bytes();
        let mut read =
            |offset: usize, _: tree_sitter::Point| bytes.get(offset..).unwrap_or_default();
        let mut progress = |_: &tree_sitter::ParseState| {
            if self.should_stop() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_with_options(&mut read, None, Some(options));
        match tree {
            Some(tree) => Ok(Some(StrDoc {
                src: source,
                lang,
                tree,
            })),
            None if self.should_stop() => Err(Abort::Timeout),
            None => Ok(None),
        }
    }

    /// The rule's matches in one document (ast-grep-ignore comments honoured).
    fn collect(&self, doc: &AstGrep<StoppableDoc>, file: &str, out: &mut Vec<AstGrepJsonMatch>) {
        // Without a suppression comment, the combined scan's extra pass that collects them finds
        // nothing, and its match loop is exactly `find_all` with the rule's matcher.
        let source = doc.root().get_doc().source();
        if memchr::memmem::find(source.as_bytes(), SUPPRESSION_MARKER.as_bytes()).is_none() {
            out.extend(
                doc.root()
                    .find_all(&self.rule.matcher)
                    .map(|m| to_item(&self.rule, &m, file)),
            );
            return;
        }
        let combined = CombinedScan::new(vec![&self.rule]);
        for (rule, matches) in combined.scan(doc, false).matches {
            out.extend(matches.iter().map(|m| to_item(rule, m, file)));
        }
    }
}

/// `str::lines().count()` of UTF-8 bytes.
fn line_count(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
        + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}
