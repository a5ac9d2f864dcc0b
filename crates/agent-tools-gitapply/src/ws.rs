//! Git's whitespace rules as `git apply --whitespace=fix` uses them, limited to git's default rule
//! (`trailing-space`, `space-before-tab`, tab width 8) plus the `cr-at-eol` bit that git turns on
//! for a patch whose old side has CRLF lines. Git's own `isspace` is narrower than C's: only
//! space, tab, LF and CR count.

pub const BLANK_AT_EOL: u32 = 1 << 6;
pub const SPACE_BEFORE_TAB: u32 = 1 << 7;
pub const CR_AT_EOL: u32 = 1 << 9;
pub const BLANK_AT_EOF: u32 = 1 << 10;
const TAB_WIDTH: usize = 8;

/// `trailing-space` (= blank-at-eol + blank-at-eof), `space-before-tab`, tab width 8.
pub const DEFAULT_RULE: u32 = BLANK_AT_EOL | BLANK_AT_EOF | SPACE_BEFORE_TAB | TAB_WIDTH as u32;

/// Git's `isspace`.
pub fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// True when every byte is whitespace (also for an empty line).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&c| is_space(c))
}

/// The whitespace errors of one line (its newline included), as rule bits.
pub fn check(line: &[u8], rule: u32) -> u32 {
    let mut len = line.len();
    if len > 0 && line[len - 1] == b'\n' {
        len -= 1;
    }
    if rule & CR_AT_EOL != 0 && len > 0 && line[len - 1] == b'\r' {
        len -= 1;
    }
    let mut result = 0;
    let mut content_end = len;
    if rule & BLANK_AT_EOL != 0 {
        while content_end > 0 && is_space(line[content_end - 1]) {
            content_end -= 1;
            result |= BLANK_AT_EOL;
        }
    }
    let mut written = 0;
    for (i, &c) in line[..content_end].iter().enumerate() {
        match c {
            b' ' => continue,
            b'\t' => {
                if rule & SPACE_BEFORE_TAB != 0 && written < i {
                    result |= SPACE_BEFORE_TAB;
                }
                written = i + 1;
            }
            _ => break,
        }
    }
    result
}

/// Git's wording of the errors in `bits`.
pub fn error_string(bits: u32) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if bits & (BLANK_AT_EOL | BLANK_AT_EOF) == BLANK_AT_EOL | BLANK_AT_EOF {
        parts.push("trailing whitespace");
    } else {
        if bits & BLANK_AT_EOL != 0 {
            parts.push("trailing whitespace");
        }
        if bits & BLANK_AT_EOF != 0 {
            parts.push("new blank line at EOF");
        }
    }
    if bits & SPACE_BEFORE_TAB != 0 {
        parts.push("space before tab in indent");
    }
    parts.join(", ")
}

/// Appends `src` (one line, its newline included if it has one) to `dst` with its whitespace
/// errors fixed; returns true when something was fixed.
pub fn fix_copy(dst: &mut Vec<u8>, src: &[u8], rule: u32) -> bool {
    let mut len = src.len();
    let mut add_newline = false;
    let mut add_cr = false;
    let mut fixed = false;
    if rule & BLANK_AT_EOL != 0 {
        if len > 0 && src[len - 1] == b'\n' {
            add_newline = true;
            len -= 1;
            if len > 0 && src[len - 1] == b'\r' {
                add_cr = rule & CR_AT_EOL != 0;
                len -= 1;
            }
        }
        if len > 0 && is_space(src[len - 1]) {
            while len > 0 && is_space(src[len - 1]) {
                len -= 1;
            }
            fixed = true;
        }
    }

    let mut last_tab_in_indent: Option<usize> = None;
    let mut seen_space = false;
    let mut need_fix_leading_space = false;
    for (i, &c) in src[..len].iter().enumerate() {
        match c {
            b'\t' => {
                last_tab_in_indent = Some(i);
                if rule & SPACE_BEFORE_TAB != 0 && seen_space {
                    need_fix_leading_space = true;
                }
            }
            b' ' => seen_space = true,
            _ => break,
        }
    }

    let mut start = 0;
    if need_fix_leading_space {
        // Within the indent up to its last tab, spaces are dropped; each run of 8 becomes a tab.
        let last = last_tab_in_indent.map_or(0, |i| i + 1);
        let mut consecutive_spaces = 0;
        for &c in &src[..last] {
            if c == b' ' {
                consecutive_spaces += 1;
                if consecutive_spaces == TAB_WIDTH {
                    dst.push(b'\t');
                    consecutive_spaces = 0;
                }
            } else {
                consecutive_spaces = 0;
                dst.push(c);
            }
        }
        dst.extend(std::iter::repeat_n(b' ', consecutive_spaces));
        start = last;
        fixed = true;
    }
    dst.extend_from_slice(&src[start..len]);
    if add_cr {
        dst.push(b'\r');
    }
    if add_newline {
        dst.push(b'\n');
    }
    fixed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(src: &[u8], rule: u32) -> (Vec<u8>, bool) {
        let mut out = Vec::new();
        let f = fix_copy(&mut out, src, rule);
        (out, f)
    }

    #[test]
    fn checks_trailing_space_and_space_before_tab() {
        assert_eq!(check(b"a  \n", DEFAULT_RULE), BLANK_AT_EOL);
        assert_eq!(check(b"a\r\n", DEFAULT_RULE), BLANK_AT_EOL);
        assert_eq!(check(b"a\r\n", DEFAULT_RULE | CR_AT_EOL), 0);
        assert_eq!(check(b" \tx\n", DEFAULT_RULE), SPACE_BEFORE_TAB);
        assert_eq!(check(b"\t x\n", DEFAULT_RULE), 0);
        assert_eq!(
            check(b"a\x0b\n", DEFAULT_RULE),
            0,
            "vertical tab is not git whitespace"
        );
        assert_eq!(check(b"a  \n", 0), 0);
        assert_eq!(
            error_string(BLANK_AT_EOL | SPACE_BEFORE_TAB),
            "trailing whitespace, space before tab in indent"
        );
        assert_eq!(error_string(BLANK_AT_EOF), "new blank line at EOF");
    }

    #[test]
    fn fixes_like_git() {
        assert_eq!(fixed(b"a \t \n", DEFAULT_RULE), (b"a\n".to_vec(), true));
        assert_eq!(fixed(b"a \r\n", DEFAULT_RULE), (b"a\n".to_vec(), true));
        assert_eq!(
            fixed(b"a \r\n", DEFAULT_RULE | CR_AT_EOL),
            (b"a\r\n".to_vec(), true)
        );
        assert_eq!(
            fixed(b"a\r\n", DEFAULT_RULE | CR_AT_EOL),
            (b"a\r\n".to_vec(), false)
        );
        assert_eq!(fixed(b"a\r\n", DEFAULT_RULE), (b"a\n".to_vec(), false));
        assert_eq!(fixed(b"  \tx\n", DEFAULT_RULE), (b"\tx\n".to_vec(), true));
        assert_eq!(
            fixed(b"         \tx", DEFAULT_RULE),
            (b"\t\tx".to_vec(), true)
        );
        assert_eq!(fixed(b"   ", DEFAULT_RULE), (b"".to_vec(), true));
    }
}
