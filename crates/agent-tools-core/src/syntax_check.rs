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
pub fn new_errors(
    path: &Path,
    shown: &str,
    old: Option<&[u8]>,
    new: &[u8],
    trees: &Trees,
) -> Vec<Diagnostic> {
    let Some(lang) = language_of(path) else {
        return Vec::new();
    };
    let Some(new_tree) = trees.parse(path, lang, old, new) else {
        return Vec::new();
    };
    let errors = errors_in(&new_tree, new);
    // the errors from before, while the tree kept for the old content is still there
    let old_errors = match errors.is_empty() {
        true => None,
        false => old.and_then(|old| Some(errors_in(&trees.parse(path, lang, None, old)?, old))),
    };
    trees.keep(path, lang, new, new_tree);
    if errors.is_empty() {
        return Vec::new();
    }
    // Errors that were there before do not count: matched by shape, each used once.
    let mut before: HashMap<(bool, String, String), usize> = HashMap::new();
    if let Some(old_errors) = old_errors {
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

/// The syntax trees of the files checked last, by path, with a hash of the content each was
/// parsed from: the next change of a file reparses only what changed (tree-sitter's incremental
/// parsing), which keeps the check of a small edit to a large file cheap. Bounded to
/// [`KEPT_TREES`] files.
#[derive(Default)]
pub struct Trees {
    kept: std::sync::Mutex<Vec<KeptTree>>,
}

struct KeptTree {
    path: std::path::PathBuf,
    lang: SupportLang,
    hash: u64,
    tree: tree_sitter::Tree,
}

impl std::fmt::Debug for Trees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Trees")
    }
}

/// Files whose trees are kept.
const KEPT_TREES: usize = 32;

impl Trees {
    /// The tree of `source`; `from` is the content the kept tree of `path` may have been parsed
    /// from: when it was, only the changed region is parsed again. `None` when it cannot be
    /// parsed (not UTF-8, out of time).
    fn parse(
        &self,
        path: &Path,
        lang: SupportLang,
        from: Option<&[u8]>,
        source: &[u8],
    ) -> Option<tree_sitter::Tree> {
        std::str::from_utf8(source).ok()?;
        let hash = twox_hash::XxHash3_64::oneshot(source);
        let base = {
            let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            let of = |h: u64| {
                kept.iter()
                    .find(|k| k.path == path && k.lang == lang && k.hash == h)
            };
            if let Some(k) = of(hash) {
                return Some(k.tree.clone());
            }
            from.and_then(|from| {
                let mut tree = of(twox_hash::XxHash3_64::oneshot(from))?.tree.clone();
                tree.edit(&edit_between(from, source));
                Some(tree)
            })
        };
        parse(lang, source, base.as_ref())
    }

    /// Keeps `tree` as the tree of `path` with content `source`.
    fn keep(&self, path: &Path, lang: SupportLang, source: &[u8], tree: tree_sitter::Tree) {
        let hash = twox_hash::XxHash3_64::oneshot(source);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|k| k.path != path);
        if kept.len() >= KEPT_TREES {
            kept.remove(0);
        }
        kept.push(KeptTree {
            path: path.to_path_buf(),
            lang,
            hash,
            tree,
        });
    }
}

/// The one edit that turns `old` into `new`: the span between their common prefix and suffix.
fn edit_between(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let point = |text: &[u8], at: usize| {
        let before = &text[..at];
        let row = memchr::memchr_iter(b'\n', before).count();
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        tree_sitter::Point::new(row, at - line_start)
    };
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: old.len() - suffix,
        new_end_byte: new.len() - suffix,
        start_position: point(old, prefix),
        old_end_position: point(old, old.len() - suffix),
        new_end_position: point(new, new.len() - suffix),
    }
}

/// A tree of `source` (from `base`, an edited earlier tree, when given); `None` out of time.
fn parse(
    lang: SupportLang,
    source: &[u8],
    base: Option<&tree_sitter::Tree>,
) -> Option<tree_sitter::Tree> {
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
    parser.parse_with_options(&mut read, base, Some(options))
}

/// Every syntax error of `tree` (of `source`, UTF-8) in document order.
fn errors_in(tree: &tree_sitter::Tree, source: &[u8]) -> Vec<Found> {
    let text = std::str::from_utf8(source).unwrap_or_default();
    let mut found = Vec::new();
    if !tree.root_node().has_error() {
        return found;
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
                return found;
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
            &Trees::default(),
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
        assert!(new_errors(
            Path::new("a.js"),
            "a.js",
            None,
            b"let = \xff;",
            &Trees::default()
        )
        .is_empty());
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
    fn a_kept_tree_gives_the_same_answers_as_a_fresh_parse() {
        let trees = Trees::default();
        let path = Path::new("big.ts");
        let lines: Vec<String> = (0..400)
            .map(|i| format!("export function f{i}(a: number): number {{ return a + {i}; }}"))
            .collect();
        let valid = lines.join("\n") + "\n";
        let broken = valid.replacen("return a + 200;", "return a + ;", 1);
        let fixed = broken.replacen("return a + ;", "return a + 2000;", 1);
        let moved = format!("// a line added above\n{broken}");
        let steps = [
            (None, valid.as_str()),
            (Some(valid.as_str()), broken.as_str()),
            (Some(broken.as_str()), fixed.as_str()),
            (Some(fixed.as_str()), moved.as_str()),
        ];
        for (old, new) in steps {
            let kept = new_errors(
                path,
                "big.ts",
                old.map(str::as_bytes),
                new.as_bytes(),
                &trees,
            );
            let fresh = new_errors(
                path,
                "big.ts",
                old.map(str::as_bytes),
                new.as_bytes(),
                &Trees::default(),
            );
            assert_eq!(kept, fresh);
        }
        // the broken step found its error on the line of the change
        let d = new_errors(
            path,
            "big.ts",
            Some(valid.as_bytes()),
            broken.as_bytes(),
            &trees,
        );
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].line, 201);
    }

    #[test]
    fn the_rejection_lists_each_error() {
        let d = check("src/a.ts", None, "let = ;\n");
        let m = rejection_message(&d);
        assert!(m.contains("src/a.ts:1:"), "{m}");
    }
}
