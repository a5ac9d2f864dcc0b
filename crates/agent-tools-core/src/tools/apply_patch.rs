//! apply_patch (docs/tools/apply_patch.md), fixed per docs/compat.md, "apply_patch applies the patch in-process": the patch really is applied to
//! `filePath`, in process, with the semantics of
//! `git apply --whitespace=fix --include <workspace-relative path> -` run at the workspace root
//! (see the `agent-tools-gitapply` crate; no git process, no git needed). Sections for other files are skipped.
//! The result replaces the file atomically (temporary file + rename, mode kept); on any failure
//! the file is untouched. Outputs, codes and messages are upstream's: `exit_code`/`stderr`
//! are what git would report, `APPLY_FAILED` carries git's exit code and stderr.

use std::fs;
use std::io::Read;
use std::path::Path;

use agent_tools_gitapply::{self as gitapply, Effect, Target};
use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{non_blank_string, string};
use super::input::{tool_input, ToolInput};
use super::{nul_path_message, read_sized, to_json};
use crate::atomic_write::{open_parent, replace_atomically};
use crate::context::RunContext;
use crate::error::{
    is_not_found, node_io_message, outside_workspace_message, ErrorClass, ErrorCode, Reason,
    ToolError,
};
use crate::paths;
use crate::sandbox::real_path;
use crate::value::{js_trim, ArgValue};

/// apply_patch's errors carry no code prefix in their message (`ErrorClass::bare`).
pub const ERROR_CLASS: ErrorClass = ErrorClass("ApplyPatchError");
const SIZE_LIMIT: u64 = 10 * 1024 * 1024;

// apply_patch's input: `apply_patch(filePath, patch)`.
#[tool_input(
    name = "apply_patch",
    description = "Applies a unified diff patch to a file within the workspace.",
    effect = Write,
    class = ERROR_CLASS,
    output = ApplyPatchOutput,
    handler = Worker(run),
    shape = PathAndField,
    bare
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ApplyPatchInput {
    #[arg(check = non_blank_string, review = "path")]
    #[serde(rename = "filePath")]
    #[schemars(description = "Target file path")]
    pub file_path: String,
    #[arg(check = string, review)]
    #[schemars(description = "Unified diff content")]
    pub patch: String,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ApplyPatchOutput {
    pub file_path: String,
    pub exit_code: i64,
    pub changed: bool,
    pub stderr: String,
    /// With `syntaxCheck: "report"`: the syntax errors the change added (empty when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub diagnostics: Option<Vec<crate::syntax_check::Diagnostic>>,
}

/// apply_patch's form of the sandbox error: its errors have no code prefix.
fn sandbox_violation(path: &str) -> ToolError {
    ERROR_CLASS
        .bare(ErrorCode::Internal, outside_workspace_message(path))
        .refused(Reason::Sandbox)
}

/// `size / 1 MiB` with two decimals, rounded like JavaScript's `toFixed(2)` (halves up).
fn mebibytes(size: u64) -> String {
    let hundredths = (u128::from(size) * 100 + 524_288) / 1_048_576;
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

/// The text upstream hashes for `changed`: lossy UTF-8 without a leading BOM (docs/compat.md, "apply_patch decides changed on decoded text").
fn decoded(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()
}

/// The file's permission bits after a patch that gives it git mode `git_mode`: kept, except
/// that the executable bits follow the patch (`chmod +x` where readable, or `chmod -x`).
fn permissions_for(current: u32, git_mode: u32) -> u32 {
    let executable = git_mode & 0o100 != 0;
    if executable == (current & 0o100 != 0) {
        current
    } else if executable {
        current | ((current & 0o444) >> 2)
    } else {
        current & !0o111
    }
}

/// The handler: parses its arguments, then `apply`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    apply(rc, ApplyPatchInput::from_args(args, rc.ctx)?)
}

pub fn apply(rc: &RunContext, input: ApplyPatchInput) -> Result<String, ToolError> {
    let (file_path, patch) = (input.file_path.as_str(), input.patch.as_str());
    if file_path.contains('\0') {
        return Err(ERROR_CLASS.bare(ErrorCode::Internal, nul_path_message(file_path)));
    }
    let abs = paths::absolute(file_path);
    let (before, mode) = read_target(rc, file_path, &abs)?;

    // Without a usable workspace root (only possible for a raw handler call), the process's
    // directory plays its part, as it did for upstream's git process.
    let root = rc
        .ctx
        .root()
        .map_or_else(|_| paths::absolute("."), str::to_string);
    let rel = paths::workspace_relative(&root, &abs);
    let outcome = gitapply::apply(
        patch.as_bytes(),
        &Target {
            rel: &rel,
            abs: &abs,
            content: &before,
            mode,
        },
    );
    let stderr = js_trim(&outcome.stderr).to_string();
    if outcome.exit_code != 0 {
        let detail = if stderr.is_empty() {
            "unknown error"
        } else {
            &stderr
        };
        return Err(ERROR_CLASS.bare(
            ErrorCode::ApplyFailed,
            format!(
                "git apply failed with exit code {}: {detail}",
                outcome.exit_code
            ),
        ));
    }

    let changed = match outcome.effect {
        Effect::Unchanged => false,
        Effect::Replace {
            content,
            mode: git_mode,
        } => {
            let permissions = permissions_for(mode & 0o7777, git_mode);
            if content != before || permissions != mode & 0o7777 {
                write_target(rc, file_path, &abs, &content, permissions)?;
            }
            decoded(&content) != decoded(&before)
        }
        Effect::Delete => {
            delete_target(rc, file_path, &abs)?;
            true
        }
    };
    to_json(
        &ApplyPatchOutput {
            file_path: file_path.to_string(),
            exit_code: 0,
            changed,
            stderr,
            diagnostics: None,
        },
        ERROR_CLASS,
    )
}

/// Upstream's checks (exists following symlinks and is not a directory, size), then the
/// bytes and `st_mode` of what was checked: the file is opened once and checked through its
/// descriptor (also where it really is, for a confined call).
fn read_target(rc: &RunContext, file_path: &str, abs: &str) -> Result<(Vec<u8>, u32), ToolError> {
    let not_found =
        || ERROR_CLASS.bare(ErrorCode::NotFound, format!("file not found: {file_path}"));
    let too_large = |size: u64| {
        ERROR_CLASS.bare(
            ErrorCode::FileTooLarge,
            format!(
                "file size exceeds the 10 MB limit (actual: {})",
                mebibytes(size)
            ),
        )
    };
    // Anything but a regular file (after symlinks) counts as missing: a FIFO must not hang us.
    let meta = fs::metadata(abs).map_err(|_| not_found())?;
    if !meta.is_file() {
        return Err(not_found());
    }
    if meta.len() > SIZE_LIMIT {
        return Err(too_large(meta.len()));
    }
    let mut file = crate::sys::with_flags(
        fs::OpenOptions::new().read(true),
        crate::sys::fs::OFlags::NONBLOCK,
    )
    .open(abs)
    .map_err(|e| {
        if is_not_found(&e) {
            not_found()
        } else {
            ERROR_CLASS.bare(ErrorCode::Internal, node_io_message(&e, "open", file_path))
        }
    })?;
    rc.confine(&file, file_path, ERROR_CLASS)
        .map_err(|_| sandbox_violation(file_path))?;
    let meta = file.metadata().map_err(|e| {
        ERROR_CLASS.bare(ErrorCode::Internal, node_io_message(&e, "fstat", file_path))
    })?;
    if !meta.is_file() {
        return Err(not_found());
    }
    if meta.len() > SIZE_LIMIT {
        return Err(too_large(meta.len()));
    }
    let bytes = read_sized(&mut (&mut file).take(SIZE_LIMIT + 1), meta.len()).map_err(|e| {
        ERROR_CLASS.bare(ErrorCode::Internal, node_io_message(&e, "read", file_path))
    })?;
    if bytes.len() as u64 > SIZE_LIMIT {
        return Err(too_large(bytes.len() as u64));
    }
    Ok((bytes, crate::sys::raw_mode(&meta)))
}

/// The directory holding the file (through symlinks, like write_file), checked for a confined
/// call, and the file's name in it.
fn target_dir(
    rc: &RunContext,
    file_path: &str,
    abs: &str,
) -> Result<(crate::sys::OwnedFd, std::ffi::OsString), ToolError> {
    let io_error = |e: std::io::Error| {
        ERROR_CLASS.bare(ErrorCode::Internal, node_io_message(&e, "open", file_path))
    };
    let target = real_path(Path::new(abs)).map_err(io_error)?;
    let (dir, name) = open_parent(&target).map_err(io_error)?;
    rc.confine(&dir, file_path, ERROR_CLASS)
        .map_err(|_| sandbox_violation(file_path))?;
    Ok((dir, name.to_os_string()))
}

fn write_target(
    rc: &RunContext,
    file_path: &str,
    abs: &str,
    content: &[u8],
    permissions: u32,
) -> Result<(), ToolError> {
    let (dir, name) = target_dir(rc, file_path, abs)?;
    rc.check_syntax(Path::new(abs), None, content, ERROR_CLASS)?;
    rc.before_change(Path::new(abs))?;
    replace_atomically(&dir, &name, content, Some(permissions)).map_err(|e| {
        ERROR_CLASS.bare(ErrorCode::Internal, node_io_message(&e, "open", file_path))
    })?;
    rc.wrote(Path::new(abs), content);
    Ok(())
}

fn delete_target(rc: &RunContext, file_path: &str, abs: &str) -> Result<(), ToolError> {
    let (dir, name) = target_dir(rc, file_path, abs)?;
    rc.before_change(Path::new(abs))?;
    crate::sys::fs::unlinkat(&dir, name.as_os_str(), crate::sys::fs::AtFlags::empty()).map_err(
        |e| {
            ERROR_CLASS.bare(
                ErrorCode::Internal,
                node_io_message(&e.into(), "unlink", file_path),
            )
        },
    )
}

#[cfg(test)]
mod tests;
