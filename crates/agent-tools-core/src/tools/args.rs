//! Argument checks the tools share, with upstream's messages.

use super::input::Field;
use crate::context::RunContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::value::{js_trim, ArgValue};

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

// The checks of `#[arg(check = ...)]` (tools::input): each reads one argument, with upstream's
// messages (`<key> must ...`); an absent argument is `undefined` and, where it is optional,
// `null` too (`Arg::absent`: the default, or `None`).

/// A field's type as built from an argument's value `V`.
pub(crate) trait Arg<V>: Sized {
    /// The value of an absent argument: the field's default, `None` for an `Option` field;
    /// nothing for a required one.
    fn absent(default: Option<Self>) -> Option<Self>;
    fn present(value: V) -> Self;
}

macro_rules! arg_with_default {
    ($($t:ty: $v:ty => |$x:ident| $make:expr),* $(,)?) => {$(
        impl Arg<$v> for $t {
            fn absent(default: Option<Self>) -> Option<Self> {
                default
            }
            fn present($x: $v) -> Self {
                $make
            }
        }
    )*};
}
arg_with_default! {
    u32: f64 => |n| n as u32,
    usize: f64 => |n| n as usize,
    std::time::Duration: f64 => |n| std::time::Duration::from_millis(n as u64),
}

impl<V> Arg<V> for V {
    fn absent(default: Option<Self>) -> Option<Self> {
        default
    }
    fn present(value: V) -> Self {
        value
    }
}

impl<V> Arg<V> for Option<V> {
    fn absent(_: Option<Self>) -> Option<Self> {
        Some(None)
    }
    fn present(value: V) -> Self {
        Some(value)
    }
}

/// A string that is not blank after JavaScript's trim; `undefined` is absent, `null` refused.
pub(crate) fn non_blank_string<T: Arg<String>>(mut f: Field<T>) -> Result<T, ToolError> {
    let default = f.default.take();
    let error = || f.must("be a non-empty string");
    match f.value {
        ArgValue::Undefined => T::absent(default).ok_or_else(error),
        ArgValue::String(s) if !js_trim(s).is_empty() => Ok(T::present(s.clone())),
        _ => Err(error()),
    }
}

/// A string that is not empty (blanks allowed).
pub(crate) fn non_empty_string(f: Field<String>) -> Result<String, ToolError> {
    match f.value {
        ArgValue::String(s) if !s.is_empty() => Ok(s.clone()),
        _ => Err(f.must("be a non-empty string")),
    }
}

/// A string; `undefined` is absent, `null` refused.
pub(crate) fn string<T: Arg<String>>(mut f: Field<T>) -> Result<T, ToolError> {
    let default = f.default.take();
    let error = || f.must("be a string");
    match f.value {
        ArgValue::Undefined => T::absent(default).ok_or_else(error),
        ArgValue::String(s) => Ok(T::present(s.clone())),
        _ => Err(error()),
    }
}

/// A boolean; `undefined` and `null` are absent.
pub(crate) fn boolean<T: Arg<bool>>(mut f: Field<T>) -> Result<T, ToolError> {
    let default = f.default.take();
    match f.value {
        v if v.is_nullish() => T::absent(default).ok_or_else(|| f.must("be a boolean")),
        ArgValue::Bool(b) => Ok(T::present(*b)),
        _ => Err(f.must("be a boolean")),
    }
}

/// An integer in `range` (`<key> must be an integer between A and B`, or `>= A` when the range
/// has no end); `undefined` and `null` are absent.
pub(crate) fn integer_in<T: Arg<f64>>(
    range: std::ops::RangeInclusive<f64>,
) -> impl Fn(Field<T>) -> Result<T, ToolError> {
    move |mut f| {
        let default = f.default.take();
        let error = || match *range.end() == f64::MAX {
            true => f.must(&format!("be an integer >= {}", range.start())),
            false => f.must(&format!(
                "be an integer between {} and {}",
                range.start(),
                range.end()
            )),
        };
        match f.value {
            v if v.is_nullish() => T::absent(default).ok_or_else(error),
            v => match v.as_integer().filter(|n| range.contains(n)) {
                Some(n) => Ok(T::present(n)),
                None => Err(error()),
            },
        }
    }
}

/// A finite number in `range` (`<key> must be between A and B`); `undefined` and `null` are
/// absent.
pub(crate) fn number_in<T: Arg<f64>>(
    range: std::ops::RangeInclusive<f64>,
) -> impl Fn(Field<T>) -> Result<T, ToolError> {
    move |mut f| {
        let default = f.default.take();
        let error = || f.must(&format!("be between {} and {}", range.start(), range.end()));
        match f.value {
            v if v.is_nullish() => T::absent(default).ok_or_else(error),
            ArgValue::Number(n) if n.is_finite() && range.contains(n) => Ok(T::present(*n)),
            _ => Err(error()),
        }
    }
}

/// One of the named values (`<key> must be "a" or "b"`); `undefined` and `null` are absent.
pub(crate) fn one_of<V: Copy, T: Arg<V>>(
    choices: &'static [(&'static str, V)],
) -> impl Fn(Field<T>) -> Result<T, ToolError> {
    move |mut f| {
        let default = f.default.take();
        let error = || f.must(&quoted_alternatives(choices));
        match f.value {
            v if v.is_nullish() => T::absent(default).ok_or_else(error),
            ArgValue::String(s) => match choices.iter().find(|(name, _)| name == s) {
                Some((_, value)) => Ok(T::present(*value)),
                None => Err(error()),
            },
            _ => Err(error()),
        }
    }
}

fn quoted_alternatives<V>(choices: &[(&str, V)]) -> String {
    let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    match names.split_last() {
        Some((last, [])) => format!("be {last}"),
        Some((last, rest)) => format!("be {} or {last}", rest.join(", ")),
        None => "be nothing".to_string(),
    }
}

/// The search tools' `root_path`: the workspace root when absent (`undefined` or `null`),
/// otherwise a non-blank string.
pub(crate) fn root_path_or_workspace(f: Field<String>) -> Result<String, ToolError> {
    if !f.value.is_nullish() {
        return non_blank_string(f);
    }
    match f.ctx.workspace_root.as_deref() {
        Some(root) if !js_trim(root).is_empty() => Ok(root.to_string()),
        _ => Err(f.must("be a non-empty string")),
    }
}
