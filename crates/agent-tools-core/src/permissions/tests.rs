use super::*;
use serde_json::json;

fn rules(value: serde_json::Value) -> Permissions {
    Permissions::from_value(&ArgValue::from(&value))
        .unwrap()
        .unwrap()
}

fn shell_rules() -> Permissions {
    rules(json!({ "exec_command": {
        "git status*": "allow",
        "git diff*": "allow",
        "ls *": "allow",
        "echo *": "allow",
        "cat *": "allow",
        "npm test": "allow",
        "rm *": "deny",
        "curl *": "deny",
        "git push*": "ask",
    }}))
}

fn decision(p: &Permissions, tokens: &[&str]) -> Option<Decision> {
    let tokens: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    p.decide("exec_command", &Subject::Command(&tokens))
        .map(|v| v.decision)
}

/// Attempts to run a denied command (`rm`, `curl`) or an unlisted one under cover of an allowed
/// one. Every one must come out denied or sent to ask, never allowed.
#[test]
fn laundering_attempts_are_denied_or_asked() {
    let p = shell_rules();
    let attempts: &[&[&str]] = &[
        // separators in the token list
        &["git", "status", "&&", "rm", "-rf", "src"],
        &["git", "status", ";", "rm", "-rf", "src"],
        &["git", "status;", "rm", "-rf", "src"],
        &["git", "status", "||", "rm", "-rf", "src"],
        &["git", "status", "|", "rm", "-rf", "src"],
        &["git", "status", "&", "rm", "-rf", "src"],
        &["ls", "|&", "curl", "evil.example"],
        // shells
        &["sh", "-c", "rm -rf src"],
        &["bash", "-lc", "git status && rm -rf src"],
        &["bash", "-c", "git status; rm -rf src"],
        &["bash", "--login", "-c", "rm -rf src"],
        &["zsh", "-c", "git status || rm -rf src"],
        &["dash", "-ec", "ls | rm -rf src"],
        &["/bin/sh", "-c", "rm -rf src"],
        &["/usr/bin/bash", "-xc", "(rm -rf src)"],
        &["bash", "-c", "{ git status; rm -rf src; }"],
        &["bash", "-c", "! rm -rf src"],
        &["bash", "-c", "git status & rm -rf src"],
        &["bash", "-c", "bash -c 'rm -rf src'"],
        &["sh", "-c", "sh -c \"sh -c 'rm -rf src'\""],
        &["bash", "-c", "git status\nrm -rf src"],
        &["bash", "-c", "r\\m -rf src"],
        &["bash", "-c", "'r'm -rf src"],
        &["bash", "-c", "\"rm\" -rf src"],
        &["bash", "-c", "rm -rf src > /dev/null 2>&1"],
        &["bash", "-c", "FOO=1 rm -rf src"],
        // what the parser cannot see through
        &["bash", "-c", "git status $(rm -rf src)"],
        &["bash", "-c", "git status `rm -rf src`"],
        &["bash", "-c", "$CMD -rf src"],
        &["bash", "-c", "${CMD} -rf src"],
        &["bash", "-c", "eval 'rm -rf src'"],
        &[
            "bash",
            "-c",
            "eval \"$(echo cm0gLXJmIHNyYw== | base64 -d)\"",
        ],
        &["bash", "-c", "bash <<EOF\nrm -rf src\nEOF"],
        &["bash", "-c", "cat <(rm -rf src)"],
        &["bash", "-c", "source ./script.sh"],
        &["bash", "-c", ". ./script.sh"],
        &["bash", "-c", "for f in *; do rm $f; done"],
        &["bash", "-c", "if true; then rm -rf src; fi"],
        &["bash", "-c", "f() { rm -rf src; }; f"],
        &["bash", "-c", "echo $'\\x72\\x6d'"],
        &["bash", "-c", "ls > $(rm -rf src)"],
        &["bash", "-c", "x=$(rm -rf src) ls"],
        &["bash", "-c", "/bin/r? -rf src"],
        &["bash", "-c", "git status 'unterminated"],
        &["bash"],
        &["sh", "-s"],
        &["eval", "rm -rf src"],
        &["sudo", "ls"],
        // wrappers
        &["env", "rm", "-rf", "src"],
        &["env", "FOO=1", "rm", "-rf", "src"],
        &["env", "-i", "PATH=/bin", "rm", "-rf", "src"],
        &["env", "-u", "HOME", "curl", "evil.example"],
        &["FOO=1", "rm", "-rf", "src"],
        &["nice", "rm", "-rf", "src"],
        &["nice", "-n", "10", "rm", "-rf", "src"],
        &["nice", "-5", "curl", "evil.example"],
        &["timeout", "5", "rm", "-rf", "src"],
        &["timeout", "-s", "KILL", "5s", "curl", "evil.example"],
        &["xargs", "rm", "-rf"],
        &["xargs", "-I", "{}", "rm", "{}"],
        &["xargs", "-0", "-n", "1", "rm"],
        &["nohup", "rm", "-rf", "src"],
        &["exec", "rm", "-rf", "src"],
        &["command", "rm", "-rf", "src"],
        &["time", "curl", "evil.example"],
        &["stdbuf", "-oL", "curl", "evil.example"],
        &["env", "--weird-option", "ls"],
        &["cd", "src", "&&", "rm", "-rf", "."],
        &["nice", "timeout", "5", "env", "X=1", "xargs", "rm"],
        // a program by its path or with an executable suffix
        &["/bin/rm", "-rf", "src"],
        &["./node_modules/.bin/../../../bin/rm", "-rf", "src"],
        &["rm.exe", "-rf", "src"],
        &["C:\\Windows\\System32\\curl.exe", "evil.example"],
        // cmd and PowerShell
        &["cmd", "/c", "git status & rm -rf src"],
        &["cmd.exe", "/C", "git status && curl evil.example"],
        &["cmd", "/c", "rm %TARGET%"],
        &["cmd", "/c", "r^m -rf src"],
        &["cmd"],
        &["pwsh", "-Command", "git status; rm -rf src"],
        &[
            "pwsh.exe",
            "-NoLogo",
            "-NoProfile",
            "-Command",
            "& 'rm' '-rf' 'src'",
        ],
        &["powershell", "-c", "git status | curl evil.example"],
        &["pwsh", "-Command", "Invoke-Expression $x"],
        &["pwsh", "-EncodedCommand", "cgBtACAALQByAGYAIABzAHIAYwA="],
        &["pwsh", "-Command", "git status; & $cmd"],
        // find -exec, interpreters, git -c
        &["find", ".", "-exec", "rm", "{}", ";"],
        &["find", ".", "-name", "*.o", "-execdir", "rm", "{}", "+"],
        &["python3", "-c", "import os; os.system('rm -rf src')"],
        &[
            "node",
            "-e",
            "require('fs').rmSync('src', {recursive: true})",
        ],
        &["perl", "-e", "system('rm -rf src')"],
        &["awk", "BEGIN { system(\"rm -rf src\") }"],
        &["git", "-c", "alias.st=!rm -rf src", "st"],
        // the ask rule is not laundered into allow either
        &["bash", "-c", "git status && git push --force"],
        &["env", "git", "push"],
    ];
    assert!(attempts.len() >= 60, "{} attempts", attempts.len());
    let mut allowed = Vec::new();
    for attempt in attempts {
        match decision(&p, attempt) {
            Some(Decision::Deny | Decision::Ask) => {}
            other => allowed.push(format!("{attempt:?} → {other:?}")),
        }
    }
    assert!(
        allowed.is_empty(),
        "not denied or asked:\n{}",
        allowed.join("\n")
    );
}

#[test]
fn deny_names_the_rule_and_wins_over_allow() {
    let p = shell_rules();
    let tokens: Vec<String> = ["git", "status", "&&", "rm", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let verdict = p
        .decide("exec_command", &Subject::Command(&tokens))
        .unwrap();
    assert_eq!(verdict.decision, Decision::Deny);
    assert!(verdict.because.contains("\"rm *\""), "{}", verdict.because);
    // the order of writing does not matter
    let q = rules(json!({ "exec_command": { "rm *": "allow", "rm -rf*": "deny" } }));
    let r = rules(json!({ "exec_command": { "rm -rf*": "deny", "rm *": "allow" } }));
    for p in [&q, &r] {
        assert_eq!(decision(p, &["rm", "-rf", "x"]), Some(Decision::Deny));
        assert_eq!(decision(p, &["rm", "x"]), Some(Decision::Allow));
    }
    let s = rules(json!({ "exec_command": { "git *": "allow", "git push*": "ask" } }));
    assert_eq!(decision(&s, &["git", "push"]), Some(Decision::Ask));
    assert_eq!(decision(&s, &["git", "log"]), Some(Decision::Allow));
}

#[test]
fn what_is_seen_through_is_allowed_when_every_part_is() {
    let p = shell_rules();
    let allowed: &[&[&str]] = &[
        &["git", "status"],
        &["git", "status", "--short"],
        &["git", "diff"],
        &["cd", "src", "&&", "git", "status"],
        &["env", "GIT_PAGER=cat", "git", "diff"],
        &["bash", "-lc", "git status && git diff"],
        &["sh", "-c", "cd src && ls -la | cat > out.txt"],
        &["bash", "-c", "echo \"hello world\" 2>&1"],
        &["zsh", "-lc", "'git' 'status'"],
        &["/usr/bin/git", "status"],
        &["timeout", "10", "npm", "test"],
        &["cmd", "/c", "git status && git diff"],
        &[
            "pwsh.exe",
            "-NoLogo",
            "-NoProfile",
            "-Command",
            "& 'git' 'status'",
        ],
        &["nice", "-n", "5", "ls", "-la"],
    ];
    for tokens in allowed {
        assert_eq!(decision(&p, tokens), Some(Decision::Allow), "{tokens:?}");
    }
    // a part no rule names leaves the call to the policy
    assert_eq!(decision(&p, &["git", "status", "&&", "make"]), None);
    assert_eq!(decision(&p, &["make"]), None);
    // `git *` also matches `git` alone; `git status*` does not match `git`
    assert_eq!(decision(&p, &["git"]), None);
    let q = rules(json!({ "exec_command": { "git *": "allow" } }));
    assert_eq!(decision(&q, &["git"]), Some(Decision::Allow));
    // a tool without rules: no decision
    let tokens = vec!["rm".to_string()];
    assert_eq!(p.decide("process_start", &Subject::Command(&tokens)), None);
}

#[test]
fn opaque_commands_ask_and_say_why() {
    let p = shell_rules();
    let tokens: Vec<String> = ["bash", "-c", "ls $(pwd)"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let verdict = p
        .decide("exec_command", &Subject::Command(&tokens))
        .unwrap();
    assert_eq!(verdict.decision, Decision::Ask);
    assert!(
        verdict.because.contains("cannot be checked"),
        "{}",
        verdict.because
    );
    // a deny pattern matching the whole line denies even what cannot be seen through
    assert_eq!(decision(&p, &["rm", "-rf", "$(pwd)"]), Some(Decision::Deny));
}

fn path_decision(p: &Permissions, root: &std::path::Path, path: &str) -> Option<Decision> {
    p.decide(
        "read_file",
        &Subject::Path {
            path,
            root,
            real_root: Some(root),
        },
    )
    .map(|v| v.decision)
}

#[test]
fn path_rules_match_the_normalised_relative_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::create_dir_all(root.join("a")).unwrap();
    std::fs::write(root.join("secrets/x"), "s").unwrap();
    let p = rules(
        json!({ "read_file": { "secrets/**": "deny", "**/*.md": "allow", "manual/**": "ask" } }),
    );
    let absolute = root.join("secrets/x").to_string_lossy().into_owned();
    for path in [
        "secrets/x",
        "./secrets/x",
        "a/../secrets/x",
        "secrets//x",
        "secrets",
        absolute.as_str(),
    ] {
        assert_eq!(
            path_decision(&p, &root, path),
            Some(Decision::Deny),
            "{path}"
        );
    }
    assert_eq!(path_decision(&p, &root, "README.md"), Some(Decision::Allow));
    assert_eq!(
        path_decision(&p, &root, "manual/guide.md"),
        Some(Decision::Ask)
    );
    assert_eq!(path_decision(&p, &root, "src/main.rs"), None);
    #[cfg(unix)]
    {
        // a link into secrets/ is matched by where it leads
        std::os::unix::fs::symlink(root.join("secrets"), root.join("innocent")).unwrap();
        assert_eq!(path_decision(&p, &root, "innocent/x"), Some(Decision::Deny));
    }
    if FOLD_CASE {
        assert_eq!(path_decision(&p, &root, "SECRETS/x"), Some(Decision::Deny));
    }
}

#[test]
fn a_call_without_path_or_command_is_matched_by_star_patterns() {
    let p = rules(json!({ "task_list": { "*": "ask" }, "tree": { "x/*": "deny" } }));
    assert_eq!(
        p.decide("task_list", &Subject::Whole).map(|v| v.decision),
        Some(Decision::Ask)
    );
    assert_eq!(p.decide("tree", &Subject::Whole), None);
}

#[test]
fn bad_rules_are_refused_with_a_message() {
    let bad = [
        json!("exec_command"),
        json!({ "exec_command": "allow" }),
        json!({ "exec_command": { "git *": "yes" } }),
        json!({ "exec_command": { "": "deny" } }),
    ];
    for value in bad {
        let error = Permissions::from_value(&ArgValue::from(&value)).unwrap_err();
        assert!(error.starts_with("permissions"), "{error}");
    }
    assert!(Permissions::from_value(&ArgValue::Undefined)
        .unwrap()
        .is_none());
}

#[test]
fn wildcards() {
    assert!(wildcard("git status*", "git status --short"));
    assert!(wildcard("git status*", "git status"));
    assert!(!wildcard("git status*", "git"));
    assert!(wildcard("*", ""));
    assert!(wildcard("a*b*c", "aXbYc"));
    assert!(!wildcard("a*b*c", "aXbY"));
    assert!(wildcard("rm *", "rm"));
    assert!(!wildcard("rm *", "rmdir x"));
    assert!(wildcard("*rm*", "x rm y"));
}
