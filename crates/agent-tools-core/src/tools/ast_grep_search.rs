//! ast_grep_search (docs/tools/ast_grep_search.md, docs/compat.md): structural search in process
//! with the ast-grep crates, no `sg` binary.
//!
//! The rule is read exactly as the CLI reads upstream's temporary `rule.yml`: the same three YAML
//! lines (`id`, `language`, `rule` as JSON, which is YAML flow syntax) go through
//! `ast_grep_config::from_yaml_string`, so every rule the CLI accepts works and every rule it
//! refuses is refused with its wording. Files are chosen as `sg scan` chooses them: the `ignore`
//! crate's walker with the CLI's defaults (hidden entries skipped, `.gitignore`/`.ignore`/git
//! excludes honoured, symlinks not followed, file types of the rule's language — plus HTML when
//! the language can be embedded in it), upstream's `--globs` as overrides relative to the
//! workspace root (gitignore glob rules; the last matching glob wins; a glob match beats every
//! other rule), files that are not UTF-8, empty, or over 3 MB *and* 200 000 lines skipped. Each
//! file is matched as `CombinedScan` matches it (so `ast-grep-ignore` comments suppress matches; a
//! file without one goes straight to the rule's matcher, which finds the same), and
//! `<script>` blocks of HTML files are matched when the rule's language is embedded there.
//!
//! Deliberate improvements over the CLI (docs/compat.md, "ast_grep_search runs in-process, without the sg binary" are gone with the binary):
//! * Deterministic output. Files are sorted by their workspace-relative path with
//!   `localeCompare` (ties by code units), items within a file by start line, start column, end
//!   line, end column (ties keep ast-grep's traversal order), and `max_results` keeps the first
//!   items of that order — the CLI kept whichever its parallel walk found first. Files are
//!   matched in parallel in that order and the search stops as soon as a complete prefix of
//!   files holds `max_results` items. The keys of `metaVariables.single`/`multi`/`transformed`
//!   are sorted by name (the CLI printed hash order).
//! * `timeout_ms` bounds the call: the search runs on its own thread and the call returns
//!   `TIMEOUT` at the deadline; the search stops at the next file (a parse in progress is
//!   cancelled too).
//! * Sandboxed calls re-check every file they open (and the root directory) against the real
//!   workspace root.

use std::fs;
use std::io::Read;
use std::ops::ControlFlow;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use ast_grep_config::{from_yaml_string, CombinedScan, GlobalRules, LabelStyle, RuleConfig};
use ast_grep_core::matcher::PatternNode;
use ast_grep_core::meta_var::MetaVariable;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::{AstGrep, Language, Node, NodeMatch, Pattern};
use ast_grep_language::SupportLang;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use ignore::{WalkBuilder, WalkState};
use serde::Serialize;
use ts_rs::TS;

use super::{
    integer_option, lower_helper_thread_priority, to_json, workspace_root, HelperThreadPriority,
};
use crate::collation::locale_compare;
use crate::context::RunContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::paths;
use crate::sandbox::Confinement;
use crate::value::{js_trim, ArgValue};

pub const ERROR_CLASS: ErrorClass = ErrorClass("AstGrepSearchError");

/// The rule id of upstream's temporary rule file (`ruleId` of every item).
const RULE_ID: &str = "ast-grep-search-rule";

/// Upstream's fixed `--globs`, before the caller's.
const DEFAULT_GLOBS: [&str; 6] = [
    "!.git/**",
    "!node_modules/**",
    "!dist/**",
    "!build/**",
    "!target/**",
    "!.vscode/**",
];

/// The CLI skips files larger than this many bytes *and* longer than this many lines.
const MAX_FILE_BYTES: usize = 3_000_000;
const MAX_FILE_LINES: usize = 200_000;

/// The CLI's worker count: one per core, at most 12.
const MAX_THREADS: usize = 12;

#[derive(TS)]
#[allow(dead_code)]
pub struct AstGrepSearchInput {
    pub language: String,
    #[ts(type = "Record<string, unknown>")]
    pub rule: (),
    #[ts(optional)]
    pub root_path: Option<String>,
    #[ts(optional)]
    pub include: Option<Vec<String>>,
    #[ts(optional)]
    pub exclude: Option<Vec<String>>,
    #[ts(optional)]
    pub max_results: Option<f64>,
    #[ts(optional)]
    pub timeout_ms: Option<f64>,
}

/// A 0-based position; `column` counts characters (Unicode scalar values), as the CLI does.
#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[ts(type = "{ line: number; column: number; offset?: number; [key: string]: unknown }")]
pub struct AstGrepJsonPosition {
    pub line: usize,
    pub column: usize,
}

#[derive(Serialize, Debug, Clone, Copy)]
pub struct ByteOffset {
    pub start: usize,
    pub end: usize,
}

#[derive(Serialize, TS, Debug, Clone, Copy)]
#[ts(type = "{ start: AstGrepJsonPosition; end: AstGrepJsonPosition; [key: string]: unknown }")]
pub struct AstGrepJsonRange {
    #[serde(rename = "byteOffset")]
    pub byte_offset: ByteOffset,
    pub start: AstGrepJsonPosition,
    pub end: AstGrepJsonPosition,
}

#[derive(Serialize, Debug)]
pub struct CharCount {
    pub leading: usize,
    pub trailing: usize,
}

/// A node bound to a meta variable.
#[derive(Serialize, Debug)]
pub struct MatchedNode {
    pub text: String,
    pub range: AstGrepJsonRange,
}

#[derive(Serialize, Debug)]
pub struct MetaVariables {
    pub single: std::collections::BTreeMap<String, MatchedNode>,
    pub multi: std::collections::BTreeMap<String, Vec<MatchedNode>>,
    pub transformed: std::collections::BTreeMap<String, String>,
}

#[derive(Serialize, Debug)]
pub struct MatchLabel {
    pub text: String,
    pub range: AstGrepJsonRange,
    pub style: &'static str,
}

/// One match, field for field (and in the same key order) what `sg scan --json=stream` prints.
#[derive(Serialize, TS, Debug)]
#[ts(
    type = "{ text: string; file: string; range: AstGrepJsonRange; lines?: string; language?: string; metaVariables?: Record<string, unknown>; ruleId?: string; severity?: string; message?: string; note?: string | null; [key: string]: unknown }"
)]
pub struct AstGrepJsonMatch {
    pub text: String,
    pub range: AstGrepJsonRange,
    pub file: String,
    pub lines: String,
    #[serde(rename = "charCount")]
    pub char_count: CharCount,
    pub language: SupportLang,
    /// Absent when the match bound no meta variable (as in the CLI).
    #[serde(rename = "metaVariables", skip_serializing_if = "Option::is_none")]
    pub meta_variables: Option<MetaVariables>,
    #[serde(rename = "ruleId")]
    pub rule_id: &'static str,
    pub severity: &'static str,
    pub note: Option<String>,
    pub message: String,
    pub labels: Vec<MatchLabel>,
}

#[derive(Serialize, TS, Debug)]
pub struct AstGrepSearchQuery {
    pub language: String,
    #[ts(type = "Record<string, unknown>")]
    pub rule: serde_json::Value,
}

#[derive(Serialize, TS, Debug)]
pub struct AstGrepSearchOutput {
    pub query: AstGrepSearchQuery,
    pub root_path: String,
    pub took_ms: u64,
    pub truncated: bool,
    pub items: Vec<AstGrepJsonMatch>,
    pub warnings: Vec<String>,
}

/// The validated input.
struct Request {
    language: String,
    rule: serde_json::Value,
    root_path: String,
    include: Vec<String>,
    exclude: Vec<String>,
    max_results: usize,
    timeout: Duration,
}

pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let started = Instant::now();
    use_mimalloc_for_tree_sitter();
    let request = validate(rc, args.first().unwrap_or(&ArgValue::Undefined))?;
    let root_path = checked_root_path(&request.root_path)?;
    let workspace_root = paths::absolute(workspace_root(rc, ERROR_CLASS)?);
    let lang = parse_language(&request.language)?;
    let rule = compile_rule(&request.language, &request.rule)?;
    let overrides = build_overrides(&workspace_root, &request.include, &request.exclude)?;
    if let Some(confinement) = &rc.confinement {
        check_root_confined(confinement, &root_path)?;
    }
    let search = Search {
        types: file_types(lang),
        required_texts: required_texts(&request.rule, lang),
        lang,
        rule,
        root_rel: paths::workspace_relative(&workspace_root, &root_path),
        root_abs: root_path,
        overrides,
        max_results: request.max_results,
        confinement: rc.confinement.clone(),
        deadline: started + request.timeout,
        cancelled: Arc::new(AtomicBool::new(false)),
    };
    let root_rel = search.root_rel.clone();
    let (items, truncated) = search.run_until_deadline()?;
    to_json(
        &AstGrepSearchOutput {
            query: AstGrepSearchQuery {
                language: request.language,
                rule: request.rule,
            },
            root_path: root_rel,
            took_ms: started.elapsed().as_millis() as u64,
            truncated,
            items,
            warnings: Vec::new(),
        },
        ERROR_CLASS,
    )
}

/// Validation steps 1–8 of upstream, in its order.
fn validate(rc: &RunContext, input: &ArgValue) -> Result<Request, ToolError> {
    if !input.is_plain_object() {
        return Err(ERROR_CLASS.invalid("input must be an object"));
    }
    let language = match input.get("language") {
        ArgValue::String(s) if !js_trim(s).is_empty() => js_trim(s).to_string(),
        _ => return Err(ERROR_CLASS.invalid("language must be a non-empty string")),
    };
    let rule_value = input.get("rule");
    if !rule_value.is_plain_object() {
        return Err(ERROR_CLASS.invalid("rule must be an object"));
    }
    let rule = match rule_value.to_json() {
        Ok(Some(json)) => json,
        _ => return Err(ERROR_CLASS.invalid("rule must be JSON serializable")),
    };
    let root_path = match input.get("root_path") {
        v if v.is_nullish() => rc.ctx.workspace_root.clone(),
        ArgValue::String(s) => Some(s.clone()),
        _ => None,
    };
    let root_path = match root_path {
        Some(p) if !js_trim(&p).is_empty() => p,
        _ => return Err(ERROR_CLASS.invalid("root_path must be a non-empty string")),
    };
    let include = glob_list(input.get("include"), "include")?;
    let exclude = glob_list(input.get("exclude"), "exclude")?;
    let max_results = integer_option(input.get("max_results"), 100.0, 1.0..=500.0)
        .ok_or_else(|| ERROR_CLASS.invalid("max_results must be an integer between 1 and 500"))?;
    let timeout_ms = integer_option(input.get("timeout_ms"), 5000.0, 1.0..=30000.0)
        .ok_or_else(|| ERROR_CLASS.invalid("timeout_ms must be an integer between 1 and 30000"))?;
    Ok(Request {
        language,
        rule,
        root_path,
        include,
        exclude,
        max_results: max_results as usize,
        timeout: Duration::from_millis(timeout_ms as u64),
    })
}

/// `include` / `exclude`: a string array (default `[]`, `null` refused) of plausible globs, with
/// `\` turned into `/`.
fn glob_list(value: &ArgValue, key: &str) -> Result<Vec<String>, ToolError> {
    let items = match value {
        ArgValue::Undefined => return Ok(Vec::new()),
        ArgValue::Array(items) => items,
        _ => return Err(ERROR_CLASS.invalid(format!("{key} must be a string array"))),
    };
    let mut globs = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let Some(pattern) = item.as_str() else {
            return Err(ERROR_CLASS.invalid(format!("{key}[{index}] must be a string")));
        };
        let problem = super::glob_pattern_problem(pattern).map(|tail| format!("{key} {tail}"));
        if let Some(text) = problem {
            return Err(ERROR_CLASS.invalid(text));
        }
        globs.push(pattern.replace('\\', "/"));
    }
    Ok(globs)
}

/// Step 9: `\` → `/`, runs of `/` collapsed, one trailing `/` dropped, `""` → `"."`; then the
/// directory must exist (symlinks followed, as `stat` does). Returns the absolute path.
fn checked_root_path(raw: &str) -> Result<String, ToolError> {
    let mut normalised = String::with_capacity(raw.len());
    for c in raw.chars().map(|c| if c == '\\' { '/' } else { c }) {
        if !(c == '/' && normalised.ends_with('/')) {
            normalised.push(c);
        }
    }
    if normalised.len() > 1 && normalised.ends_with('/') {
        normalised.pop();
    }
    if normalised.is_empty() {
        normalised.push('.');
    }
    match fs::metadata(&normalised) {
        Ok(meta) if meta.is_dir() => Ok(paths::absolute(&normalised)),
        Ok(_) => Err(ERROR_CLASS.coded(
            ErrorCode::NotDirectory,
            format!("root_path is not a directory: {normalised}"),
        )),
        Err(_) => Err(ERROR_CLASS.coded(
            ErrorCode::NotFound,
            format!("root_path does not exist: {normalised}"),
        )),
    }
}

/// The CLI's error layout for a rule it cannot read: headline, help, then the cause chain.
fn rule_error(causes: &[String]) -> String {
    let mut text = String::from(
        "Error: Cannot parse rule\nHelp: The rule is not a valid ast-grep rule. See also: https://ast-grep.github.io/guide/rule-config.html\n\n✖ Caused by",
    );
    for cause in causes {
        text.push_str("\n╰▻ ");
        text.push_str(cause);
    }
    text
}

/// Any name ast-grep knows (case-insensitive aliases such as `ts`, `TypeScript`, `py`).
fn parse_language(language: &str) -> Result<SupportLang, ToolError> {
    SupportLang::from_str(language).map_err(|_| {
        let known: Vec<String> = SupportLang::all_langs()
            .iter()
            .map(|l| l.to_string().to_lowercase())
            .collect();
        ERROR_CLASS.coded(
            ErrorCode::UnsupportedLanguage,
            rule_error(&[
                "Fail to parse yaml as RuleConfig".to_string(),
                format!(
                    "data did not match any variant of untagged enum SgLang: {} is not a supported language (supported: {})",
                    serde_json::Value::from(language),
                    known.join(", ")
                ),
            ]),
        )
    })
}

/// Texts that every match of `rule` contains, so a file without one of them is not parsed (the
/// CLI's `run` skips matching the same way; `scan`, whose results these are, parses every file):
/// the longest named leaves of a top-level string `pattern`, which the rule requires (a rule's
/// fields are combined with AND). Under the default strictness a named leaf of a pattern only
/// matches a node with exactly its text. Patterns with options, and other rules, give none.
fn required_texts(rule: &serde_json::Value, lang: SupportLang) -> Vec<String> {
    fn named_leaves(node: &PatternNode, out: &mut Vec<String>) {
        match node {
            PatternNode::Terminal { text, is_named, .. } if *is_named && !text.is_empty() => {
                out.push(text.clone())
            }
            PatternNode::Internal { children, .. } => {
                children.iter().for_each(|child| named_leaves(child, out))
            }
            _ => {}
        }
    }
    let Some(source) = rule.get("pattern").and_then(serde_json::Value::as_str) else {
        return Vec::new();
    };
    let Ok(pattern) = Pattern::try_new(source, lang) else {
        return Vec::new();
    };
    let mut texts = Vec::new();
    named_leaves(&pattern.node, &mut texts);
    texts.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    texts.dedup();
    texts.truncate(2);
    texts
}

/// Upstream's `rule.yml`, read the way the CLI reads it.
fn compile_rule(
    language: &str,
    rule: &serde_json::Value,
) -> Result<RuleConfig<SupportLang>, ToolError> {
    let yaml = format!(
        "id: {RULE_ID}\nlanguage: {}\nrule: {}\n",
        serde_json::Value::from(language),
        rule
    );
    let compiled = from_yaml_string::<SupportLang>(&yaml, &GlobalRules::default());
    match compiled {
        Ok(mut rules) if rules.len() == 1 => Ok(rules.remove(0)),
        Ok(_) => Err(ERROR_CLASS.coded(
            ErrorCode::InvalidRule,
            rule_error(&["empty rule".to_string()]),
        )),
        Err(err) => {
            let mut causes = Vec::new();
            let mut source: Option<&dyn std::error::Error> = Some(&err);
            while let Some(e) = source {
                causes.push(e.to_string());
                source = e.source();
            }
            Err(ERROR_CLASS.coded(ErrorCode::InvalidRule, rule_error(&causes)))
        }
    }
}

/// Upstream's `--globs`: the fixed exclusions, then `include`, then `!exclude`, rooted at the
/// workspace root.
fn build_overrides(
    workspace_root: &str,
    include: &[String],
    exclude: &[String],
) -> Result<Override, ToolError> {
    let mut builder = OverrideBuilder::new(workspace_root);
    let globs = DEFAULT_GLOBS
        .iter()
        .map(|g| g.to_string())
        .chain(include.iter().cloned())
        .chain(exclude.iter().map(|g| format!("!{g}")));
    let glob_error = |e: ignore::Error| {
        ERROR_CLASS.coded(
            ErrorCode::Internal,
            format!("Error: Cannot build glob from include/exclude\n\n✖ Caused by\n╰▻ {e}"),
        )
    };
    for glob in globs {
        builder.add(&glob).map_err(glob_error)?;
    }
    builder.build().map_err(glob_error)
}

/// The file types the CLI walks for `lang`: its own extensions, plus those of every language
/// that can embed it (HTML for CSS, JavaScript, TypeScript and TSX).
fn file_types(lang: SupportLang) -> Types {
    let mut builder = TypesBuilder::new();
    let hosts = SupportLang::all_langs()
        .iter()
        .copied()
        .filter(|host| *host != lang && embeds(*host, lang));
    for source in std::iter::once(lang).chain(hosts) {
        for def in source.file_types().definitions() {
            for glob in def.globs() {
                // The globs come from ast-grep's own (valid) definitions.
                let _ = builder.add("rulelanguage", glob);
            }
        }
    }
    builder.select("rulelanguage");
    builder.build().unwrap_or_else(|_| Types::empty())
}

/// True when `host` documents can contain `lang` regions (`<script>` in HTML).
fn embeds(host: SupportLang, lang: SupportLang) -> bool {
    host.injectable_languages()
        .unwrap_or_default()
        .iter()
        .any(|name| SupportLang::from_str(name).ok() == Some(lang))
}

fn sandbox_violation(path: &str) -> ToolError {
    ERROR_CLASS.coded(
        ErrorCode::Internal,
        format!("[Sandbox Violation] Attempted to access path outside of workspace: \"{path}\""),
    )
}

/// tree-sitter's C code allocates through mimalloc like the addon's Rust code (with glibc's
/// malloc, allocation was a tenth of the parse time). Installed once, before this module's
/// first tree-sitter call: nothing else in the addon uses tree-sitter, so no object allocated
/// by one allocator is ever freed by the other. Fuzzing builds keep libc's for the sanitizers.
fn use_mimalloc_for_tree_sitter() {
    #[cfg(not(fuzzing))]
    {
        static INSTALL: std::sync::Once = std::sync::Once::new();
        INSTALL.call_once(|| {
            let allocator = tree_sitter::Allocator {
                malloc: libmimalloc_sys::mi_malloc,
                calloc: libmimalloc_sys::mi_calloc,
                realloc: libmimalloc_sys::mi_realloc,
                free: libmimalloc_sys::mi_free,
            };
            // SAFETY: one allocator family, never null for non-zero sizes, malloc's alignment;
            // installed before any tree-sitter object exists (see above), once.
            unsafe { tree_sitter::set_allocator(Some(allocator)) };
        });
    }
}

/// The directory about to be searched must really be inside the workspace.
fn check_root_confined(confinement: &Confinement, root_path: &str) -> Result<(), ToolError> {
    let dir = fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::DIRECTORY.bits() as i32)
        .open(root_path)
        .map_err(|_| {
            ERROR_CLASS.coded(
                ErrorCode::NotFound,
                format!("root_path does not exist: {root_path}"),
            )
        })?;
    if confinement.contains_fd(&dir) {
        Ok(())
    } else {
        Err(sandbox_violation(root_path))
    }
}

/// Why a search stopped without a result.
enum Abort {
    Timeout,
    Error(ToolError),
}

struct Search {
    lang: SupportLang,
    rule: RuleConfig<SupportLang>,
    /// Texts a file must contain to hold a match (see `required_texts`).
    required_texts: Vec<String>,
    /// The absolute (lexical) directory walked.
    root_abs: String,
    /// `root_abs` relative to the workspace root (`.` for the root).
    root_rel: String,
    overrides: Override,
    types: Types,
    max_results: usize,
    confinement: Option<Confinement>,
    deadline: Instant,
    cancelled: Arc<AtomicBool>,
}

/// A file to search: its `file` field and where it is.
struct Candidate {
    file: String,
    path: PathBuf,
}

impl Search {
    /// Runs the search on its own thread and waits for it until the deadline at most.
    fn run_until_deadline(self) -> Result<(Vec<AstGrepJsonMatch>, bool), ToolError> {
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
        candidates
            .sort_by(|a, b| locale_compare(&a.file, &b.file).then_with(|| a.file.cmp(&b.file)));
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
        builder.build_parallel().run(|| {
            let (found, stopped) = (&found, &stopped);
            let mut priority = HelperThreadPriority::new();
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
        let worker = || loop {
            if enough.load(Ordering::Relaxed) {
                return;
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= candidates.len() {
                return;
            }
            let result = if self.should_stop() {
                Err(Abort::Timeout)
            } else {
                self.scan_file(&candidates[index])
            };
            let Ok(mut p) = progress.lock() else { return };
            match result {
                Ok(items) => p.done[index] = Some(items),
                Err(abort) => {
                    p.failure.get_or_insert(abort);
                    enough.store(true, Ordering::Relaxed);
                    return;
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
        };
        std::thread::scope(|scope| {
            // every matcher is a helper thread; this (pool) thread only waits
            for _ in 0..Self::threads().min(candidates.len().max(1)) {
                scope.spawn(|| {
                    lower_helper_thread_priority();
                    worker()
                });
            }
        });
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

    /// All matches in one file, in range order.
    fn scan_file(&self, candidate: &Candidate) -> Result<Vec<AstGrepJsonMatch>, Abort> {
        let Some(file_lang) = SupportLang::from_path(&candidate.path) else {
            return Ok(Vec::new());
        };
        let as_host = file_lang == self.lang;
        if !as_host && !embeds(file_lang, self.lang) {
            return Ok(Vec::new());
        }
        let Some(source) = self.read_source(candidate)? else {
            return Ok(Vec::new());
        };
        let lacks =
            |text: &String| memchr::memmem::find(source.as_bytes(), text.as_bytes()).is_none();
        if self.required_texts.iter().any(lacks) {
            return Ok(Vec::new());
        }
        let Some(doc) = self.parse(source, file_lang)? else {
            return Ok(Vec::new());
        };
        let root = AstGrep::doc(doc);
        let mut items = Vec::new();
        if as_host {
            self.collect(&root, &candidate.file, &mut items);
        } else {
            let embedded = root.get_injections(|name| SupportLang::from_str(name).ok());
            for doc in embedded.iter().filter(|d| *d.lang() == self.lang) {
                self.collect(doc, &candidate.file, &mut items);
            }
        }
        items.sort_by_key(|item| (item.range.start, item.range.end));
        Ok(items)
    }

    /// The file's text as the CLI reads it: `None` for files it skips (unreadable, not UTF-8,
    /// empty, too large).
    fn read_source(&self, candidate: &Candidate) -> Result<Option<String>, Abort> {
        let opened = fs::OpenOptions::new()
            .read(true)
            .custom_flags(
                (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC).bits() as i32,
            )
            .open(&candidate.path);
        let Ok(mut file) = opened else {
            return Ok(None);
        };
        // The walk goes by path, so a directory swapped for a symlink while it runs can list
        // files outside: what was opened is checked, and a file outside is skipped without a
        // trace (as regexp_search does), so not even its name reaches the caller.
        if let Some(confinement) = &self.confinement {
            if !confinement.contains_fd(&file) {
                return Ok(None);
            }
        }
        let mut bytes = Vec::new();
        if file.read_to_end(&mut bytes).is_err() {
            return Ok(None);
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(None);
        };
        let too_large = text.len() > MAX_FILE_BYTES && text.lines().count() > MAX_FILE_LINES;
        Ok((!text.is_empty() && !too_large).then_some(text))
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
    fn collect(
        &self,
        doc: &AstGrep<StrDoc<SupportLang>>,
        file: &str,
        out: &mut Vec<AstGrepJsonMatch>,
    ) {
        // Without a suppression comment, the combined scan's extra pass that collects them finds
        // nothing, and its match loop is exactly `find_all` with the rule's matcher.
        let source = doc.get_text();
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

/// The comment text that can suppress a match (`// ast-grep-ignore`).
const SUPPRESSION_MARKER: &str = "ast-grep-ignore";

type SgNode<'t> = Node<'t, StrDoc<SupportLang>>;
type SgMatch<'t> = NodeMatch<'t, StrDoc<SupportLang>>;

fn range_between(start: &SgNode, end: &SgNode) -> AstGrepJsonRange {
    let (from, to) = (start.start_pos(), end.end_pos());
    AstGrepJsonRange {
        byte_offset: ByteOffset {
            start: start.range().start,
            end: end.range().end,
        },
        start: AstGrepJsonPosition {
            line: from.line(),
            column: from.column(start),
        },
        end: AstGrepJsonPosition {
            line: to.line(),
            column: to.column(end),
        },
    }
}

fn matched_node(node: &SgNode) -> MatchedNode {
    MatchedNode {
        text: node.text().into_owned(),
        range: range_between(node, node),
    }
}

/// What the CLI's JSON printer makes of one match.
fn to_item(rule: &RuleConfig<SupportLang>, m: &SgMatch, file: &str) -> AstGrepJsonMatch {
    let context = m.display_context(0, 0);
    let lines = format!("{}{}{}", context.leading, context.matched, context.trailing);
    let source = m.root().get_text();
    let labels = rule
        .get_labels(m)
        .iter()
        .map(|label| {
            let span = label.range();
            MatchLabel {
                text: source.get(span).unwrap_or_default().to_string(),
                range: range_between(&label.start_node, &label.end_node),
                style: match label.style {
                    LabelStyle::Primary => "primary",
                    LabelStyle::Secondary => "secondary",
                },
            }
        })
        .collect();
    AstGrepJsonMatch {
        text: m.text().into_owned(),
        range: range_between(m, m),
        file: file.to_string(),
        lines,
        char_count: CharCount {
            leading: context.leading.chars().count(),
            trailing: context.trailing.chars().count(),
        },
        language: *m.lang(),
        meta_variables: meta_variables(m),
        rule_id: RULE_ID,
        severity: "hint",
        note: rule.note.clone(),
        message: rule.get_message(m),
        labels,
    }
}

fn meta_variables(m: &SgMatch) -> Option<MetaVariables> {
    let env = m.get_env();
    let mut vars = env.get_matched_variables().peekable();
    vars.peek()?;
    let mut out = MetaVariables {
        single: Default::default(),
        multi: Default::default(),
        transformed: Default::default(),
    };
    for var in vars {
        match var {
            MetaVariable::Capture(name, _) => {
                if let Some(node) = env.get_match(&name) {
                    out.single.insert(name, matched_node(node));
                } else if let Some(bytes) = env.get_transformed(&name) {
                    out.transformed
                        .insert(name, String::from_utf8_lossy(bytes).into_owned());
                }
            }
            MetaVariable::MultiCapture(name) => {
                let nodes = env.get_multiple_matches(&name);
                out.multi
                    .insert(name, nodes.iter().map(matched_node).collect());
            }
            _ => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ToolContext;
    use serde_json::{json, Value};

    #[test]
    fn required_texts_are_named_leaves_of_a_plain_pattern() {
        let ts = SupportLang::TypeScript;
        let texts = |rule: Value| required_texts(&rule, ts);
        assert_eq!(
            texts(json!({"pattern": "const $A = nonexistent($B)"})),
            ["nonexistent"]
        );
        assert_eq!(
            texts(json!({"pattern": "console.log($X)"})),
            ["console", "log"]
        );
        assert_eq!(
            texts(json!({"pattern": "a.b.c(d)", "inside": {"kind": "program"}})),
            ["a", "b"]
        );
        assert!(texts(json!({"pattern": "$A + $B"})).is_empty());
        assert!(
            texts(json!({"pattern": {"context": "foo()", "strictness": "signature"}})).is_empty()
        );
        assert!(texts(json!({"any": [{"pattern": "foo()"}]})).is_empty());
        assert!(texts(json!({"kind": "identifier"})).is_empty());
    }

    #[test]
    fn a_file_without_a_required_text_holds_no_match() {
        let sources = [
            "console.log(1); console.log(2)",
            "console . log ( x ) ;",
            "const x = nonexistent(1)",
            "let y = 1 + 2; foo(); a.b.c(d); a?.b.c(d)",
            "/* console */ window.log(3); logger.console(4)",
        ];
        let patterns = [
            "console.log($X)",
            "const $A = nonexistent($B)",
            "$A + 2",
            "foo()",
            "a.b.c(d)",
            "log",
        ];
        for pattern in patterns {
            let rule = json!({"pattern": pattern});
            let config = compile_rule("typescript", &rule).unwrap();
            let required = required_texts(&rule, SupportLang::TypeScript);
            assert!(!required.is_empty(), "{pattern}");
            for source in sources {
                let doc = AstGrep::doc(StrDoc::new(source, SupportLang::TypeScript));
                let found = doc.root().find_all(&config.matcher).count();
                let has_all = required.iter().all(|t| source.contains(t.as_str()));
                assert!(found == 0 || has_all, "{pattern} in {source}");
            }
        }
    }

    #[test]
    fn rule_matcher_finds_what_the_combined_scan_finds_without_suppressions() {
        let source = "const a = f(1);\nfunction g() { const b = f(a); let c = f(f(2)); }\n\
                      class K { m() { return f(3) + 1; } }\nconst d = 1; /* f(4) */\n";
        let rules = [
            json!({"pattern": "f($X)"}),
            json!({"pattern": "const $A = $B"}),
            json!({"kind": "call_expression"}),
            json!({"kind": "call_expression", "inside": {"kind": "function_declaration", "stopBy": "end"}}),
            json!({"pattern": "f($X)", "not": {"has": {"kind": "number"}}}),
            json!({"any": [{"pattern": "f($X)"}, {"kind": "class_declaration"}]}),
            json!({"regex": "^f", "kind": "identifier"}),
            json!({"kind": "comment"}),
        ];
        for rule in rules {
            let config = compile_rule("typescript", &rule).unwrap();
            let doc = AstGrep::doc(StrDoc::new(source, SupportLang::TypeScript));
            let ranges = |ms: Vec<SgMatch>| {
                let mut r: Vec<_> = ms.iter().map(|m| m.range()).collect();
                r.sort_by_key(|r| (r.start, r.end));
                r
            };
            let direct = ranges(doc.root().find_all(&config.matcher).collect());
            let combined = CombinedScan::new(vec![&config]);
            let scanned = combined
                .scan(&doc, false)
                .matches
                .into_iter()
                .flat_map(|(_, m)| m)
                .collect();
            let scanned = ranges(scanned);
            assert!(!scanned.is_empty(), "{rule}");
            assert_eq!(direct, scanned, "{rule}");
        }
    }

    struct Workspace {
        _dir: tempfile::TempDir,
        root: String,
        ctx: ToolContext,
    }

    impl Workspace {
        fn new(files: &[(&str, &str)]) -> Workspace {
            let dir = tempfile::tempdir().unwrap();
            let root = dir
                .path()
                .canonicalize()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let ws = Workspace {
                ctx: ToolContext::allow_all(&root),
                root,
                _dir: dir,
            };
            for (path, content) in files {
                ws.write(path, content.as_bytes());
            }
            ws
        }

        /// Upstream's fixture: `src/main.ts`, `src/sub/x.ts`, `dist/d.ts`, `B/b.ts`, `a.ts`.
        fn contract() -> Workspace {
            Workspace::new(&[
                ("src/main.ts", "const a = 1;\nconst b = 2;\n"),
                ("src/sub/x.ts", "const c = 3;\n"),
                ("dist/d.ts", "const d = 4;\n"),
                ("B/b.ts", "const e = 5;\n"),
                ("a.ts", "const f = 6;\n"),
            ])
        }

        fn write(&self, path: &str, content: &[u8]) {
            let full = format!("{}/{path}", self.root);
            fs::create_dir_all(Path::new(&full).parent().unwrap()).unwrap();
            fs::write(full, content).unwrap();
        }

        fn search_with(
            &self,
            input: Value,
            confinement: Option<Confinement>,
        ) -> Result<Value, ToolError> {
            let rc = RunContext {
                ctx: &self.ctx,
                confinement,
            };
            run(&rc, &[ArgValue::from(&input)]).map(|out| serde_json::from_str(&out).unwrap())
        }

        fn search(&self, input: Value) -> Result<Value, ToolError> {
            self.search_with(input, None)
        }

        /// `file@line:column` of every item.
        fn found(&self, input: Value) -> Vec<String> {
            let out = self.search(input).unwrap();
            locations(&out)
        }
    }

    fn locations(out: &Value) -> Vec<String> {
        out["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                format!(
                    "{}@{}:{}",
                    i["file"].as_str().unwrap(),
                    i["range"]["start"]["line"],
                    i["range"]["start"]["column"]
                )
            })
            .collect()
    }

    fn ts_const(extra: Value) -> Value {
        let mut input = json!({"language": "typescript", "rule": {"pattern": "const $A = $B"}});
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        input
    }

    fn error(result: Result<Value, ToolError>) -> (String, String) {
        let e = result.unwrap_err();
        assert_eq!(e.class_name, ERROR_CLASS.0);
        (e.code.to_string(), e.message)
    }

    #[test]
    fn contract_defaults() {
        let ws = Workspace::contract();
        let out = ws.search(ts_const(json!({}))).unwrap();
        assert_eq!(
            locations(&out),
            [
                "a.ts@0:0",
                "B/b.ts@0:0",
                "src/main.ts@0:0",
                "src/main.ts@1:0",
                "src/sub/x.ts@0:0"
            ]
        );
        assert_eq!(out["truncated"], false);
        assert_eq!(out["root_path"], ".");
        assert_eq!(out["warnings"], json!([]));
        assert_eq!(
            out["query"],
            json!({"language": "typescript", "rule": {"pattern": "const $A = $B"}})
        );
        let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "query",
                "root_path",
                "took_ms",
                "truncated",
                "items",
                "warnings"
            ]
        );
    }

    #[test]
    fn items_are_the_clis_json_objects() {
        let ws = Workspace::contract();
        let out = ws
            .search(ts_const(
                json!({"root_path": format!("{}/src/sub", ws.root)}),
            ))
            .unwrap();
        // Upstream's example line (ast-grep 0.45.3), with upstream's rule id and the
        // meta variables in name order.
        let expected = r#"{"text":"const c = 3;","range":{"byteOffset":{"start":0,"end":12},"start":{"line":0,"column":0},"end":{"line":0,"column":12}},"file":"src/sub/x.ts","lines":"const c = 3;","charCount":{"leading":0,"trailing":0},"language":"TypeScript","metaVariables":{"single":{"A":{"text":"c","range":{"byteOffset":{"start":6,"end":7},"start":{"line":0,"column":6},"end":{"line":0,"column":7}}},"B":{"text":"3","range":{"byteOffset":{"start":10,"end":11},"start":{"line":0,"column":10},"end":{"line":0,"column":11}}}},"multi":{},"transformed":{}},"ruleId":"ast-grep-search-rule","severity":"hint","note":null,"message":"","labels":[{"text":"const c = 3;","range":{"byteOffset":{"start":0,"end":12},"start":{"line":0,"column":0},"end":{"line":0,"column":12}},"style":"primary"}]}"#;
        assert_eq!(serde_json::to_string(&out["items"][0]).unwrap(), expected);
        assert_eq!(out["root_path"], "src/sub");
    }

    #[test]
    fn max_results_and_truncated() {
        let ws = Workspace::contract();
        let out = ws.search(ts_const(json!({"max_results": 2}))).unwrap();
        assert_eq!(locations(&out), ["a.ts@0:0", "B/b.ts@0:0"]);
        assert_eq!(out["truncated"], true);
        // docs/compat.md, "truncated is also true when exactly max_results items exist": exactly max_results matches also count as truncated.
        let out = ws.search(ts_const(json!({"max_results": 5}))).unwrap();
        assert_eq!(
            (out["items"].as_array().unwrap().len(), &out["truncated"]),
            (5, &json!(true))
        );
        let out = ws
            .search(ts_const(json!({"max_results": 6, "timeout_ms": null})))
            .unwrap();
        assert_eq!(
            (out["items"].as_array().unwrap().len(), &out["truncated"]),
            (5, &json!(false))
        );
    }

    #[test]
    fn root_path_and_globs() {
        let ws = Workspace::contract();
        let src = ["src/main.ts@0:0", "src/main.ts@1:0", "src/sub/x.ts@0:0"];
        let abs_src = format!("{}/src", ws.root);
        assert_eq!(ws.found(ts_const(json!({"root_path": abs_src}))), src);
        let out = ws
            .search(ts_const(
                json!({"root_path": format!("{}\\src\\", ws.root)}),
            ))
            .unwrap();
        assert_eq!(out["root_path"], "src");
        // ripgrep/gitignore globs relative to the workspace root (docs/compat.md, "Glob rules differ between the tools").
        assert_eq!(
            ws.found(ts_const(json!({"root_path": abs_src, "include": ["*.ts"]}))),
            src
        );
        assert_eq!(ws.found(ts_const(json!({"include": ["src/**"]}))), src);
        assert_eq!(ws.found(ts_const(json!({"include": ["src\\**"]}))), src);
        assert_eq!(
            ws.found(ts_const(json!({"exclude": ["src/sub/**"]}))),
            [
                "a.ts@0:0",
                "B/b.ts@0:0",
                "src/main.ts@0:0",
                "src/main.ts@1:0"
            ]
        );
        assert_eq!(ws.found(ts_const(json!({"exclude": ["sub/**"]}))).len(), 5);
        assert_eq!(
            ws.found(ts_const(json!({"exclude": ["x.ts", "b.ts"]})))
                .len(),
            3
        );
        // A later glob wins: the caller's include re-opens dist (the CLI's --globs order).
        assert_eq!(
            ws.found(ts_const(json!({"include": ["dist/**"]}))),
            ["dist/d.ts@0:0"]
        );
        assert_eq!(
            ws.found(ts_const(
                json!({"include": ["**/*.ts"], "exclude": ["**/*.ts"]})
            ))
            .len(),
            0
        );
    }

    #[test]
    fn language_names_follow_ast_grep() {
        let ws = Workspace::contract();
        for name in ["  typescript ", "TypeScript", "ts", "TS"] {
            let out = ws
                .search(json!({"language": name, "rule": {"pattern": "const $A = $B"}}))
                .unwrap();
            assert_eq!(out["items"].as_array().unwrap().len(), 5, "{name}");
            assert_eq!(out["query"]["language"], name.trim());
        }
        let (code, message) =
            error(ws.search(json!({"language": "klingon", "rule": {"pattern": "x"}})));
        assert_eq!(code, "UNSUPPORTED_LANGUAGE");
        assert!(
            message.starts_with("UNSUPPORTED_LANGUAGE: Error: Cannot parse rule"),
            "{message}"
        );
        assert!(message.contains("untagged enum SgLang"), "{message}");
        assert!(message.contains("\"klingon\""), "{message}");
        // The language is checked before the rule, as the CLI reads the language line first.
        let (code, _) = error(ws.search(json!({"language": "klingon", "rule": {"bogus": 1}})));
        assert_eq!(code, "UNSUPPORTED_LANGUAGE");
    }

    #[test]
    fn invalid_rules() {
        let ws = Workspace::contract();
        for (rule, cause) in [
            (json!({"bogus": 1}), "unknown field `bogus`"),
            (json!({"kind": null}), "Maybe field cannot be null."),
            (json!({}), "Rule must have one positive matcher."),
            (
                json!({"kind": "no_such_kind"}),
                "Kind `no_such_kind` is invalid.",
            ),
            (json!({"regex": "("}), "unclosed group"),
            (json!({"pattern": ""}), "No AST root is detected"),
            (json!({"pattern": 1}), "untagged enum PatternStyle"),
        ] {
            let (code, message) = error(ws.search(json!({"language": "ts", "rule": rule})));
            assert_eq!(code, "INVALID_RULE", "{rule}");
            assert!(
                message.starts_with("INVALID_RULE: Error: Cannot parse rule"),
                "{message}"
            );
            assert!(message.contains(cause), "{rule}: {message}");
        }
    }

    #[test]
    fn validation_order_and_messages() {
        let ws = Workspace::contract();
        let cases = [
            (json!("x"), "input must be an object"),
            (json!([]), "input must be an object"),
            (json!({"rule": {}}), "language must be a non-empty string"),
            (
                json!({"language": " \n", "rule": {}}),
                "language must be a non-empty string",
            ),
            (
                json!({"language": 1, "rule": null}),
                "language must be a non-empty string",
            ),
            (json!({"language": "ts"}), "rule must be an object"),
            (
                json!({"language": "ts", "rule": null}),
                "rule must be an object",
            ),
            (
                json!({"language": "ts", "rule": []}),
                "rule must be an object",
            ),
            (
                json!({"language": "ts", "rule": "x"}),
                "rule must be an object",
            ),
            (
                json!({"language": "ts", "rule": {}, "root_path": " "}),
                "root_path must be a non-empty string",
            ),
            (
                json!({"language": "ts", "rule": {}, "root_path": 1, "include": 1}),
                "root_path must be a non-empty string",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": null}),
                "include must be a string array",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": "*.ts"}),
                "include must be a string array",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": ["a", 1]}),
                "include[1] must be a string",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": [""]}),
                "include must not contain empty pattern",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": ["a\u{0}"]}),
                "include pattern must not contain null char",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": ["a]["]}),
                "include pattern has unbalanced square brackets",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": ["{a"]}),
                "include pattern has unbalanced braces",
            ),
            (
                json!({"language": "ts", "rule": {}, "include": ["ok"], "exclude": [1]}),
                "exclude[0] must be a string",
            ),
            (
                json!({"language": "ts", "rule": {}, "exclude": ["}"], "max_results": 0}),
                "exclude pattern has unbalanced braces",
            ),
            (
                json!({"language": "ts", "rule": {}, "max_results": 0, "timeout_ms": 0}),
                "max_results must be an integer between 1 and 500",
            ),
            (
                json!({"language": "ts", "rule": {}, "max_results": 501}),
                "max_results must be an integer between 1 and 500",
            ),
            (
                json!({"language": "ts", "rule": {}, "max_results": 1.5}),
                "max_results must be an integer between 1 and 500",
            ),
            (
                json!({"language": "ts", "rule": {}, "max_results": "2"}),
                "max_results must be an integer between 1 and 500",
            ),
            (
                json!({"language": "ts", "rule": {}, "timeout_ms": 30001}),
                "timeout_ms must be an integer between 1 and 30000",
            ),
            (
                json!({"language": "ts", "rule": {}, "timeout_ms": 0, "root_path": "/nope"}),
                "timeout_ms must be an integer between 1 and 30000",
            ),
        ];
        for (input, message) in cases {
            let (code, got) = error(ws.search(input.clone()));
            assert_eq!(code, "INVALID_ARGUMENT", "{input}");
            assert_eq!(got, format!("INVALID_ARGUMENT: {message}"), "{input}");
        }
        let bigint = ArgValue::Object(vec![
            ("language".into(), "ts".into()),
            (
                "rule".into(),
                ArgValue::Object(vec![("pattern".into(), ArgValue::Other("bigint"))]),
            ),
        ]);
        let rc = RunContext {
            ctx: &ws.ctx,
            confinement: None,
        };
        assert_eq!(
            run(&rc, &[bigint]).unwrap_err().message,
            "INVALID_ARGUMENT: rule must be JSON serializable"
        );
        // Validation comes before the root_path check, and root_path errors before the rule's.
        let (code, message) = error(ws.search(
            json!({"language": "klingon", "rule": {}, "root_path": format!("{}/nope", ws.root)}),
        ));
        assert_eq!(
            (code.as_str(), message),
            (
                "NOT_FOUND",
                format!("NOT_FOUND: root_path does not exist: {}/nope", ws.root)
            )
        );
        let (code, message) = error(ws.search(ts_const(
            json!({"root_path": format!("{}//a.ts/", ws.root)}),
        )));
        assert_eq!(
            (code.as_str(), message),
            (
                "NOT_DIRECTORY",
                format!(
                    "NOT_DIRECTORY: root_path is not a directory: {}/a.ts",
                    ws.root
                )
            )
        );
    }

    #[test]
    fn functions_in_the_rule_are_dropped_like_json_stringify() {
        let ws = Workspace::contract();
        let input = ArgValue::Object(vec![
            ("language".into(), "ts".into()),
            (
                "rule".into(),
                ArgValue::Object(vec![
                    ("pattern".into(), "const $A = 6".into()),
                    ("fn".into(), ArgValue::Function),
                ]),
            ),
        ]);
        let rc = RunContext {
            ctx: &ws.ctx,
            confinement: None,
        };
        let out: Value = serde_json::from_str(&run(&rc, &[input]).unwrap()).unwrap();
        assert_eq!(out["query"]["rule"], json!({"pattern": "const $A = 6"}));
        assert_eq!(locations(&out), ["a.ts@0:0"]);
    }

    #[test]
    fn relational_kind_and_regex_rules() {
        let ws = Workspace::new(&[(
            "a.ts",
            "foo(foo(1));\nfunction f() { return foo(a, b, c); }\nconst greeting = 'hi';\n",
        )]);
        // Nested matches are all reported.
        assert_eq!(
            ws.found(json!({"language": "ts", "rule": {"pattern": "foo($A)"}})),
            ["a.ts@0:0", "a.ts@0:4"]
        );
        let out = ws
            .search(json!({"language": "ts", "rule": {"pattern": "foo($$$ARGS)", "inside": {"kind": "function_declaration", "stopBy": "end"}}}))
            .unwrap();
        assert_eq!(locations(&out), ["a.ts@1:22"]);
        let item = &out["items"][0];
        assert_eq!(item["text"], "foo(a, b, c)");
        let args: Vec<&str> = item["metaVariables"]["multi"]["ARGS"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["text"].as_str().unwrap())
            .collect();
        assert_eq!(args, ["a", ",", "b", ",", "c"]);
        // The relational rule's node is a secondary label.
        let styles: Vec<&str> = item["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["style"].as_str().unwrap())
            .collect();
        assert_eq!(styles, ["primary", "secondary"]);
        assert_eq!(
            item["labels"][1]["text"],
            "function f() { return foo(a, b, c); }"
        );
        assert_eq!(item["lines"], "function f() { return foo(a, b, c); }");
        assert_eq!(item["charCount"], json!({"leading": 22, "trailing": 3}));

        let out = ws
            .search(json!({"language": "ts", "rule": {"kind": "call_expression", "has": {"kind": "arguments", "has": {"pattern": "b"}}}}))
            .unwrap();
        assert_eq!(locations(&out), ["a.ts@1:22"]);
        assert!(out["items"][0]["metaVariables"]["single"]
            .as_object()
            .unwrap()
            .is_empty());
        let out = ws
            .search(json!({"language": "ts", "rule": {"kind": "identifier", "regex": "^gree"}}))
            .unwrap();
        assert_eq!(locations(&out), ["a.ts@2:6"]);
        // No meta variable at all: no metaVariables key (as the CLI prints).
        assert!(out["items"][0].get("metaVariables").is_none());
        assert_eq!(
            ws.found(json!({"language": "ts", "rule": {"kind": "lexical_declaration", "not": {"has": {"kind": "string", "stopBy": "end"}}}})),
            Vec::<String>::new()
        );
    }

    #[test]
    fn rust_and_python() {
        let ws = Workspace::new(&[
            ("lib.rs", "fn main() {\n    let x = Some(1).unwrap();\n    println!(\"{}\", x);\n}\n"),
            ("tool.py", "def greet(name):\n    print(f\"hi {name}\")\n\nclass A:\n    def m(self):\n        print(1)\n"),
        ]);
        let out = ws
            .search(json!({"language": "rust", "rule": {"pattern": "$E.unwrap()"}}))
            .unwrap();
        assert_eq!(locations(&out), ["lib.rs@1:12"]);
        assert_eq!(out["items"][0]["language"], "Rust");
        assert_eq!(
            out["items"][0]["metaVariables"]["single"]["E"]["text"],
            "Some(1)"
        );
        assert_eq!(
            ws.found(json!({"language": "rs", "rule": {"kind": "macro_invocation"}})),
            ["lib.rs@2:4"]
        );
        let out = ws
            .search(json!({"language": "python", "rule": {"pattern": "print($X)", "inside": {"kind": "class_definition", "stopBy": "end"}}}))
            .unwrap();
        assert_eq!(locations(&out), ["tool.py@5:8"]);
        assert_eq!(out["items"][0]["language"], "Python");
        assert_eq!(
            ws.found(json!({"language": "py", "rule": {"kind": "function_definition", "has": {"field": "name", "regex": "^gr"}}})),
            ["tool.py@0:0"]
        );
    }

    #[test]
    fn files_chosen_like_sg_scan() {
        let ws = Workspace::new(&[
            ("src/s.ts", "const s = 1;\n"),
            ("src/m.mts", "const m = 1;\n"),
            ("src/t.tsx", "const t = 1;\n"),
            ("src/j.js", "const j = 1;\n"),
            ("src/.dot.ts", "const dot = 1;\n"),
            (".hidden/h.ts", "const h = 1;\n"),
            ("sub/node_modules/n.ts", "const n = 1;\n"),
            ("node_modules/top.ts", "const top = 1;\n"),
            ("ign/g.ts", "const g = 1;\n"),
            (".gitignore", "ign/\n"),
            ("src/empty.ts", ""),
            ("src/nul.ts", "const z = 1;\u{0}\n"),
            ("src/uni.ts", "const u = \"é\"; const v = 2;\n"),
        ]);
        ws.write("src/bad.ts", b"const bad = \"\xff\";\n");
        std::os::unix::fs::symlink(
            format!("{}/src/s.ts", ws.root),
            format!("{}/link.ts", ws.root),
        )
        .unwrap();
        std::os::unix::fs::symlink(format!("{}/src", ws.root), format!("{}/srclink", ws.root))
            .unwrap();
        let all = ws.found(ts_const(json!({})));
        // Outside a git repository .gitignore does not apply (ripgrep's rule); hidden directories
        // are skipped but a hidden file of the language's type is not; node_modules is only
        // excluded at the root; not UTF-8, symlinks, other languages skipped.
        assert_eq!(
            all,
            [
                "ign/g.ts@0:0",
                "src/.dot.ts@0:0",
                "src/m.mts@0:0",
                "src/nul.ts@0:0",
                "src/s.ts@0:0",
                "src/uni.ts@0:0",
                "src/uni.ts@0:15",
                "sub/node_modules/n.ts@0:0",
            ]
        );
        fs::create_dir(format!("{}/.git", ws.root)).unwrap();
        assert!(!ws
            .found(ts_const(json!({})))
            .contains(&"ign/g.ts@0:0".to_string()));
        // A glob that matches beats ignore files, but only for what it matches: `ign/*.ts` does
        // not match the ignored directory, so it stays unvisited; `.hidden/**` likewise.
        assert_eq!(
            ws.found(ts_const(json!({"include": ["ign/*.ts"]}))),
            Vec::<String>::new()
        );
        assert_eq!(
            ws.found(ts_const(json!({"include": ["ign", "ign/*.ts"]}))),
            ["ign/g.ts@0:0"]
        );
        assert_eq!(
            ws.found(ts_const(json!({"include": [".hidden/**"]}))),
            Vec::<String>::new()
        );
        assert_eq!(
            ws.found(json!({"language": "tsx", "rule": {"pattern": "const $A = $B"}})),
            ["src/t.tsx@0:0"]
        );
        // Columns count characters, byte offsets bytes.
        let out = ws
            .search(ts_const(json!({"include": ["src/uni.ts"]})))
            .unwrap();
        assert_eq!(out["items"][1]["range"]["byteOffset"]["start"], 16);
        assert_eq!(out["items"][1]["range"]["start"]["column"], 15);
    }

    #[test]
    fn suppression_comments_and_html_scripts() {
        let ws = Workspace::new(&[
            ("a.js", "foo(1);\n// ast-grep-ignore\nfoo(2);\nfoo(3); // ast-grep-ignore: other-rule\n"),
            ("p.html", "<html><script>foo(5);</script>\n<script lang=\"ts\">foo(6);</script>\n<script>foo(7);</script></html>\n"),
        ]);
        let out = ws
            .search(json!({"language": "javascript", "rule": {"pattern": "foo($A)"}}))
            .unwrap();
        assert_eq!(
            locations(&out),
            ["a.js@0:0", "a.js@3:0", "p.html@0:14", "p.html@2:8"]
        );
        assert_eq!(out["items"][2]["language"], "JavaScript");
        assert_eq!(out["items"][2]["lines"], "<html><script>foo(5);</script>");
        assert_eq!(
            ws.found(json!({"language": "typescript", "rule": {"pattern": "foo($A)"}})),
            ["p.html@1:18"]
        );
        assert_eq!(
            ws.found(json!({"language": "html", "rule": {"kind": "script_element"}}))
                .len(),
            3
        );
    }

    #[test]
    fn timeout() {
        let ws = Workspace::new(&[]);
        let body =
            "function f(a: number) { return [1, 2, 3].map((x) => x * a).filter(Boolean); }\n"
                .repeat(200);
        for i in 0..300 {
            ws.write(&format!("d{}/f{i}.ts", i % 10), body.as_bytes());
        }
        let started = Instant::now();
        let (code, message) =
            error(ws.search(
                json!({"language": "ts", "rule": {"pattern": "$A.map($F)"}, "timeout_ms": 1}),
            ));
        assert_eq!(
            (code.as_str(), message.as_str()),
            ("TIMEOUT", "TIMEOUT: search timed out")
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the deadline bounds the call"
        );
    }

    #[test]
    fn file_types_of_a_language_and_its_hosts() {
        let ts = file_types(SupportLang::TypeScript);
        for (name, wanted) in [
            ("a.ts", true),
            ("a.mts", true),
            ("a.cts", true),
            ("a.html", true),
            ("a.tsx", false),
            ("a.js", false),
        ] {
            assert_eq!(ts.matched(name, false).is_whitelist(), wanted, "{name}");
        }
        let rust = file_types(SupportLang::Rust);
        assert!(rust.matched("lib.rs", false).is_whitelist());
        assert!(rust.matched("a.html", false).is_ignore());
    }

    #[test]
    fn invalid_glob_is_internal() {
        let ws = Workspace::contract();
        let (code, message) = error(ws.search(ts_const(json!({"include": ["[z-a]"]}))));
        assert_eq!(code, "INTERNAL");
        assert!(message.contains("error parsing glob '[z-a]'"), "{message}");
    }

    #[test]
    fn confinement_rechecks_the_root_and_the_files() {
        let outer = tempfile::tempdir().unwrap();
        let outside = outer.path().canonicalize().unwrap();
        fs::write(outside.join("secret.ts"), "const secret = 1;\n").unwrap();
        let ws = Workspace::contract();
        std::os::unix::fs::symlink(&outside, format!("{}/out", ws.root)).unwrap();
        let confinement = Confinement::new(&ws.root).unwrap();
        let (code, message) = error(ws.search_with(
            ts_const(json!({"root_path": format!("{}/out", ws.root)})),
            Some(confinement.clone()),
        ));
        assert_eq!(code, "INTERNAL");
        assert!(message.contains("[Sandbox Violation]"), "{message}");
        // Unconfined (the raw handler), a symlinked root is followed like `stat` does.
        assert_eq!(
            ws.found(ts_const(json!({"root_path": format!("{}/out", ws.root)}))),
            ["out/secret.ts@0:0"]
        );
        // Inside the workspace the confined search works as usual.
        let out = ws
            .search_with(ts_const(json!({})), Some(confinement))
            .unwrap();
        assert_eq!(out["items"].as_array().unwrap().len(), 5);
    }
}
