//! Searching one decoded file: upstream's line split (`\r\n`, lone `\r` and `\n` all end a
//! line; a trailing break leaves a final empty line) and the per-line exec loop, with the
//! prefilter choosing which lines regress sees.

use memchr::memchr2;
use regex::Regex;

use super::matcher::{JsRegex, MatchText};

/// One match in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub line: u64,
    pub column: u64,
    pub text: MatchText,
    pub line_text: String,
}

/// The lines of a text with their 1-based numbers, split without copying.
struct Lines<'a> {
    text: &'a str,
    next_start: usize,
    number: u64,
    done: bool,
}

struct Line<'a> {
    number: u64,
    text: &'a str,
    /// Byte offset of the line's end (its break, or the end of the text).
    end: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            text,
            next_start: 0,
            number: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.done {
            return None;
        }
        let start = self.next_start;
        let bytes = self.text.as_bytes();
        let end = match memchr2(b'\n', b'\r', &bytes[start..]) {
            Some(i) => {
                let end = start + i;
                let crlf = bytes[end] == b'\r' && bytes.get(end + 1) == Some(&b'\n');
                self.next_start = end + if crlf { 2 } else { 1 };
                end
            }
            None => {
                self.done = true;
                bytes.len()
            }
        };
        self.number += 1;
        Some(Line {
            number: self.number,
            text: &self.text[start..end],
            end,
        })
    }
}

/// All matches in `text` (BOM already removed), at most `limit`, in line/column order.
pub fn search_text(
    regex: &JsRegex,
    prefilter: Option<&Regex>,
    text: &str,
    limit: usize,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    let search_line = |line: &Line, hits: &mut Vec<Hit>| {
        let remaining = limit - hits.len();
        regex.each_match(line.text, remaining, |m| {
            hits.push(Hit {
                line: line.number,
                column: m.column,
                text: m.text,
                line_text: line.text.to_string(),
            })
        });
    };
    let mut lines = Lines::new(text);
    match prefilter {
        None => {
            for line in lines {
                if hits.len() >= limit {
                    break;
                }
                search_line(&line, &mut hits);
            }
        }
        Some(prefilter) => {
            // The prefilter is line-local: each of its matches lies within one line, and every
            // line regress can match holds one. Search only those lines.
            let mut from = 0;
            while hits.len() < limit && from <= text.len() {
                let Some(found) = prefilter.find_at(text, from) else {
                    break;
                };
                let Some(line) = lines.by_ref().find(|l| l.end >= found.start()) else {
                    break;
                };
                search_line(&line, &mut hits);
                from = lines.next_start.max(found.end());
                if lines.done {
                    break;
                }
            }
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::super::prefilter;
    use super::*;

    fn positions(pattern: &str, flags: &str, text: &str, with_prefilter: bool) -> Vec<(u64, u64)> {
        let re = JsRegex::new(pattern, flags).unwrap();
        let pf = if with_prefilter {
            prefilter::build(pattern, flags)
        } else {
            None
        };
        search_text(&re, pf.as_ref(), text, 100)
            .into_iter()
            .map(|h| (h.line, h.column))
            .collect()
    }

    #[test]
    fn line_breaks_follow_the_contract() {
        let text = "TODO\r\nx\rTODO\n";
        for pf in [false, true] {
            assert_eq!(positions("TODO", "", text, pf), [(1, 1), (3, 1)]);
        }
        assert_eq!(
            positions("^", "", text, false),
            [(1, 1), (2, 1), (3, 1), (4, 1)]
        );
        assert_eq!(positions("^", "", "", false), [(1, 1)]);
        assert_eq!(
            positions("$", "", "a\n\r\n", false),
            [(1, 2), (2, 1), (3, 1)]
        );
    }

    #[test]
    fn line_text_and_limit() {
        let re = JsRegex::new("o", "").unwrap();
        let hits = search_text(&re, None, "foo\nbar\nzoo", 3);
        assert_eq!(hits.len(), 3);
        assert_eq!(hits[2].line, 3);
        assert_eq!(hits[2].line_text, "zoo");
        assert_eq!(hits[0].text, MatchText::Text("o".into()));
    }

    #[test]
    fn prefilter_and_full_scan_agree() {
        let text = "alpha TODO\nbeta\r\ngamma TODO TODO\rdelta\n\nTODO";
        for (pattern, flags) in [
            ("TODO", ""),
            ("todo", "i"),
            ("T.D", ""),
            ("(?<=a )TODO", ""),
            ("a$", "m"),
            ("[a-d]e", "u"),
            ("\\bTODO\\b", ""),
        ] {
            assert_eq!(
                positions(pattern, flags, text, true),
                positions(pattern, flags, text, false),
                "{pattern}"
            );
        }
    }
}
