//! Applying hunks to a file image, after git's `apply.c`: the file is a buffer plus a table of
//! lines (length, whitespace-insensitive hash, flags). A hunk's preimage must match exactly (or,
//! with `--whitespace=fix`, after fixing whitespace on both sides) at the position the hunk
//! names or at the nearest offset found by searching alternately forwards and backwards; lines
//! already written by an earlier hunk never match again. No fuzz: context is never dropped.
//!
//! The line count is kept apart from the line vector (`nr`), and the buffer is not re-split after
//! edits, because git's bookkeeping lets them drift in corner cases (git ≥ 2.47 behaviour, where
//! images are `strbuf`s), and results must stay byte-identical.

use super::names::line_len;
use super::ws;
use super::Diag;

const LINE_COMMON: u8 = 1;
const LINE_PATCHED: u8 = 2;

#[derive(Clone, Copy, Debug)]
struct Line {
    len: usize,
    hash: u32,
    flag: u8,
}

/// Git's 24-bit line hash, blind to whitespace.
fn hash_line(s: &[u8]) -> u32 {
    s.iter()
        .filter(|&&c| !ws::is_space(c))
        .fold(0u32, |h, &c| h.wrapping_mul(3).wrapping_add(u32::from(c)))
        & 0x00ff_ffff
}

/// `buf[start..start + len]`, clamped to the buffer.
fn clamped(buf: &[u8], start: usize, len: usize) -> &[u8] {
    let start = start.min(buf.len());
    &buf[start..start.saturating_add(len).min(buf.len())]
}

#[derive(Default, Debug)]
pub struct Image {
    buf: Vec<u8>,
    lines: Vec<Line>,
    nr: usize,
}

impl Image {
    /// A file's content split into lines (the last one may lack its newline).
    pub fn new(buf: Vec<u8>) -> Image {
        let mut image = Image {
            buf,
            ..Image::default()
        };
        let mut pos = 0;
        while pos < image.buf.len() {
            let len = line_len(&image.buf, pos);
            image.lines.push(Line {
                len,
                hash: hash_line(&image.buf[pos..pos + len]),
                flag: 0,
            });
            pos += len;
        }
        image.nr = image.lines.len();
        image
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Appends a line to a pre- or postimage under construction.
    fn push(&mut self, bytes: &[u8], flag: u8) {
        self.buf.extend_from_slice(bytes);
        self.lines.truncate(self.nr);
        self.lines.push(Line {
            len: bytes.len(),
            hash: hash_line(bytes),
            flag,
        });
        self.nr += 1;
    }

    fn remove_last_line(&mut self) {
        if self.nr > 0 {
            self.nr -= 1;
            let len = self.buf.len().saturating_sub(self.lines[self.nr].len);
            self.buf.truncate(len);
        }
    }

    /// Byte offset of line `lno`.
    fn offset_of(&self, lno: usize) -> usize {
        self.lines[..lno].iter().map(|l| l.len).sum()
    }
}

/// A hunk as parsed: where it claims to apply, its context sizes, and its text (from the `@@`
/// line on) with the patch line number of that `@@` line.
#[derive(Debug, Clone, Default)]
pub struct Hunk<'a> {
    pub oldpos: u64,
    pub newpos: u64,
    pub leading: u64,
    pub trailing: u64,
    pub text: &'a [u8],
    pub linenr: usize,
}

/// Applies one hunk to `img`; false when its preimage is found nowhere.
pub fn apply_hunk(diag: &mut Diag, img: &mut Image, hunk: &Hunk, rule: u32) -> bool {
    let mut pre = Image::default();
    let mut post = Image::default();
    let mut new_blank_lines_at_end = 0usize;
    let mut found_new_blank_lines_at_end = 0usize;
    let mut hunk_linenr = hunk.linenr;
    let text = hunk.text;
    let mut pos = 0;
    while pos < text.len() {
        let len = line_len(text, pos);
        // The line's payload: without its first byte, and without its newline when a
        // "\ No newline at end of file" line follows.
        let mut plen = len as isize - 1;
        if pos + len < text.len() && text[pos + len] == b'\\' {
            plen -= 1;
        }
        let content = clamped(text, pos + 1, plen.max(0) as usize);
        let mut added_blank_line = false;
        let mut is_blank_context = false;
        match text[pos] {
            b'\n' => {
                if plen >= 0 {
                    pre.push(b"\n", LINE_COMMON);
                    post.push(b"\n", LINE_COMMON);
                    is_blank_context = true;
                }
            }
            b' ' => {
                if plen > 0 && rule & ws::BLANK_AT_EOF != 0 && ws::is_blank(content) {
                    is_blank_context = true;
                }
                pre.push(content, LINE_COMMON);
                post.push(content, LINE_COMMON);
            }
            b'-' => pre.push(content, 0),
            b'+' => {
                if diag.whitespace_error == 0 {
                    post.push(content, 0);
                } else {
                    let mut fixed = Vec::with_capacity(content.len());
                    if ws::fix_copy(&mut fixed, content, rule) {
                        diag.applied_after_fixing_ws += 1;
                    }
                    post.push(&fixed, 0);
                }
                if rule & ws::BLANK_AT_EOF != 0 && ws::is_blank(content) {
                    added_blank_line = true;
                }
            }
            b'@' | b'\\' => {}
            _ => return false,
        }
        if added_blank_line {
            if new_blank_lines_at_end == 0 {
                found_new_blank_lines_at_end = hunk_linenr;
            }
            new_blank_lines_at_end += 1;
        } else if !is_blank_context {
            new_blank_lines_at_end = 0;
        }
        pos += len;
        hunk_linenr += 1;
    }

    let match_beginning = hunk.oldpos <= 1;
    let match_end = hunk.trailing == 0;
    // git keeps the position in a C int.
    let line = if hunk.newpos > 0 {
        (hunk.newpos - 1) as i32
    } else {
        0
    };
    let Some(applied_pos) = find_pos(
        img,
        &mut pre,
        &mut post,
        i64::from(line),
        rule,
        match_beginning,
        match_end,
    ) else {
        return false;
    };

    if new_blank_lines_at_end > 0 && pre.nr + applied_pos >= img.nr && rule & ws::BLANK_AT_EOF != 0
    {
        diag.record_ws_error(ws::BLANK_AT_EOF, b"+", found_new_blank_lines_at_end);
        for _ in 0..new_blank_lines_at_end {
            post.remove_last_line();
        }
    }
    update_image(img, applied_pos, &pre, &post);
    true
}

/// Where the preimage matches: tried at `line`, then line+1, line-1, line+2, ...
fn find_pos(
    img: &Image,
    pre: &mut Image,
    post: &mut Image,
    mut line: i64,
    rule: u32,
    match_beginning: bool,
    match_end: bool,
) -> Option<usize> {
    if match_beginning {
        line = 0;
    } else if match_end {
        line = img.nr as i64 - pre.nr as i64;
    }
    let nr = img.nr;
    let line = if line < 0 || line as usize > nr {
        nr
    } else {
        line as usize
    };
    let start = img.offset_of(line);
    let (mut backwards, mut backwards_lno) = (start, line);
    let (mut forwards, mut forwards_lno) = (start, line);
    let (mut current, mut current_lno) = (start, line);
    let mut i = 0usize;
    loop {
        if match_fragment(
            img,
            pre,
            post,
            current,
            current_lno,
            rule,
            match_beginning,
            match_end,
        ) {
            return Some(current_lno);
        }
        loop {
            if backwards_lno == 0 && forwards_lno == nr {
                return None;
            }
            if i & 1 == 1 {
                if backwards_lno == 0 {
                    i += 1;
                    continue;
                }
                backwards_lno -= 1;
                backwards -= img.lines[backwards_lno].len;
                current = backwards;
                current_lno = backwards_lno;
            } else {
                if forwards_lno == nr {
                    i += 1;
                    continue;
                }
                forwards += img.lines[forwards_lno].len;
                forwards_lno += 1;
                current = forwards;
                current_lno = forwards_lno;
            }
            break;
        }
        i += 1;
    }
}

#[allow(clippy::too_many_arguments)]
fn match_fragment(
    img: &Image,
    pre: &mut Image,
    post: &mut Image,
    current: usize,
    current_lno: usize,
    rule: u32,
    match_beginning: bool,
    match_end: bool,
) -> bool {
    let preimage_limit = if pre.nr + current_lno <= img.nr {
        if match_end && pre.nr + current_lno != img.nr {
            return false;
        }
        pre.nr
    } else if rule & ws::BLANK_AT_EOF != 0 {
        // The hunk reaches past the end of the file: with --whitespace=fix the rest of the
        // preimage may be blank lines that were removed from the end of the file.
        img.nr - current_lno
    } else {
        return false;
    };
    if match_beginning && current_lno != 0 {
        return false;
    }
    for i in 0..preimage_limit {
        let l = img.lines[current_lno + i];
        if l.flag & LINE_PATCHED != 0 || pre.lines[i].hash != l.hash {
            return false;
        }
    }

    if preimage_limit == pre.nr {
        let end = current + pre.buf.len();
        let fits = if match_end {
            end == img.buf.len()
        } else {
            end <= img.buf.len()
        };
        if fits && img.buf[current..end] == pre.buf[..] {
            return true;
        }
    } else {
        // At least one non-blank byte must fall before the end of the file.
        let within: usize = pre.lines[..preimage_limit].iter().map(|l| l.len).sum();
        if ws::is_blank(clamped(&pre.buf, 0, within)) {
            return false;
        }
    }

    // Not byte-identical: try again with whitespace errors fixed on both sides.
    let mut fixed = Vec::with_capacity(pre.buf.len() + 1);
    let mut orig = 0;
    let mut target = current;
    for i in 0..preimage_limit {
        let oldlen = pre.lines[i].len;
        let tgtlen = img.lines[current_lno + i].len;
        let fixstart = fixed.len();
        ws::fix_copy(&mut fixed, clamped(&pre.buf, orig, oldlen), rule);
        let mut tgtfix = Vec::with_capacity(tgtlen);
        ws::fix_copy(&mut tgtfix, clamped(&img.buf, target, tgtlen), rule);
        if tgtfix[..] != fixed[fixstart..] {
            return false;
        }
        orig += oldlen;
        target += tgtlen;
    }
    for i in preimage_limit..pre.nr {
        let oldlen = pre.lines[i].len;
        let fixstart = fixed.len();
        ws::fix_copy(&mut fixed, clamped(&pre.buf, orig, oldlen), rule);
        if !ws::is_blank(&fixed[fixstart..]) {
            return false;
        }
        orig += oldlen;
    }
    update_pre_post_images(pre, post, fixed);
    true
}

/// Replaces the preimage by its whitespace-fixed form and, in place, the postimage's context
/// lines by the corresponding fixed preimage lines. Context lines left without a counterpart
/// keep their bytes but leave the line table (as git does).
fn update_pre_post_images(pre: &mut Image, post: &mut Image, fixed: Vec<u8>) {
    let mut fixed_pre = Image::new(fixed);
    for i in 0..fixed_pre.nr {
        fixed_pre.lines[i].flag = pre.lines.get(i).map_or(0, |l| l.flag);
    }
    *pre = fixed_pre;

    let mut insert_pos = 0;
    let mut fixed_at = 0;
    let mut ctx = 0;
    let mut reduced = 0;
    for i in 0..post.nr {
        if post.lines[i].flag & LINE_COMMON == 0 {
            insert_pos += post.lines[i].len;
            continue;
        }
        while ctx < pre.nr && pre.lines[ctx].flag & LINE_COMMON == 0 {
            fixed_at += pre.lines[ctx].len;
            ctx += 1;
        }
        if pre.nr <= ctx {
            reduced += 1;
            continue;
        }
        let l_len = pre.lines[ctx].len;
        let start = insert_pos.min(post.buf.len());
        let end = (start + post.lines[i].len).min(post.buf.len());
        post.buf.splice(
            start..end,
            clamped(&pre.buf, fixed_at, l_len).iter().copied(),
        );
        insert_pos += l_len;
        fixed_at += l_len;
        post.lines[i].len = l_len;
        ctx += 1;
    }
    post.nr -= reduced;
}

/// Replaces the preimage's lines at `applied_pos` by the postimage, marking them patched.
fn update_image(img: &mut Image, applied_pos: usize, pre: &Image, post: &Image) {
    let preimage_limit = pre.nr.min(img.nr - applied_pos);
    let applied_at = img.offset_of(applied_pos);
    let remove_count: usize = img.lines[applied_pos..applied_pos + preimage_limit]
        .iter()
        .map(|l| l.len)
        .sum();
    let len = img.buf.len();
    let tail_start = (applied_at + remove_count).min(len);
    let mut result = Vec::with_capacity(len - remove_count.min(len) + post.buf.len());
    result.extend_from_slice(&img.buf[..applied_at.min(len)]);
    result.extend_from_slice(&post.buf);
    result.extend_from_slice(&img.buf[tail_start..]);
    img.buf = result;

    let mut lines = Vec::with_capacity(img.nr - preimage_limit + post.nr);
    lines.extend_from_slice(&img.lines[..applied_pos]);
    lines.extend(post.lines[..post.nr].iter().map(|l| Line {
        flag: l.flag | LINE_PATCHED,
        ..*l
    }));
    lines.extend_from_slice(&img.lines[applied_pos + preimage_limit..img.nr]);
    img.nr = lines.len();
    img.lines = lines;
}
