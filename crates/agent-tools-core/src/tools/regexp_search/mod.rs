//! regexp_search (docs/tools/regexp_search.md, docs/compat.md): JavaScript regular
//! expressions over the text files below a directory, in-process and in parallel.
//!
//! * Matching: `regress` (ECMAScript syntax and semantics, UTF-16 columns), see `matcher`.
//!   A conservative `regex`-crate prefilter picks the lines regress sees, see `prefilter`.
//! * Walking: the `ignore` crate in parallel, replayed in upstream's sequential collation order
//!   so truncation, counters and errors are those of upstream's walk, see `walk`.
//! * Ordering: ICU root collation (`localeCompare`), see `crate::collation`.

pub mod matcher;
pub mod prefilter;
mod scan;
mod walk;

use std::time::{Duration, Instant};

use crate::sys::fs::{Mode, OFlags};
use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{integer_in, non_empty_string, root_path_or_workspace, string};
use super::input::{tool_input, Field, ToolInput};
use super::{to_json, workspace_root};
use crate::collation::locale_compare;
use crate::context::RunContext;
use crate::error::{node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::glob::Glob;
use crate::paths::workspace_relative;
use crate::search_cache::{self, trigrams::Requirement};
use crate::value::ArgValue;
use matcher::JsRegex;
pub use matcher::MatchText;
use walk::{SearchError, SearchSpec};

pub const ERROR_CLASS: ErrorClass = ErrorClass("RegexpSearchError");
/// The only accepted `max_file_size_bytes`, and the per-file size limit.
const MAX_FILE_SIZE: u64 = 1_048_576;
/// The defaults of `max_results` and `timeout_ms` (in the definition and in `from_args`).
const DEFAULT_MAX_RESULTS: u32 = 100;
const DEFAULT_TIMEOUT_MS: u32 = 5000;

// regexp_search's input: `regexp_search(input)`, checked, with defaults applied and the
// pattern compiled (upstream's order of checks: the pattern and its flags, the root, the
// bounds, the globs).
#[tool_input(
    name = "regexp_search",
    description = "Searches workspace text files with a regular expression and returns deterministic match locations.",
    effect = Read,
    class = ERROR_CLASS,
    output = RegexpSearchOutput,
    handler = Worker(run),
    shape = Object,
    sandboxed = root_path,
    object = plain
)]
#[derive(JsonSchema)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct RegexpSearchInput {
    #[arg(check = non_empty_string)]
    #[schemars(description = "Regular expression pattern source.")]
    pub pattern: String,
    #[arg(check = regex_flags, default = "")]
    #[schemars(description = "Regex flags from g/i/m/s/u only (default: empty).")]
    pub flags: String,
    // Normalised as in validation step 10; the workspace root when not given.
    #[arg(check = |f| root_path_or_workspace(f).map(|p| normalise_root(&p)), default = ".")]
    #[schemars(
        description = "Workspace-relative root directory (default: .). Accepts / or \\\\ and requires JSON escaping for backslashes."
    )]
    pub root_path: String,
    #[arg(check = globs, optional, schema = Vec<String>)]
    #[schemars(
        description = "Glob allowlist patterns within searchable paths. Does not override exclusions."
    )]
    pub include: Vec<Glob>,
    #[arg(check = globs, optional, schema = Vec<String>)]
    #[schemars(description = "Glob denylist patterns (takes precedence over include).")]
    pub exclude: Vec<Glob>,
    #[arg(check = integer_in(1.0..=500.0), default = DEFAULT_MAX_RESULTS, schema = f64, after = root_path)]
    #[schemars(description = "Maximum number of matches to return (default: 100).")]
    pub max_results: usize,
    // The only accepted value (`Some` after the checks).
    #[arg(check = fixed_file_size, default = MAX_FILE_SIZE, schema = f64, ts = "1048576", after = timeout_ms)]
    #[schemars(
        description = "Per-file size limit in bytes (fixed: 1048576).",
        extend("enum" = [MAX_FILE_SIZE])
    )]
    pub max_file_size_bytes: Option<u64>,
    #[arg(check = integer_in(1.0..=30000.0), default = DEFAULT_TIMEOUT_MS, schema = f64, after = max_results)]
    #[schemars(description = "Search timeout in milliseconds (default: 5000).")]
    pub timeout_ms: Duration,
    #[arg(from = compile_pattern(&pattern, &flags), after = flags)]
    regex: JsRegex,
}

/// `flags`: absent is none; otherwise each of g, i, m, s, u at most once.
fn regex_flags(f: Field<String>) -> Result<String, ToolError> {
    let flags = string(f.clone())?;
    let mut seen = String::new();
    for c in flags.chars() {
        if !"gimsu".contains(c) {
            return Err(f.must("contain only g, i, m, s, u"));
        }
        if seen.contains(c) {
            return Err(f.must(&format!("not contain duplicate flag: {c}")));
        }
        seen.push(c);
    }
    Ok(flags)
}

fn compile_pattern(pattern: &str, flags: &str) -> Result<JsRegex, ToolError> {
    matcher::compile(pattern, flags)
        .map_err(|m| ERROR_CLASS.invalid(m))?
        .map_err(|m| ERROR_CLASS.coded(ErrorCode::InvalidRegex, m))
}

/// `max_file_size_bytes`: absent, or the one accepted value.
fn fixed_file_size(f: Field<Option<u64>>) -> Result<Option<u64>, ToolError> {
    match f.value {
        v if v.is_nullish() => Ok(Some(MAX_FILE_SIZE)),
        ArgValue::Number(n) if *n == MAX_FILE_SIZE as f64 => Ok(Some(MAX_FILE_SIZE)),
        _ => Err(f.must("be 1048576")),
    }
}

/// `include` / `exclude`: absent is none; otherwise an array of valid glob strings.
fn globs(f: Field<Vec<Glob>>) -> Result<Vec<Glob>, ToolError> {
    let patterns = crate::tools::args::glob_patterns(f.value, f.key, ERROR_CLASS)?;
    Ok(patterns.into_iter().map(Glob::new).collect())
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct RegexpSearchItem {
    pub path: String,
    pub line: u64,
    pub column: u64,
    #[serde(rename = "match")]
    #[cfg_attr(feature = "typegen", ts(rename = "match", type = "string"))]
    pub matched: MatchText,
    pub line_text: String,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct RegexpSearchQuery {
    pub pattern: String,
    pub flags: String,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct RegexpSearchOutput {
    pub query: RegexpSearchQuery,
    pub root_path: String,
    pub took_ms: u64,
    pub truncated: bool,
    pub scanned_files: u64,
    pub items: Vec<RegexpSearchItem>,
    pub warnings: Vec<String>,
}

/// The handler: parses its arguments, then searches.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    search(rc, args, MAX_FILE_SIZE)
}

/// `run` with a configurable per-file size limit (upstream's tests use a tiny one).
fn search(rc: &RunContext, args: &[ArgValue], max_file_size: u64) -> Result<String, ToolError> {
    // The timeout counts from here: compiling the pattern is part of the call.
    let start = Instant::now();
    crate::test_hooks::search_start_pause();
    let input = RegexpSearchInput::from_args(args, rc.ctx)?;
    search_input(rc, input, start, max_file_size)
}

/// The search of a checked input, its timeout counted from `start`.
pub fn search_input(
    rc: &RunContext,
    query: RegexpSearchInput,
    start: Instant,
    max_file_size: u64,
) -> Result<String, ToolError> {
    let budget = search_cache::budget_of(&rc.ctx.search_cache_bytes)
        .map_err(|message| ERROR_CLASS.invalid(message))?;
    let root_path = query.root_path.as_str();
    crate::tools::args::require_root_directory(root_path, ERROR_CLASS)?;
    // The directory actually opened (a symlinked root is followed, as upstream's `stat` does)
    // must be inside the workspace; files are opened beneath it without following symlinks.
    let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let root_dir = crate::sys::fs::open(root_path, flags, Mode::empty()).map_err(|e| {
        ERROR_CLASS.coded(
            ErrorCode::Internal,
            node_io_message(&e.into(), "scandir", root_path),
        )
    })?;
    rc.confine(&root_dir, root_path, ERROR_CLASS)?;
    let workspace = workspace_root(rc, ERROR_CLASS)?;

    let prefilter = prefilter::build(&query.pattern, &query.flags);
    let cache = search_cache::for_call(rc, budget);
    // What a file must contain to hold a match: the prefilter finds every matching line.
    let requirement = match (&cache, &prefilter) {
        (Some(_), Some(_)) => prefilter::translate(&query.pattern, &query.flags)
            .map_or(Requirement::Anything, |t| Requirement::of_regex(&t)),
        _ => Requirement::Anything,
    };
    let spec = SearchSpec {
        regex: &query.regex,
        prefilter: prefilter.as_ref(),
        include: query.include,
        exclude: query.exclude,
        max_results: query.max_results,
        max_file_size,
        deadline: start + query.timeout_ms,
        root_dir: &root_dir,
        confinement: rc.confinement.as_ref(),
        cache: cache.as_ref(),
        requirement: &requirement,
        call_start_ns: search_cache::now_ns(),
    };
    let found = walk::search(root_path, &spec);
    if let Some(cache) = &cache {
        cache.call_finished();
    }
    let found = found.map_err(|e| match e {
        SearchError::Timeout => ERROR_CLASS.coded(ErrorCode::Timeout, "search timed out"),
        SearchError::Io(message) => ERROR_CLASS.coded(ErrorCode::Internal, message),
    })?;

    let mut items: Vec<RegexpSearchItem> = Vec::new();
    for (rel, hits) in found.files {
        let path = workspace_relative(workspace, &format!("{root_path}/{rel}"));
        items.extend(hits.into_iter().map(|hit| RegexpSearchItem {
            path: path.clone(),
            line: hit.line,
            column: hit.column,
            matched: hit.text,
            line_text: hit.line_text,
        }));
    }
    // Stable, like Array.prototype.sort: paths that collate equal keep walk order.
    items.sort_by(|a, b| {
        locale_compare(&a.path, &b.path)
            .then(a.line.cmp(&b.line))
            .then(a.column.cmp(&b.column))
    });
    let mut warnings = Vec::new();
    if found.skipped_binary > 0 {
        warnings.push(format!("skipped_binary_files={}", found.skipped_binary));
    }
    if found.skipped_size > 0 {
        warnings.push(format!("skipped_size_limit_files={}", found.skipped_size));
    }
    to_json(
        &RegexpSearchOutput {
            query: RegexpSearchQuery {
                pattern: query.pattern,
                flags: query.flags,
            },
            root_path: workspace_relative(workspace, root_path),
            took_ms: start.elapsed().as_millis() as u64,
            truncated: found.truncated,
            scanned_files: found.scanned_files,
            items,
            warnings,
        },
        ERROR_CLASS,
    )
}

/// Validation steps 1–10, in upstream's order.
/// Validation step 10: `\` → `/`, runs of `/` collapsed, one trailing `/` removed, `""` → `"."`.
fn normalise_root(path: &str) -> String {
    // Windows: without the verbatim prefix of a canonicalized root (`\\?\C:\ws`), which the
    // separator rule below would turn into `/?/C:/ws`
    #[cfg(windows)]
    let path = &*crate::windows_path::strip_verbatim(path);
    let mut out = String::with_capacity(path.len());
    for c in path.chars().map(|c| if c == '\\' { '/' } else { c }) {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    if out.ends_with('/') {
        out.pop();
    }
    if out.is_empty() {
        ".".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests;
