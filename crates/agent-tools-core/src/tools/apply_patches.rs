//! apply_patches (docs/tools/apply_patches.md), an opt-in tool: one patch over several files, as
//! a git-style unified diff or in the Codex patch format, all or nothing. Every new content is
//! computed in memory first; then the files are written, and when a write fails the ones
//! already written are put back and the directories created removed. Every path, move targets
//! included, passes the sandbox, and every file is read and written through its directory's
//! descriptor, checked once opened.

use crate::sys::OwnedFd;
use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::Path;

use crate::sys::fs::{openat, unlinkat, AtFlags, Mode, OFlags};
use crate::sys::Errno;
use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::non_blank_string;
use super::input::{tool_input, ToolInput};
use super::{read_sized, to_json, workspace_root};
use crate::atomic_write::{open_parent, replace_atomically};
use crate::context::RunContext;
use crate::error::{is_not_found, node_io_message, ErrorClass, ErrorCode, Reason, ToolError};
use crate::paths::workspace_relative;
use crate::sandbox::{fd_path, resolve_in_root, Confinement};
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("ApplyPatchesError");
const SIZE_LIMIT: u64 = 10 * 1024 * 1024;

// apply_patches's input: `apply_patches(input)`.
#[tool_input(
    name = "apply_patches",
    description = "Applies one patch over several files (git-style unified diff or the Codex patch format), all or nothing.",
    effect = Write,
    class = ERROR_CLASS,
    output = ApplyPatchesOutput,
    handler = Worker(run),
    opt_in,
    shape = Object
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct ApplyPatchesInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(description = "The patch text, paths relative to the workspace root.")]
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
    /// With `syntaxCheck: "report"`: the syntax errors the change added (empty when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub diagnostics: Option<Vec<crate::syntax_check::Diagnostic>>,
}

/// One hunk: the old lines, the new lines, a line hint (1-based) and a Codex `@@` header line.
#[derive(Debug, Default, Clone, PartialEq)]
struct Hunk {
    old: Vec<String>,
    new: Vec<String>,
    /// For each new line: `Some(i)` when it is old line `i` (context), `None` when added.
    kept: Vec<Option<usize>>,
    hint: Option<usize>,
    anchor: Option<String>,
}

impl Hunk {
    fn context(&mut self, line: &str) {
        self.kept.push(Some(self.old.len()));
        self.old.push(line.to_string());
        self.new.push(line.to_string());
    }

    fn removed(&mut self, line: &str) {
        self.old.push(line.to_string());
    }

    fn added(&mut self, line: &str) {
        self.kept.push(None);
        self.new.push(line.to_string());
    }
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
                        Some('+') => hunk.added(&l[1..]),
                        Some('-') => hunk.removed(&l[1..]),
                        Some(' ') => hunk.context(&l[1..]),
                        None => hunk.context(""),
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
                    Some('+') => hunk.added(&l[1..]),
                    Some('-') => hunk.removed(&l[1..]),
                    Some(' ') => hunk.context(&l[1..]),
                    Some('\\') => {}
                    None => hunk.context(""),
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

/// A line ending: `\r\n`, `\n`, or none (a last line without one).
type Eol = &'static str;

/// The lines of `text` with their own endings.
fn split_with_endings(text: &str) -> Vec<(String, Eol)> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find('\n') {
            Some(nl) => {
                let (content, eol) = match rest[..nl].strip_suffix('\r') {
                    Some(content) => (content, "\r\n"),
                    None => (&rest[..nl], "\n"),
                };
                lines.push((content.to_string(), eol));
                rest = &rest[nl + 1..];
            }
            None => {
                lines.push((rest.to_string(), ""));
                rest = "";
            }
        }
    }
    lines
}

/// Applies `hunks` to `text` in memory. Every line keeps its own ending: context lines theirs,
/// an added line that of the first line removed in its place, or, where nothing is removed, that
/// of the line before it; lines without one take the file's dominant ending (docs/tools/apply_patches.md).
fn apply_hunks(text: &str, hunks: &[Hunk], path: &str) -> Result<String, ToolError> {
    if hunks.is_empty() {
        return Ok(text.to_string());
    }
    let crlf = text.matches("\r\n").count();
    let dominant: Eol = if crlf * 2 > text.matches('\n').count() {
        "\r\n"
    } else {
        "\n"
    };
    let final_newline = text.ends_with('\n') || text.is_empty();
    let mut lines = split_with_endings(text);
    let mut cursor = 0usize;
    for (n, hunk) in hunks.iter().enumerate() {
        let mut from = cursor;
        if let Some(anchor) = &hunk.anchor {
            if let Some(at) = (cursor..lines.len()).find(|&k| lines[k].0.trim() == anchor.trim()) {
                from = at;
            }
        }
        let matches_at = |k: usize, loose: bool| {
            k + hunk.old.len() <= lines.len()
                && hunk.old.iter().enumerate().all(|(j, o)| {
                    if loose {
                        lines[k + j].0.trim_end() == o.trim_end()
                    } else {
                        lines[k + j].0 == *o
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
        let mut is_context = vec![false; hunk.old.len()];
        for i in hunk.kept.iter().flatten() {
            is_context[*i] = true;
        }
        let mut previous: Option<usize> = None;
        let replacement: Vec<(String, Eol)> = hunk
            .new
            .iter()
            .zip(&hunk.kept)
            .map(|(content, kept)| {
                let eol = match *kept {
                    Some(i) => {
                        previous = Some(i);
                        lines[at + i].1
                    }
                    None => {
                        let first_gap = previous.map_or(0, |p| p + 1);
                        if first_gap < hunk.old.len() && !is_context[first_gap] {
                            lines[at + first_gap].1
                        } else if let Some(p) = previous {
                            lines[at + p].1
                        } else if at > 0 {
                            lines[at - 1].1
                        } else {
                            lines.get(at).map_or(dominant, |l| l.1)
                        }
                    }
                };
                (content.clone(), eol)
            })
            .collect();
        lines.splice(at..at + hunk.old.len(), replacement);
        cursor = at + hunk.new.len();
    }
    let last = lines.len().saturating_sub(1);
    let mut out = String::with_capacity(text.len());
    for (i, (content, eol)) in lines.iter().enumerate() {
        out.push_str(content);
        out.push_str(match *eol {
            _ if i == last && !final_newline => "",
            "" => dominant,
            eol => eol,
        });
    }
    Ok(out)
}

/// The directory of a file, opened and checked (where it really is, for a confined call), and
/// the file's name in it. Every read and write of the file goes through this descriptor, so a
/// directory swapped for a symlink after the check cannot lead them anywhere else.
struct Place {
    dir: OwnedFd,
    name: OsString,
}

/// What planning found at a path: the file's place (`None`: its directory does not exist) and
/// its bytes and permission bits (`None`: no such file).
type Existing = (Option<Place>, Option<(Vec<u8>, u32)>);

/// A directory the call created: its parent's descriptor and its name.
type CreatedDir = (OwnedFd, OsString);

/// One planned change: the absolute path, the new content (`None`: delete), the old content
/// (`None`: the file did not exist), its mode, and its directory when that existed at planning.
struct Change {
    abs: String,
    new: Option<Vec<u8>>,
    old: Option<Vec<u8>>,
    mode: Option<u32>,
    place: Option<Place>,
}

fn resolve(rc: &RunContext, path: &str) -> Result<String, ToolError> {
    let root = workspace_root(rc, ERROR_CLASS)?;
    resolve_in_root(path, root, rc.ctx.real_root().ok())
        .map_err(|v| ERROR_CLASS.internal(v.message).refused(Reason::Sandbox))
}

fn not_regular(path: &str) -> ToolError {
    failed(format!("not a regular file: {path}"))
}

/// Opens the directory of `abs` and checks it (`None`: the directory does not exist).
fn open_place(rc: &RunContext, abs: &str) -> Result<Option<Place>, ToolError> {
    let (dir, name) = match open_parent(Path::new(abs)) {
        Ok(found) => found,
        Err(e) if is_not_found(&e) || e.raw_os_error() == Some(Errno::NOTDIR.raw_os_error()) => {
            return Ok(None)
        }
        Err(e) => return Err(ERROR_CLASS.internal(node_io_message(&e, "open", abs))),
    };
    rc.confine(&dir, abs, ERROR_CLASS)?;
    Ok(Some(Place {
        dir,
        name: name.to_os_string(),
    }))
}

/// The file at `abs`, read through its checked directory: its place (`None`: the directory does
/// not exist) and its bytes and permission bits (`None`: no such file). A symlink, a directory or
/// any other non-regular file is refused.
fn read_existing(rc: &RunContext, abs: &str, path: &str) -> Result<Existing, ToolError> {
    if workspace_relative(workspace_root(rc, ERROR_CLASS)?, abs) == "." {
        return Err(not_regular(path));
    }
    let Some(place) = open_place(rc, abs)? else {
        return Ok((None, None));
    };
    let fd = match openat(
        &place.dir,
        &place.name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok((Some(place), None)),
        Err(Errno::LOOP | Errno::NXIO) => return Err(not_regular(path)),
        Err(e) => return Err(ERROR_CLASS.internal(node_io_message(&e.into(), "open", path))),
    };
    let mut file = fs::File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "fstat", path)))?;
    let too_large = || failed(format!("file is larger than 10 MiB: {path}"));
    if !meta.is_file() {
        return Err(not_regular(path));
    }
    if meta.len() > SIZE_LIMIT {
        return Err(too_large());
    }
    let bytes = read_sized(&mut (&mut file).take(SIZE_LIMIT + 1), meta.len())
        .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "read", path)))?;
    if bytes.len() as u64 > SIZE_LIMIT {
        return Err(too_large());
    }
    Ok((
        Some(place),
        Some((bytes, crate::sys::permission_bits(&meta))),
    ))
}

/// Test hook: decides from the path and the content (`None`: a removal) whether a write fails.
#[cfg(test)]
type WriteFault = Box<dyn Fn(&str, Option<&[u8]>) -> bool>;

#[cfg(test)]
thread_local! {
    /// Test hook: a write or removal for which this returns true fails with `EIO`, to provoke
    /// failures mid-call (a failed restore among them).
    static FAIL_WRITE: std::cell::RefCell<Option<WriteFault>> = const { std::cell::RefCell::new(None) };
}

/// Writes (`content`) or removes (`None`) the file at `abs` through its directory. A directory
/// that did not exist at planning is created now (confined to the workspace), each one created
/// recorded in `created`, then opened and checked.
fn put(
    rc: &RunContext,
    abs: &str,
    place: &mut Option<Place>,
    content: Option<&[u8]>,
    mode: Option<u32>,
    created: &mut Vec<CreatedDir>,
) -> Result<(), ToolError> {
    // the journal keeps the state from before the call (a rollback's put finds it recorded),
    // taken before a directory is made for the file: it learns which ones the call creates
    rc.before_change(Path::new(abs))?;
    if place.is_none() {
        if content.is_some() {
            let parent = Path::new(abs).parent().unwrap_or(Path::new("/"));
            let confinement = rc
                .confinement
                .clone()
                .unwrap_or_else(|| Confinement::at(crate::sandbox::root_of(parent)));
            confinement
                .create_dir_all_recording(parent, created)
                .map_err(|e| {
                    ERROR_CLASS.internal(node_io_message(&e, "mkdir", &parent.to_string_lossy()))
                })?;
        }
        *place = open_place(rc, abs)?;
    }
    let Some(place) = place else {
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        return Err(ERROR_CLASS.internal(node_io_message(&e, "open", abs)));
    };
    #[cfg(test)]
    if FAIL_WRITE.with(|hook| {
        hook.borrow()
            .as_ref()
            .is_some_and(|fail| fail(abs, content))
    }) {
        let e = std::io::Error::from_raw_os_error(Errno::IO.raw_os_error());
        let syscall = if content.is_some() { "open" } else { "unlink" };
        return Err(ERROR_CLASS.internal(node_io_message(&e, syscall, abs)));
    }
    match content {
        Some(bytes) => replace_atomically(&place.dir, &place.name, bytes, mode)
            .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "open", abs)))?,
        None => unlinkat(&place.dir, &place.name, AtFlags::empty())
            .map_err(|e| ERROR_CLASS.internal(node_io_message(&e.into(), "unlink", abs)))?,
    }
    if let Some(bytes) = content {
        rc.wrote(Path::new(abs), bytes);
    }
    Ok(())
}

/// Undoes the first `done` changes, last first, and removes the directories the call created,
/// deepest first. Returns what could not be undone, one entry each.
fn roll_back(
    rc: &RunContext,
    root: &str,
    changes: &mut [Change],
    done: usize,
    created: &[CreatedDir],
) -> Vec<String> {
    let mut failures = Vec::new();
    // the directories of changes already done exist: restoring creates none
    let mut none_created = Vec::new();
    for change in changes[..done].iter_mut().rev() {
        let restored = put(
            rc,
            &change.abs,
            &mut change.place,
            change.old.as_deref(),
            change.mode,
            &mut none_created,
        );
        if let Err(e) = restored {
            let reason = e.message.strip_prefix("INTERNAL: ").unwrap_or(&e.message);
            failures.push(format!(
                "{} ({reason})",
                workspace_relative(root, &change.abs)
            ));
        }
    }
    // the files' directories are closed first: Windows removes a directory only once nothing
    // holds it open (until then it is "not empty" to its parent's removal)
    for change in changes.iter_mut() {
        change.place = None;
    }
    for (parent, name) in created.iter().rev() {
        if let Err(e) = unlinkat(parent, name.as_os_str(), AtFlags::REMOVEDIR) {
            let dir = fd_path(parent).map_or_else(
                || name.to_string_lossy().into_owned(),
                |p| p.join(name).to_string_lossy().into_owned(),
            );
            let shown = rc.ctx.real_root().ok().map_or(dir.clone(), |r| {
                workspace_relative(&r.to_string_lossy(), &dir)
            });
            failures.push(format!(
                "directory {shown}/ ({})",
                node_io_message(&e.into(), "rmdir", &dir)
            ));
        }
    }
    failures
}

/// `apply_patches({ patch })`.
/// The handler: parses its arguments, then `apply`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    apply(rc, ApplyPatchesInput::from_args(args, rc.ctx)?)
}

pub fn apply(rc: &RunContext, input: ApplyPatchesInput) -> Result<String, ToolError> {
    let patch = input.patch.as_str();
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
    // A path of the patch: resolved, claimed once, and read (its place and its content).
    let mut open = |path: &str| -> Result<(String, Existing), ToolError> {
        let abs = resolve(rc, path)?;
        if touched.contains(&abs) {
            return Err(failed(format!("the patch changes {path} twice")));
        }
        touched.push(abs.clone());
        let existing = read_existing(rc, &abs, path)?;
        Ok((abs, existing))
    };
    for op in &ops {
        match op {
            FileOp::Add { path, content } => {
                let (abs, (place, existing)) = open(path)?;
                if existing.is_some() {
                    return Err(failed(format!("{path} already exists")));
                }
                changes.push(Change {
                    abs: abs.clone(),
                    new: Some(content.clone().into_bytes()),
                    old: None,
                    mode: None,
                    place,
                });
                files.push(PatchedFile {
                    path: workspace_relative(&root, &abs),
                    action: PatchAction::Added,
                    moved_to: None,
                });
            }
            FileOp::Delete { path } => {
                let (abs, (place, existing)) = open(path)?;
                let (old, mode) =
                    existing.ok_or_else(|| failed(format!("{path} does not exist")))?;
                changes.push(Change {
                    abs: abs.clone(),
                    new: None,
                    old: Some(old),
                    mode: Some(mode),
                    place,
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
                let (abs, (place, existing)) = open(path)?;
                let (old, mode) =
                    existing.ok_or_else(|| failed(format!("{path} does not exist")))?;
                let text = std::str::from_utf8(&old)
                    .map_err(|_| failed(format!("{path} is not UTF-8 text")))?;
                let new = apply_hunks(text, hunks, path)?.into_bytes();
                match move_to {
                    Some(to) => {
                        let (to_abs, (to_place, existing)) = open(to)?;
                        if existing.is_some() {
                            return Err(failed(format!("{to} already exists")));
                        }
                        changes.push(Change {
                            abs: to_abs.clone(),
                            new: Some(new),
                            old: None,
                            mode: Some(mode),
                            place: to_place,
                        });
                        changes.push(Change {
                            abs: abs.clone(),
                            new: None,
                            old: Some(old),
                            mode: Some(mode),
                            place,
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
                            place,
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

    // the syntax check of every new content, before anything is written
    for change in &changes {
        if let Some(new) = &change.new {
            rc.check_syntax(
                Path::new(&change.abs),
                change.old.as_deref(),
                new,
                ERROR_CLASS,
            )?;
        }
    }
    // 2. the writes; on a failure, the ones done are undone, last first, and the directories
    // created removed; what could not be undone is named in the error
    let mut created: Vec<CreatedDir> = Vec::new();
    for done in 0..changes.len() {
        let change = &mut changes[done];
        let written = put(
            rc,
            &change.abs,
            &mut change.place,
            change.new.as_deref(),
            change.mode,
            &mut created,
        );
        if let Err(mut e) = written {
            let failures = roll_back(rc, &root, &mut changes, done, &created);
            if !failures.is_empty() {
                e.message.push_str(&format!(
                    "; the rollback failed, not restored: {}",
                    failures.join(", ")
                ));
            }
            return Err(e);
        }
    }
    to_json(
        &ApplyPatchesOutput {
            format: if codex { "codex" } else { "unified" }.to_string(),
            files,
            diagnostics: None,
        },
        ERROR_CLASS,
    )
}

#[cfg(test)]
mod tests;
