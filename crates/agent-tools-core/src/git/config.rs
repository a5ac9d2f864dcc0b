//! A reader of git's configuration file syntax, strict: whatever it does not understand is an
//! error, so a file that could hide a setting from it is refused rather than half-read.
//!
//! Only values are taken from what it reads; git itself never sees the repository's files (the
//! private git directory of `super`), so a file git would read differently cannot name a program.

/// One `section[.subsection].key[=value]` entry; section and key lower-cased as git compares them,
/// the subsection as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub section: String,
    pub subsection: Option<String>,
    pub key: String,
    /// `None` for a bare key (`[core] bare`), which git reads as boolean true.
    pub value: Option<String>,
}

impl Entry {
    /// `section.subsection.key` as git's command-scope configuration takes it.
    pub fn name(&self) -> String {
        match &self.subsection {
            Some(sub) => format!("{}.{sub}.{}", self.section, self.key),
            None => format!("{}.{}", self.section, self.key),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad config line {line}")]
pub struct ParseError {
    pub line: usize,
}

/// Parses a whole file (a leading UTF-8 byte-order mark is skipped, as git skips it).
pub fn parse(text: &str) -> Result<Vec<Entry>, ParseError> {
    let mut parser = Parser {
        chars: text
            .strip_prefix('\u{feff}')
            .unwrap_or(text)
            .chars()
            .collect(),
        at: 0,
        line: 1,
    };
    parser.file()
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    line: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// The next character of this line (a newline is left for the caller).
    fn bump_inline(&mut self) -> Option<char> {
        match self.peek() {
            Some('\n') | None => None,
            Some(_) => self.bump(),
        }
    }

    fn error(&self) -> ParseError {
        ParseError { line: self.line }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
    }

    fn skip_comment(&mut self) {
        while !matches!(self.peek(), None | Some('\n')) {
            self.bump();
        }
    }

    fn file(&mut self) -> Result<Vec<Entry>, ParseError> {
        let mut entries = Vec::new();
        let mut section: Option<(String, Option<String>)> = None;
        loop {
            self.skip_blanks();
            match self.peek() {
                None => return Ok(entries),
                Some('\n') => {
                    self.bump();
                }
                Some('#' | ';') => self.skip_comment(),
                Some('[') => {
                    self.bump();
                    section = Some(self.section_header()?);
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    let (name, sub) = section.clone().ok_or_else(|| self.error())?;
                    let key = self.key();
                    self.skip_blanks();
                    let value = match self.peek() {
                        None | Some('\n') => None,
                        Some('#' | ';') => {
                            self.skip_comment();
                            None
                        }
                        Some('=') => {
                            self.bump();
                            Some(self.value()?)
                        }
                        Some(_) => return Err(self.error()),
                    };
                    entries.push(Entry {
                        section: name,
                        subsection: sub,
                        key,
                        value,
                    });
                }
                Some(_) => return Err(self.error()),
            }
        }
    }

    /// After `[`: `section]`, `section "sub"]` or the old `section.sub]` (sub lower-cased).
    fn section_header(&mut self) -> Result<(String, Option<String>), ParseError> {
        let mut name = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                name.push(c.to_ascii_lowercase());
                self.bump();
            } else {
                break;
            }
        }
        match self.bump_inline() {
            Some(']') => {
                if name.is_empty() {
                    return Err(self.error());
                }
                Ok(match name.split_once('.') {
                    Some((section, sub)) if !section.is_empty() => {
                        (section.to_string(), Some(sub.to_string()))
                    }
                    Some(_) => return Err(self.error()),
                    None => (name, None),
                })
            }
            Some(' ' | '\t') if !name.is_empty() && !name.contains('.') => {
                self.skip_blanks();
                if self.bump_inline() != Some('"') {
                    return Err(self.error());
                }
                let mut sub = String::new();
                loop {
                    match self.bump_inline() {
                        None => return Err(self.error()),
                        Some('"') => break,
                        Some('\\') => match self.bump_inline() {
                            None => return Err(self.error()),
                            Some(c) => sub.push(c),
                        },
                        Some(c) => sub.push(c),
                    }
                }
                if self.bump_inline() != Some(']') {
                    return Err(self.error());
                }
                Ok((name, Some(sub)))
            }
            _ => Err(self.error()),
        }
    }

    fn key(&mut self) -> String {
        let mut key = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '-' {
                key.push(c.to_ascii_lowercase());
                self.bump();
            } else {
                break;
            }
        }
        key
    }

    /// After `=`: quotes, the escapes `\n \t \b \\ \"`, `\` at a line's end continuing it;
    /// unquoted blanks at either end dropped, a comment ending it.
    fn value(&mut self) -> Result<String, ParseError> {
        self.skip_blanks();
        let mut value = String::new();
        // Length of `value` up to its last character that must be kept (quoted or not a blank).
        let mut kept = 0;
        let mut quoted = false;
        loop {
            match self.peek() {
                None | Some('\n') if !quoted => break,
                None | Some('\n') => return Err(self.error()),
                Some('#' | ';') if !quoted => {
                    self.skip_comment();
                    break;
                }
                Some('"') => {
                    self.bump();
                    quoted = !quoted;
                }
                Some('\\') => {
                    self.bump();
                    if self.peek() == Some('\n') {
                        self.bump();
                        continue;
                    }
                    let c = match self.bump_inline() {
                        Some('\r') if self.peek() == Some('\n') => {
                            self.bump();
                            continue;
                        }
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some('b') => '\u{8}',
                        Some(c @ ('\\' | '"')) => c,
                        _ => return Err(self.error()),
                    };
                    value.push(c);
                    kept = value.len();
                }
                Some(c) => {
                    self.bump();
                    if c == '\r' && !quoted && self.peek() == Some('\n') {
                        continue;
                    }
                    value.push(c);
                    if quoted || !matches!(c, ' ' | '\t') {
                        kept = value.len();
                    }
                }
            }
        }
        value.truncate(kept);
        Ok(value)
    }
}

/// git's boolean: `None` for a word it does not take as one.
pub fn parse_bool(value: Option<&str>) -> Option<bool> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("true" | "yes" | "on" | "1") => Some(true),
        Some("false" | "no" | "off" | "0" | "") => Some(false),
        Some(other) => other.parse::<i64>().ok().map(|n| n != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, Option<String>)> {
        parse(text)
            .unwrap()
            .into_iter()
            .map(|e| (e.name(), e.value))
            .collect()
    }

    fn pair(name: &str, value: Option<&str>) -> (String, Option<String>) {
        (name.to_string(), value.map(String::from))
    }

    #[test]
    fn sections_keys_and_values() {
        let text = "\u{feff}# comment\n[Core]\n\tBare = false\n\tfilemode\n[remote \"Or\\\"ig\"]\n\
                    url = x ; trailing\n[branch.Main] merge = refs/heads/main\n\
                    [a] k = \"  spaced \"  # c\n[a] v = one\\\n two\n[a] e = a\\tb\\\\c\\\"d\n";
        assert_eq!(
            names(text),
            vec![
                pair("core.bare", Some("false")),
                pair("core.filemode", None),
                pair("remote.Or\"ig.url", Some("x")),
                pair("branch.main.merge", Some("refs/heads/main")),
                pair("a.k", Some("  spaced ")),
                pair("a.v", Some("one two")),
                pair("a.e", Some("a\tb\\c\"d")),
            ]
        );
    }

    #[test]
    fn crlf_and_empty_values() {
        assert_eq!(
            names("[core]\r\n\tautocrlf = true\r\n\tx =\r\n"),
            vec![
                pair("core.autocrlf", Some("true")),
                pair("core.x", Some(""))
            ]
        );
    }

    #[test]
    fn what_it_does_not_understand_is_an_error() {
        for (text, line) in [
            ("key = 1\n", 1),
            ("[core\n", 1),
            ("[core]\n\tk = \"open\n", 2),
            ("[core]\n\tk = bad\\q\n", 2),
            ("[core]\n\t9k = 1\n", 2),
            ("[core]\n\tk ! 1\n", 2),
            ("[a \"b]\n", 1),
            ("[.x]\n", 1),
            ("[]\n", 1),
            ("[a]\n\n\u{0}\n", 3),
        ] {
            assert_eq!(parse(text), Err(ParseError { line }), "{text:?}");
        }
    }

    #[test]
    fn booleans() {
        for (v, b) in [
            (None, Some(true)),
            (Some("Yes"), Some(true)),
            (Some("off"), Some(false)),
            (Some(""), Some(false)),
            (Some("2"), Some(true)),
            (Some("0"), Some(false)),
            (Some("maybe"), None),
        ] {
            assert_eq!(parse_bool(v), b, "{v:?}");
        }
    }
}
