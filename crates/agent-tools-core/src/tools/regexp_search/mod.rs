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

use super::input::{ArgShape, ToolInput};
use super::{integer_option, to_json, workspace_root};
use crate::collation::locale_compare;
use crate::context::{RunContext, ToolContext};
use crate::error::{node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::glob::Glob;
use crate::paths::workspace_relative;
use crate::search_cache::{self, trigrams::Requirement};
use crate::value::{js_trim, ArgValue};
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
// pattern compiled.
#[derive(JsonSchema)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct RegexpSearchInput {
    #[schemars(description = "Regular expression pattern source.")]
    pub pattern: String,
    #[schemars(
        with = "Option<String>",
        description = "Regex flags from g/i/m/s/u only (default: empty).",
        extend("default" = "")
    )]
    #[cfg_attr(feature = "typegen", ts(as = "Option<String>", optional))]
    pub flags: String,
    // Normalised as in validation step 10; the workspace root when not given.
    #[schemars(
        with = "Option<String>",
        description = "Workspace-relative root directory (default: .). Accepts / or \\\\ and requires JSON escaping for backslashes.",
        extend("default" = ".")
    )]
    #[cfg_attr(feature = "typegen", ts(as = "Option<String>", optional))]
    pub root_path: String,
    #[schemars(
        with = "Option<Vec<String>>",
        description = "Glob allowlist patterns within searchable paths. Does not override exclusions."
    )]
    #[cfg_attr(feature = "typegen", ts(as = "Option<Vec<String>>", optional))]
    pub include: Vec<Glob>,
    #[schemars(
        with = "Option<Vec<String>>",
        description = "Glob denylist patterns (takes precedence over include)."
    )]
    #[cfg_attr(feature = "typegen", ts(as = "Option<Vec<String>>", optional))]
    pub exclude: Vec<Glob>,
    #[schemars(
        with = "Option<f64>",
        description = "Maximum number of matches to return (default: 100).",
        extend("default" = DEFAULT_MAX_RESULTS)
    )]
    #[cfg_attr(feature = "typegen", ts(as = "Option<f64>", optional))]
    pub max_results: usize,
    // The only accepted value (`Some` after the checks).
    #[schemars(
        with = "Option<f64>",
        description = "Per-file size limit in bytes (fixed: 1048576).",
        extend("default" = MAX_FILE_SIZE, "enum" = [MAX_FILE_SIZE])
    )]
    #[cfg_attr(feature = "typegen", ts(optional, type = "1048576"))]
    pub max_file_size_bytes: Option<u64>,
    #[schemars(
        with = "Option<f64>",
        description = "Search timeout in milliseconds (default: 5000).",
        extend("default" = DEFAULT_TIMEOUT_MS)
    )]
    #[cfg_attr(feature = "typegen", ts(as = "Option<f64>", optional))]
    pub timeout_ms: Duration,
    #[schemars(skip)]
    #[cfg_attr(feature = "typegen", ts(skip))]
    regex: JsRegex,
}

impl ToolInput for RegexpSearchInput {
    const SHAPE: ArgShape = ArgShape::Object(Some("root_path"));

    fn from_args(args: &[ArgValue], ctx: &ToolContext) -> Result<Self, ToolError> {
        validate(ctx, args.first().unwrap_or(&ArgValue::Undefined))
    }
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
fn validate(ctx: &ToolContext, input: &ArgValue) -> Result<RegexpSearchInput, ToolError> {
    if !input.is_plain_object() {
        return Err(ERROR_CLASS.invalid("input must be an object"));
    }
    let pattern = match input.get("pattern") {
        ArgValue::String(p) if !p.is_empty() => p.clone(),
        _ => return Err(ERROR_CLASS.invalid("pattern must be a non-empty string")),
    };
    let flags = match input.get("flags") {
        ArgValue::Undefined => String::new(),
        ArgValue::String(f) => f.clone(),
        _ => return Err(ERROR_CLASS.invalid("flags must be a string")),
    };
    let mut seen = String::new();
    for c in flags.chars() {
        if !"gimsu".contains(c) {
            return Err(ERROR_CLASS.invalid("flags must contain only g, i, m, s, u"));
        }
        if seen.contains(c) {
            return Err(ERROR_CLASS.invalid(format!("flags must not contain duplicate flag: {c}")));
        }
        seen.push(c);
    }
    let regex = matcher::compile(&pattern, &flags)
        .map_err(|m| ERROR_CLASS.invalid(m))?
        .map_err(|m| ERROR_CLASS.coded(ErrorCode::InvalidRegex, m))?;

    // The handler substitutes the workspace root for a missing or null root_path.
    let workspace = ArgValue::from(ctx.workspace_root.as_deref().unwrap_or_default());
    let root_value = match input.get("root_path") {
        v if v.is_nullish() && ctx.workspace_root.is_some() => &workspace,
        v => v,
    };
    let root_path = match root_value {
        ArgValue::String(p) if !js_trim(p).is_empty() => p.as_str(),
        _ => return Err(ERROR_CLASS.invalid("root_path must be a non-empty string")),
    };
    let max_results = integer_option(input.get("max_results"), DEFAULT_MAX_RESULTS, 1.0..=500.0)
        .ok_or_else(|| ERROR_CLASS.invalid("max_results must be an integer between 1 and 500"))?;
    let timeout_ms = integer_option(input.get("timeout_ms"), DEFAULT_TIMEOUT_MS, 1.0..=30000.0)
        .ok_or_else(|| ERROR_CLASS.invalid("timeout_ms must be an integer between 1 and 30000"))?;
    match input.get("max_file_size_bytes") {
        v if v.is_nullish() => {}
        ArgValue::Number(n) if *n == MAX_FILE_SIZE as f64 => {}
        _ => return Err(ERROR_CLASS.invalid("max_file_size_bytes must be 1048576")),
    }
    let include = glob_list(input.get("include"), "include")?;
    let exclude = glob_list(input.get("exclude"), "exclude")?;
    Ok(RegexpSearchInput {
        pattern,
        flags,
        regex,
        root_path: normalise_root(root_path),
        include,
        exclude,
        max_results: max_results as usize,
        max_file_size_bytes: Some(MAX_FILE_SIZE),
        timeout_ms: Duration::from_millis(timeout_ms as u64),
    })
}

/// `include` / `exclude`: absent → none; otherwise an array of valid glob strings.
fn glob_list(value: &ArgValue, key: &str) -> Result<Vec<Glob>, ToolError> {
    let patterns = crate::tools::args::glob_patterns(value, key, ERROR_CLASS)?;
    Ok(patterns.into_iter().map(Glob::new).collect())
}

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
