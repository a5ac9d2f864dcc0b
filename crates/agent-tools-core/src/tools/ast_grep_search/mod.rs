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
//! Deliberate improvements over the CLI (docs/compat.md, "ast_grep_search runs in-process,
//! without the sg binary"):
//! * Deterministic output. Files are sorted by their workspace-relative path with
//!   `localeCompare` (ties by code units), items within a file by start line, start column, end
//!   line, end column (ties keep ast-grep's traversal order), and `max_results` keeps the first
//!   items of that order — the CLI kept whichever its parallel walk found first. Files are
//!   matched in parallel in that order and the search stops as soon as a complete prefix of
//!   files holds `max_results` items. The keys of `metaVariables.single`/`multi`/`transformed`
//!   are sorted by name (the CLI printed hash order).
//! * `timeout_ms` bounds the call: the search runs on its own thread and the call returns
//!   `TIMEOUT` at the deadline, once the search has stopped at its next file (a parse in
//!   progress is cancelled too; 500 ms at most).
//! * Sandboxed calls re-check every file they open (and the root directory) against the real
//!   workspace root.

use std::fs;
use std::io::Read;
use std::ops::ControlFlow;
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
use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{integer_in, non_blank_string, root_path_or_workspace};
use super::input::{any_object, tool_input, Field, ToolInput};
use super::{to_json, workspace_root};
use crate::collation::locale_compare;
use crate::context::RunContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::paths;
use crate::sandbox::Confinement;
use crate::search_cache::{
    self, trigrams::Requirement, Deferred, Encoding, Entry, FileId, FirstRead, FoundMatches,
    Lookup, WorkspaceCache,
};
use crate::thread_priority::{run_on_threads, sort_by_yielding, PeriodicYield, WalkerPriorities};
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
/// The defaults of `max_results` and `timeout_ms` (in the definition and in `from_args`).
const DEFAULT_MAX_RESULTS: u32 = 100;
const DEFAULT_TIMEOUT_MS: u32 = 5000;

// ast_grep_search's input: `ast_grep_search(input)`, checked, with defaults applied.
#[tool_input(
    name = "ast_grep_search",
    description = "Searches source files with ast-grep and returns raw structured matches.",
    effect = Read,
    class = ERROR_CLASS,
    output = AstGrepSearchOutput,
    handler = Worker(run),
    spawns_processes,
    shape = Object,
    sandboxed = root_path,
    object = plain
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct AstGrepSearchInput {
    // Trimmed.
    #[arg(check = |f| non_blank_string(f).map(|s: String| js_trim(&s).to_string()))]
    #[schemars(description = "ast-grep language name.")]
    pub language: String,
    #[arg(check = rule_object)]
    #[schemars(schema_with = "any_object", description = "ast-grep rule object.")]
    #[cfg_attr(feature = "typegen", ts(type = "Record<string, unknown>"))]
    pub rule: serde_json::Value,
    // The workspace root when not given.
    #[arg(check = root_path_or_workspace, default = ".")]
    #[schemars(
        description = "Workspace-relative root directory (default: .). Accepts / or \\\\ and requires JSON escaping for backslashes."
    )]
    pub root_path: String,
    #[arg(check = slash_globs, optional)]
    #[schemars(
        description = "Workspace-relative glob allowlist patterns within searchable paths."
    )]
    pub include: Vec<String>,
    #[arg(check = slash_globs, optional)]
    #[schemars(
        description = "Workspace-relative glob denylist patterns (takes precedence over include)."
    )]
    pub exclude: Vec<String>,
    #[arg(check = integer_in(1.0..=500.0), default = DEFAULT_MAX_RESULTS, schema = f64)]
    #[schemars(description = "Maximum number of matches to return (default: 100).")]
    pub max_results: usize,
    #[arg(check = integer_in(1.0..=30000.0), default = DEFAULT_TIMEOUT_MS, schema = f64)]
    #[schemars(description = "Search timeout in milliseconds (default: 5000).")]
    pub timeout_ms: Duration,
}

/// `rule`: a plain object that is JSON.
fn rule_object(f: Field<serde_json::Value>) -> Result<serde_json::Value, ToolError> {
    if !f.value.is_plain_object() {
        return Err(f.must("be an object"));
    }
    match f.value.to_json() {
        Ok(Some(json)) => Ok(json),
        _ => Err(f.must("be JSON serializable")),
    }
}

/// A 0-based position; `column` counts characters (Unicode scalar values), as the CLI does.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(
    feature = "typegen",
    ts(type = "{ line: number; column: number; offset?: number; [key: string]: unknown }")
)]
pub struct AstGrepJsonPosition {
    pub line: usize,
    pub column: usize,
}

#[derive(Serialize, Debug, Clone, Copy)]
pub struct ByteOffset {
    pub start: usize,
    pub end: usize,
}

#[derive(Serialize, Debug, Clone, Copy)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(
    feature = "typegen",
    ts(type = "{ start: AstGrepJsonPosition; end: AstGrepJsonPosition; [key: string]: unknown }")
)]
pub struct AstGrepJsonRange {
    #[serde(rename = "byteOffset")]
    pub byte_offset: ByteOffset,
    pub start: AstGrepJsonPosition,
    pub end: AstGrepJsonPosition,
}

#[derive(Serialize, Debug, Clone)]
pub struct CharCount {
    pub leading: usize,
    pub trailing: usize,
}

/// A node bound to a meta variable.
#[derive(Serialize, Debug, Clone)]
pub struct MatchedNode {
    pub text: String,
    pub range: AstGrepJsonRange,
}

#[derive(Serialize, Debug, Clone)]
pub struct MetaVariables {
    pub single: std::collections::BTreeMap<String, MatchedNode>,
    pub multi: std::collections::BTreeMap<String, Vec<MatchedNode>>,
    pub transformed: std::collections::BTreeMap<String, String>,
}

#[derive(Serialize, Debug, Clone)]
pub struct MatchLabel {
    pub text: String,
    pub range: AstGrepJsonRange,
    pub style: &'static str,
}

/// One match, field for field (and in the same key order) what `sg scan --json=stream` prints.
#[derive(Serialize, Debug, Clone)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(
    feature = "typegen",
    ts(
        type = "{ text: string; file: string; range: AstGrepJsonRange; lines?: string; language?: string; metaVariables?: Record<string, unknown>; ruleId?: string; severity?: string; message?: string; note?: string | null; [key: string]: unknown }"
    )
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

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct AstGrepSearchQuery {
    pub language: String,
    #[cfg_attr(feature = "typegen", ts(type = "Record<string, unknown>"))]
    pub rule: serde_json::Value,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct AstGrepSearchOutput {
    pub query: AstGrepSearchQuery,
    pub root_path: String,
    pub took_ms: u64,
    pub truncated: bool,
    pub items: Vec<AstGrepJsonMatch>,
    pub warnings: Vec<String>,
}

/// The handler: parses its arguments, then searches.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let started = Instant::now();
    search(rc, AstGrepSearchInput::from_args(args, rc.ctx)?, started)
}

/// The search of a checked input, its timeout counted from `started`.
pub fn search(
    rc: &RunContext,
    request: AstGrepSearchInput,
    started: Instant,
) -> Result<String, ToolError> {
    let budget = search_cache::budget_of(&rc.ctx.search_cache_bytes)
        .map_err(|message| ERROR_CLASS.invalid(message))?;
    let root_path = checked_root_path(&request.root_path)?;
    let workspace_root = paths::absolute(workspace_root(rc, ERROR_CLASS)?);
    let lang = parse_language(&request.language)?;
    check_patterns(&request.rule, lang)?;
    let rule = compile_rule(&request.language, &request.rule)?;
    let overrides = build_overrides(&workspace_root, &request.include, &request.exclude)?;
    if let Some(confinement) = &rc.confinement {
        check_root_confined(confinement, &root_path)?;
    }
    let required_texts = required_texts(&request.rule, lang);
    let search = Search {
        types: file_types(lang),
        requirement: Requirement::all_texts(&required_texts),
        query_key: format!("{}\n{}", request.language, request.rule).into(),
        required_texts,
        cache: search_cache::for_call(rc, budget),
        call_start_ns: search_cache::now_ns(),
        lang,
        rule,
        root_rel: paths::workspace_relative(&workspace_root, &root_path),
        root_abs: root_path,
        overrides,
        max_results: request.max_results,
        confinement: rc.confinement.clone(),
        deadline: started + request.timeout_ms,
        cancelled: Arc::new(AtomicBool::new(false)),
    };
    let root_rel = search.root_rel.clone();
    let cache = search.cache.clone();
    let found = search.run_until_deadline();
    if let Some(cache) = cache {
        cache.call_finished();
    }
    let (items, truncated) = found?;
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
/// `include` / `exclude`: a string array (default `[]`, `null` refused) of plausible globs, with
/// `\` turned into `/`.
fn slash_globs(f: Field<Vec<String>>) -> Result<Vec<String>, ToolError> {
    let patterns = crate::tools::args::glob_patterns(f.value, f.key, ERROR_CLASS)?;
    Ok(patterns
        .into_iter()
        .map(|pattern| pattern.replace('\\', "/"))
        .collect())
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
    crate::tools::args::require_root_directory(&normalised, ERROR_CLASS)?;
    Ok(paths::absolute(&normalised))
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

/// How long a pattern of a rule may be, and how deep its syntax tree may nest: ast-grep turns a
/// pattern into its matcher, and matches with it, recursively, so a pattern nested thousands of
/// levels deep (`((((…))))`, `a+a+a+…`) would overflow the thread's stack and end the process.
/// Real code patterns nest a few dozen levels.
pub const MAX_PATTERN_BYTES: usize = 64 << 10;
pub const MAX_PATTERN_DEPTH: usize = 256;
/// Relational rules (`inside`, `has`, `precedes`, `follows`) nested in one another at most ...
pub const MAX_RELATIONAL_DEPTH: usize = 6;
/// ... and in all.
pub const MAX_RELATIONAL_RULES: usize = 32;

const RELATIONAL_KEYS: [&str; 4] = ["inside", "has", "precedes", "follows"];

/// Refuses, before anything compiles them, patterns (`pattern`, or a pattern object's
/// `context`) anywhere in `rule` that are longer or nest deeper than the limits above. The
/// pattern is parsed as ast-grep will parse it; tree-sitter parses without recursion and the
/// depth is measured with an explicit stack.
/// The rule's size limits: each pattern's, and how many relational rules it holds and how deep
/// they nest (each walks the tree for every node it is tried on, so nesting multiplies the work).
fn check_patterns(rule: &serde_json::Value, lang: SupportLang) -> Result<(), ToolError> {
    let mut values = vec![(rule, 0usize)];
    let mut relational = 0;
    while let Some((value, depth)) = values.pop() {
        match value {
            serde_json::Value::Object(fields) => {
                for (key, field) in fields {
                    if let (Some(text), "pattern" | "context") = (field.as_str(), key.as_str()) {
                        check_pattern(text, lang)?;
                    }
                    let nested = RELATIONAL_KEYS.contains(&key.as_str()) && field.is_object();
                    let depth = depth + usize::from(nested);
                    relational += usize::from(nested);
                    if depth > MAX_RELATIONAL_DEPTH {
                        return Err(ERROR_CLASS.invalid(format!(
                            "rule nests relational rules (inside, has, precedes, follows) more than {MAX_RELATIONAL_DEPTH} levels deep"
                        )));
                    }
                    if relational > MAX_RELATIONAL_RULES {
                        return Err(ERROR_CLASS.invalid(format!(
                            "rule holds more than {MAX_RELATIONAL_RULES} relational rules (inside, has, precedes, follows)"
                        )));
                    }
                    values.push((field, depth));
                }
            }
            serde_json::Value::Array(items) => values.extend(items.iter().map(|v| (v, depth))),
            _ => {}
        }
    }
    Ok(())
}

fn check_pattern(text: &str, lang: SupportLang) -> Result<(), ToolError> {
    if text.len() > MAX_PATTERN_BYTES {
        return Err(ERROR_CLASS.invalid(format!(
            "rule pattern is {} bytes long; at most {MAX_PATTERN_BYTES} are allowed",
            text.len()
        )));
    }
    let source = lang.pre_process_pattern(text);
    let tree = lang.ast_grep(source.as_ref());
    let mut nodes = vec![(tree.root(), 1usize)];
    while let Some((node, depth)) = nodes.pop() {
        if depth > MAX_PATTERN_DEPTH {
            return Err(ERROR_CLASS.invalid(format!(
                "rule pattern nests more than {MAX_PATTERN_DEPTH} levels deep"
            )));
        }
        nodes.extend(node.children().map(|child| (child, depth + 1)));
    }
    Ok(())
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

/// Routes tree-sitter's C allocations through mimalloc (with glibc's malloc, allocation was a
/// tenth of the parse time). Must run before any tree-sitter object exists, since an object
/// allocated by one allocator must not be freed by the other: the addon installs it when it is
/// loaded; a program that never calls it keeps libc's allocator. Fuzzing builds keep libc's for
/// the sanitizers. Idempotent.
pub fn use_mimalloc_for_tree_sitter() {
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
            // installed before any tree-sitter object exists (the caller's duty, above), once.
            unsafe { tree_sitter::set_allocator(Some(allocator)) };
        });
    }
}

/// The directory about to be searched must really be inside the workspace.
fn check_root_confined(confinement: &Confinement, root_path: &str) -> Result<(), ToolError> {
    let dir = crate::sys::with_flags(
        fs::OpenOptions::new().read(true),
        crate::sys::fs::OFlags::DIRECTORY,
    )
    .open(root_path)
    .map_err(|_| {
        ERROR_CLASS.coded(
            ErrorCode::NotFound,
            format!("root_path does not exist: {root_path}"),
        )
    })?;
    confinement.confine(&dir, root_path, ERROR_CLASS)
}

mod output;
mod search;
mod stoppable;
#[cfg(test)]
mod tests;

use search::Search;
