//! An in-process `git apply --whitespace=fix --include <target> -`, run at the workspace root,
//! for one target file (behaviour of git 2.47, no git needed). It parses every section of the
//! patch as git does, applies the sections whose path is the target, and reports git's exit
//! code and stderr texts. The caller writes the result. `tests/apply_patch_oracle.rs` checks it
//! against a real git on random and hand-written patches.
//!
//! Where this differs from git (by design):
//! - A section is the target's when its path, read with git's `-p` value *or* with `-p0`/`-p1`,
//!   equals the workspace-relative target path (so `--- src/a.ts` works like `--- a/src/a.ts`),
//!   compared literally (git's `--include` is a wildcard pattern). When git's `-p` value finds
//!   no name in a header, another value that does is used. A path equal to the target's
//!   absolute path is also taken, and then refused like git refuses absolute paths.
//! - Only the target is read or written: a section that renames or copies another file onto
//!   the target fails, and a section whose old name differs from the target (without rename
//!   headers) patches the target itself, without reading or removing the old name.
//! - git's default whitespace rule is used; `.gitattributes`/`core.whitespace`, end-of-line
//!   conversion and symlink checks of the path are not consulted.
//! - Binary patches to the target are refused; binary data in other sections is checked for its
//!   line structure only (git also inflates it and stops reading at corrupt data).

mod image;
mod names;
mod parse;
mod ws;

use image::Image;
use parse::{type_differs, Chunk, Names, Parser, Patch};

/// git prints only the first few whitespace errors.
const SQUELCH_WHITESPACE_ERRORS: usize = 5;
const S_IFREG: u32 = 0o100000;

/// What git would print on stderr, plus its whitespace counters.
#[derive(Default, Debug)]
pub struct Diag {
    out: Vec<u8>,
    whitespace_error: usize,
    applied_after_fixing_ws: usize,
}

impl Diag {
    fn raw(&mut self, text: impl AsRef<str>) {
        self.out.extend_from_slice(text.as_ref().as_bytes());
    }

    fn error(&mut self, text: impl AsRef<str>) {
        self.raw(format!("error: {}\n", text.as_ref()));
    }

    fn warning(&mut self, text: impl AsRef<str>) {
        self.raw(format!("warning: {}\n", text.as_ref()));
    }

    /// Counts a whitespace error and prints it while under the squelch limit.
    fn record_ws_error(&mut self, bits: u32, line: &[u8], linenr: usize) {
        if bits == 0 {
            return;
        }
        self.whitespace_error += 1;
        if self.whitespace_error > SQUELCH_WHITESPACE_ERRORS {
            return;
        }
        self.raw(format!("<stdin>:{linenr}: {}.\n", ws::error_string(bits)));
        self.out.extend_from_slice(line);
        self.out.push(b'\n');
    }
}

/// The file the patch is applied to.
pub struct Target<'a> {
    /// Workspace-relative, `/`-separated.
    pub rel: &'a str,
    /// Absolute.
    pub abs: &'a str,
    pub content: &'a [u8],
    /// `st_mode` of the file.
    pub mode: u32,
}

/// What to do with the target when the patch applies.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    /// No section concerned the target.
    Unchanged,
    /// New content; `mode` is git's mode for it (`0o100644` or `0o100755`).
    Replace {
        content: Vec<u8>,
        mode: u32,
    },
    Delete,
}

#[derive(Debug)]
pub struct Outcome {
    /// 0 applied (or nothing to apply), 1 does not apply, 128 unusable patch.
    pub exit_code: i32,
    pub stderr: String,
    /// `Unchanged` whenever `exit_code` is not 0.
    pub effect: Effect,
}

/// Applies `patch` to `target` as `git apply --whitespace=fix --include <rel> -` would.
pub fn apply(patch: &[u8], target: &Target) -> Outcome {
    let mut diag = Diag::default();
    let is_target = |name: Option<&[u8]>| {
        name.is_some_and(|n| n == target.rel.as_bytes() || n == target.abs.as_bytes())
    };
    let select = |patch: &mut Patch, alternatives: &[Names]| {
        if is_target(patch.pathname()) {
            return true;
        }
        for (old, new) in alternatives {
            if is_target(new.as_deref().or(old.as_deref())) {
                patch.old_name = old.clone();
                patch.new_name = new.clone();
                return true;
            }
        }
        false
    };

    let mut parser = Parser::new(patch);
    let mut sections = Vec::new();
    let mut skipped = 0;
    let mut at = 0;
    while at < patch.len() {
        match parser.parse_chunk(at, &mut diag, &select) {
            Chunk::Fatal => return failure(diag, 128),
            Chunk::End => break,
            Chunk::Section(size, section, used) => {
                if used {
                    sections.push(section);
                } else {
                    skipped += 1;
                }
                at += size;
            }
        }
    }
    if sections.is_empty() && skipped == 0 {
        diag.error("No valid patches in input (allow with \"--allow-empty\")");
        return failure(diag, 128);
    }

    let effect = match check_and_apply(&mut sections, target, &mut diag) {
        Ok(effect) => effect,
        Err(code) => return failure(diag, code),
    };

    if diag.whitespace_error > 0 {
        let count = diag.whitespace_error;
        if count > SQUELCH_WHITESPACE_ERRORS {
            let squelched = count - SQUELCH_WHITESPACE_ERRORS;
            let s = if squelched == 1 { "" } else { "s" };
            diag.warning(format!("squelched {squelched} whitespace error{s}"));
        }
        let fixed = diag.applied_after_fixing_ws;
        if fixed > 0 {
            let lines = if fixed == 1 { "line" } else { "lines" };
            diag.warning(format!(
                "{fixed} {lines} applied after fixing whitespace errors."
            ));
        } else if count == 1 {
            diag.warning("1 line adds whitespace errors.");
        } else {
            diag.warning(format!("{count} lines add whitespace errors."));
        }
    }
    Outcome {
        exit_code: 0,
        stderr: String::from_utf8_lossy(&diag.out).into_owned(),
        effect,
    }
}

fn failure(diag: Diag, exit_code: i32) -> Outcome {
    Outcome {
        exit_code,
        stderr: String::from_utf8_lossy(&diag.out).into_owned(),
        effect: Effect::Unchanged,
    }
}

/// The target as earlier sections of the same patch left it (git's `fn_table`).
enum State {
    OnDisk,
    /// A later section deletes it.
    ToBeDeleted,
    Written(Vec<u8>, u32),
    Deleted,
}

fn text(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

/// git's checks and in-memory application of every used section, then the final effect.
/// `Err` carries the exit code.
fn check_and_apply(
    sections: &mut [Patch],
    target: &Target,
    diag: &mut Diag,
) -> Result<Effect, i32> {
    let disk_mode = S_IFREG
        | if target.mode & 0o100 != 0 {
            0o755
        } else {
            0o644
        };
    let mut state = if sections.iter().any(|p| p.new_name.is_none()) {
        State::ToBeDeleted
    } else {
        State::OnDisk
    };
    let mut failed = false;
    let mut effect = Effect::Unchanged;
    for section in sections.iter_mut() {
        match check_section(section, target, disk_mode, &mut state, diag) {
            Ok(result) => {
                if section.is_delete > 0 {
                    if effect == Effect::Unchanged {
                        effect = Effect::Delete;
                    }
                } else if let Some(content) = result {
                    effect = Effect::Replace {
                        content,
                        mode: section.new_mode,
                    };
                }
            }
            Err(128) => return Err(128),
            Err(_) => failed = true,
        }
    }
    if failed {
        Err(1)
    } else {
        Ok(effect)
    }
}

/// One section: git's `check_patch` with `apply_data`. Returns the section's result.
fn check_section(
    p: &mut Patch,
    target: &Target,
    disk_mode: u32,
    state: &mut State,
    diag: &mut Diag,
) -> Result<Option<Vec<u8>>, i32> {
    let name = text(
        p.old_name
            .as_deref()
            .or(p.new_name.as_deref())
            .unwrap_or_default(),
    );
    let may_exist = matches!(state, State::ToBeDeleted | State::Deleted);
    if p.is_rename || p.is_copy {
        let new = text(p.new_name.as_deref().unwrap_or_default());
        if !may_exist {
            diag.error(format!("{new}: already exists in working directory"));
        } else {
            diag.error(format!(
                "{}: apply_patch reads and writes only its target file",
                text(p.old_name.as_deref().unwrap_or_default())
            ));
        }
        return Err(1);
    }

    if let Some(old) = p.old_name.as_deref().map(text) {
        let current_mode = match state {
            State::Deleted => {
                diag.error(format!("path {old} has been renamed/deleted"));
                return Err(1);
            }
            State::Written(_, mode) => *mode,
            State::OnDisk | State::ToBeDeleted => disk_mode,
        };
        if p.is_new < 0 {
            p.is_new = 0;
        }
        if p.old_mode == 0 {
            p.old_mode = current_mode;
        }
        if type_differs(current_mode, p.old_mode) {
            diag.error(format!("{old}: wrong type"));
            return Err(1);
        }
        if current_mode != p.old_mode {
            diag.warning(format!(
                "{old} has type {current_mode:o}, expected {:o}",
                p.old_mode
            ));
        }
        if p.new_mode == 0 && p.is_delete == 0 {
            p.new_mode = current_mode;
        }
    }

    if let Some(new) = p.new_name.as_deref().map(text) {
        if p.is_new > 0 {
            if !may_exist {
                diag.error(format!("{new}: already exists in working directory"));
                return Err(1);
            }
            if p.new_mode == 0 {
                p.new_mode = S_IFREG | 0o644;
            }
        }
        if let Some(old) = p.old_name.as_deref().map(text) {
            if p.new_mode == 0 {
                p.new_mode = p.old_mode;
            }
            if type_differs(p.old_mode, p.new_mode) {
                let of_old = if old == new {
                    String::new()
                } else {
                    format!(" of {old}")
                };
                diag.error(format!(
                    "new mode ({:o}) of {new} does not match old mode ({:o}){of_old}",
                    p.new_mode, p.old_mode
                ));
                return Err(1);
            }
        }
    }

    let checked_old = if p.is_delete != 0 || (p.is_new == 0 && !p.is_copy) {
        p.old_name.as_deref()
    } else {
        None
    };
    let checked_new = if p.is_delete == 0 {
        p.new_name.as_deref()
    } else {
        None
    };
    for path in [checked_old, checked_new].into_iter().flatten() {
        if !verify_path(path) {
            diag.error(format!("invalid path '{}'", text(path)));
            return Err(128);
        }
    }

    match apply_data(p, target, state, diag) {
        Ok(result) => Ok(Some(result)),
        Err(()) => {
            diag.error(format!("{name}: patch does not apply"));
            Err(1)
        }
    }
}

/// The section's hunks applied to the target's current content.
fn apply_data(
    p: &Patch,
    target: &Target,
    state: &mut State,
    diag: &mut Diag,
) -> Result<Vec<u8>, ()> {
    let name = text(
        p.old_name
            .as_deref()
            .or(p.new_name.as_deref())
            .unwrap_or_default(),
    );
    let preimage = match (&p.old_name, &*state) {
        (None, _) => Vec::new(),
        (Some(_), State::Written(content, _)) => content.clone(),
        (Some(_), _) => target.content.to_vec(),
    };
    if p.is_binary {
        let full = |oid: &[u8]| oid.len() == 40 && oid.iter().all(u8::is_ascii_hexdigit);
        if !full(&p.old_oid_prefix) || !full(&p.new_oid_prefix) {
            diag.error(format!(
                "cannot apply binary patch to '{name}' without full index line"
            ));
        } else {
            diag.error(format!(
                "binary patch to '{name}' is not supported by apply_patch"
            ));
        }
        return Err(());
    }
    let mut img = Image::new(preimage);
    for hunk in &p.hunks {
        if !image::apply_hunk(diag, &mut img, hunk, p.ws_rule) {
            diag.error(format!("patch failed: {name}:{}", hunk.oldpos));
            return Err(());
        }
    }
    let result = img.into_bytes();
    *state = if p.new_name.is_some() {
        State::Written(result.clone(), p.new_mode)
    } else {
        State::Deleted
    };
    if p.is_delete > 0 && !result.is_empty() {
        diag.error("removal patch leaves file contents");
        return Err(());
    }
    Ok(result)
}

/// git's `verify_path` for a regular file: no empty, `.`, `..` or `.git` component (also NTFS
/// spellings such as `.git.` and `git~1`), no absolute path, no trailing `/`. Git for Windows adds
/// its own rules there (`verify_path_for`), so a patch is refused on Windows as it is by `git.exe`.
fn verify_path(path: &[u8]) -> bool {
    verify_path_for(path, cfg!(windows))
}

/// `verify_path` with or without Git for Windows' rules: `\` separates components as `/` does,
/// a path with a drive prefix (`C:…`) is invalid, and each component must be a valid Win32 name:
/// none of `:<>"|?*` or control characters, no trailing space or period, no reserved device name
/// (`CON`, `nul.txt`, `COM1`, …).
fn verify_path_for(path: &[u8], windows: bool) -> bool {
    fn is_ntfs_dotgit(component: &[u8]) -> bool {
        let lower = component.to_ascii_lowercase();
        let rest = if let Some(r) = lower.strip_prefix(b".git") {
            r
        } else if let Some(r) = lower.strip_prefix(b"git~1") {
            r
        } else {
            return false;
        };
        let end = rest
            .iter()
            .position(|&c| matches!(c, b'\\' | b':'))
            .unwrap_or(rest.len());
        rest[..end].iter().all(|&c| c == b'.' || c == b' ')
    }
    if path.is_empty()
        || (windows && path.len() >= 2 && path[0].is_ascii_alphabetic() && path[1] == b':')
    {
        return false;
    }
    let is_separator = |c: &u8| *c == b'/' || (windows && *c == b'\\');
    path.split(is_separator).all(|component| {
        !component.is_empty()
            && component != b"."
            && component != b".."
            && !component.eq_ignore_ascii_case(b".git")
            && !is_ntfs_dotgit(component)
            && !component.split(|&c| c == b'\\').skip(1).any(is_ntfs_dotgit)
            && (!windows || is_valid_win32_name(component))
    })
}

/// A path component Win32 can name as it is written (Git for Windows' `is_valid_win32_path`).
fn is_valid_win32_name(component: &[u8]) -> bool {
    const RESERVED: [&[u8]; 6] = [b"con", b"prn", b"aux", b"nul", b"conin$", b"conout$"];
    if component
        .iter()
        .any(|&c| c < 0x20 || matches!(c, b':' | b'<' | b'>' | b'"' | b'|' | b'?' | b'*'))
        || matches!(component.last(), Some(b' ' | b'.'))
    {
        return false;
    }
    let base_end = component
        .iter()
        .position(|&c| c == b'.')
        .unwrap_or(component.len());
    let base = component[..base_end].trim_ascii_end().to_ascii_lowercase();
    let numbered = base.len() == 4
        && (base.starts_with(b"com") || base.starts_with(b"lpt"))
        && matches!(base[3], b'1'..=b'9');
    !(numbered || RESERVED.contains(&base.as_slice()))
}

#[cfg(test)]
mod tests;
