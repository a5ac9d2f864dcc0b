//! JavaScript `RegExp` semantics for regexp_search, with the `regress` engine.
//!
//! Upstream matches every line separately with a global regex: `lastIndex = 0`, `exec`
//! until it fails, `lastIndex += 1` after an empty match. Positions are UTF-16 code units.
//!
//! * Without the `u` flag JavaScript matches code units: `.` can match half of a surrogate pair.
//!   Lines holding a character outside the BMP are therefore matched as UCS-2 (`find_from_ucs2`);
//!   with `u` they are matched as UTF-16 (`find_from_utf16`). A line without such characters
//!   has one code unit per character, where regress's UTF-8 mode decodes exactly the same
//!   characters, so it is matched in place (no transcoding).
//! * With `u`, an exec whose `lastIndex` points between the halves of a pair starts at the pair
//!   (V8 and JavaScriptCore agree), so an empty match before an astral character repeats until
//!   the caller's limit — upstream's loop does the same and stops only at `max_results`.

use std::borrow::Cow;

use serde::{Serialize, Serializer};

/// A compiled pattern with upstream's flags (`g` is implied by the exec loop).
pub struct JsRegex {
    regex: regress::Regex,
    unicode: bool,
    /// The pattern itself when it is plain text matched case-sensitively: found with `memmem`
    /// (regress takes time quadratic in the length of a long literal match).
    literal: Option<String>,
}

/// Characters with a meaning in a JavaScript pattern (with or without `u`); a pattern free of
/// them is plain text.
const SYNTAX_CHARS: &[char] = &[
    '\\', '^', '$', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|',
];

/// The text of one match: a string, or (rarely) UTF-16 holding a lone surrogate, which a
/// non-`u` pattern can produce by matching half of a pair.
#[derive(Debug, Clone, PartialEq)]
pub enum MatchText {
    Text(String),
    Units(Vec<u16>),
}

impl MatchText {
    fn from_units(units: &[u16]) -> MatchText {
        match String::from_utf16(units) {
            Ok(text) => MatchText::Text(text),
            Err(_) => MatchText::Units(units.to_vec()),
        }
    }
}

/// Serialised as a JSON string; lone surrogates as `\uXXXX` escapes, which `JSON.parse` turns
/// back into the exact JavaScript string.
impl Serialize for MatchText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MatchText::Text(text) => serializer.serialize_str(text),
            MatchText::Units(units) => {
                let raw = serde_json::value::RawValue::from_string(json_string_from_utf16(units))
                    .map_err(serde::ser::Error::custom)?;
                raw.serialize(serializer)
            }
        }
    }
}

/// A JSON string literal for arbitrary UTF-16 (unpaired surrogates escaped).
fn json_string_from_utf16(units: &[u16]) -> String {
    let mut out = String::from("\"");
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if !run.is_empty() {
            let quoted = serde_json::Value::String(std::mem::take(run)).to_string();
            out.push_str(&quoted[1..quoted.len() - 1]);
        }
    };
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok(c) => run.push(c),
            Err(lone) => {
                flush(&mut run, &mut out);
                out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate()));
            }
        }
    }
    flush(&mut run, &mut out);
    out.push('"');
    out
}

/// One match on a line: 1-based UTF-16 column and the matched text.
#[derive(Debug, Clone, PartialEq)]
pub struct LineMatch {
    pub column: u64,
    pub text: MatchText,
}

/// The largest pattern regexp_search compiles: UTF-16 code units, `|` alternatives and group
/// nesting. The engine's compiler recurses over alternatives and takes time quadratic in their
/// number (measured, release build on a 2 MiB stack: 8 000 alternatives compile in 0.7 s,
/// 16 000 overflow the stack and end the process); a 9 MB pattern took a minute and 3 GB.
/// Real patterns stay far below all three.
pub const MAX_PATTERN_UNITS: usize = 64 << 10;
pub const MAX_ALTERNATIVES: usize = 2048;
pub const MAX_GROUP_DEPTH: usize = 256;

/// Alternatives above which the pattern compiles on a thread of its own with room for the
/// compiler's recursion (a debug build needs about 1 KiB of stack per alternative).
const ALTERNATIVES_ON_CALLER_STACK: usize = 256;
const COMPILER_STACK: usize = 32 << 20;

/// `JsRegex::new` for a pattern within the limits above (else the limit it exceeds).
pub fn compile(pattern: &str, flags: &str) -> Result<Result<JsRegex, String>, String> {
    let alternatives = check_pattern_size(pattern)?;
    if alternatives <= ALTERNATIVES_ON_CALLER_STACK {
        return Ok(JsRegex::new(pattern, flags));
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("regexp-compile".into())
            .stack_size(COMPILER_STACK)
            .spawn_scoped(scope, || JsRegex::new(pattern, flags))
            .map_err(|e| format!("cannot compile the pattern: {e}"))?
            .join()
            .map_err(|_| "the pattern compiler failed".to_string())
    })
}

/// Refuses a pattern beyond the limits above, before the engine sees it; returns how many
/// alternatives it has.
pub fn check_pattern_size(pattern: &str) -> Result<usize, String> {
    let units = crate::value::utf16_len(pattern);
    if units > MAX_PATTERN_UNITS {
        return Err(format!(
            "pattern is {units} characters long; at most {MAX_PATTERN_UNITS} are allowed"
        ));
    }
    let (mut alternatives, mut depth, mut deepest) = (0usize, 0usize, 0usize);
    let (mut escaped, mut in_class) = (false, false);
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '[' => in_class = true,
            '|' => alternatives += 1,
            '(' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if alternatives > MAX_ALTERNATIVES {
        return Err(format!(
            "pattern has {alternatives} alternatives (|); at most {MAX_ALTERNATIVES} are allowed"
        ));
    }
    if deepest > MAX_GROUP_DEPTH {
        return Err(format!(
            "pattern nests groups {deepest} levels deep; at most {MAX_GROUP_DEPTH} are allowed"
        ));
    }
    Ok(alternatives)
}

impl JsRegex {
    /// `new RegExp(pattern, flags)`; `flags` is already validated (only `gimsu`, no repeats).
    /// The error is the engine's message, worded like JavaScriptCore's where known.
    pub fn new(pattern: &str, flags: &str) -> Result<JsRegex, String> {
        let parsed = regress::Flags::from(flags);
        let source = if parsed.unicode {
            Cow::Borrowed(pattern)
        } else {
            astral_as_code_units(pattern)
        };
        match regress::Regex::with_flags(&source, parsed) {
            Ok(regex) => Ok(JsRegex {
                regex,
                unicode: parsed.unicode,
                literal: (!pattern.is_empty() && !parsed.icase && !pattern.contains(SYNTAX_CHARS))
                    .then(|| pattern.to_string()),
            }),
            Err(e) => Err(engine_message(pattern, &e.to_string())),
        }
    }

    /// Calls `found` for each match of upstream's exec loop on `line`, stopping after
    /// `limit` matches; returns how many were reported.
    pub fn each_match(&self, line: &str, limit: usize, found: impl FnMut(LineMatch)) -> usize {
        if limit == 0 {
            return 0;
        }
        if let Some(literal) = &self.literal {
            return each_literal_match(literal, line, limit, found);
        }
        if line.bytes().any(|b| b >= 0xF0) {
            self.each_match_utf16(line, limit, found)
        } else {
            self.each_match_bmp(line, limit, found)
        }
    }

    /// A line whose characters are all in the BMP: byte offsets map one-to-one to code units.
    fn each_match_bmp(&self, line: &str, limit: usize, mut found: impl FnMut(LineMatch)) -> usize {
        let mut count = 0;
        let mut last = 0;
        let (mut seen_bytes, mut seen_units) = (0, 0);
        while count < limit && last <= line.len() {
            let Some(m) = self.regex.find_from(line, last).next() else {
                break;
            };
            let (start, end) = (m.start(), m.end());
            seen_units += line[seen_bytes..start].chars().count();
            seen_bytes = start;
            found(LineMatch {
                column: seen_units as u64 + 1,
                text: MatchText::Text(line[start..end].to_string()),
            });
            count += 1;
            last = if start == end {
                end + line[end..].chars().next().map_or(1, char::len_utf8)
            } else {
                end
            };
        }
        count
    }

    fn each_match_utf16(
        &self,
        line: &str,
        limit: usize,
        mut found: impl FnMut(LineMatch),
    ) -> usize {
        let units: Vec<u16> = line.encode_utf16().collect();
        let mut count = 0;
        let mut last = 0;
        while count < limit && last <= units.len() {
            let mut start = last;
            if self.unicode
                && start > 0
                && start < units.len()
                && is_low_surrogate(units[start])
                && is_high_surrogate(units[start - 1])
            {
                start -= 1;
            }
            let next = if self.unicode {
                self.regex.find_from_utf16(&units, start).next()
            } else {
                self.regex.find_from_ucs2(&units, start).next()
            };
            let Some(m) = next else {
                break;
            };
            let (start, end) = (m.start(), m.end());
            found(LineMatch {
                column: start as u64 + 1,
                text: MatchText::from_units(&units[start..end]),
            });
            count += 1;
            last = if start == end { end + 1 } else { end };
        }
        count
    }
}

/// Without `u`, JavaScript reads an astral character written in a pattern as its two UTF-16 code
/// units (so `😀+` repeats the low surrogate and `[😀]` holds two units), and a pair of surrogate
/// escapes (`\uD83D\uDE00`) as two units too; regress reads one code point for both. The units
/// are spelled so that regress keeps them apart: outside a class the high one is wrapped in a
/// group (`(?:\uD83D)\uDE00`), inside one the low one comes first (a set has no order). An
/// identity escape `\😀` is the character. A class range with such an end (`[😀-😂]`, a syntax
/// error in JavaScript) is left as it is.
fn astral_as_code_units(pattern: &str) -> Cow<'_, str> {
    if pattern.chars().all(|c| c <= '\u{FFFF}') && !pattern.contains("\\u") {
        return Cow::Borrowed(pattern);
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 32);
    let (mut escaped, mut in_class) = (false, false);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let pair = if c > '\u{FFFF}' {
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units);
            Some((units[0], units[1], 1))
        } else if c == '\\' && !escaped {
            escaped_surrogate_pair(&chars[i..]).map(|(high, low)| (high, low, 12))
        } else {
            None
        };
        if let Some((high, low, width)) = pair {
            let in_range =
                in_class && (i > 0 && chars[i - 1] == '-' || chars.get(i + width) == Some(&'-'));
            if in_range {
                out.extend(&chars[i..i + width]);
            } else {
                if escaped {
                    out.pop();
                }
                if in_class {
                    out.push_str(&format!("\\u{low:04X}\\u{high:04X}"));
                } else {
                    out.push_str(&format!("(?:\\u{high:04X})\\u{low:04X}"));
                }
            }
            escaped = false;
            i += width;
            continue;
        }
        if !escaped {
            match c {
                '[' if !in_class => in_class = true,
                ']' if in_class => in_class = false,
                _ => {}
            }
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
        i += 1;
    }
    Cow::Owned(out)
}

/// `\uHHHH\uLLLL` at the start of `chars`, a high and a low surrogate: the two units.
fn escaped_surrogate_pair(chars: &[char]) -> Option<(u16, u16)> {
    let unit = |at: usize| -> Option<u16> {
        let digits: String = chars.get(at..at + 6)?.iter().collect();
        let hex = digits.strip_prefix("\\u")?;
        if hex.len() != 4 || !hex.chars().all(|d| d.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(hex, 16).ok()
    };
    let (high, low) = (unit(0)?, unit(6)?);
    ((0xD800..0xDC00).contains(&high) && (0xDC00..0xE000).contains(&low)).then_some((high, low))
}

/// The exec loop for a plain-text pattern: non-empty, so each match ends where the next search
/// starts, exactly the non-overlapping occurrences. UTF-8 text only matches at character
/// boundaries, so columns and texts are those of a UTF-16 search.
fn each_literal_match(
    literal: &str,
    line: &str,
    limit: usize,
    mut found: impl FnMut(LineMatch),
) -> usize {
    let mut count = 0;
    let (mut seen_bytes, mut seen_units) = (0, 0);
    for start in memchr::memmem::find_iter(line.as_bytes(), literal.as_bytes()).take(limit) {
        seen_units += line[seen_bytes..start].encode_utf16().count();
        seen_bytes = start;
        found(LineMatch {
            column: seen_units as u64 + 1,
            text: MatchText::Text(literal.to_string()),
        });
        count += 1;
    }
    count
}

fn is_high_surrogate(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low_surrogate(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// `SyntaxError.message` for a pattern regress rejects. JavaScriptCore's wording for the errors
/// upstream quotes; regress's own text otherwise (engine texts are runtime-defined).
fn engine_message(pattern: &str, regress_text: &str) -> String {
    let text = match regress_text {
        "Unbalanced parenthesis" if has_unclosed_group(pattern) => "missing )",
        "Unbalanced parenthesis" => "unmatched parentheses",
        "Invalid quantifier" if pattern.contains('{') => "numbers out of order in {} quantifier",
        "Invalid quantifier" => "nothing to repeat",
        "Invalid property name" => "invalid property expression",
        "Unbalanced bracket" => "missing terminating ] for character class",
        "Incomplete escape" => "\\ at end of pattern",
        "Duplicate capture group name" => "duplicate group specifier name",
        other => other,
    };
    format!("Invalid regular expression: {text}")
}

/// True when a `(` outside classes and escapes is still open at the end of the pattern.
fn has_unclosed_group(pattern: &str) -> bool {
    let mut depth = 0usize;
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn astral_characters_become_code_units_without_u() {
        let cases = [
            ("😀+", "(?:\\uD83D)\\uDE00+"),
            ("[😀x]", "[\\uDE00\\uD83Dx]"),
            ("a\\😀", "a(?:\\uD83D)\\uDE00"),
            ("\\\\😀", "\\\\(?:\\uD83D)\\uDE00"),
            ("\\[😀]", "\\[(?:\\uD83D)\\uDE00]"),
            ("[😀-😂]", "[😀-😂]"),
            ("\\uD83D\\uDE00", "(?:\\uD83D)\\uDE00"),
            ("[\\uD83D\\uDE00]", "[\\uDE00\\uD83D]"),
            ("\\\\uD83D\\uDE00", "\\\\uD83D\\uDE00"),
            ("\\uD83D", "\\uD83D"),
            ("abc", "abc"),
        ];
        for (pattern, want) in cases {
            assert_eq!(astral_as_code_units(pattern), want, "{pattern:?}");
        }
        // JavaScript: /😀+/ repeats the low surrogate; /[😀]/ matches either half
        let mut found = Vec::new();
        JsRegex::new("[😀]", "")
            .unwrap()
            .each_match("😀", 50, |m| found.push(m.column));
        assert_eq!(found, [1, 2]);
    }

    /// The plain-text path gives exactly regress's matches: overlapping candidates, astral
    /// characters before and inside the pattern, with and without `u`, limits.
    #[test]
    fn literal_path_matches_regress() {
        let cases = [
            ("aa", "aaaaa"),
            ("ab", "xxabab ab"),
            ("a/a", "a/a/a/a"),
            ("é", "été é"),
            ("x", "😀x😀x"),
            ("-", "a-b--c"),
            ("needle", "no match here"),
            ("  ", "     "),
        ];
        for (pattern, line) in cases {
            for flags in ["", "u", "m", "su"] {
                let fast = JsRegex::new(pattern, flags).unwrap();
                assert!(fast.literal.is_some(), "{pattern:?} is plain text");
                let slow = JsRegex {
                    literal: None,
                    ..JsRegex::new(pattern, flags).unwrap()
                };
                for limit in [1, 2, 50] {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let na = fast.each_match(line, limit, |m| a.push((m.column, m.text)));
                    let nb = slow.each_match(line, limit, |m| b.push((m.column, m.text)));
                    assert_eq!((na, &a), (nb, &b), "{pattern:?} /{flags}/ on {line:?}");
                }
            }
        }
        // An astral character in the pattern: JavaScript finds it with and without `u`
        // ("a😀x😀😀x".matchAll(/😀x/g) → indices 1 and 6); regress without `u` does not.
        for flags in ["", "u"] {
            let mut found = Vec::new();
            JsRegex::new("😀x", flags)
                .unwrap()
                .each_match("a😀x😀😀x", 50, |m| found.push((m.column, m.text)));
            assert_eq!(found, [(2, text("😀x")), (7, text("😀x"))], "/{flags}/");
        }
        for not_plain in [
            "a.b", "a|b", "(a)", "a\\b", "x*", "[a]", "a{2}", "^a", "a$", "a?", "a+",
        ] {
            assert!(
                JsRegex::new(not_plain, "").unwrap().literal.is_none(),
                "{not_plain:?}"
            );
        }
        assert!(JsRegex::new("abc", "i").unwrap().literal.is_none());
    }

    fn all(pattern: &str, flags: &str, line: &str) -> Vec<(u64, MatchText)> {
        let re = JsRegex::new(pattern, flags).unwrap();
        let mut out = Vec::new();
        re.each_match(line, 50, |m| out.push((m.column, m.text)));
        out
    }

    fn text(s: &str) -> MatchText {
        MatchText::Text(s.to_string())
    }

    #[test]
    fn literal_and_columns_in_code_units() {
        assert_eq!(
            all("TODO", "", "😀TODO é TODO"),
            [(3, text("TODO")), (10, text("TODO"))]
        );
        assert_eq!(all("é", "", "aé é"), [(2, text("é")), (4, text("é"))]);
        assert_eq!(all("x", "", ""), []);
    }

    #[test]
    fn empty_matches_advance_one_unit() {
        assert_eq!(
            all("x*", "", "axb"),
            [(1, text("")), (2, text("x")), (3, text("")), (4, text(""))]
        );
        assert_eq!(all("^", "", ""), [(1, text(""))]);
        // Without `u`, positions step through both halves of a pair.
        assert_eq!(
            all("(?:)", "", "😀a"),
            [(1, text("")), (2, text("")), (3, text("")), (4, text(""))]
        );
    }

    #[test]
    fn unicode_empty_match_before_astral_repeats_like_upstream() {
        let re = JsRegex::new("x*", "u").unwrap();
        let mut columns = Vec::new();
        let n = re.each_match("a😀", 6, |m| columns.push(m.column));
        assert_eq!(n, 6);
        assert_eq!(columns, [1, 2, 2, 2, 2, 2]);
    }

    #[test]
    fn code_unit_matching_without_u() {
        assert_eq!(
            all(".", "", "😀"),
            [
                (1, MatchText::Units(vec![0xD83D])),
                (2, MatchText::Units(vec![0xDE00]))
            ]
        );
        assert_eq!(all(".", "u", "😀"), [(1, text("😀"))]);
        assert_eq!(
            all("\\uDE00", "", "😀"),
            [(2, MatchText::Units(vec![0xDE00]))]
        );
        assert_eq!(all("\\uDE00", "u", "😀"), []);
        assert_eq!(all("[^a]", "u", "😀"), [(1, text("😀"))]);
    }

    #[test]
    fn javascript_features() {
        assert_eq!(all("(?<=foo )TODO", "", "foo TODO"), [(5, text("TODO"))]);
        assert_eq!(all("(?<w>O)\\k<w>", "i", "foo TODO"), [(2, text("oo"))]);
        assert_eq!(all("(a)\\1", "", "xaa"), [(2, text("aa"))]);
        assert_eq!(all("^b", "m", "ab"), []);
        assert_eq!(all("a.c", "s", "a\u{2028}c"), [(1, text("a\u{2028}c"))]);
        assert_eq!(all("a.c", "", "a\u{2028}c"), []);
        assert_eq!(all("\\p{Lu}", "u", "aB"), [(2, text("B"))]);
        assert_eq!(all("ſ", "iu", "S"), [(1, text("S"))]);
        // Known deviation (README): without `u`, regress lets `i` equate ſ/ı with S/I, which
        // JavaScript's legacy canonicalisation does not.
        assert_eq!(all("ſ", "i", "S"), [(1, text("S"))]);
    }

    #[test]
    fn engine_messages() {
        let message = |p: &str, f: &str| JsRegex::new(p, f).err().unwrap();
        assert_eq!(message("(", ""), "Invalid regular expression: missing )");
        assert_eq!(
            message("a{2,1}", ""),
            "Invalid regular expression: numbers out of order in {} quantifier"
        );
        assert_eq!(
            message("\\p{Foo}", "u"),
            "Invalid regular expression: invalid property expression"
        );
        assert_eq!(
            message(")", ""),
            "Invalid regular expression: unmatched parentheses"
        );
        assert!(
            JsRegex::new("\\p{Foo}", "").is_ok(),
            "Annex B: literal p{{Foo}}"
        );
    }

    #[test]
    fn lone_surrogates_serialise_as_escapes() {
        let json = serde_json::to_string(&MatchText::Units(vec![0x61, 0xD83D, 0x22])).unwrap();
        assert_eq!(json, "\"a\\ud83d\\\"\"");
        let json = serde_json::to_string(&text("a\"b")).unwrap();
        assert_eq!(json, "\"a\\\"b\"");
    }
}
