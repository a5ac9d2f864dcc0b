//! apply_patches (docs/tools/apply_patches.md), an opt-in tool: one patch over several files, as
//! a git-style unified diff or in the Codex patch format, all or nothing. Every new content is
//! computed in memory first; then the files are written, and when a write fails the ones
//! already written are put back. Every path, move targets included, passes the sandbox.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::{to_json, workspace_root};
use crate::atomic::{open_parent, replace_atomically};
use crate::context::RunContext;
use crate::error::{node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::paths::workspace_relative;
use crate::sandbox::resolve_in_root;
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("ApplyPatchesError");
const SIZE_LIMIT: u64 = 10 * 1024 * 1024;

#[cfg_attr(feature = "typegen", derive(TS))]
#[allow(dead_code)]
pub struct ApplyPatchesInput {
    pub patch: String,
}

/// What happened to one file.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(feature = "typegen", ts(rename_all = "snake_case"))]
pub enum PatchAction {
    Added,
    Updated,
    Deleted,
    Moved,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct PatchedFile {
    pub path: String,
    pub action: PatchAction,
    #[cfg_attr(feature = "typegen", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ApplyPatchesOutput {
    pub format: String,
    pub files: Vec<PatchedFile>,
}

/// One hunk: the old lines, the new lines, a line hint (1-based) and a Codex `@@` header line.
#[derive(Debug, Default, Clone, PartialEq)]
struct Hunk {
    old: Vec<String>,
    new: Vec<String>,
    hint: Option<usize>,
    anchor: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum FileOp {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

fn failed(text: impl AsRef<str>) -> ToolError {
    ERROR_CLASS.coded(ErrorCode::ApplyFailed, text)
}

/// The Codex patch format (`*** Begin Patch` ... `*** End Patch`).
fn parse_codex(patch: &str) -> Result<Vec<FileOp>, ToolError> {
    let lines: Vec<&str> = patch.lines().collect();
    let mut i = 1;
    let mut ops = Vec::new();
    let mut ended = false;
    while i < lines.len() {
        let line = lines[i].trim_end();
        if line == "*** End Patch" {
            ended = true;
            break;
        }
        if let Some(path) = line.strip_prefix("*** Add File: ") {
            i += 1;
            let mut content = String::new();
            while i < lines.len() && !lines[i].starts_with("*** ") {
                let body = lines[i].strip_prefix('+').ok_or_else(|| {
                    failed(format!(
                        "line {}: an added file's lines start with +",
                        i + 1
                    ))
                })?;
                content.push_str(body);
                content.push('\n');
                i += 1;
            }
            ops.push(FileOp::Add {
                path: path.trim().to_string(),
                content,
            });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            ops.push(FileOp::Delete {
                path: path.trim().to_string(),
            });
            i += 1;
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            i += 1;
            let mut move_to = None;
            if let Some(to) = lines.get(i).and_then(|l| l.strip_prefix("*** Move to: ")) {
                move_to = Some(to.trim().to_string());
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            while i < lines.len()
                && !(lines[i].starts_with("*** ") && lines[i].trim_end() != "*** End of File")
            {
                let l = lines[i];
                if let Some(rest) = l.strip_prefix("@@") {
                    let anchor = rest.trim();
                    hunks.push(Hunk {
                        anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                        ..Hunk::default()
                    });
                } else if l.trim_end() == "*** End of File" {
                } else {
                    if hunks.is_empty() {
                        hunks.push(Hunk::default());
                    }
                    let hunk = hunks.last_mut().expect("a hunk");
                    match l.chars().next() {
                        Some('+') => hunk.new.push(l[1..].to_string()),
                        Some('-') => hunk.old.push(l[1..].to_string()),
                        Some(' ') => {
                            hunk.old.push(l[1..].to_string());
                            hunk.new.push(l[1..].to_string());
                        }
                        None => {
                            hunk.old.push(String::new());
                            hunk.new.push(String::new());
                        }
                        Some(_) => {
                            return Err(failed(format!(
                                "line {}: unexpected line in a hunk: {l}",
                                i + 1
                            )))
                        }
                    }
                }
                i += 1;
            }
            ops.push(FileOp::Update {
                path: path.trim().to_string(),
                move_to,
                hunks,
            });
        } else if line.is_empty() {
            i += 1;
        } else {
            return Err(failed(format!(
                "line {}: expected a file operation, found: {line}",
                i + 1
            )));
        }
    }
    if !ended {
        return Err(failed("the patch has no *** End Patch line"));
    }
    Ok(ops)
}

/// A path of a git header (`a/x`, `b/x`, `/dev/null`), without its prefix.
fn git_path(raw: &str) -> Option<String> {
    let raw = raw.split('\t').next().unwrap_or(raw).trim();
    if raw == "/dev/null" {
        return None;
    }
    Some(
        raw.strip_prefix("a/")
            .or_else(|| raw.strip_prefix("b/"))
            .unwrap_or(raw)
            .to_string(),
    )
}

/// A git-style unified diff of one or more files.
fn parse_git(patch: &str) -> Result<Vec<FileOp>, ToolError> {
    let lines: Vec<&str> = patch.lines().collect();
    let mut ops = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !(lines[i].starts_with("diff --git ") || lines[i].starts_with("--- ")) {
            i += 1;
            continue;
        }
        let (mut old, mut new, mut rename_from, mut rename_to) = (None, None, None, None);
        let (mut is_new, mut is_deleted) = (false, false);
        if let Some(rest) = lines[i].strip_prefix("diff --git ") {
            let mut parts = rest.split(' ');
            old = parts.next().and_then(git_path);
            new = parts.next_back().and_then(git_path);
            i += 1;
        }
        while i < lines.len() && !lines[i].starts_with("@@") && !lines[i].starts_with("diff --git ")
        {
            let l = lines[i];
            if let Some(p) = l.strip_prefix("--- ") {
                old = git_path(p);
                is_new = old.is_none();
            } else if let Some(p) = l.strip_prefix("+++ ") {
                new = git_path(p);
                is_deleted = new.is_none();
            } else if let Some(p) = l.strip_prefix("rename from ") {
                rename_from = Some(p.trim().to_string());
            } else if let Some(p) = l.strip_prefix("rename to ") {
                rename_to = Some(p.trim().to_string());
            } else if l.starts_with("new file mode") {
                is_new = true;
            } else if l.starts_with("deleted file mode") {
                is_deleted = true;
            }
            i += 1;
        }
        let mut hunks = Vec::new();
        while i < lines.len() && lines[i].starts_with("@@") {
            let hint = lines[i]
                .strip_prefix("@@ -")
                .and_then(|r| r.split([',', ' ']).next())
                .and_then(|n| n.parse::<usize>().ok());
            let mut hunk = Hunk {
                hint,
                ..Hunk::default()
            };
            i += 1;
            while i < lines.len()
                && !lines[i].starts_with("@@")
                && !lines[i].starts_with("diff --git ")
                && !lines[i].starts_with("--- ")
            {
                let l = lines[i];
                match l.chars().next() {
                    Some('+') => hunk.new.push(l[1..].to_string()),
                    Some('-') => hunk.old.push(l[1..].to_string()),
                    Some(' ') => {
                        hunk.old.push(l[1..].to_string());
                        hunk.new.push(l[1..].to_string());
                    }
                    Some('\\') => {}
                    None => {
                        hunk.old.push(String::new());
                        hunk.new.push(String::new());
                    }
                    Some(_) => break,
                }
                i += 1;
            }
            hunks.push(hunk);
        }
        let op = if is_new {
            let path = new.ok_or_else(|| failed("a new file without a name"))?;
            let content: String = hunks
                .iter()
                .flat_map(|h| h.new.iter())
                .map(|l| format!("{l}\n"))
                .collect();
            FileOp::Add { path, content }
        } else if is_deleted {
            FileOp::Delete {
                path: old.ok_or_else(|| failed("a deleted file without a name"))?,
            }
        } else {
            let path = rename_from
                .clone()
                .or(old)
                .ok_or_else(|| failed("a file without a name"))?;
            let target = rename_to.or(new).filter(|t| *t != path);
            FileOp::Update {
                path,
                move_to: target,
                hunks,
            }
        };
        ops.push(op);
    }
    if ops.is_empty() {
        return Err(failed(
            "no file in the patch (expected a unified diff or *** Begin Patch)",
        ));
    }
    Ok(ops)
}

/// Applies `hunks` to `text` in memory.
fn apply_hunks(text: &str, hunks: &[Hunk], path: &str) -> Result<String, ToolError> {
    let crlf = text.contains("\r\n");
    let eol = if crlf { "\r\n" } else { "\n" };
    let final_newline = text.ends_with('\n') || text.is_empty();
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .collect();
    let mut cursor = 0usize;
    for (n, hunk) in hunks.iter().enumerate() {
        let mut from = cursor;
        if let Some(anchor) = &hunk.anchor {
            if let Some(at) = (cursor..lines.len()).find(|&k| lines[k].trim() == anchor.trim()) {
                from = at;
            }
        }
        let matches_at = |k: usize, loose: bool| {
            k + hunk.old.len() <= lines.len()
                && hunk.old.iter().enumerate().all(|(j, o)| {
                    if loose {
                        lines[k + j].trim_end() == o.trim_end()
                    } else {
                        lines[k + j] == *o
                    }
                })
        };
        let at = if hunk.old.is_empty() {
            Some(hunk.hint.map_or(lines.len(), |h| h.min(lines.len())))
        } else {
            let hinted = hunk
                .hint
                .map(|h| h.saturating_sub(1))
                .filter(|&k| k >= from && matches_at(k, false));
            hinted
                .or_else(|| (from..lines.len()).find(|&k| matches_at(k, false)))
                .or_else(|| (from..lines.len()).find(|&k| matches_at(k, true)))
        };
        let Some(at) = at else {
            return Err(failed(format!(
                "hunk {} of {path} does not match the file",
                n + 1
            )));
        };
        lines.splice(at..at + hunk.old.len(), hunk.new.iter().cloned());
        cursor = at + hunk.new.len();
    }
    let mut out = lines.join(eol);
    if final_newline && !lines.is_empty() {
        out.push_str(eol);
    }
    Ok(out)
}

/// One planned change: the absolute path, the new content (`None`: delete), the old content
/// (`None`: the file did not exist) and its mode.
struct Change {
    abs: String,
    new: Option<Vec<u8>>,
    old: Option<Vec<u8>>,
    mode: Option<u32>,
}

fn resolve(rc: &RunContext, path: &str) -> Result<String, ToolError> {
    let root = workspace_root(rc, ERROR_CLASS)?;
    resolve_in_root(path, root, rc.ctx.real_root().ok())
        .map_err(|v| ERROR_CLASS.internal(v.message))
}

fn read_existing(abs: &str, path: &str) -> Result<Option<(Vec<u8>, u32)>, ToolError> {
    match fs::symlink_metadata(abs) {
        Err(_) => Ok(None),
        Ok(meta) if !meta.is_file() => Err(failed(format!("not a regular file: {path}"))),
        Ok(meta) if meta.len() > SIZE_LIMIT => {
            Err(failed(format!("file is larger than 10 MiB: {path}")))
        }
        Ok(meta) => {
            let bytes = fs::read(abs)
                .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "open", path)))?;
            Ok(Some((bytes, meta.permissions().mode() & 0o7777)))
        }
    }
}

/// Writes or deletes one file, inside the workspace (checked by the directory's descriptor).
fn put(
    rc: &RunContext,
    abs: &str,
    content: Option<&[u8]>,
    mode: Option<u32>,
) -> Result<(), ToolError> {
    let target = Path::new(abs);
    let parent = target.parent().unwrap_or(Path::new("/"));
    if content.is_some() {
        match &rc.confinement {
            Some(c) => c.create_dir_all(parent),
            None => fs::create_dir_all(parent),
        }
        .map_err(|e| {
            ERROR_CLASS.internal(node_io_message(&e, "mkdir", &parent.to_string_lossy()))
        })?;
    }
    let (dir, name) =
        open_parent(target).map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "open", abs)))?;
    if let Some(c) = &rc.confinement {
        if !c.contains_fd(&dir) {
            return Err(ERROR_CLASS.internal(format!(
                "[Sandbox Violation] Attempted to access path outside of workspace: \"{abs}\""
            )));
        }
    }
    match content {
        Some(bytes) => replace_atomically(&dir, name, bytes, mode)
            .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "open", abs)))?,
        None => rustix::fs::unlinkat(&dir, name, rustix::fs::AtFlags::empty())
            .map_err(|e| ERROR_CLASS.internal(node_io_message(&e.into(), "unlink", abs)))?,
    }
    if let (Some(reads), Some(bytes)) = (&rc.ctx.reads, content) {
        reads.record(target, bytes);
    }
    Ok(())
}

/// `apply_patches({ patch })`.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    let input = args.first().unwrap_or(&ArgValue::Undefined);
    let patch = match input.get("patch") {
        ArgValue::String(p) if !p.trim().is_empty() => p.as_str(),
        _ => return Err(ERROR_CLASS.invalid("patch must be a non-empty string")),
    };
    let root = workspace_root(rc, ERROR_CLASS)?.to_string();
    let codex = patch.trim_start().starts_with("*** Begin Patch");
    let ops = if codex {
        parse_codex(patch.trim_start())?
    } else {
        parse_git(patch)?
    };

    // 1. every new content, in memory
    let mut changes: Vec<Change> = Vec::new();
    let mut files = Vec::new();
    let mut touched: Vec<String> = Vec::new();
    let mut claim = |abs: &str, path: &str| -> Result<(), ToolError> {
        if touched.iter().any(|t| t == abs) {
            return Err(failed(format!("the patch changes {path} twice")));
        }
        touched.push(abs.to_string());
        Ok(())
    };
    for op in &ops {
        match op {
            FileOp::Add { path, content } => {
                let abs = resolve(rc, path)?;
                claim(&abs, path)?;
                if read_existing(&abs, path)?.is_some() {
                    return Err(failed(format!("{path} already exists")));
                }
                changes.push(Change {
                    abs: abs.clone(),
                    new: Some(content.clone().into_bytes()),
                    old: None,
                    mode: None,
                });
                files.push(PatchedFile {
                    path: workspace_relative(&root, &abs),
                    action: PatchAction::Added,
                    moved_to: None,
                });
            }
            FileOp::Delete { path } => {
                let abs = resolve(rc, path)?;
                claim(&abs, path)?;
                let (old, mode) = read_existing(&abs, path)?
                    .ok_or_else(|| failed(format!("{path} does not exist")))?;
                changes.push(Change {
                    abs: abs.clone(),
                    new: None,
                    old: Some(old),
                    mode: Some(mode),
                });
                files.push(PatchedFile {
                    path: workspace_relative(&root, &abs),
                    action: PatchAction::Deleted,
                    moved_to: None,
                });
            }
            FileOp::Update {
                path,
                move_to,
                hunks,
            } => {
                if hunks.is_empty() && move_to.is_none() {
                    return Err(failed(format!(
                        "nothing to apply to {path} (no hunk; binary and mode-only changes are not supported)"
                    )));
                }
                let abs = resolve(rc, path)?;
                claim(&abs, path)?;
                let (old, mode) = read_existing(&abs, path)?
                    .ok_or_else(|| failed(format!("{path} does not exist")))?;
                let text = std::str::from_utf8(&old)
                    .map_err(|_| failed(format!("{path} is not UTF-8 text")))?;
                let new = apply_hunks(text, hunks, path)?.into_bytes();
                match move_to {
                    Some(to) => {
                        let to_abs = resolve(rc, to)?;
                        claim(&to_abs, to)?;
                        if read_existing(&to_abs, to)?.is_some() {
                            return Err(failed(format!("{to} already exists")));
                        }
                        changes.push(Change {
                            abs: to_abs.clone(),
                            new: Some(new),
                            old: None,
                            mode: Some(mode),
                        });
                        changes.push(Change {
                            abs: abs.clone(),
                            new: None,
                            old: Some(old),
                            mode: Some(mode),
                        });
                        files.push(PatchedFile {
                            path: workspace_relative(&root, &abs),
                            action: PatchAction::Moved,
                            moved_to: Some(workspace_relative(&root, &to_abs)),
                        });
                    }
                    None => {
                        changes.push(Change {
                            abs: abs.clone(),
                            new: Some(new),
                            old: Some(old),
                            mode: Some(mode),
                        });
                        files.push(PatchedFile {
                            path: workspace_relative(&root, &abs),
                            action: PatchAction::Updated,
                            moved_to: None,
                        });
                    }
                }
            }
        }
    }

    // 2. the writes; on a failure, the ones done are undone, last first
    for (done, change) in changes.iter().enumerate() {
        if let Err(e) = put(rc, &change.abs, change.new.as_deref(), change.mode) {
            for undo in changes[..done].iter().rev() {
                let _ = put(rc, &undo.abs, undo.old.as_deref(), undo.mode);
            }
            return Err(e);
        }
    }
    to_json(
        &ApplyPatchesOutput {
            format: if codex { "codex" } else { "unified" }.to_string(),
            files,
        },
        ERROR_CLASS,
    )
}

#[cfg(test)]
mod tests;
