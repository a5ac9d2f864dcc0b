//! The syntax check after edits (`createAgentToolkit(ctx, { syntaxCheck })`): a file in a
//! language this build's tree-sitter grammars know (`ast_grep_language::SupportLang`, chosen by
//! its extension) is parsed after the change, and the syntax errors it did not have before are
//! reported (`"report"`: the result's `diagnostics`) or make the change fail (`"reject"`:
//! `SYNTAX_ERROR`, the file untouched).
//!
//! An error counts as new when the file before the change had fewer errors of the same shape:
//! the same kind (an unexpected token or a missing one), the same text and the same source line
//! (trimmed). Lines move when code is added above them, so positions are not compared.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use ast_grep_core::Language;
use ast_grep_language::{LanguageExt, SupportLang};
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

/// What the toolkit does with the new syntax errors of an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxMode {
    /// The result carries `diagnostics`.
    Report,
    /// The change is refused with `SYNTAX_ERROR`.
    Reject,
}

impl SyntaxMode {
    pub fn parse(value: &str) -> Option<SyntaxMode> {
        match value {
            "report" => Some(SyntaxMode::Report),
            "reject" => Some(SyntaxMode::Reject),
            _ => None,
        }
    }
}

/// One syntax error: where it is (1-based line and column, the column counted in bytes) and
/// what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct Diagnostic {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// At most this many diagnostics per file: one broken bracket can make dozens.
const MAX_PER_FILE: usize = 20;
/// A parse that takes longer than this gives up (no diagnostics): the check never holds an edit
/// for long.
const PARSE_BUDGET: Duration = Duration::from_secs(2);

/// The language of `path` when the build has a grammar for it.
pub fn language_of(path: &Path) -> Option<SupportLang> {
    SupportLang::from_path(path)
}

/// The syntax errors `new` has and `old` had not (`old`: `None` for a file created), shown as
/// `shown` (the workspace-relative path). Empty for a language without a grammar, a file that is
/// not UTF-8, or a parse that ran out of time.
pub fn new_errors(path: &Path, shown: &str, old: Option<&[u8]>, new: &[u8]) -> Vec<Diagnostic> {
    let Some(lang) = language_of(path) else {
        return Vec::new();
    };
    let Some(errors) = errors_of(lang, new) else {
        return Vec::new();
    };
    if errors.is_empty() {
        return Vec::new();
    }
    // Errors that were there before do not count: matched by shape, each used once.
    let mut before: HashMap<(bool, String, String), usize> = HashMap::new();
    if let Some(old_errors) = old.and_then(|old| errors_of(lang, old)) {
        for e in old_errors {
            *before.entry(e.key).or_default() += 1;
        }
    }
    errors
        .into_iter()
        .filter(|e| match before.get_mut(&e.key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .take(MAX_PER_FILE)
        .map(|e| Diagnostic {
            path: shown.to_string(),
            line: e.line,
            column: e.column,
            message: e.message,
        })
        .collect()
}

struct Found {
    /// (missing, the error's text, its line trimmed)
    key: (bool, String, String),
    line: u32,
    column: u32,
    message: String,
}

/// Every syntax error of `source` in document order; `None` when it cannot be parsed (not UTF-8,
/// out of time).
fn errors_of(lang: SupportLang, source: &[u8]) -> Option<Vec<Found>> {
    let text = std::str::from_utf8(source).ok()?;
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.get_ts_language()).ok()?;
    let deadline = Instant::now() + PARSE_BUDGET;
    let mut read = |offset: usize, _: tree_sitter::Point| source.get(offset..).unwrap_or_default();
    let mut progress = |_: &tree_sitter::ParseState| {
        if Instant::now() > deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(&mut read, None, Some(options))?;
    let mut found = Vec::new();
    if !tree.root_node().has_error() {
        return Some(found);
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let mut cursor = tree.walk();
    // Depth first; an ERROR node is reported once, without what lies inside it.
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_error() || node.is_missing() {
            let start = node.start_position();
            let line_text = lines.get(start.row).map_or("", |l| l.trim()).to_string();
            let (missing, snippet, message) = if node.is_missing() {
                let kind = node.kind().to_string();
                (true, kind.clone(), format!("missing `{kind}`"))
            } else {
                let snippet = snippet_of(&text[node.byte_range()]);
                let message = if snippet.is_empty() {
                    "syntax error".to_string()
                } else {
                    format!("unexpected `{snippet}`")
                };
                (false, snippet, message)
            };
            found.push(Found {
                key: (missing, snippet, line_text),
                line: start.row as u32 + 1,
                column: start.column as u32 + 1,
                message,
            });
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Some(found);
            }
        }
    }
}

/// The first line of an error's text, at most 40 characters.
fn snippet_of(text: &str) -> String {
    let first = text.trim().lines().next().unwrap_or("");
    match first.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &first[..at]),
        None => first.to_string(),
    }
}

/// The message of a change refused for its new errors.
pub fn rejection_message(diagnostics: &[Diagnostic]) -> String {
    let listed: Vec<String> = diagnostics
        .iter()
        .map(|d| format!("{}:{}:{}: {}", d.path, d.line, d.column, d.message))
        .collect();
    format!(
        "the change adds syntax errors, the file is left as it was: {}",
        listed.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, old: Option<&str>, new: &str) -> Vec<Diagnostic> {
        new_errors(
            Path::new(name),
            name,
            old.map(str::as_bytes),
            new.as_bytes(),
        )
    }

    #[test]
    fn a_new_error_is_found_with_its_place() {
        let d = check(
            "a.ts",
            Some("const a = 1;\n"),
            "const a = 1;\nfunction f( {\n",
        );
        assert!(!d.is_empty(), "{d:?}");
        assert_eq!(d[0].path, "a.ts");
        assert_eq!(d[0].line, 2, "{d:?}");
        let d = check("a.py", None, "def f(:\n  pass\n");
        assert!(!d.is_empty());
        assert_eq!(d[0].line, 1);
    }

    #[test]
    fn clean_code_and_unknown_languages_give_nothing() {
        assert!(check("a.ts", None, "export const x: number = 1;\n").is_empty());
        assert!(check("a.rs", None, "fn main() { println!(\"hi\"); }\n").is_empty());
        assert!(check("notes.txt", None, "function f( {").is_empty());
        assert!(new_errors(Path::new("a.js"), "a.js", None, b"let = \xff;").is_empty());
    }

    #[test]
    fn errors_that_were_there_do_not_count_even_when_lines_move() {
        let old = "let a = 1 +;\nlet b = 2;\n";
        let new = "// a comment added above\n\nlet a = 1 +;\nlet b = 2;\n";
        assert_eq!(check("a.js", Some(old), new), vec![]);
        // ... but a second error of its own does
        let newer = format!("{new}let c = ];\n");
        let d = check("a.js", Some(old), &newer);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].line, d[0].column), (5, 7), "{d:?}");
        assert_eq!(d[0].message, "unexpected `= ]`");
    }

    #[test]
    fn a_missing_token_is_named() {
        let d = check("a.rs", None, "fn main() { let x = 1 }\n");
        assert!(d.iter().any(|d| d.message.starts_with("missing")), "{d:?}");
    }

    #[test]
    fn the_rejection_lists_each_error() {
        let d = check("src/a.ts", None, "let = ;\n");
        let m = rejection_message(&d);
        assert!(m.contains("src/a.ts:1:"), "{m}");
    }
}
