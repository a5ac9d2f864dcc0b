//! Permission rules on a call's arguments (docs/permissions.md): `{ [tool]: { [pattern]:
//! "allow" | "ask" | "deny" } }`, from `createToolContext({ permissions })` or the CLI's and MCP
//! server's `--permissions FILE`.
//!
//! - exec_command and process_start: a pattern matches each simple command of the command line
//!   (`command::split`: wrappers, shell scripts and separators seen through), its words joined
//!   by single spaces; `*` matches any run of characters, and a pattern ending in ` *` also
//!   matches the words before it alone (`git *` matches `git`).
//! - tools that take a path: a pattern is a glob (`crate::glob`) on the workspace-relative path,
//!   normalised (`./`, `..`, `\`), case-folded where the platform's filesystems usually ignore
//!   case (macOS, Windows); `dir/**` also matches `dir`. When the path resolves through a
//!   symbolic link, the real path is matched too.
//!
//! Deny wins over ask, ask over allow, in any order of writing. A compound command is allowed
//! only when every part is; a part no rule matches leaves the call to the policy (but `cd` and
//! the like do not count). What the splitter cannot see through is `ask` (or `deny` when a deny
//! pattern matches the whole command line). A tool without rules, or a call no rule matches,
//! follows the policy as before.

pub mod command;
#[cfg(test)]
mod tests;

use crate::glob::Glob;
use crate::value::ArgValue;

/// What a rule says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

impl Decision {
    fn parse(text: &str) -> Option<Decision> {
        match text {
            "allow" => Some(Decision::Allow),
            "ask" => Some(Decision::Ask),
            "deny" => Some(Decision::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    decision: Decision,
    glob: Glob,
}

/// The rules of a context, by tool.
#[derive(Debug, Clone, Default)]
pub struct Permissions {
    tools: Vec<(String, Vec<Rule>)>,
}

/// A decision and what made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    /// Why, for the refusal's message: the rule (`exec_command: "rm *"`) or what could not be
    /// seen through.
    pub because: String,
}

/// What a call is matched on.
pub enum Subject<'a> {
    /// The tokens of exec_command's or process_start's `command`.
    Command(&'a [String]),
    /// A call with neither: matched by the patterns made of `*` alone.
    Whole,
    /// A path argument as given, and the workspace root (as given, and real).
    Path {
        path: &'a str,
        root: &'a std::path::Path,
        real_root: Option<&'a std::path::Path>,
    },
}

impl Permissions {
    /// Reads `{ [tool]: { [pattern]: "allow" | "ask" | "deny" } }`; `undefined`/`null`: none.
    pub fn from_value(value: &ArgValue) -> Result<Option<Permissions>, String> {
        let entries = match value {
            v if v.is_nullish() => return Ok(None),
            ArgValue::Object(entries) => entries,
            _ => return Err("permissions must be an object of tool names".into()),
        };
        let mut tools = Vec::new();
        for (tool, rules) in entries {
            let ArgValue::Object(rules) = rules else {
                return Err(format!(
                    "permissions.{tool} must be an object of patterns to \"allow\", \"ask\" or \"deny\""
                ));
            };
            let mut parsed = Vec::new();
            for (pattern, decision) in rules {
                let decision = decision.as_str().and_then(Decision::parse).ok_or_else(|| {
                    format!(
                        "permissions.{tool}[{pattern:?}] must be \"allow\", \"ask\" or \"deny\""
                    )
                })?;
                if pattern.is_empty() {
                    return Err(format!("permissions.{tool} has an empty pattern"));
                }
                parsed.push(Rule {
                    pattern: pattern.clone(),
                    decision,
                    glob: Glob::new(&fold(&path_pattern(pattern))),
                });
            }
            tools.push((tool.clone(), parsed));
        }
        Ok(Some(Permissions { tools }))
    }

    fn rules(&self, tool: &str) -> Option<&[Rule]> {
        self.tools
            .iter()
            .find(|(name, _)| name == tool)
            .map(|(_, rules)| rules.as_slice())
            .filter(|rules| !rules.is_empty())
    }

    /// The rules' decision on a call of `tool`, or `None`: the policy decides.
    pub fn decide(&self, tool: &str, subject: &Subject) -> Option<Verdict> {
        let rules = self.rules(tool)?;
        match subject {
            Subject::Command(tokens) => decide_command(tool, rules, tokens),
            Subject::Whole => strictest(tool, rules, |rule| rule.pattern.chars().all(|c| c == '*')),
            Subject::Path {
                path,
                root,
                real_root,
            } => {
                let mut forms = Vec::new();
                if let Some(relative) = lexical_relative(path, root) {
                    forms.push(relative);
                }
                if let Some(real) = real_relative(path, root, *real_root) {
                    if !forms.contains(&real) {
                        forms.push(real);
                    }
                }
                let parts: Vec<Option<Verdict>> = forms
                    .iter()
                    .map(|form| strictest(tool, rules, |rule| path_matches(rule, form)))
                    .collect();
                combine(parts)
            }
        }
    }
}

/// The strictest rule of `rules` that `matches`.
fn strictest(tool: &str, rules: &[Rule], matches: impl Fn(&Rule) -> bool) -> Option<Verdict> {
    rules
        .iter()
        .filter(|rule| matches(rule))
        .max_by_key(|rule| rule.decision)
        .map(|rule| Verdict {
            decision: rule.decision,
            because: format!(
                "the rule {tool}: {:?} → {}",
                rule.pattern,
                rule.decision.as_str()
            ),
        })
}

/// Parts' verdicts as one: any deny, else any ask, else allow when every part is allowed, else
/// none (the policy decides).
fn combine(parts: Vec<Option<Verdict>>) -> Option<Verdict> {
    let strictest = parts.iter().flatten().max_by_key(|v| v.decision).cloned()?;
    if strictest.decision == Decision::Allow && parts.iter().any(Option::is_none) {
        return None;
    }
    Some(strictest)
}

fn decide_command(tool: &str, rules: &[Rule], tokens: &[String]) -> Option<Verdict> {
    match command::split(tokens) {
        command::Split::Opaque(why) => {
            let whole = tokens.join(" ");
            let denied = strictest(tool, rules, |rule| {
                rule.decision == Decision::Deny && wildcard(&rule.pattern, &whole)
            });
            Some(denied.unwrap_or(Verdict {
                decision: Decision::Ask,
                because: format!("the command cannot be checked against the rules ({why})"),
            }))
        }
        command::Split::Parts(parts) => {
            let verdicts: Vec<Option<Verdict>> = parts
                .iter()
                .filter_map(|part| {
                    let text = part.text();
                    let verdict = strictest(tool, rules, |rule| wildcard(&rule.pattern, &text));
                    // cd and the like need no rule of their own
                    (verdict.is_some() || !part.is_neutral()).then_some(verdict)
                })
                .collect();
            combine(verdicts)
        }
    }
}

/// `*` matches any run of characters; everything else itself. A pattern ending in ` *` also
/// matches what comes before it alone.
fn wildcard(pattern: &str, text: &str) -> bool {
    if let Some(head) = pattern.strip_suffix(" *") {
        if !head.contains('*') && head == text {
            return true;
        }
    }
    let pieces: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = pieces
        .split_first()
        .expect("split gives one piece at least");
    let Some(mut remaining) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return remaining.is_empty();
    };
    for piece in middle {
        match remaining.find(piece) {
            Some(at) => remaining = &remaining[at + piece.len()..],
            None => return false,
        }
    }
    remaining.len() >= last.len() && remaining.ends_with(last)
}

/// Whether paths are compared without case: the usual filesystems of macOS and Windows.
const FOLD_CASE: bool = cfg!(any(target_os = "macos", windows));

fn fold(text: &str) -> String {
    if FOLD_CASE {
        text.to_lowercase()
    } else {
        text.to_string()
    }
}

/// A path pattern as matched: `\` as `/`, no leading `./`.
fn path_pattern(pattern: &str) -> String {
    let slashed = pattern.replace('\\', "/");
    slashed.trim_start_matches("./").to_string()
}

fn path_matches(rule: &Rule, relative: &str) -> bool {
    let candidate = fold(relative);
    rule.glob.is_match(&candidate)
        || rule
            .pattern
            .strip_suffix("/**")
            .is_some_and(|dir| fold(&path_pattern(dir)) == candidate)
}

/// `path` relative to `root`, `.`/`..` resolved without the filesystem; `None` when it leaves
/// the root (the sandbox refuses it then).
fn lexical_relative(path: &str, root: &std::path::Path) -> Option<String> {
    let slashed = path.replace('\\', "/");
    let root_text = root.to_string_lossy().replace('\\', "/");
    let relative = if std::path::Path::new(path).is_absolute() || slashed.starts_with('/') {
        let trimmed = root_text.trim_end_matches('/');
        let rest = slashed.strip_prefix(trimmed)?;
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        rest.to_string()
    } else {
        slashed
    };
    let mut parts: Vec<&str> = Vec::new();
    for piece in relative.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// The real path of `path` (symbolic links resolved, as far as it exists) relative to the real
/// root.
fn real_relative(
    path: &str,
    root: &std::path::Path,
    real_root: Option<&std::path::Path>,
) -> Option<String> {
    let real_root = real_root?;
    let joined = root.join(path);
    // the longest existing prefix, resolved; the rest appended as it is
    let mut existing = joined.as_path();
    let mut tail = Vec::new();
    let resolved = loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            break real;
        }
        tail.push(existing.file_name()?.to_owned());
        existing = existing.parent()?;
    };
    let mut full = resolved;
    for piece in tail.iter().rev() {
        full.push(piece);
    }
    let relative = full.strip_prefix(real_root).ok()?;
    lexical_relative(&relative.to_string_lossy(), std::path::Path::new(""))
}
