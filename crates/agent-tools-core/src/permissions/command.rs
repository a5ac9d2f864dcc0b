//! A command line split into the simple commands it runs, for permission rules.
//!
//! exec_command and process_start take a token list. Before a rule is matched it is taken apart:
//! - separator tokens (`;`, `&&`, `||`, `|`, `&`, `|&`, and a token ending in `;`) split it;
//! - leading `NAME=value` assignments and the wrappers `env`, `nice`, `timeout`, `xargs`,
//!   `nohup`, `exec`, `time`, `setsid`, `stdbuf` and `command` are seen through;
//! - shell scripts (`sh -c`, `bash -lc`, `zsh -c`…) are parsed with tree-sitter-bash: lists,
//!   pipelines, subshells, `{ …; }` groups, `!` and redirections to fixed files are followed;
//!   `cmd /c` and `pwsh -Command` lines are split on their own separators;
//! - `find … -exec cmd ;` gives `cmd` as a command of its own;
//! - a program named by a path is matched by its name (`/bin/rm` is `rm`; `rm.exe` is `rm`).
//!
//! What cannot be seen through makes the whole command [`Split::Opaque`]: command or process
//! substitution, variables and other expansions, here-documents, `eval`, `source`, control flow,
//! a shell that reads its script from stdin, inline code of an interpreter (`python -c`,
//! `node -e`…), `git -c`, `sudo`, and anything nested deeper than [`MAX_DEPTH`].

use std::path::Path;

/// Wrappers inside wrappers, scripts inside scripts: deeper is opaque.
const MAX_DEPTH: usize = 8;

const SEPARATORS: [&str; 6] = [";", "&&", "||", "|", "&", "|&"];

/// One simple command: its words, the program by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub words: Vec<String>,
}

impl Part {
    /// The program (by its name) and its arguments.
    fn named(program: String, args: &[String]) -> Part {
        Part {
            words: std::iter::once(program)
                .chain(args.iter().cloned())
                .collect(),
        }
    }

    /// The words joined by single spaces, as rules are matched.
    pub fn text(&self) -> String {
        self.words.join(" ")
    }

    /// `cd`, `pushd`, `popd`: they change no file, so an unmatched one does not keep a command
    /// from being allowed.
    pub fn is_neutral(&self) -> bool {
        matches!(
            self.words.first().map(String::as_str),
            Some("cd" | "pushd" | "popd")
        )
    }
}

/// What a command line runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    Parts(Vec<Part>),
    /// It cannot be seen through; why.
    Opaque(String),
}

/// The simple commands of a token list (exec_command's `command`).
pub fn split(tokens: &[String]) -> Split {
    let mut parts = Vec::new();
    match token_list(tokens, 0, &mut parts) {
        Ok(()) => Split::Parts(parts),
        Err(why) => Split::Opaque(why),
    }
}

type Found = Result<(), String>;

fn token_list(tokens: &[String], depth: usize, parts: &mut Vec<Part>) -> Found {
    if depth > MAX_DEPTH {
        return Err("nested too deep".into());
    }
    let mut segment: Vec<String> = Vec::new();
    for token in tokens {
        if SEPARATORS.contains(&token.as_str()) {
            simple(&std::mem::take(&mut segment), depth, parts)?;
        } else if let Some(head) = token.strip_suffix(';').filter(|h| !h.ends_with('\\')) {
            if !head.is_empty() {
                segment.push(head.to_string());
            }
            simple(&std::mem::take(&mut segment), depth, parts)?;
        } else {
            segment.push(token.clone());
        }
    }
    simple(&segment, depth, parts)
}

/// A program's name as rules use it: the last path component, without a Windows executable
/// suffix (`C:\Windows\System32\CMD.EXE` → `cmd`).
fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    let lower = base.to_ascii_lowercase();
    for suffix in [".exe", ".cmd", ".bat", ".com"] {
        if let Some(stem) = lower.strip_suffix(suffix) {
            return stem.to_string();
        }
    }
    if base.len() != word.len() || Path::new(word).is_absolute() {
        base.to_string()
    } else {
        word.to_string()
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Skips a wrapper's options: `with_value` take the next word (or `--opt=value`), `flags` none;
/// anything else starting with `-` is unknown, and opaque. Returns the index of the first
/// operand.
fn skip_options(
    words: &[String],
    from: usize,
    with_value: &[&str],
    flags: &[&str],
) -> Result<usize, String> {
    let mut i = from;
    while let Some(word) = words.get(i) {
        if word == "--" {
            return Ok(i + 1);
        }
        if !word.starts_with('-') || word == "-" {
            return Ok(i);
        }
        let name = word.split_once('=').map_or(word.as_str(), |(n, _)| n);
        if flags.contains(&name) {
            i += 1;
        } else if with_value.contains(&name) {
            i += if word.contains('=') { 1 } else { 2 };
        } else if with_value.iter().any(|o| {
            o.len() == 2 && word.len() > 2 && word.starts_with(*o) && !word.starts_with("--")
        }) {
            // `-n10`: a short option with its value attached
            i += 1;
        } else {
            return Err(format!("{} option {word} is not known", words[0]));
        }
    }
    Ok(i)
}

const SHELLS: [&str; 8] = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

/// Interpreters and the options after which their argument is code.
const INLINE_CODE: [(&str, &[&str]); 13] = [
    ("python", &["-c"]),
    ("python3", &["-c"]),
    ("python2", &["-c"]),
    ("node", &["-e", "-p", "--eval", "--print"]),
    ("nodejs", &["-e", "-p", "--eval", "--print"]),
    ("bun", &["-e", "-p", "--eval", "--print"]),
    ("deno", &["eval"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("osascript", &["-e"]),
    ("awk", &["system"]),
];

fn simple(segment: &[String], depth: usize, parts: &mut Vec<Part>) -> Found {
    if depth > MAX_DEPTH {
        return Err("nested too deep".into());
    }
    let start = segment.iter().take_while(|w| is_assignment(w)).count();
    let words = &segment[start..];
    let Some(first) = words.first() else {
        return Ok(());
    };
    let name = program_name(first);
    let mut rest = |i: usize| -> Found {
        if i >= words.len() {
            parts.push(Part {
                words: vec![name.clone()],
            });
            Ok(())
        } else {
            simple(&words[i..], depth + 1, parts)
        }
    };
    match name.as_str() {
        "env" => {
            let i = skip_options(
                words,
                1,
                &["-u", "--unset", "-C", "--chdir"],
                &[
                    "-i",
                    "--ignore-environment",
                    "-0",
                    "--null",
                    "-v",
                    "--debug",
                ],
            )?;
            rest(i)
        }
        "nice" => {
            let mut i = 1;
            if words.get(1).is_some_and(|w| {
                w.len() > 1 && w.starts_with('-') && w[1..].chars().all(|c| c.is_ascii_digit())
            }) {
                i = 2;
            }
            rest(skip_options(words, i, &["-n", "--adjustment"], &[])?)
        }
        "timeout" => {
            let i = skip_options(
                words,
                1,
                &["-s", "--signal", "-k", "--kill-after"],
                &["--preserve-status", "--foreground", "-v", "--verbose"],
            )?;
            // the duration, then the command
            if i + 1 >= words.len() {
                return rest(words.len());
            }
            rest(i + 1)
        }
        "xargs" => {
            let i = skip_options(
                words,
                1,
                &[
                    "-I",
                    "-n",
                    "-P",
                    "-d",
                    "-L",
                    "-s",
                    "-E",
                    "-a",
                    "--arg-file",
                    "--delimiter",
                    "--max-args",
                    "--max-procs",
                    "--max-lines",
                    "--max-chars",
                    "--eof",
                    "--replace",
                ],
                &[
                    "-0",
                    "--null",
                    "-r",
                    "--no-run-if-empty",
                    "-t",
                    "--verbose",
                    "-p",
                    "--interactive",
                    "-x",
                    "--exit",
                    "-i",
                    "-l",
                    "-e",
                    "--open-tty",
                    "-o",
                ],
            )?;
            if i >= words.len() {
                // xargs runs echo by default
                parts.push(Part {
                    words: vec!["echo".into()],
                });
                return Ok(());
            }
            rest(i)
        }
        "nohup" | "setsid" | "time" => {
            let i = skip_options(
                words,
                1,
                &[],
                &["-f", "--fork", "-w", "--wait", "-c", "--ctty", "-p", "-v"],
            )?;
            rest(i)
        }
        "exec" => {
            if words.len() == 1 {
                return Err("exec without a command".into());
            }
            rest(skip_options(words, 1, &["-a"], &["-c", "-l"])?)
        }
        "stdbuf" => rest(skip_options(
            words,
            1,
            &["-i", "-o", "-e", "--input", "--output", "--error"],
            &[],
        )?),
        "command" => {
            if words.get(1).is_some_and(|w| w == "-v" || w == "-V") {
                parts.push(Part::named(name.clone(), &words[1..]));
                return Ok(());
            }
            rest(skip_options(words, 1, &[], &["-p"])?)
        }
        "eval" | "source" | "." | "sudo" | "doas" | "su" | "runuser" | "pkexec" => {
            Err(format!("{name} runs what cannot be seen"))
        }
        "find" => {
            let mut plain = vec![name.clone()];
            let mut i = 1;
            while i < words.len() {
                let word = &words[i];
                if matches!(word.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let end = words[i + 1..]
                        .iter()
                        .position(|w| w == ";" || w == "+" || w == "\\;")
                        .map_or(words.len(), |p| i + 1 + p);
                    simple(&words[i + 1..end], depth + 1, parts)?;
                    plain.push(word.clone());
                    i = end + 1;
                } else {
                    plain.push(word.clone());
                    i += 1;
                }
            }
            parts.push(Part { words: plain });
            Ok(())
        }
        "git" => {
            if words[1..]
                .iter()
                .any(|w| w == "-c" || w.starts_with("--config-env") || w.starts_with("--exec-path"))
            {
                return Err("git -c can make git run any program".into());
            }
            parts.push(Part::named(name.clone(), &words[1..]));
            Ok(())
        }
        "cmd" => cmd_line(words, depth, parts),
        "pwsh" | "powershell" => powershell(words, depth, parts),
        shell if SHELLS.contains(&shell) => shell_command(&name, words, depth, parts),
        _ => {
            if let Some((_, options)) = INLINE_CODE.iter().find(|(n, _)| {
                *n == name || (n.starts_with("python") && name.starts_with("python3."))
            }) {
                if words[1..].iter().any(|w| {
                    options.contains(&w.as_str())
                        || options
                            .iter()
                            .any(|o| o.len() == 2 && o.starts_with('-') && w.starts_with(o))
                        || (name == "awk" && w.contains("system"))
                }) {
                    return Err(format!("{name} runs inline code"));
                }
            }
            parts.push(Part::named(name.clone(), &words[1..]));
            Ok(())
        }
    }
}

/// `sh -c SCRIPT`, `bash -lc SCRIPT`, `bash --login -c SCRIPT`; `sh FILE` runs a file (matched
/// as it is); a shell that reads stdin is opaque.
fn shell_command(name: &str, words: &[String], depth: usize, parts: &mut Vec<Part>) -> Found {
    let mut takes_command = false;
    let mut i = 1;
    while let Some(word) = words.get(i) {
        if word == "--" {
            i += 1;
            break;
        }
        if word == "-o"
            || word == "+o"
            || word == "-O"
            || word == "+O"
            || word == "--rcfile"
            || word == "--init-file"
        {
            i += 2;
            continue;
        }
        if word == "--command" {
            takes_command = true;
            i += 1;
            continue;
        }
        if word.starts_with("--") {
            i += 1;
            continue;
        }
        if (word.starts_with('-') || word.starts_with('+')) && word.len() > 1 {
            if word[1..].contains('c') {
                takes_command = true;
            }
            if word[1..].contains('s') && !takes_command {
                return Err(format!("{name} -s reads its script from stdin"));
            }
            i += 1;
            continue;
        }
        break;
    }
    match words.get(i) {
        Some(script) if takes_command => script_parts(script, depth + 1, parts),
        Some(_) => {
            parts.push(Part::named(name.to_string(), &words[i..]));
            Ok(())
        }
        None => Err(format!("{name} reads its script from stdin")),
    }
}

/// A POSIX shell script, parsed with tree-sitter-bash.
fn script_parts(script: &str, depth: usize, parts: &mut Vec<Part>) -> Found {
    if depth > MAX_DEPTH {
        return Err("nested too deep".into());
    }
    use ast_grep_language::LanguageExt;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&ast_grep_language::SupportLang::Bash.get_ts_language())
        .map_err(|e| e.to_string())?;
    let tree = parser
        .parse(script, None)
        .ok_or_else(|| "the script does not parse".to_string())?;
    let root = tree.root_node();
    if root.has_error() {
        return Err("the script does not parse".into());
    }
    statement(root, script.as_bytes(), depth, parts)
}

fn statement(node: tree_sitter::Node, src: &[u8], depth: usize, parts: &mut Vec<Part>) -> Found {
    match node.kind() {
        "program" | "list" | "pipeline" | "subshell" | "compound_statement" | "negated_command" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                statement(child, src, depth, parts)?;
            }
            Ok(())
        }
        "comment" => Ok(()),
        "redirected_statement" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "file_redirect" => redirect(child, src)?,
                    _ if Some(child) == node.child_by_field_name("body") => {
                        statement(child, src, depth, parts)?
                    }
                    other => return Err(format!("{other} cannot be seen through")),
                }
            }
            Ok(())
        }
        "variable_assignment" => assignment(node, src),
        "command" => {
            let mut words = Vec::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "variable_assignment" => assignment(child, src)?,
                    "file_redirect" => redirect(child, src)?,
                    "command_name" => {
                        let name = child
                            .named_child(0)
                            .and_then(|n| fixed_text(n, src))
                            .ok_or_else(|| "the command's name is not fixed text".to_string())?;
                        if name.contains(['*', '?', '[']) {
                            return Err("the command's name is a pattern".into());
                        }
                        words.push(name);
                    }
                    _ => words.push(
                        fixed_text(child, src)
                            .ok_or_else(|| format!("{} is not fixed text", child.kind()))?,
                    ),
                }
            }
            simple(&words, depth + 1, parts)
        }
        other => Err(format!("{other} cannot be seen through")),
    }
}

fn assignment(node: tree_sitter::Node, src: &[u8]) -> Found {
    match node.child_by_field_name("value") {
        None => Ok(()),
        Some(value) => fixed_text(value, src)
            .map(drop)
            .ok_or_else(|| "an assignment of a computed value".to_string()),
    }
}

/// `> file`, `2>&1`, `< file`: the target must be fixed text.
fn redirect(node: tree_sitter::Node, src: &[u8]) -> Found {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() != "file_descriptor" && fixed_text(child, src).is_none() {
            return Err("a redirection to a computed target".into());
        }
    }
    Ok(())
}

/// The text a word stands for when it is fixed: quotes removed, escapes applied; `None` when
/// it expands anything.
fn fixed_text(node: tree_sitter::Node, src: &[u8]) -> Option<String> {
    let text = node.utf8_text(src).ok()?;
    match node.kind() {
        "word" | "number" => Some(unescape(text, |_| true)),
        "raw_string" => Some(text.strip_prefix('\'')?.strip_suffix('\'')?.to_string()),
        "string" => {
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content")
            {
                return None;
            }
            let inner = text.strip_prefix('"')?.strip_suffix('"')?;
            Some(unescape(inner, |c| {
                matches!(c, '"' | '\\' | '$' | '`' | '\n')
            }))
        }
        "concatenation" => {
            let mut cursor = node.walk();
            let mut out = String::new();
            for child in node.named_children(&mut cursor) {
                out.push_str(&fixed_text(child, src)?);
            }
            // an unnamed piece (a bare `$`…) is not fixed
            (node.child_count() as u64 == node.named_child_count() as u64).then_some(out)
        }
        _ => None,
    }
}

/// Backslash escapes removed where `escapes(c)` says the backslash quotes `c`.
fn unescape(text: &str, escapes: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next) if escapes(next) => {
                    out.push(next);
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `cmd /c LINE`: split on `&`, `&&`, `||` and `|`; `%VAR%`, `!VAR!`, `^` escapes and
/// parentheses are opaque.
fn cmd_line(words: &[String], depth: usize, parts: &mut Vec<Part>) -> Found {
    let at = words[1..]
        .iter()
        .position(|w| {
            w.eq_ignore_ascii_case("/c")
                || w.eq_ignore_ascii_case("/k")
                || w.eq_ignore_ascii_case("/r")
        })
        .map(|p| p + 2)
        .ok_or_else(|| "cmd without /c reads its commands from stdin".to_string())?;
    let line = words[at..].join(" ");
    if line.contains(['%', '!', '^', '(', ')', '\n']) {
        return Err("cmd expands or groups what cannot be seen".into());
    }
    let tokens = windows_tokens(&line, '"')?;
    token_list(&tokens, depth + 1, parts)
}

/// `pwsh -Command SCRIPT` (or `-c`, any prefix of `-Command`): split on `;`, `|`, `&&` and
/// `||`, a leading `&` call operator dropped; variables, subexpressions, script blocks and
/// backtick escapes are opaque, so is `-EncodedCommand`.
fn powershell(words: &[String], depth: usize, parts: &mut Vec<Part>) -> Found {
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let lower = word.to_ascii_lowercase();
        if lower.starts_with("-e") && "-encodedcommand".starts_with(&lower)
            || lower.starts_with("-ec")
        {
            return Err("an encoded PowerShell command".into());
        }
        if lower.len() >= 2 && "-command".starts_with(&lower) {
            let script = words[i + 1..].join(" ");
            if script.is_empty() || script == "-" {
                return Err("PowerShell reads its commands from stdin".into());
            }
            if script.contains(['$', '`', '{', '}', '(', ')', '@', '[', ']', '\n']) {
                return Err("PowerShell expands what cannot be seen".into());
            }
            let mut tokens = windows_tokens(&script, '\'')?;
            // `& 'program' args`: the call operator at the start of a command
            let mut cleaned = Vec::with_capacity(tokens.len());
            let mut at_start = true;
            for token in tokens.drain(..) {
                if at_start && token == "&" {
                    continue;
                }
                at_start = SEPARATORS.contains(&token.as_str());
                cleaned.push(token);
            }
            return token_list(&cleaned, depth + 1, parts);
        }
        if lower.len() >= 2 && "-file".starts_with(&lower) {
            parts.push(Part::named(program_name(&words[0]), &words[i..]));
            return Ok(());
        }
        if !word.starts_with('-') {
            // a bare script: PowerShell runs it as -Command
            return powershell(
                &[words[0].clone(), "-Command".into()]
                    .into_iter()
                    .chain(words[i..].iter().cloned())
                    .collect::<Vec<_>>(),
                depth,
                parts,
            );
        }
        i += 1;
    }
    Err("PowerShell reads its commands from stdin".into())
}

/// Words of a `cmd` or PowerShell line: whitespace-separated, `quote`d runs (a doubled quote
/// inside stands for one) and `"…"`, and the separators `;`, `&`, `&&`, `|`, `||` as words of
/// their own.
fn windows_tokens(line: &str, quote: char) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut has_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c == quote || c == '"' => {
                has_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => {
                            if chars.peek() == Some(&c) {
                                current.push(c);
                                chars.next();
                            } else {
                                break;
                            }
                        }
                        Some(other) => current.push(other),
                        None => return Err("an unclosed quote".into()),
                    }
                }
            }
            ' ' | '\t' => {
                if has_word {
                    tokens.push(std::mem::take(&mut current));
                    has_word = false;
                }
            }
            ';' | '&' | '|' => {
                if has_word {
                    tokens.push(std::mem::take(&mut current));
                    has_word = false;
                }
                let mut separator = c.to_string();
                if c != ';' && chars.peek() == Some(&c) {
                    separator.push(c);
                    chars.next();
                }
                tokens.push(separator);
            }
            _ => {
                has_word = true;
                current.push(c);
            }
        }
    }
    if has_word {
        tokens.push(current);
    }
    Ok(tokens)
}
