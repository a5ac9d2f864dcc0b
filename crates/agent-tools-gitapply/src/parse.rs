//! Splitting a patch into per-file sections and hunks, after git's `apply.c` (`find_header`,
//! `parse_git_diff_header`, `parse_traditional_patch`, `parse_fragment`, `parse_chunk`), with
//! the same patch line numbers in messages. Sections for other files are parsed too (git
//! reports their syntax errors) but with whitespace checks off, as git does for paths that
//! `--include` leaves out.

use super::image::Hunk;
use super::names::{
    find_name, find_name_traditional, git_header_name, guess_p_value, has_epoch_timestamp,
    is_dev_null, line_len, starts, TERM_TAB,
};
use super::ws;
use super::Diag;

const S_IFMT: u32 = 0o170000;
/// Hex digits of a full SHA-1 object name.
const HEXSZ: usize = 40;

/// One file's section of a patch.
#[derive(Debug, Clone, Default)]
pub struct Patch<'a> {
    pub old_name: Option<Vec<u8>>,
    pub new_name: Option<Vec<u8>>,
    def_name: Option<Vec<u8>>,
    /// 1 yes, 0 no, -1 not known yet (traditional patches).
    pub is_new: i32,
    pub is_delete: i32,
    pub is_rename: bool,
    pub is_copy: bool,
    pub old_mode: u32,
    pub new_mode: u32,
    pub ws_rule: u32,
    pub hunks: Vec<Hunk<'a>>,
    pub is_binary: bool,
    pub old_oid_prefix: Vec<u8>,
    pub new_oid_prefix: Vec<u8>,
    extension_linenr: usize,
}

impl Patch<'_> {
    /// The name `--include` is matched against.
    pub fn pathname(&self) -> Option<&[u8]> {
        self.new_name.as_deref().or(self.old_name.as_deref())
    }

    pub fn metadata_changes(&self) -> bool {
        self.is_rename
            || self.is_copy
            || self.is_new > 0
            || self.is_delete != 0
            || (self.old_mode != 0 && self.new_mode != 0 && self.old_mode != self.new_mode)
    }
}

/// Old and new names of a section read with another `-p` value.
pub type Names = (Option<Vec<u8>>, Option<Vec<u8>>);

/// What `parse_chunk` found.
pub enum Chunk<'a> {
    /// A section, the bytes it spans from the start of the search, and whether it is used.
    Section(usize, Patch<'a>, bool),
    /// No further section (git stops reading here, without an error of its own).
    End,
    /// A fatal error (git exits with 128); the message is in `Diag`.
    Fatal,
}

/// Decides whether a section is used: given the section (names read with git's `-p`) and its
/// names read with other `-p` values, returns true to use it (possibly adopting other names).
pub type Selector<'s> = dyn Fn(&mut Patch, &[Names]) -> bool + 's;

pub struct Parser<'a> {
    buf: &'a [u8],
    pub linenr: usize,
    p_value: usize,
    p_value_known: bool,
}

/// `strtoul(s, _, 10)` on a run of digits (saturating), with the number of digits.
fn parse_num(s: &[u8]) -> Option<(u64, usize)> {
    let digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let value = s[..digits].iter().fold(0u64, |v, &c| {
        v.saturating_mul(10).saturating_add(u64::from(c - b'0'))
    });
    Some((value, digits))
}

/// `N[,M]` followed by `expect`, starting at `offset` of `line`; returns the offset after it.
fn parse_range(line: &[u8], offset: usize, expect: &[u8]) -> Option<(usize, u64, u64)> {
    if offset >= line.len() {
        return None;
    }
    let (first, digits) = parse_num(&line[offset..])?;
    let mut at = offset + digits;
    let mut second = 1;
    if line.get(at) == Some(&b',') {
        let (n, digits) = parse_num(&line[at + 1..])?;
        second = n;
        at += digits + 1;
    }
    if !line[at..].starts_with(expect) {
        return None;
    }
    Some((at + expect.len(), first, second))
}

/// `@@ -a,b +c,d @@` (the line, newline included) → (a, b, c, d).
pub fn parse_fragment_header(line: &[u8]) -> Option<(u64, u64, u64, u64)> {
    if line.last() != Some(&b'\n') {
        return None;
    }
    let (at, oldpos, oldlines) = parse_range(line, 4, b" +")?;
    let (_, newpos, newlines) = parse_range(line, at, b" @@")?;
    Some((oldpos, oldlines, newpos, newlines))
}

/// `strtoul(s, &end, 8)` followed by whitespace, as git reads a mode.
fn parse_mode(s: &[u8]) -> Option<u32> {
    let mut i = s
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s[i..]
        .iter()
        .take_while(|c| (b'0'..=b'7').contains(*c))
        .count();
    if digits == 0 || !s.get(i + digits).is_some_and(|&c| ws::is_space(c)) {
        return None;
    }
    let value = s[i..i + digits].iter().fold(0u64, |v, &c| {
        v.saturating_mul(8).saturating_add(u64::from(c - b'0'))
    });
    let value = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    Some(value as u32)
}

/// A traditional `---`/`+++` pair read with `p` (creation and deletion from `/dev/null` or an
/// epoch timestamp); `None` when the name looked for is not found.
fn traditional_names<'a>(first: &[u8], second: &[u8], p: usize) -> Option<Patch<'a>> {
    let (is_new, is_delete, old_name, new_name) = if is_dev_null(first) {
        (1, 0, None, Some(find_name_traditional(second, None, p)?))
    } else if is_dev_null(second) {
        (0, 1, Some(find_name_traditional(first, None, p)?), None)
    } else {
        let first_name = find_name_traditional(first, None, p);
        let name = find_name_traditional(second, first_name.as_deref(), p)?;
        if has_epoch_timestamp(first) {
            (1, 0, None, Some(name))
        } else if has_epoch_timestamp(second) {
            (0, 1, Some(name), None)
        } else {
            (-1, -1, Some(name.clone()), Some(name))
        }
    };
    Some(Patch {
        is_new,
        is_delete,
        old_name,
        new_name,
        ..Patch::default()
    })
}

/// Renders bytes for a message.
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn name_or_null(name: &Option<Vec<u8>>) -> String {
    name.as_deref().map_or_else(|| "(null)".to_string(), text)
}

/// Reads a `diff --git` header starting at `pos` (a line of `len` bytes) with `-p` value `p`.
/// Returns the header's size in bytes; advances `linenr` as git does.
fn parse_git_diff_header<'a>(
    buf: &'a [u8],
    pos: usize,
    len: usize,
    p: usize,
    linenr: &mut usize,
    diag: &mut Diag,
) -> Result<(usize, Patch<'a>), ()> {
    let mut patch = Patch {
        is_new: 0,
        is_delete: 0,
        def_name: git_header_name(p, &buf[pos..pos + len]),
        ..Patch::default()
    };
    let mut at = pos + len;
    let mut offset = len;
    *linenr += 1;
    // git reports problems of header lines with the number of the line after `diff --git`.
    let hdr_linenr = *linenr;
    let side_p = p.saturating_sub(1);
    while at < buf.len() {
        let len = line_len(buf, at);
        if len == 0 || buf[at + len - 1] != b'\n' {
            break;
        }
        let rest = |op: &[u8]| &buf[at + op.len()..];
        let line = &buf[at..at + len];
        let mut done = false;
        if line.starts_with(b"@@ -") {
            done = true;
        } else if line.starts_with(b"--- ") {
            let isnull = patch.is_new != 0;
            verify_name(
                rest(b"--- "),
                isnull,
                &mut patch.old_name,
                "old",
                p,
                hdr_linenr,
                diag,
            )?;
        } else if line.starts_with(b"+++ ") {
            let isnull = patch.is_delete != 0;
            verify_name(
                rest(b"+++ "),
                isnull,
                &mut patch.new_name,
                "new",
                p,
                hdr_linenr,
                diag,
            )?;
        } else if line.starts_with(b"old mode ") {
            patch.old_mode = mode_line(rest(b"old mode "), hdr_linenr, diag)?;
        } else if line.starts_with(b"new mode ") {
            patch.new_mode = mode_line(rest(b"new mode "), hdr_linenr, diag)?;
        } else if line.starts_with(b"deleted file mode ") {
            patch.is_delete = 1;
            patch.old_name = patch.def_name.clone();
            patch.old_mode = mode_line(rest(b"deleted file mode "), hdr_linenr, diag)?;
        } else if line.starts_with(b"new file mode ") {
            patch.is_new = 1;
            patch.new_name = patch.def_name.clone();
            patch.new_mode = mode_line(rest(b"new file mode "), hdr_linenr, diag)?;
        } else if line.starts_with(b"copy from ") {
            patch.is_copy = true;
            patch.old_name = find_name(rest(b"copy from "), side_p, 0);
        } else if line.starts_with(b"copy to ") {
            patch.is_copy = true;
            patch.new_name = find_name(rest(b"copy to "), side_p, 0);
        } else if line.starts_with(b"rename old ") || line.starts_with(b"rename from ") {
            let op: &[u8] = if line.starts_with(b"rename old ") {
                b"rename old "
            } else {
                b"rename from "
            };
            patch.is_rename = true;
            patch.old_name = find_name(rest(op), side_p, 0);
        } else if line.starts_with(b"rename new ") || line.starts_with(b"rename to ") {
            let op: &[u8] = if line.starts_with(b"rename new ") {
                b"rename new "
            } else {
                b"rename to "
            };
            patch.is_rename = true;
            patch.new_name = find_name(rest(op), side_p, 0);
        } else if line.starts_with(b"similarity index ")
            || line.starts_with(b"dissimilarity index ")
        {
        } else if line.starts_with(b"index ") {
            index_line(rest(b"index "), &mut patch, hdr_linenr, diag)?;
        } else {
            done = true;
        }
        check_header_line(*linenr, &mut patch, diag)?;
        if done {
            break;
        }
        offset += len;
        at += len;
        *linenr += 1;
    }

    if patch.old_name.is_none() && patch.new_name.is_none() {
        let Some(def) = patch.def_name.clone() else {
            let plural = if p == 1 { "component" } else { "components" };
            diag.error(format!(
                "git diff header lacks filename information when removing {p} leading pathname {plural} (line {})",
                *linenr
            ));
            return Err(());
        };
        patch.old_name = Some(def.clone());
        patch.new_name = Some(def);
    }
    if (patch.new_name.is_none() && patch.is_delete == 0)
        || (patch.old_name.is_none() && patch.is_new == 0)
    {
        diag.error(format!(
            "git diff header lacks filename information (line {})",
            *linenr
        ));
        return Err(());
    }
    Ok((offset, patch))
}

/// A `---`/`+++` name of a `diff --git` header must agree with what the header said before.
fn verify_name(
    line: &[u8],
    isnull: bool,
    name: &mut Option<Vec<u8>>,
    side: &str,
    p: usize,
    linenr: usize,
    diag: &mut Diag,
) -> Result<(), ()> {
    match name {
        None if !isnull => {
            *name = find_name(line, p, TERM_TAB);
            Ok(())
        }
        Some(existing) => {
            if isnull {
                diag.error(format!(
                    "git apply: bad git-diff - expected /dev/null, got {} on line {linenr}",
                    text(existing)
                ));
                return Err(());
            }
            if find_name(line, p, TERM_TAB).as_deref() != Some(&existing[..]) {
                diag.error(format!(
                    "git apply: bad git-diff - inconsistent {side} filename on line {linenr}"
                ));
                return Err(());
            }
            Ok(())
        }
        None => {
            if !is_dev_null(line) {
                diag.error(format!(
                    "git apply: bad git-diff - expected /dev/null on line {linenr}"
                ));
                return Err(());
            }
            Ok(())
        }
    }
}

fn mode_line(rest: &[u8], linenr: usize, diag: &mut Diag) -> Result<u32, ()> {
    parse_mode(rest).ok_or_else(|| {
        // git prints the rest of the input from here (it is not cut at the line's end)
        diag.error(format!("invalid mode on line {linenr}: {}", text(rest)));
    })
}

/// `index <old>..<new>[ <mode>]`.
fn index_line(rest: &[u8], patch: &mut Patch, linenr: usize, diag: &mut Diag) -> Result<(), ()> {
    let Some(dot) = rest.iter().position(|&c| c == b'.') else {
        return Ok(());
    };
    if rest.get(dot + 1) != Some(&b'.') || dot > HEXSZ {
        return Ok(());
    }
    patch.old_oid_prefix = rest[..dot].to_vec();
    let line = &rest[dot + 2..];
    let eol = line.iter().position(|&c| c == b'\n').unwrap_or(line.len());
    let end = match line.iter().position(|&c| c == b' ') {
        Some(sp) if sp <= eol => sp,
        _ => eol,
    };
    if end > HEXSZ {
        return Ok(());
    }
    patch.new_oid_prefix = line[..end].to_vec();
    if line.get(end) == Some(&b' ') {
        patch.old_mode = mode_line(&line[end + 1..], linenr, diag)?;
    }
    Ok(())
}

fn check_header_line(linenr: usize, patch: &mut Patch, diag: &mut Diag) -> Result<(), ()> {
    let extensions = [
        patch.is_delete == 1,
        patch.is_new == 1,
        patch.is_rename,
        patch.is_copy,
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if extensions > 1 {
        diag.error(format!(
            "inconsistent header lines {} and {linenr}",
            patch.extension_linenr
        ));
        return Err(());
    }
    if extensions > 0 && patch.extension_linenr == 0 {
        patch.extension_linenr = linenr;
    }
    Ok(())
}

impl<'a> Parser<'a> {
    pub fn new(buf: &'a [u8]) -> Parser<'a> {
        Parser {
            buf,
            linenr: 1,
            p_value: 1,
            p_value_known: false,
        }
    }

    /// The next section from `start`: finds its header, asks `select` whether it is used,
    /// then reads its hunks.
    pub fn parse_chunk(&mut self, start: usize, diag: &mut Diag, select: &Selector) -> Chunk<'a> {
        let (offset, hdrsize, mut patch, alternatives) = match self.find_header(start, diag, select)
        {
            Ok(Some(found)) => found,
            Ok(None) => return Chunk::End,
            Err(()) => return Chunk::Fatal,
        };
        let used = select(&mut patch, &alternatives);
        patch.ws_rule = if used { ws::DEFAULT_RULE } else { 0 };
        let body = start + offset + hdrsize;
        let Ok(mut patchsize) = self.parse_single_patch(body, &mut patch, diag) else {
            return Chunk::Fatal;
        };
        if patchsize == 0 {
            let llen = line_len(self.buf, body);
            let line = &self.buf[body..body + llen];
            if line == b"GIT binary patch\n" {
                self.linenr += 1;
                match self.parse_binary(body + llen, diag) {
                    Ok(used_bytes) => {
                        patch.is_binary = true;
                        patchsize = used_bytes + llen;
                    }
                    Err(()) => return Chunk::End,
                }
            } else if line.ends_with(b" differ\n") {
                let size = self.buf.len() - body;
                for prefix in [&b"Binary files "[..], b"Files "] {
                    if prefix.len() < size && line.starts_with(prefix) {
                        self.linenr += 1;
                        patch.is_binary = true;
                        patchsize = llen;
                        break;
                    }
                }
            }
            if !patch.is_binary && !patch.metadata_changes() {
                diag.error(format!("patch with only garbage at line {}", self.linenr));
                return Chunk::Fatal;
            }
        }
        Chunk::Section(offset + hdrsize + patchsize, patch, used)
    }

    /// Finds the next file header: returns its offset from `start`, its size, the section and
    /// its names under the other `-p` values (0 and 1).
    #[allow(clippy::type_complexity)]
    fn find_header(
        &mut self,
        start: usize,
        diag: &mut Diag,
        select: &Selector,
    ) -> Result<Option<(usize, usize, Patch<'a>, Vec<Names>)>, ()> {
        let buf = self.buf;
        let mut at = start;
        while at < buf.len() {
            let size = buf.len() - at;
            let len = line_len(buf, at);
            let next = |parser: &mut Parser| parser.linenr += 1;
            if len < 6 {
                at += len;
                next(self);
                continue;
            }
            let line = &buf[at..at + len];
            if line.starts_with(b"@@ -") {
                if parse_fragment_header(line).is_none() {
                    at += len;
                    next(self);
                    continue;
                }
                diag.error(format!(
                    "patch fragment without header at line {}: {}",
                    self.linenr,
                    text(&line[..len - 1])
                ));
                return Err(());
            }
            if size < len + 6 {
                break;
            }
            if line.starts_with(b"diff --git ") {
                match self.git_header(at, len, diag, select)? {
                    Some((hdr_len, patch, alternatives)) if hdr_len > len => {
                        return Ok(Some((at - start, hdr_len, patch, alternatives)));
                    }
                    _ => {
                        at += len;
                        next(self);
                        continue;
                    }
                }
            }
            if !line.starts_with(b"--- ") || !starts(buf, at + len, b"+++ ") {
                at += len;
                next(self);
                continue;
            }
            let nextlen = line_len(buf, at + len);
            if size < nextlen + 14 || !starts(buf, at + len + nextlen, b"@@ -") {
                at += len;
                next(self);
                continue;
            }
            let first = &buf[at + 4..];
            let second = &buf[at + len + 4..];
            if !self.p_value_known {
                let q = guess_p_value(second);
                let p = guess_p_value(first).or(q);
                if p.is_some() && p == q {
                    self.p_value = p.unwrap_or(1);
                    self.p_value_known = true;
                }
            }
            // When git's -p value finds no name (e.g. `--- a.txt` with -p1), another value may.
            let mut readings: Vec<Patch> = [self.p_value, 0, 1]
                .into_iter()
                .filter_map(|p| traditional_names(first, second, p))
                .collect();
            if readings.is_empty() {
                diag.error(format!(
                    "unable to find filename in patch at line {}",
                    self.linenr
                ));
                return Err(());
            }
            let chosen = readings
                .iter_mut()
                .position(|r| select(r, &[]))
                .unwrap_or(0);
            let patch = readings.swap_remove(chosen);
            let alternatives = [0, 1]
                .into_iter()
                .filter(|&p| p != self.p_value)
                .map(|p| match traditional_names(first, second, p) {
                    Some(reading) => (reading.old_name, reading.new_name),
                    None => (None, None),
                })
                .collect();
            self.linenr += 2;
            return Ok(Some((at - start, len + nextlen, patch, alternatives)));
        }
        Ok(None)
    }

    /// A `diff --git` header read with git's `-p` value, plus its names under the other values.
    /// When git's reading finds no file name (e.g. `diff --git a.txt a.txt` has no prefix to
    /// strip), another `-p` value that reads the header is used instead, preferably one naming
    /// the target. Other header errors are git's.
    #[allow(clippy::type_complexity)]
    fn git_header(
        &mut self,
        at: usize,
        len: usize,
        diag: &mut Diag,
        select: &Selector,
    ) -> Result<Option<(usize, Patch<'a>, Vec<Names>)>, ()> {
        let others: Vec<usize> = [0, 1].into_iter().filter(|&p| p != self.p_value).collect();
        let read = |p: usize, linenr: &mut usize, diag: &mut Diag| {
            parse_git_diff_header(self.buf, at, len, p, linenr, diag)
        };
        let mut linenr = self.linenr;
        let mut messages = Diag::default();
        match read(self.p_value, &mut linenr, &mut messages) {
            Ok((hdr_len, patch)) => {
                self.linenr = linenr;
                diag.raw(String::from_utf8_lossy(&messages.out));
                let alternatives = others
                    .iter()
                    .filter_map(|&p| read(p, &mut 0, &mut Diag::default()).ok())
                    .map(|(_, alt)| (alt.old_name, alt.new_name))
                    .collect();
                Ok(Some((hdr_len, patch, alternatives)))
            }
            Err(())
                if !String::from_utf8_lossy(&messages.out)
                    .contains("lacks filename information") =>
            {
                self.linenr = linenr;
                diag.raw(String::from_utf8_lossy(&messages.out));
                Err(())
            }
            Err(()) => {
                let mut readable = Vec::new();
                let mut failures = vec![(linenr, messages)];
                for &p in &others {
                    let mut alt_linenr = self.linenr;
                    let mut alt_messages = Diag::default();
                    match read(p, &mut alt_linenr, &mut alt_messages) {
                        Ok((hdr_len, mut alt)) => {
                            let names_target = select(&mut alt, &[]);
                            readable.push((names_target, alt_linenr, hdr_len, alt));
                        }
                        Err(()) => failures.push((alt_linenr, alt_messages)),
                    }
                }
                readable.sort_by_key(|r| !r.0);
                if let Some((_, alt_linenr, hdr_len, alt)) = readable.into_iter().next() {
                    self.linenr = alt_linenr;
                    return Ok(Some((hdr_len, alt, Vec::new())));
                }
                // Report a problem of the header itself rather than of the prefix stripping.
                let about_prefix = |d: &Diag| {
                    String::from_utf8_lossy(&d.out).contains("leading pathname component")
                };
                let chosen = failures
                    .iter()
                    .position(|(_, d)| !about_prefix(d))
                    .unwrap_or(0);
                let (failed_linenr, failed) = failures.swap_remove(chosen);
                self.linenr = failed_linenr;
                diag.raw(String::from_utf8_lossy(&failed.out));
                Err(())
            }
        }
    }

    /// Reads the hunks of a section starting at `at`; returns their size in bytes.
    fn parse_single_patch(
        &mut self,
        mut at: usize,
        patch: &mut Patch<'a>,
        diag: &mut Diag,
    ) -> Result<usize, ()> {
        let (mut offset, mut oldlines, mut newlines, mut context) = (0usize, 0u64, 0u64, 0u64);
        while self.buf.len() - at > 4 && starts(self.buf, at, b"@@ -") {
            let linenr = self.linenr;
            match self.parse_fragment(at, patch, diag) {
                Some((len, h)) if len > 0 => {
                    oldlines = oldlines.wrapping_add(h.0);
                    newlines = newlines.wrapping_add(h.1);
                    context += h.2.leading + h.2.trailing;
                    patch.hunks.push(Hunk {
                        text: &self.buf[at..at + len],
                        linenr,
                        ..h.2
                    });
                    offset += len;
                    at += len;
                }
                _ => {
                    diag.error(format!("corrupt patch at line {}", self.linenr));
                    return Err(());
                }
            }
        }
        if patch.is_new < 0 && (oldlines > 0 || patch.hunks.len() > 1) {
            patch.is_new = 0;
        }
        if patch.is_delete < 0 && (newlines > 0 || patch.hunks.len() > 1) {
            patch.is_delete = 0;
        }
        if patch.is_new > 0 && oldlines > 0 {
            diag.error(format!(
                "new file {} depends on old contents",
                name_or_null(&patch.new_name)
            ));
            return Err(());
        }
        if patch.is_delete > 0 && newlines > 0 {
            diag.error(format!(
                "deleted file {} still has contents",
                name_or_null(&patch.old_name)
            ));
            return Err(());
        }
        if patch.is_delete == 0 && newlines == 0 && context > 0 {
            diag.raw(format!(
                "** warning: file {} becomes empty but is not deleted\n",
                name_or_null(&patch.new_name)
            ));
        }
        Ok(offset)
    }

    /// One hunk at `at`: its size, its old and new line counts and its positions.
    fn parse_fragment(
        &mut self,
        at: usize,
        patch: &mut Patch,
        diag: &mut Diag,
    ) -> Option<(usize, (u64, u64, Hunk<'a>))> {
        let buf = self.buf;
        let len = line_len(buf, at);
        let (oldpos, old_count, newpos, new_count) = parse_fragment_header(&buf[at..at + len])?;
        let (mut oldlines, mut newlines) = (old_count, new_count);
        let (mut leading, mut trailing, mut added, mut deleted) = (0u64, 0u64, 0u64, 0u64);
        let mut line = at + len;
        let mut offset = len;
        self.linenr += 1;
        while line < buf.len() {
            if oldlines == 0 && newlines == 0 {
                break;
            }
            let len = line_len(buf, line);
            if len == 0 || buf[line + len - 1] != b'\n' {
                return None;
            }
            match buf[line] {
                b'\n' | b' ' => {
                    oldlines = oldlines.wrapping_sub(1);
                    newlines = newlines.wrapping_sub(1);
                    if deleted == 0 && added == 0 {
                        leading += 1;
                    }
                    trailing += 1;
                    check_old_for_crlf(patch, &buf[line..line + len]);
                    self.check_whitespace(&buf[line..line + len], patch.ws_rule, diag);
                }
                b'-' => {
                    check_old_for_crlf(patch, &buf[line..line + len]);
                    deleted += 1;
                    oldlines = oldlines.wrapping_sub(1);
                    trailing = 0;
                }
                b'+' => {
                    self.check_whitespace(&buf[line..line + len], patch.ws_rule, diag);
                    added += 1;
                    newlines = newlines.wrapping_sub(1);
                    trailing = 0;
                }
                b'\\' => {
                    if len < 12 || !buf[line..].starts_with(b"\\ ") {
                        return None;
                    }
                }
                _ => return None,
            }
            offset += len;
            line += len;
            self.linenr += 1;
        }
        if oldlines != 0 || newlines != 0 || (deleted == 0 && added == 0) {
            return None;
        }
        // A hunk ending in an incomplete line: its "\ No newline" marker belongs to it.
        if buf.len() - line > 12 && starts(buf, line, b"\\ ") {
            offset += line_len(buf, line);
        }
        let hunk = Hunk {
            oldpos,
            newpos,
            leading,
            trailing,
            ..Hunk::default()
        };
        Some((offset, (old_count, new_count, hunk)))
    }

    fn check_whitespace(&self, line: &[u8], rule: u32, diag: &mut Diag) {
        let bits = ws::check(&line[1..], rule);
        if bits != 0 {
            diag.record_ws_error(bits, &line[1..line.len() - 1], self.linenr);
        }
    }

    /// A `GIT binary patch` body: a forward hunk and an optional reverse hunk, each a
    /// `literal N`/`delta N` line, base85 lines and a blank line. The lines' shape is checked
    /// (not the compressed data).
    fn parse_binary(&mut self, at: usize, diag: &mut Diag) -> Result<usize, ()> {
        let Some(used) = self.parse_binary_hunk(at, diag)? else {
            diag.error(format!(
                "unrecognized binary patch at line {}",
                self.linenr - 1
            ));
            return Err(());
        };
        Ok(used + self.parse_binary_hunk(at + used, diag)?.unwrap_or(0))
    }

    fn parse_binary_hunk(&mut self, mut at: usize, diag: &mut Diag) -> Result<Option<usize>, ()> {
        let buf = self.buf;
        let first = line_len(buf, at);
        if !starts(buf, at, b"delta ") && !starts(buf, at, b"literal ") {
            return Ok(None);
        }
        let mut used = first;
        self.linenr += 1;
        at += first;
        loop {
            let llen = line_len(buf, at);
            used += llen;
            self.linenr += 1;
            if llen == 1 {
                return Ok(Some(used));
            }
            let max_byte_length = llen.saturating_sub(2) / 5 * 4;
            let byte_length = match buf.get(at) {
                Some(c @ b'A'..=b'Z') => usize::from(c - b'A') + 1,
                Some(c @ b'a'..=b'z') => usize::from(c - b'a') + 27,
                _ => 0,
            };
            let corrupt = llen < 7
                || !(llen - 2).is_multiple_of(5)
                || byte_length == 0
                || max_byte_length < byte_length
                || byte_length + 4 <= max_byte_length;
            if corrupt {
                let shown = &buf[at..at + llen.saturating_sub(1)];
                diag.error(format!(
                    "corrupt binary patch at line {}: {}",
                    self.linenr - 1,
                    text(shown)
                ));
                return Err(());
            }
            at += llen;
        }
    }
}

/// A context or removed line with CRLF makes CR at end of line acceptable for this section.
fn check_old_for_crlf(patch: &mut Patch, line: &[u8]) {
    if line.ends_with(b"\r\n") {
        patch.ws_rule |= ws::CR_AT_EOL;
    }
}

/// True when the two modes have different file types.
pub fn type_differs(a: u32, b: u32) -> bool {
    (a ^ b) & S_IFMT != 0
}
