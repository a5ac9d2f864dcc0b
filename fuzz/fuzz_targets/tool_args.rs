//! Argument decoding of every tool (the 13 and the opt-in ones), through both front doors
//! (`invoke` and `tools.*`) into the handler, in a small workspace with symlinks that point
//! outside it: each call is planned (`invoke::plan`) and its plan carried out, as the binding
//! does. The context keeps no undo journal, so checkpoint_list and checkpoint_restore stop at
//! their argument checks or at `INVALID_ARGUMENT`.
//!
//! Input: drives a generator of JavaScript values (strings mostly from a dictionary of paths,
//! globs, patterns and patches). Checks, besides no panic: a success is JSON, an error carries an
//! upper-case code, and the directory next to the workspace (the canary) never changes.
//! Processes are never started: fuzzing builds stop `exec_command` and `git_status_summary`
//! just before the spawn.
#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use agent_tools_core::context::ToolContext;
use agent_tools_core::invoke::{self, Call, Door, Outcome, Plan};
use agent_tools_core::registry::{CATALOG, DEFINITIONS_JSON, OPT_IN_DEFINITIONS_JSON};
use agent_tools_core::tools::todo::TodoState;
use agent_tools_core::value::ArgValue;
use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

const CANARY: &[u8] = b"outside the workspace\n";

struct Fixture {
    root: String,
    outside: PathBuf,
    words: Vec<String>,
    keys: Vec<String>,
    /// `TOOL_ARGS_DEBUG=1`: print each call (to reproduce a finding).
    debug: bool,
    /// `TOOL_ARGS_DECODE_ONLY=1`: print each call's plan and stop before carrying it out (to
    /// see what an input, e.g. a seed, decodes to without running it).
    decode_only: bool,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("atn-fuzz-{}", std::process::id()));
        let (ws, outside) = (base.join("ws"), base.join("outside"));
        fs::create_dir_all(ws.join("src")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("canary.txt"), CANARY).unwrap();
        fs::write(ws.join("a.txt"), "line one\nline two\n").unwrap();
        fs::write(ws.join("src/b.ts"), "const a = f(1);\nlet b = 2;\n").unwrap();
        fs::write(ws.join(".gitignore"), "*.log\n").unwrap();
        std::os::unix::fs::symlink("../outside", ws.join("out")).unwrap();
        std::os::unix::fs::symlink("../outside/canary.txt", ws.join("canary-link")).unwrap();
        std::os::unix::fs::symlink("../outside/new.txt", ws.join("dangling")).unwrap();
        let root = ws.canonicalize().unwrap().to_string_lossy().into_owned();
        let words = dictionary(&root);
        Fixture {
            root,
            outside,
            words,
            keys: keys(),
            debug: std::env::var_os("TOOL_ARGS_DEBUG").is_some(),
            decode_only: std::env::var_os("TOOL_ARGS_DECODE_ONLY").is_some(),
        }
    })
}

/// Paths (plain, escaping, odd), globs, patterns, enum values and patches.
fn dictionary(root: &str) -> Vec<String> {
    let mut words: Vec<String> = [
        "", " ", ".", "..", "/", "a.txt", "src", "src/b.ts", "src\\b.ts", "new/dir/c.txt",
        "../outside/canary.txt", "out/canary.txt", "out", "canary-link", "dangling",
        "/etc/passwd", "C:\\Windows", "c:/x", "a\0b", "src/../../outside", "\u{2025}/outside",
        "./a.txt", "**/*.ts", "*", "src/**", "{a,b}.txt", "[a-", "!*.md", "\\", "const $A = f($B)",
        "let $X = $Y", "$$$", "typescript", "ts", "rust", "line", "l(i)ne", "\\d+", "(", "a|",
        "gi", "imsu", "gg", "pending", "in_progress", "completed", "cancelled", "default",
        "direct", "true", "echo", "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n line one\n-line two\n+line 2\n",
        "--- /dev/null\n+++ b/dangling\n@@ -0,0 +1 @@\n+x\n",
        "--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1 +1 @@\n-const a = f(1);\n+const a = f(2);\n",
        "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-line one\n-line two\n",
        "content\n",
        // the opt-in tools: edit strings, Codex patches (inside, and out through `..` and the
        // symlink)
        "line two", "line 2\n",
        "*** Begin Patch\n*** Update File: a.txt\n@@\n line one\n-line two\n+line 2\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Delete File: a.txt\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: src/b.ts\n*** Move to: ../outside/moved.ts\n@@\n-let b = 2;\n+let b = 3;\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: out/new.txt\n+x\n*** End Patch\n",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    words.push(root.to_string());
    words.push(format!("{root}/a.txt"));
    words.push(format!("{root}/../outside/canary.txt"));
    words.push(format!("{root}/out/new.txt"));
    words.push("a/".repeat(3000));
    words.push("x".repeat(300));
    words
}

/// Every property name the tool definitions (opt-in ones too) know, plus the `invoke` path
/// fields.
fn keys() -> Vec<String> {
    fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::Object(props)) = map.get("properties") {
                    out.extend(props.keys().cloned());
                }
                map.values().for_each(|v| collect(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut keys = vec!["filePath".to_string(), "patch".into(), "path".into()];
    for definitions in [DEFINITIONS_JSON, OPT_IN_DEFINITIONS_JSON] {
        collect(&serde_json::from_str(definitions).unwrap(), &mut keys);
    }
    keys.sort();
    keys.dedup();
    keys
}

fn string(u: &mut Unstructured, words: &[String]) -> Result<String> {
    if u.ratio(4, 5)? {
        Ok(u.choose(words)?.clone())
    } else {
        u.arbitrary()
    }
}

fn number(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0..=9)? {
        0 => 0.0,
        1 => 1.0,
        2 => -1.0,
        3 => 0.5,
        4 => f64::NAN,
        5 => f64::INFINITY,
        6 => 200.0,
        7 => 9007199254740993.0,
        8 => u.int_in_range(0..=2000)? as f64,
        _ => u.arbitrary()?,
    })
}

fn value(u: &mut Unstructured, f: &Fixture, depth: usize) -> Result<ArgValue> {
    let last = if depth >= 3 { 5 } else { 9 };
    Ok(match u.int_in_range(0..=last)? {
        0 => ArgValue::Undefined,
        1 => ArgValue::Null,
        2 => ArgValue::Bool(u.arbitrary()?),
        3 => ArgValue::Number(number(u)?),
        4 | 5 => ArgValue::String(string(u, &f.words)?),
        6 => ArgValue::Function,
        7 => ArgValue::Array(list(u, f, depth)?),
        _ => object(u, f, depth)?,
    })
}

fn list(u: &mut Unstructured, f: &Fixture, depth: usize) -> Result<Vec<ArgValue>> {
    let len = u.int_in_range(0..=4)?;
    (0..len).map(|_| value(u, f, depth + 1)).collect()
}

fn object(u: &mut Unstructured, f: &Fixture, depth: usize) -> Result<ArgValue> {
    let len = u.int_in_range(0..=5)?;
    let mut entries = Vec::with_capacity(len);
    for _ in 0..len {
        let key = if u.ratio(9, 10)? {
            u.choose(&f.keys)?.clone()
        } else {
            u.arbitrary()?
        };
        entries.push((key, value(u, f, depth + 1)?));
    }
    Ok(ArgValue::Object(entries))
}

/// The directory next to the workspace holds exactly the canary, unchanged.
fn assert_outside_untouched(outside: &Path) {
    let names: Vec<_> = fs::read_dir(outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["canary.txt"], "something was created outside");
    assert_eq!(fs::read(outside.join("canary.txt")).unwrap(), CANARY);
}

fn assert_error_code(code: &str) {
    assert!(
        !code.is_empty() && code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
        "error code {code:?}"
    );
}

fn run(u: &mut Unstructured, f: &Fixture) -> Result<()> {
    let spec = u.choose(&CATALOG)?;
    let ctx = ToolContext::allow_all(&f.root);
    let invoke = u.arbitrary()?;
    let call = Call {
        door: if invoke { Door::Invoke } else { Door::Tools },
        name: spec.name.to_string(),
        registered: Some(true),
        is_write_op: Some(spec.effect.is_write_op()),
        bypass: false,
        run_built_in: true,
        opt_in: spec.opt_in,
    };
    let args = if !invoke {
        ArgValue::Array(list(u, f, 0)?)
    } else if u.ratio(7, 8)? {
        object(u, f, 0)?
    } else {
        value(u, f, 0)?
    };
    let plan = invoke::plan(&ctx, &call, args);
    if f.debug || f.decode_only {
        eprintln!("{} {:?}", spec.name, plan);
    }
    if f.decode_only {
        return Ok(());
    }
    let outcome = match plan {
        Plan::Done(_) => return Ok(()),
        Plan::Inline(job) => match job.try_inline() {
            Some(outcome) => outcome,
            None => job.run(),
        },
        Plan::Worker(job) => job.run(),
        Plan::Session(session) => {
            let state = if u.arbitrary()? {
                TodoState::from_value(&value(u, f, 0)?)
            } else {
                None
            };
            session.run(state.as_ref(), agent_tools_core::tools::todo::Listing::Text)
        }
    };
    match outcome {
        Outcome::Ok { json, .. } => {
            serde_json::from_str::<serde_json::Value>(&json)
                .unwrap_or_else(|e| panic!("{} output is not JSON ({e}): {json}", spec.name));
        }
        Outcome::ToolError(error) => assert_error_code(error.code.as_str()),
        // refused by the path mapping left to the job
        _ => {}
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let _ = run(&mut Unstructured::new(data), f);
    assert_outside_untouched(&f.outside);
});
