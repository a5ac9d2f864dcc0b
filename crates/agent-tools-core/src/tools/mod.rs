//! One module per tool. A handler takes the raw positional arguments (as upstream's raw
//! handler does), validates them in upstream's order and returns its output as JSON text.

pub mod apply_patch;
pub mod ast_grep_search;
pub mod exec_command;
pub mod git_status_summary;
pub mod read_file;
pub mod regexp_search;
pub mod todo;
pub mod tree;
pub mod write_file;

use serde::Serialize;

use super::context::RunContext;
use super::error::{ErrorClass, ErrorCode, ToolError};
use super::value::{js_trim, ArgValue};

/// The `path` argument: a string that is not blank after trimming.
pub(crate) fn required_path(args: &[ArgValue], error_class: ErrorClass) -> Result<&str, ToolError> {
    match args.first() {
        Some(ArgValue::String(p)) if !js_trim(p).is_empty() => Ok(p),
        _ => Err(error_class.coded(
            ErrorCode::InvalidArgument,
            "path must be a non-empty string",
        )),
    }
}

/// The `options` argument (default `{}`); `null` fails the way the engine does when the handler
/// reads its first option.
pub(crate) fn options_arg<'a>(
    args: &'a [ArgValue],
    error_class: ErrorClass,
    first_option: &str,
) -> Result<&'a ArgValue, ToolError> {
    match args.get(1) {
        Some(ArgValue::Null) => Err(error_class.internal(format!(
            "null is not an object (evaluating 'options.{first_option}')"
        ))),
        Some(v) => Ok(v),
        None => Ok(&ArgValue::Undefined),
    }
}

/// An optional integer option: `undefined`/`null` → `default`, otherwise an integer in range.
pub(crate) fn integer_option(
    value: &ArgValue,
    default: f64,
    range: std::ops::RangeInclusive<f64>,
) -> Option<f64> {
    if value.is_nullish() {
        return Some(default);
    }
    value.as_integer().filter(|n| range.contains(n))
}

/// Reads `reader` to its end into a buffer sized from the file's `size` (from its stat): one
/// read for the content and one that sees the end. (`File::read_to_end` stats and seeks again
/// for a size hint; other readers' `read_to_end` reads in 8 KiB steps at first.)
pub(crate) fn read_sized(reader: &mut impl std::io::Read, size: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![
        0u8;
        usize::try_from(size)
            .unwrap_or(usize::MAX - 1)
            .saturating_add(1)
    ];
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize(buf.len().saturating_mul(2).max(8192), 0);
        }
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

/// The workspace root of the context, for output paths.
pub(crate) fn workspace_root<'a>(
    rc: &'a RunContext,
    error_class: ErrorClass,
) -> Result<&'a str, ToolError> {
    rc.ctx.root().map_err(|m| error_class.internal(m))
}

pub(crate) fn to_json<T: Serialize>(
    value: &T,
    error_class: ErrorClass,
) -> Result<String, ToolError> {
    serde_json::to_string(value).map_err(|e| error_class.internal(e.to_string()))
}

/// An `f64` written as `JSON.stringify` writes it: integral values without a fraction (serde
/// writes `1.0`), so a tool's JSON text is exactly `JSON.stringify` of its parsed value.
pub(crate) fn js_number<S: serde::Serializer>(n: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if n.fract() == 0.0 && n.abs() <= SAFE {
        serializer.serialize_i64(*n as i64)
    } else {
        serializer.serialize_f64(*n)
    }
}

/// Node's message for a path holding a NUL byte.
pub(crate) fn nul_path_message(path: &str) -> String {
    format!(
        "The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received \"{}\"",
        path.replace('\0', "\\u0000")
    )
}

/// A fresh temporary workspace (real path, allow-all policy) for unit tests.
/// How much lower than the caller's the priority of a call's helper threads is (a nice value).
const HELPER_THREAD_NICENESS: i32 = 5;

/// Lowers the calling thread's scheduling priority: for threads spawned for one call's parallel
/// work (walks, matching), so on a busy machine they yield the CPU to the JavaScript thread and
/// its timers stay on time. Never for pool or JavaScript threads: niceness cannot be raised back
/// without privilege, and child processes would inherit it. Best effort (errors are ignored).
pub fn lower_helper_thread_priority() {
    let _ = rustix::process::setpriority_process(None, HELPER_THREAD_NICENESS);
}

/// For visitors built on the calling thread and run on helper threads (the `ignore` crate's
/// parallel walk): lowers the priority once, on the first visit, unless it runs on the thread
/// that built it.
pub struct HelperThreadPriority {
    builder: std::thread::ThreadId,
    lowered: bool,
}

impl HelperThreadPriority {
    /// Made on the thread that builds the visitor.
    pub fn new() -> Self {
        HelperThreadPriority {
            builder: std::thread::current().id(),
            lowered: false,
        }
    }

    /// Called on every visit; only the first call on a helper thread does anything.
    pub fn on_visit(&mut self) {
        if !self.lowered {
            self.lowered = true;
            if std::thread::current().id() != self.builder {
                lower_helper_thread_priority();
            }
        }
    }
}

impl Default for HelperThreadPriority {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
pub(crate) fn temp_workspace() -> (tempfile::TempDir, super::context::ToolContext) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir
        .path()
        .canonicalize()
        .expect("a real path")
        .to_string_lossy()
        .into_owned();
    (dir, super::context::ToolContext::allow_all(&root))
}

/// Upstream's checks of one glob pattern (tree.md, regexp_search.md, ast_grep_search.md),
/// in order: the message tail after the option name (`"<key> <tail>"`), or `None` when valid.
pub(crate) fn glob_pattern_problem(pattern: &str) -> Option<&'static str> {
    if pattern.is_empty() {
        Some("must not contain empty pattern")
    } else if pattern.contains('\0') {
        Some("pattern must not contain null char")
    } else if !balanced(pattern, '[', ']') {
        Some("pattern has unbalanced square brackets")
    } else if !balanced(pattern, '{', '}') {
        Some("pattern has unbalanced braces")
    } else {
        None
    }
}

/// Upstream's glob balance check (tree.md): `depth++` on `open`, on `close` fail at depth 0
/// else `depth--`, fail if still open at the end. Escapes are not considered.
fn balanced(pattern: &str, open: char, close: char) -> bool {
    let mut depth = 0usize;
    for c in pattern.chars() {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return false;
            }
            depth -= 1;
        }
    }
    depth == 0
}

#[cfg(test)]
mod helper_thread_tests {
    use super::*;

    fn niceness() -> i32 {
        rustix::process::getpriority_process(None).unwrap()
    }

    #[test]
    fn only_helper_threads_are_lowered() {
        let mut priority = HelperThreadPriority::new();
        let before = niceness();
        priority.on_visit();
        assert_eq!(niceness(), before, "the building thread keeps its priority");
        let mut priority = HelperThreadPriority::new();
        let lowered = std::thread::spawn(move || {
            let start = niceness();
            priority.on_visit();
            priority.on_visit();
            niceness() - start
        })
        .join()
        .unwrap();
        assert_eq!(lowered, HELPER_THREAD_NICENESS.min(19 - before));
        assert_eq!(niceness(), before, "other threads are unaffected");
    }
}
