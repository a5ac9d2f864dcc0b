//! edit_file (docs/tools/edit_file.md), an opt-in tool: search/replace in one text file.
//!
//! `old_string` is looked for in stages, each used only when the stricter ones found nothing:
//! exact; line endings ignored; trailing whitespace ignored (whole lines); indentation ignored
//! (whole lines, tabs vs spaces and a uniform shift or scale of the indentation). A stage that
//! finds more than one place, overlapping places counted (`"aa"` is twice in `"aaa"`), fails
//! with `AMBIGUOUS` unless `replace_all`, which replaces the non-overlapping places from the
//! first on; no stage finding anything fails with `NOT_FOUND` and the closest region. The new
//! content keeps the file's line endings, byte order mark, final newline and permissions, and
//! replaces it atomically.

use std::fs;
use std::ops::Range;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::args::{boolean, non_blank_string, string};
use super::input::{tool_input, ToolInput};
use super::{nul_path_message, read_sized, to_json, workspace_root};
use crate::atomic_write::{open_parent, replace_atomically};
use crate::context::RunContext;
use crate::error::{is_not_found, node_io_message, ErrorClass, ErrorCode, ToolError};
use crate::paths::workspace_relative;
use crate::sandbox::real_path;
use crate::value::ArgValue;

pub const ERROR_CLASS: ErrorClass = ErrorClass("EditFileError");
/// The largest file edit_file reads.
pub const SIZE_LIMIT: u64 = 10 * 1024 * 1024;
/// Columns a tab stands for when indentations are compared.
const TAB_WIDTH: usize = 4;
/// Context lines around each change in the diff.
const DIFF_CONTEXT: usize = 3;

// edit_file's input: `edit_file(path, options)`.
#[tool_input(
    name = "edit_file",
    description = "Replaces a unique string in a text file of the workspace (search/replace), tolerant of line endings, trailing whitespace and indentation.",
    effect = Write,
    class = ERROR_CLASS,
    output = EditFileOutput,
    handler = Worker(run),
    opt_in,
    shape = PathAndOptions,
    then = EditFileInput::changes_something
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct EditFileInput {
    #[arg(check = non_blank_string, review)]
    #[schemars(
        description = "Workspace-root-relative path of the file to edit (e.g., \"src/main.ts\")."
    )]
    pub path: String,
    #[arg(flatten, object = plain)]
    pub options: EditFileOptions,
}

// edit_file's `options`, defaults applied.
#[tool_input]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct EditFileOptions {
    #[arg(check = string, review)]
    #[schemars(description = "The text to replace, copied from the file (not empty).")]
    pub old_string: String,
    #[arg(check = string, review)]
    #[schemars(description = "The text to put in its place (must differ from old_string).")]
    pub new_string: String,
    #[arg(check = boolean, default = false)]
    #[schemars(
        description = "Replace every occurrence instead of requiring a unique match (default: false)."
    )]
    pub replace_all: bool,
    #[arg(check = boolean, default = false)]
    #[schemars(description = "Return the diff without writing the file (default: false).")]
    pub dry_run: bool,
}

impl EditFileInput {
    /// After the fields: an edit that changes something.
    fn changes_something(&self) -> Result<(), ToolError> {
        let EditFileOptions {
            old_string: old,
            new_string: new,
            ..
        } = &self.options;
        if old.is_empty() {
            return Err(ERROR_CLASS
                .invalid("old_string must not be empty (use write_file to create a file)"));
        }
        if old == new {
            return Err(
                ERROR_CLASS.invalid("new_string is the same as old_string: nothing to change")
            );
        }
        Ok(())
    }
}

/// The stage that found `old_string`.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(feature = "typegen", ts(rename_all = "snake_case"))]
pub enum MatchStage {
    Exact,
    LineEndings,
    TrailingWhitespace,
    Indentation,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct EditFileOutput {
    pub path: String,
    pub stage: MatchStage,
    // how many places were replaced
    pub replacements: u64,
    // the 1-based line of each replaced place in the file as it was
    pub lines: Vec<u64>,
    // true when nothing was written (`dry_run`)
    pub dry_run: bool,
    // a unified diff of the change
    pub diff: String,
    /// With `syntaxCheck: "report"`: the syntax errors the change added (empty when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub diagnostics: Option<Vec<crate::syntax_check::Diagnostic>>,
}

/// Why an edit could not be planned.
#[derive(Debug, Clone, PartialEq)]
pub enum EditFailure {
    /// `old_string` found nowhere; the closest region as text.
    NotFound(String),
    /// More than one place at `stage`: their 1-based lines.
    Ambiguous(MatchStage, Vec<usize>),
}

/// A planned edit of a text (without its byte order mark).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub stage: MatchStage,
    /// The new text.
    pub text: String,
    /// The 1-based first line of each replaced place.
    pub lines: Vec<usize>,
    /// Byte ranges replaced in the old text, with their replacements, in order.
    pub edits: Vec<(Range<usize>, String)>,
}

/// One line of a text: its byte range without the line ending, and the end after it.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    /// End of the content, before `\r\n` or `\n`.
    content_end: usize,
    /// End including the line ending.
    end: usize,
}

fn split_lines(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        let content_end = if nl > start && bytes[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        lines.push(Line {
            start,
            content_end,
            end: nl + 1,
        });
        start = nl + 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            content_end: bytes.len(),
            end: bytes.len(),
        });
    }
    lines
}

/// The line ending most lines of `text` use (`\n` when it has none).
fn dominant_eol(text: &str) -> &'static str {
    let crlf = text.matches("\r\n").count();
    let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    if crlf * 2 > lf {
        "\r\n"
    } else {
        "\n"
    }
}

/// `s` with every line ending made `eol`.
fn with_eol(s: &str, eol: &str) -> String {
    let lf = s.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

/// The 1-based line of each of `offsets` (ascending byte offsets) in `text`, in one pass.
fn lines_of(text: &str, offsets: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let bytes = text.as_bytes();
    let (mut line, mut at) = (1, 0);
    offsets
        .into_iter()
        .map(|offset| {
            line += memchr::memchr_iter(b'\n', &bytes[at..offset]).count();
            at = offset;
            line
        })
        .collect()
}

/// Leading whitespace of `s` and its width in columns (a tab advances to the next tab stop).
fn indentation(s: &str) -> (&str, usize) {
    let len = s.len() - s.trim_start_matches([' ', '\t']).len();
    let ws = &s[..len];
    let mut cols = 0;
    for c in ws.chars() {
        cols = if c == '\t' {
            (cols / TAB_WIDTH + 1) * TAB_WIDTH
        } else {
            cols + 1
        };
    }
    (ws, cols)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// How the indentation of the file's lines relates to `old_string`'s: file columns =
/// `file_base + (old columns - old_base) * num / den`.
#[derive(Debug, Clone, Copy)]
struct Reindent {
    file_base: usize,
    old_base: usize,
    num: usize,
    den: usize,
    tabs: bool,
}

impl Reindent {
    /// The indentation of `old` lines against `file` lines, when the two agree up to a uniform
    /// shift and scale (tabs vs spaces included); `None` when they do not. When the matched
    /// lines all have one indentation, the scale is the ratio of the file's indentation unit
    /// (`file_unit`) to the one `old_string` and `new_string` use (`model`: their lines).
    fn fit(file: &[&str], old: &[&str], file_unit: usize, model: &[&str]) -> Option<Reindent> {
        let pairs: Vec<(usize, usize)> = file
            .iter()
            .zip(old)
            .filter(|(f, _)| !f.trim().is_empty())
            .map(|(f, o)| (indentation(f).1, indentation(o).1))
            .collect();
        let file_base = pairs.iter().map(|p| p.0).min().unwrap_or(0);
        let old_base = pairs.iter().map(|p| p.1).min().unwrap_or(0);
        let mut ratio: Option<(usize, usize)> = None;
        for &(f, o) in &pairs {
            let (rf, ro) = (f - file_base, o - old_base);
            match (rf, ro, ratio) {
                (0, 0, _) => {}
                (0, _, _) | (_, 0, _) => return None,
                (_, _, None) => {
                    let g = gcd(rf, ro);
                    ratio = Some((rf / g, ro / g));
                }
                (_, _, Some((num, den))) => {
                    if rf * den != ro * num {
                        return None;
                    }
                }
            }
        }
        let (num, den) = ratio.unwrap_or_else(|| {
            let model_unit = indent_unit(model.iter().copied());
            match (file_unit, model_unit) {
                (f, m) if f >= 2 && m >= 2 => (f / gcd(f, m), m / gcd(f, m)),
                _ => (1, 1),
            }
        });
        let tabs = file
            .iter()
            .any(|f| !f.trim().is_empty() && f.starts_with('\t'));
        Some(Reindent {
            file_base,
            old_base,
            num,
            den,
            tabs,
        })
    }

    /// `line` of `new_string` indented for the file.
    fn apply(&self, line: &str) -> String {
        if line.trim().is_empty() {
            return String::new();
        }
        let (_, cols) = indentation(line);
        let target = if cols >= self.old_base {
            self.file_base + (cols - self.old_base) * self.num / self.den
        } else {
            self.file_base
                .saturating_sub((self.old_base - cols) * self.num / self.den)
        };
        let ws = if self.tabs {
            format!(
                "{}{}",
                "\t".repeat(target / TAB_WIDTH),
                " ".repeat(target % TAB_WIDTH)
            )
        } else {
            " ".repeat(target)
        };
        format!("{ws}{}", line.trim_start_matches([' ', '\t']))
    }
}

/// The indentation unit of some lines, in columns: the greatest common divisor of their
/// non-zero indentations (a tab counts `TAB_WIDTH`); 0 when none is indented.
fn indent_unit<'a>(lines: impl Iterator<Item = &'a str>) -> usize {
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| indentation(l).1)
        .filter(|&cols| cols > 0)
        .fold(0, gcd)
}

/// Non-overlapping occurrences of `needle` in `hay`, leftmost first: the places `replace_all`
/// replaces.
fn occurrences(hay: &str, needle: &str) -> Vec<usize> {
    hay.match_indices(needle).map(|(at, _)| at).collect()
}

/// Every occurrence of `needle` in `hay`, overlapping ones included (`"aa"` is twice in
/// `"aaa"`): the places that make a match ambiguous. Knuth–Morris–Pratt, linear in both.
fn overlapping_occurrences(hay: &str, needle: &str) -> Vec<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    // border[i]: the length of the longest proper prefix of needle[..=i] that also ends it
    let mut border = vec![0usize; needle.len()];
    let mut k = 0;
    for i in 1..needle.len() {
        while k > 0 && needle[i] != needle[k] {
            k = border[k - 1];
        }
        if needle[i] == needle[k] {
            k += 1;
        }
        border[i] = k;
    }
    let mut found = Vec::new();
    let mut q = 0;
    for (i, &b) in hay.iter().enumerate() {
        while q > 0 && b != needle[q] {
            q = border[q - 1];
        }
        if b == needle[q] {
            q += 1;
        }
        if q == needle.len() {
            found.push(i + 1 - needle.len());
            q = border[q - 1];
        }
    }
    found
}

/// Plans replacing `old` by `new` in `text` (a file's text without its byte order mark).
pub fn plan(text: &str, old: &str, new: &str, replace_all: bool) -> Result<Plan, EditFailure> {
    let eol = dominant_eol(text);
    let new_text = with_eol(new, eol);
    // `places`: the start of every match, overlapping ones included (ascending); `edits`: the
    // non-overlapping ones, leftmost first, that replace_all replaces
    let finish = |stage,
                  places: Vec<usize>,
                  edits: Vec<(Range<usize>, String)>|
     -> Result<Plan, EditFailure> {
        if places.len() > 1 && !replace_all {
            return Err(EditFailure::Ambiguous(stage, lines_of(text, places)));
        }
        let lines = lines_of(text, edits.iter().map(|(r, _)| r.start));
        let mut out = String::with_capacity(text.len() + new.len());
        let mut at = 0;
        for (range, replacement) in &edits {
            out.push_str(&text[at..range.start]);
            out.push_str(replacement);
            at = range.end;
        }
        out.push_str(&text[at..]);
        Ok(Plan {
            stage,
            text: out,
            lines,
            edits,
        })
    };

    // 1. exact
    let found = occurrences(text, old);
    if !found.is_empty() {
        let places = if replace_all {
            found.clone()
        } else {
            overlapping_occurrences(text, old)
        };
        let edits = found
            .into_iter()
            .map(|at| (at..at + old.len(), new_text.clone()))
            .collect();
        return finish(MatchStage::Exact, places, edits);
    }

    // 2. line endings ignored: the text with `\r\n` read as `\n`, matched back to its bytes
    let old_lf = old.replace("\r\n", "\n");
    if text.contains('\r') || old_lf.len() != old.len() {
        let mut lf = String::with_capacity(text.len());
        // positions (in `lf`) of the `\n`s that had a `\r` before them
        let mut crs: Vec<usize> = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find("\r\n") {
            lf.push_str(&rest[..at]);
            crs.push(lf.len());
            lf.push('\n');
            rest = &rest[at + 2..];
        }
        lf.push_str(rest);
        let to_text = |n: usize| n + crs.partition_point(|&q| q < n);
        let found = occurrences(&lf, &old_lf);
        if !found.is_empty() {
            let places = if replace_all {
                Vec::new()
            } else {
                overlapping_occurrences(&lf, &old_lf)
                    .into_iter()
                    .map(to_text)
                    .collect()
            };
            let edits = found
                .into_iter()
                .map(|at| {
                    let range = to_text(at)..to_text(at + old_lf.len());
                    // the place's own line ending, for a file that mixes them
                    let eol_here = match text[range.clone()].find('\n') {
                        Some(nl) if nl > 0 && text.as_bytes()[range.start + nl - 1] == b'\r' => {
                            "\r\n"
                        }
                        Some(_) => "\n",
                        None => eol,
                    };
                    (range, with_eol(new, eol_here))
                })
                .collect();
            return finish(MatchStage::LineEndings, places, edits);
        }
    }

    // 3 and 4: whole lines
    let lines = split_lines(text);
    let mut old_lines: Vec<&str> = old_lf.split('\n').collect();
    let old_ends_with_newline = old_lf.ends_with('\n');
    if old_ends_with_newline {
        old_lines.pop();
    }
    let mut new_lf = new.replace("\r\n", "\n");
    if old_ends_with_newline && new_lf.ends_with('\n') {
        new_lf.pop();
    }
    let new_lines: Vec<&str> = if new_lf.is_empty() && old_ends_with_newline {
        Vec::new()
    } else {
        new_lf.split('\n').collect()
    };
    let content = |l: &Line| &text[l.start..l.content_end];
    let k = old_lines.len();
    // the file's indentation unit (bounded work: the first 10 000 lines), and the lines of the
    // model's strings, for re-indenting when a match alone does not tell the scale
    let file_unit = indent_unit(lines.iter().take(10_000).map(content));
    let model_lines: Vec<&str> = old_lines.iter().chain(new_lines.iter()).copied().collect();
    // whitespace-only old_string: no tolerant matching (it would match any blank region)
    if k > 0 && k <= lines.len() && old_lines.iter().any(|l| !l.trim().is_empty()) {
        for stage in [MatchStage::TrailingWhitespace, MatchStage::Indentation] {
            let mut edits = Vec::new();
            // every matching window, overlapping ones included; edits only for those after the
            // last edited one
            let mut places = Vec::new();
            let mut free_from = 0;
            let mut s = 0;
            while s + k <= lines.len() {
                let window: Vec<&str> = lines[s..s + k].iter().map(content).collect();
                let reindent = match stage {
                    MatchStage::TrailingWhitespace => window
                        .iter()
                        .zip(&old_lines)
                        .all(|(f, o)| f.trim_end() == o.trim_end())
                        .then_some(None),
                    _ => window
                        .iter()
                        .zip(&old_lines)
                        .all(|(f, o)| f.trim() == o.trim())
                        .then(|| Reindent::fit(&window, &old_lines, file_unit, &model_lines))
                        .flatten()
                        .map(Some),
                };
                let Some(reindent) = reindent else {
                    s += 1;
                    continue;
                };
                places.push(lines[s].start);
                if s < free_from {
                    s += 1;
                    continue;
                }
                let first = lines[s];
                let last = lines[s + k - 1];
                let eol_here = if text[first.content_end..first.end].starts_with('\r') {
                    "\r\n"
                } else if first.end > first.content_end {
                    "\n"
                } else {
                    eol
                };
                let rendered: Vec<String> = new_lines
                    .iter()
                    .map(|l| match &reindent {
                        Some(r) => r.apply(l),
                        None => l.to_string(),
                    })
                    .collect();
                // a deletion of whole lines takes their line endings too
                let range = if rendered.is_empty() {
                    first.start..last.end
                } else {
                    first.start..last.content_end
                };
                edits.push((range, rendered.join(eol_here)));
                free_from = s + k;
                s += 1;
            }
            if !edits.is_empty() {
                return finish(stage, places, edits);
            }
        }
    }
    Err(EditFailure::NotFound(closest_region(
        text, &lines, &old_lines,
    )))
}

/// Where `old_lines` comes closest to the text: its lines and the first difference.
fn closest_region(text: &str, lines: &[Line], old_lines: &[&str]) -> String {
    let content = |i: usize| &text[lines[i].start..lines[i].content_end];
    let k = old_lines.len().max(1);
    if lines.is_empty() {
        return "the file is empty".to_string();
    }
    // similarity of two lines: the characters they share at both ends, once trimmed
    let similarity = |a: &str, b: &str| -> usize {
        let (a, b) = (a.trim(), b.trim());
        if a == b {
            return 2 * a.len() + 2;
        }
        let prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        let suffix = a
            .bytes()
            .rev()
            .zip(b.bytes().rev())
            .take_while(|(x, y)| x == y)
            .count();
        (prefix + suffix).min(a.len().min(b.len()))
    };
    // bounded work: on very large inputs only the first line is compared
    let full = lines.len().saturating_mul(k) <= 4_000_000;
    let mut best = (0usize, 0usize);
    for s in 0..lines.len().saturating_sub(k - 1).max(1) {
        let score: usize = old_lines
            .iter()
            .take(if full { k } else { 1 })
            .enumerate()
            .filter(|(i, _)| s + i < lines.len())
            .map(|(i, o)| similarity(content(s + i), o))
            .sum();
        if score > best.0 {
            best = (score, s);
        }
    }
    let (score, s) = best;
    if score == 0 {
        return "no line of the file resembles old_string".to_string();
    }
    let end = (s + k).min(lines.len());
    let mut out = format!("closest region: lines {}-{}", s + 1, end);
    for (i, o) in old_lines.iter().enumerate() {
        if s + i >= lines.len() {
            break;
        }
        let f = content(s + i);
        if f != *o {
            out.push_str(&format!("; line {}: {}", s + i + 1, char_difference(o, f)));
            break;
        }
    }
    out
}

/// A short character-level difference of an expected and a found line.
fn char_difference(expected: &str, found: &str) -> String {
    let e: Vec<char> = expected.chars().collect();
    let f: Vec<char> = found.chars().collect();
    let at = e.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let excerpt = |chars: &[char]| -> String {
        let from = at.saturating_sub(20);
        let to = (at + 40).min(chars.len());
        let mut s: String = chars[from.min(to)..to].iter().collect();
        if from > 0 {
            s.insert(0, '…');
        }
        if to < chars.len() {
            s.push('…');
        }
        format!("{s:?}")
    };
    format!(
        "expected {} but found {} (first difference at column {})",
        excerpt(&e),
        excerpt(&f),
        at + 1
    )
}

/// A unified diff of `old` to `new` (texts without byte order mark) for the planned `edits`.
pub fn unified_diff(path: &str, old: &str, new: &str, edits: &[(Range<usize>, String)]) -> String {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let line_index = |lines: &[Line], offset: usize| lines.partition_point(|l| l.end <= offset);
    // each edit as (old line span, new line span)
    let mut spans: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut shift: isize = 0;
    for (range, replacement) in edits {
        let o_start = line_index(&old_lines, range.start);
        let o_end = if range.end > range.start {
            line_index(&old_lines, range.end - 1) + 1
        } else {
            o_start + 1
        }
        .min(old_lines.len());
        let new_start_byte = (range.start as isize + shift) as usize;
        let new_end_byte = new_start_byte + replacement.len();
        let n_start = line_index(&new_lines, new_start_byte);
        // the tail of the old span's last line, after the edit, ends the new span
        let tail = old_lines
            .get(o_end.saturating_sub(1))
            .map_or(0, |l| l.end.saturating_sub(range.end));
        let n_end = if new_end_byte + tail > new_start_byte {
            line_index(&new_lines, new_end_byte + tail - 1) + 1
        } else {
            n_start
        }
        .min(new_lines.len());
        shift += replacement.len() as isize - range.len() as isize;
        let (o, n) = (o_start..o_end.max(o_start), n_start..n_end.max(n_start));
        // edits that share a line (replace_all on one line) are one change of those lines
        match spans.last_mut() {
            Some((po, pn)) if o.start < po.end || (o.start == po.end && o.is_empty()) => {
                po.end = po.end.max(o.end);
                pn.end = pn.end.max(n.end);
            }
            _ => spans.push((o, n)),
        }
    }
    let show = |text: &str, l: &Line| -> String {
        let mut s = text[l.start..l.content_end].to_string();
        if l.end == l.content_end {
            s.push_str("\n\\ No newline at end of file");
        }
        s
    };
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let mut i = 0;
    while i < spans.len() {
        // spans whose context overlaps form one hunk
        let mut j = i;
        while j + 1 < spans.len() && spans[j + 1].0.start <= spans[j].0.end + 2 * DIFF_CONTEXT {
            j += 1;
        }
        let o_from = spans[i].0.start.saturating_sub(DIFF_CONTEXT);
        let n_from = spans[i].1.start.saturating_sub(spans[i].0.start - o_from);
        let o_to = (spans[j].0.end + DIFF_CONTEXT).min(old_lines.len());
        let n_to = (spans[j].1.end + (o_to - spans[j].0.end)).min(new_lines.len());
        let count = |from: usize, to: usize| {
            if to - from == 1 {
                format!("{}", from + 1)
            } else {
                format!("{},{}", if to == from { from } else { from + 1 }, to - from)
            }
        };
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            count(o_from, o_to),
            count(n_from, n_to)
        ));
        let mut o = o_from;
        for (os, ns) in &spans[i..=j] {
            for l in &old_lines[o..os.start] {
                out.push_str(&format!(" {}\n", show(old, l)));
            }
            for l in &old_lines[os.clone()] {
                out.push_str(&format!("-{}\n", show(old, l)));
            }
            for l in &new_lines[ns.clone()] {
                out.push_str(&format!("+{}\n", show(new, l)));
            }
            o = os.end;
        }
        for l in &old_lines[o..o_to] {
            out.push_str(&format!(" {}\n", show(old, l)));
        }
        i = j + 1;
    }
    out
}

/// `edit_file(path, { old_string, new_string, replace_all?, dry_run? })`.
/// The handler: parses its arguments, then `edit`s.
pub fn run(rc: &RunContext, args: &[ArgValue]) -> Result<String, ToolError> {
    edit(rc, EditFileInput::from_args(args, rc.ctx)?)
}

pub fn edit(rc: &RunContext, input: EditFileInput) -> Result<String, ToolError> {
    let EditFileInput { path, options } = input;
    let EditFileOptions {
        old_string,
        new_string,
        replace_all,
        dry_run,
    } = options;
    let (path, old, new) = (path.as_str(), old_string.as_str(), new_string.as_str());
    let root = workspace_root(rc, ERROR_CLASS)?;
    if path.contains('\0') {
        return Err(ERROR_CLASS.internal(nul_path_message(path)));
    }

    // the real file (through a final symlink, as write_file writes), opened and checked by its
    // descriptor, so what is read is what was checked
    let target = real_path(Path::new(path)).map_err(|e| {
        if is_not_found(&e) {
            ERROR_CLASS.coded(ErrorCode::NotFound, format!("path not found: {path}"))
        } else {
            ERROR_CLASS.internal(node_io_message(&e, "open", path))
        }
    })?;
    let mut file = crate::sys::with_flags(
        fs::OpenOptions::new().read(true),
        crate::sys::fs::OFlags::NOFOLLOW | crate::sys::fs::OFlags::NONBLOCK,
    )
    .open(&target)
    .map_err(|e| {
        if is_not_found(&e) {
            ERROR_CLASS.coded(ErrorCode::NotFound, format!("path not found: {path}"))
        } else {
            ERROR_CLASS.internal(node_io_message(&e, "open", path))
        }
    })?;
    let meta = file
        .metadata()
        .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "fstat", path)))?;
    if !meta.file_type().is_file() {
        return Err(ERROR_CLASS.coded(ErrorCode::NotFile, format!("path is not a file: {path}")));
    }
    rc.confine(&file, path, ERROR_CLASS)?;
    if meta.len() > SIZE_LIMIT {
        return Err(ERROR_CLASS.coded(
            ErrorCode::FileTooLarge,
            format!("file is larger than 10 MiB: {path}"),
        ));
    }
    let bytes = read_sized(&mut file, meta.len())
        .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "read", path)))?;
    // closed before the replacement: Windows before POSIX-semantics renames (and wine) refuses
    // to rename over a file that is open
    drop(file);
    let Ok(whole) = std::str::from_utf8(&bytes) else {
        return Err(ERROR_CLASS.coded(
            ErrorCode::BinaryNotSupported,
            format!("file is not UTF-8 text: {path}"),
        ));
    };
    if whole.contains('\0') {
        return Err(ERROR_CLASS.coded(
            ErrorCode::BinaryNotSupported,
            format!("binary file is not supported: {path}"),
        ));
    }
    let relative = workspace_relative(root, path);
    if let Some(reads) = &rc.ctx.reads {
        if !reads.is_current(&target, &bytes) {
            return Err(ERROR_CLASS.coded(
                ErrorCode::StaleRead,
                format!("{relative} changed since this context last read or edited it; read it again before editing"),
            ));
        }
    }
    let (bom, text) = match whole.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", whole),
    };
    let planned = plan(text, old, new, replace_all).map_err(|failure| match failure {
        EditFailure::NotFound(region) => ERROR_CLASS.coded(
            ErrorCode::NotFound,
            format!("old_string not found in {relative}: {region}"),
        ),
        EditFailure::Ambiguous(stage, lines) => {
            let stage = serde_json::to_value(stage)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
            ERROR_CLASS.coded(
                ErrorCode::Ambiguous,
                format!(
                    "old_string matches {} places in {relative} (stage {stage}) at lines {}: include more surrounding lines to make it unique, or set replace_all",
                    lines.len(),
                    lines.join(", ")
                ),
            )
        }
    })?;
    let diff = unified_diff(&relative, text, &planned.text, &planned.edits);
    if !dry_run {
        let (dir, name) = open_parent(&target).map_err(|e| {
            let dir_path = target.parent().unwrap_or(Path::new("/"));
            ERROR_CLASS.internal(node_io_message(&e, "open", &dir_path.to_string_lossy()))
        })?;
        rc.confine(&dir, path, ERROR_CLASS)?;
        let mut content = String::with_capacity(bom.len() + planned.text.len());
        content.push_str(bom);
        content.push_str(&planned.text);
        let mode = crate::sys::permission_bits(&meta);
        rc.check_syntax(&target, None, content.as_bytes(), ERROR_CLASS)?;
        rc.before_change(&target)?;
        replace_atomically(&dir, name, content.as_bytes(), Some(mode))
            .map_err(|e| ERROR_CLASS.internal(node_io_message(&e, "open", path)))?;
        rc.wrote(&target, content.as_bytes());
    }
    to_json(
        &EditFileOutput {
            path: relative,
            stage: planned.stage,
            replacements: planned.lines.len() as u64,
            lines: planned.lines.iter().map(|&l| l as u64).collect(),
            dry_run,
            diff,
            diagnostics: None,
        },
        ERROR_CLASS,
    )
}

#[cfg(test)]
mod tests;
