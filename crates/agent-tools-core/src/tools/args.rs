//! Argument checks the tools share, with upstream's messages.

use crate::context::RunContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::value::{js_trim, ArgValue};

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

/// An input object read by field: `null`/`undefined` fail the way the engine does when the
/// handler reads its first field.
pub(crate) fn object_input(
    input: &ArgValue,
    error_class: ErrorClass,
    first_field: &str,
) -> Result<(), ToolError> {
    if !input.is_nullish() {
        return Ok(());
    }
    let what = if *input == ArgValue::Null {
        "null"
    } else {
        "undefined"
    };
    Err(error_class.coded(
        ErrorCode::Internal,
        format!("{what} is not an object (evaluating 'input.{first_field}')"),
    ))
}

/// An optional integer option: `undefined`/`null` → `default` (the definition's `default`, an
/// integer there too), otherwise an integer in range.
pub(crate) fn integer_option(
    value: &ArgValue,
    default: u32,
    range: std::ops::RangeInclusive<f64>,
) -> Option<f64> {
    if value.is_nullish() {
        return Some(f64::from(default));
    }
    value.as_integer().filter(|n| range.contains(n))
}

/// The workspace root of the context, for output paths.
pub(crate) fn workspace_root<'a>(
    rc: &'a RunContext,
    error_class: ErrorClass,
) -> Result<&'a str, ToolError> {
    rc.ctx.root().map_err(|m| error_class.internal(m))
}

/// Node's message for a path holding a NUL byte.
pub(crate) fn nul_path_message(path: &str) -> String {
    format!(
        "The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received \"{}\"",
        path.replace('\0', "\\u0000")
    )
}

/// Upstream's checks of one glob pattern (docs/tools/tree.md, regexp_search.md, ast_grep_search.md),
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

/// Upstream's glob balance check (docs/tools/tree.md): `depth++` on `open`, on `close` fail at depth 0
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

/// The search tools' `root_path` check: an existing directory (`NOT_FOUND`, `NOT_DIRECTORY`
/// otherwise, with upstream's messages).
pub(crate) fn require_root_directory(
    root_path: &str,
    error_class: ErrorClass,
) -> Result<(), ToolError> {
    match std::fs::metadata(root_path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(error_class.coded(
            ErrorCode::NotDirectory,
            format!("root_path is not a directory: {root_path}"),
        )),
        Err(_) => Err(error_class.coded(
            ErrorCode::NotFound,
            format!("root_path does not exist: {root_path}"),
        )),
    }
}

/// The search tools' `include` / `exclude`: absent → none; otherwise an array of strings, each a
/// plausible glob (`{key} must be a string array`, `{key}[i] must be a string`,
/// `{key} <problem>` otherwise).
pub(crate) fn glob_patterns<'a>(
    value: &'a ArgValue,
    key: &str,
    error_class: ErrorClass,
) -> Result<Vec<&'a str>, ToolError> {
    let items = match value {
        ArgValue::Undefined => return Ok(Vec::new()),
        ArgValue::Array(items) => items,
        _ => return Err(error_class.invalid(format!("{key} must be a string array"))),
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let pattern = item
                .as_str()
                .ok_or_else(|| error_class.invalid(format!("{key}[{index}] must be a string")))?;
            match glob_pattern_problem(pattern) {
                Some(problem) => Err(error_class.invalid(format!("{key} {problem}"))),
                None => Ok(pattern),
            }
        })
        .collect()
}
