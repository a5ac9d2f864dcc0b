//! File names in patch headers, extracted the way `git apply` does: C-quoted names, `-p<n>`
//! stripping of leading components, timestamps after traditional `---`/`+++` names, the
//! `diff --git` line's "same name twice" rule, and GNU diff's epoch timestamps that mark a
//! creation or deletion.

/// The bytes from `pos` up to and including the next `\n` (or to the end).
pub fn line_len(buf: &[u8], pos: usize) -> usize {
    match buf[pos.min(buf.len())..].iter().position(|&c| c == b'\n') {
        Some(i) => i + 1,
        None => buf.len().saturating_sub(pos),
    }
}

/// True when `buf[pos..]` starts with `lit`.
pub fn starts(buf: &[u8], pos: usize, lit: &[u8]) -> bool {
    buf.get(pos..).is_some_and(|rest| rest.starts_with(lit))
}

/// `s` up to (not including) its first `\n`.
fn up_to_newline(s: &[u8]) -> &[u8] {
    &s[..s.iter().position(|&c| c == b'\n').unwrap_or(s.len())]
}

fn is_space(c: u8) -> bool {
    super::ws::is_space(c)
}

/// `/dev/null` followed by whitespace.
pub fn is_dev_null(s: &[u8]) -> bool {
    s.starts_with(b"/dev/null") && s.get(9).is_some_and(|&c| is_space(c))
}

/// Undoes git's C-style quoting of `s` (which starts with `"`). Returns the name and the number
/// of bytes consumed, or `None` when the quoting is broken.
pub fn unquote_c_style(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    if s.first() != Some(&b'"') {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        let c = *s.get(i)?;
        i += 1;
        match c {
            b'"' => return Some((out, i)),
            b'\\' => {
                let e = *s.get(i)?;
                i += 1;
                let ch = match e {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 0x0b,
                    b'\\' | b'"' => e,
                    b'0'..=b'3' => {
                        let d1 = *s.get(i).filter(|d| (b'0'..=b'7').contains(*d))?;
                        let d2 = *s.get(i + 1).filter(|d| (b'0'..=b'7').contains(*d))?;
                        i += 2;
                        ((e - b'0') << 6) | ((d1 - b'0') << 3) | (d2 - b'0')
                    }
                    _ => return None,
                };
                out.push(ch);
            }
            0 => return None,
            _ => out.push(c),
        }
    }
}

/// Collapses runs of `/`.
fn squash_slash(name: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(name.len());
    for &c in name {
        if !(c == b'/' && out.last() == Some(&b'/')) {
            out.push(c);
        }
    }
    out
}

/// A quoted name with `p` leading components removed.
fn find_name_gnu(line: &[u8], p: usize) -> Option<Vec<u8>> {
    let (name, _) = unquote_c_style(line)?;
    let mut start = 0;
    for _ in 0..p {
        start += name[start..].iter().position(|&c| c == b'/')? + 1;
    }
    Some(squash_slash(&name[start..]))
}

pub const TERM_SPACE: u8 = 1;
pub const TERM_TAB: u8 = 2;

fn name_terminates(c: u8, terminate: u8) -> bool {
    match c {
        b' ' => terminate & TERM_SPACE != 0,
        b'\t' => terminate & TERM_TAB != 0,
        _ => true,
    }
}

/// An unquoted name: after `p` slashes, up to `end` or (without `end`) a terminating blank.
/// A `def` that is a prefix of the found name wins (`file` over `file.orig`).
fn find_name_common(
    line: &[u8],
    def: Option<&[u8]>,
    p: usize,
    end: Option<usize>,
    terminate: u8,
) -> Option<Vec<u8>> {
    let mut remaining = p;
    let mut start = (p == 0).then_some(0);
    let mut i = 0;
    let stop = end.unwrap_or(line.len());
    while i < stop {
        let c = line[i];
        if end.is_none() && is_space(c) && (c == b'\n' || name_terminates(c, terminate)) {
            break;
        }
        i += 1;
        if c == b'/' && remaining > 0 {
            remaining -= 1;
            if remaining == 0 {
                start = Some(i);
            }
        }
    }
    let Some(start) = start.filter(|&s| i > s) else {
        return def.map(squash_slash);
    };
    let found = &line[start..i];
    if let Some(def) = def {
        if def.len() < found.len() && found.starts_with(def) {
            return Some(squash_slash(def));
        }
    }
    Some(squash_slash(found))
}

/// The name on a `diff --git` header's `---`/`+++` or rename/copy line.
pub fn find_name(line: &[u8], p: usize, terminate: u8) -> Option<Vec<u8>> {
    if line.first() == Some(&b'"') {
        if let Some(name) = find_name_gnu(line, p) {
            return Some(name);
        }
    }
    find_name_common(line, None, p, None, terminate)
}

/// The name on a traditional `---`/`+++` line, which may end with a timestamp.
pub fn find_name_traditional(line: &[u8], def: Option<&[u8]>, p: usize) -> Option<Vec<u8>> {
    if line.first() == Some(&b'"') {
        if let Some(name) = find_name_gnu(line, p) {
            return Some(name);
        }
    }
    let len = up_to_newline(line).len();
    match diff_timestamp_len(&line[..len]) {
        0 => find_name_common(line, def, p, None, TERM_TAB),
        date_len => find_name_common(line, def, p, Some(len - date_len), 0),
    }
}

/// Git's guess of `-p` from a traditional name line: 0 when the name has no `/`.
pub fn guess_p_value(line: &[u8]) -> Option<usize> {
    if is_dev_null(line) {
        return None;
    }
    let name = find_name_traditional(line, None, 0)?;
    (!name.contains(&b'/')).then_some(0)
}

fn digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// Length of a ` +0500` zone at the end of `s`.
fn sane_tz_len(s: &[u8]) -> usize {
    let n = s.len();
    if n < 6 || s[n - 6] != b' ' || !matches!(s[n - 5], b'+' | b'-') {
        return 0;
    }
    if s[n - 4..].iter().all(u8::is_ascii_digit) {
        6
    } else {
        0
    }
}

/// Length of a ` +08:00` zone at the end of `s`.
fn tz_with_colon_len(s: &[u8]) -> usize {
    let n = s.len();
    if n < 7 || s[n - 3] != b':' {
        return 0;
    }
    let tz = &s[n - 7..];
    let ok = tz[0] == b' '
        && matches!(tz[1], b'+' | b'-')
        && digit(tz, 2)
        && digit(tz, 3)
        && tz[4] == b':'
        && digit(tz, 5)
        && digit(tz, 6);
    if ok {
        7
    } else {
        0
    }
}

/// Length of a `72-02-05` or `1972-02-05` date at the end of `s`.
fn date_len(s: &[u8]) -> usize {
    let n = s.len();
    if n < 8 || s[n - 3] != b'-' {
        return 0;
    }
    let d = &s[n - 8..];
    let ok = digit(d, 0)
        && digit(d, 1)
        && d[2] == b'-'
        && digit(d, 3)
        && digit(d, 4)
        && d[5] == b'-'
        && digit(d, 6)
        && digit(d, 7);
    if !ok {
        return 0;
    }
    if n - 8 >= 2 && digit(s, n - 9) && digit(s, n - 10) {
        10
    } else {
        8
    }
}

/// Length of a ` 07:01:32` time at the end of `s`.
fn short_time_len(s: &[u8]) -> usize {
    let n = s.len();
    if n < 9 || s[n - 3] != b':' {
        return 0;
    }
    let t = &s[n - 9..];
    let ok = t[0] == b' '
        && digit(t, 1)
        && digit(t, 2)
        && t[3] == b':'
        && digit(t, 4)
        && digit(t, 5)
        && t[6] == b':'
        && digit(t, 7)
        && digit(t, 8);
    if ok {
        9
    } else {
        0
    }
}

/// Length of a ` 19:41:17.620000023` time at the end of `s`.
fn fractional_time_len(s: &[u8]) -> usize {
    let n = s.len();
    if n == 0 || !s[n - 1].is_ascii_digit() {
        return 0;
    }
    let mut p = n - 1;
    while p > 0 && s[p].is_ascii_digit() {
        p -= 1;
    }
    if s[p] != b'.' {
        return 0;
    }
    match short_time_len(&s[..p]) {
        0 => 0,
        t => n - p + t,
    }
}

/// Length of trailing spaces of `s`.
fn trailing_spaces_len(s: &[u8]) -> usize {
    s.iter().rev().take_while(|&&c| c == b' ').count()
}

/// Length of the timestamp (with the blank before it) that ends a traditional name line.
fn diff_timestamp_len(line: &[u8]) -> usize {
    if !line.last().is_some_and(u8::is_ascii_digit) {
        return 0;
    }
    let mut end = line.len();
    let tz = sane_tz_len(&line[..end]);
    end -= if tz > 0 {
        tz
    } else {
        tz_with_colon_len(&line[..end])
    };
    let t = short_time_len(&line[..end]);
    end -= if t > 0 {
        t
    } else {
        fractional_time_len(&line[..end])
    };
    let d = date_len(&line[..end]);
    if d == 0 {
        return 0;
    }
    end -= d;
    if end == 0 {
        return 0;
    }
    match line[end - 1] {
        b'\t' => line.len() - (end - 1),
        b' ' => {
            end -= trailing_spaces_len(&line[..end]);
            line.len() - end
        }
        _ => 0,
    }
}

/// GNU diff's marker of a creation/deletion: a timestamp equal to the epoch after the last tab.
pub fn has_epoch_timestamp(line: &[u8]) -> bool {
    let line = up_to_newline(line);
    let Some(tab) = line.iter().rposition(|&c| c == b'\t') else {
        return false;
    };
    let ts = &line[tab + 1..];
    let (epoch_hour, rest) = if let Some(r) = ts.strip_prefix(b"1969-12-31 ") {
        (24, r)
    } else if let Some(r) = ts.strip_prefix(b"1970-01-01 ") {
        (0, r)
    } else {
        return false;
    };
    // ^[0-2][0-9]:([0-5][0-9]):00(\.0+)? ([-+][0-2][0-9]:?[0-5][0-9])$
    let num = |a: u8, b: u8| i64::from(a - b'0') * 10 + i64::from(b - b'0');
    let r = rest;
    if r.len() < 8
        || !(b'0'..=b'2').contains(&r[0])
        || !r[1].is_ascii_digit()
        || r[2] != b':'
        || !(b'0'..=b'5').contains(&r[3])
        || !r[4].is_ascii_digit()
        || &r[5..8] != b":00"
    {
        return false;
    }
    let (hour, minute) = (num(r[0], r[1]), num(r[3], r[4]));
    let mut i = 8;
    if r.get(i) == Some(&b'.') && r.get(i + 1) == Some(&b'0') {
        i += 1;
        while r.get(i) == Some(&b'0') {
            i += 1;
        }
    }
    let zone = &r[i..];
    let (sign, digits) = match zone {
        [b' ', s @ (b'+' | b'-'), d @ ..] => (*s, d),
        _ => return false,
    };
    let offset_minutes = match digits {
        [h1 @ b'0'..=b'2', h2, b':', m1 @ b'0'..=b'5', m2]
        | [h1 @ b'0'..=b'2', h2, m1 @ b'0'..=b'5', m2]
            if h2.is_ascii_digit() && m2.is_ascii_digit() =>
        {
            num(*h1, *h2) * 60 + num(*m1, *m2)
        }
        _ => return false,
    };
    let zone_offset = if sign == b'-' {
        -offset_minutes
    } else {
        offset_minutes
    };
    hour * 60 + minute - zone_offset == epoch_hour * 60
}

/// Skips `p` leading components of a `diff --git` name; `None` for an absolute name or when
/// there are not enough components.
fn skip_tree_prefix(p: usize, s: &[u8]) -> Option<usize> {
    if p == 0 {
        return if s.first() == Some(&b'/') {
            None
        } else {
            Some(0)
        };
    }
    let mut remaining = p;
    for (i, &c) in s.iter().enumerate() {
        if c == b'/' {
            remaining -= 1;
            if remaining == 0 {
                return if i == 0 { None } else { Some(i + 1) };
            }
        }
    }
    None
}

/// The name a `diff --git <a> <b>` line gives when both sides name the same file (needed for
/// mode-only changes and empty files); `line` is the whole line, newline included.
pub fn git_header_name(p: usize, line: &[u8]) -> Option<Vec<u8>> {
    let line = &line[b"diff --git ".len().min(line.len())..];
    let llen = line.len();
    if line.first() == Some(&b'"') {
        let (first, used) = unquote_c_style(line)?;
        let first = first[skip_tree_prefix(p, &first)?..].to_vec();
        let mut second = used;
        while second < llen && is_space(line[second]) {
            second += 1;
        }
        if second >= llen {
            return None;
        }
        if line[second] == b'"' {
            let (sp, _) = unquote_c_style(&line[second..])?;
            let np = skip_tree_prefix(p, &sp)?;
            return (sp[np..] == first[..]).then_some(first);
        }
        let rest = &line[second..];
        let np = skip_tree_prefix(p, rest)?;
        return (rest[np..] == first[..]).then_some(first);
    }

    let name_start = skip_tree_prefix(p, line)?;
    let name = &line[name_start..];
    if let Some(q) = name.iter().position(|&c| c == b'"') {
        let (sp, _) = unquote_c_style(&name[q..])?;
        let np = skip_tree_prefix(p, &sp)?;
        let len = sp.len() - np;
        let ok = len < q && name[..len] == sp[np..] && name.get(len).is_some_and(|&c| is_space(c));
        return ok.then(|| sp[np..].to_vec());
    }

    // Accept a name only if it shows up twice, exactly the same.
    let line_len = name.iter().position(|&c| c == b'\n')?;
    for len in 0..line_len {
        if !matches!(name[len], b'\t' | b' ') {
            continue;
        }
        name.get(len + 1)?;
        let Some(second) = skip_tree_prefix(p, &name[len + 1..line_len]) else {
            continue;
        };
        let second = &name[len + 1 + second..];
        if second.get(len) == Some(&b'\n') && second[..len] == name[..len] {
            return Some(name[..len].to_vec());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traditional_names() {
        assert_eq!(
            find_name_traditional(b"a/src/x.ts\n", None, 1).unwrap(),
            b"src/x.ts"
        );
        assert_eq!(
            find_name_traditional(b"src/x.ts\n", None, 0).unwrap(),
            b"src/x.ts"
        );
        assert_eq!(
            find_name_traditional(b"a/x y.txt\t2024-01-02 03:04:05.000000000 +0100\n", None, 1)
                .unwrap(),
            b"x y.txt"
        );
        assert_eq!(
            find_name_traditional(b"a//ws/x\n", None, 1).unwrap(),
            b"/ws/x"
        );
        assert_eq!(
            find_name_traditional(b"a/x.orig\n", Some(b"x"), 1).unwrap(),
            b"x"
        );
        assert_eq!(
            find_name_traditional(b"\"a/t\\303\\251\"\n", None, 1).unwrap(),
            "té".as_bytes()
        );
        assert_eq!(guess_p_value(b"main.ts\n"), Some(0));
        assert_eq!(guess_p_value(b"a/main.ts\n"), None);
        assert_eq!(guess_p_value(b"/dev/null\n"), None);
        assert_eq!(find_name_traditional(b"nofile\n", None, 1), None);
    }

    #[test]
    fn epoch_timestamps() {
        assert!(has_epoch_timestamp(b"x\t1970-01-01 00:00:00 +0000\n"));
        assert!(has_epoch_timestamp(
            b"x\t1969-12-31 19:00:00.000000000 -0500\n"
        ));
        assert!(has_epoch_timestamp(b"x\t1970-01-01 01:00:00 +01:00\n"));
        assert!(!has_epoch_timestamp(b"x\t1970-01-01 00:00:01 +0000\n"));
        assert!(!has_epoch_timestamp(b"x\t2024-01-01 00:00:00 +0000\n"));
    }

    #[test]
    fn git_header_names() {
        assert_eq!(
            git_header_name(1, b"diff --git a/x/y b/x/y\n").unwrap(),
            b"x/y"
        );
        assert_eq!(
            git_header_name(1, b"diff --git a/x y b/x y\n").unwrap(),
            b"x y"
        );
        assert_eq!(git_header_name(1, b"diff --git a/x b/z\n"), None);
        assert_eq!(git_header_name(0, b"diff --git x/y x/y\n").unwrap(), b"x/y");
        assert_eq!(
            git_header_name(1, b"diff --git \"a/t\\303\\251\" \"b/t\\303\\251\"\n").unwrap(),
            "té".as_bytes()
        );
        assert_eq!(
            git_header_name(1, b"diff --git a/q \"b/q\"\n").unwrap(),
            b"q"
        );
    }

    #[test]
    fn unquoting() {
        assert_eq!(
            unquote_c_style(b"\"a\\tb\\\"c\" rest").unwrap(),
            (b"a\tb\"c".to_vec(), 9)
        );
        assert_eq!(unquote_c_style(b"\"a\\8\""), None);
        assert_eq!(unquote_c_style(b"\"open"), None);
    }
}
