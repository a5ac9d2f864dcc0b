//! The Windows runner's tests. The child program is this test binary in a helper role
//! (`test_helper`), and `cmd.exe` for batch files.

use std::ffi::OsString;
use std::time::Duration;

use super::test_helper::{self, process_ends_soon};
use super::*;
use crate::process::DEFAULT_MAX_OUTPUT_UNITS;

/// How soon a call must return when it must not wait for a command that would run 30 s: a
/// third of that, room for a loaded machine (and wine).
const PROMPTLY: Duration = Duration::from_secs(10);

fn helper_argv(extra: &[&str]) -> Vec<String> {
    std::iter::once(test_helper::exe().to_string_lossy().into_owned())
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
}

fn spec<'a>(argv: &'a [String], env: &'a [(OsString, OsString)]) -> RunSpec<'a> {
    RunSpec {
        argv,
        cwd: None,
        cwd_dir: None,
        env: Some(env),
        stdin: None,
        timeout: Some(Duration::from_secs(20)),
        max_output_units: DEFAULT_MAX_OUTPUT_UNITS,
        cancel: None,
        restriction: None,
    }
}

/// The pids a `sleep`/`tree` helper printed.
fn pids(text: &str) -> Vec<u32> {
    text.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// What `spec`'s run gave. Under wine a start now and then fails before the program runs, with
/// an error other than the program's absence: it is tried again (three times in all, each
/// failure printed). Any other failure, and every failure on Windows, fails the test, named.
fn run_output(spec: &RunSpec) -> RunOutput {
    let mut attempt = 1;
    loop {
        match run(spec) {
            Ok(out) => return out,
            Err(e) if attempt < 3 && crate::conpty::under_wine() && !e.is_not_found() => {
                eprintln!("wine failed to start {} ({}): again", e.program, e.error);
                attempt += 1;
            }
            Err(e) => panic!("{} was not started: {}", e.program, e.error),
        }
    }
}

#[test]
fn exit_codes_and_both_streams() {
    let (argv, env) = (helper_argv(&[]), test_helper::env("exit"));
    let out = run_output(&spec(&argv, &env));
    assert_eq!(
        (out.exit_code, out.stdout.text(), out.stderr.text()),
        (3, "out", "err"),
        "{out:?}"
    );
    assert!(!out.timed_out && !out.cancelled, "{out:?}");
    // An exit code above i32::MAX comes back unsigned, as Node reports it.
    let env = test_helper::env("ntstatus");
    let out = run_output(&spec(&argv, &env));
    assert_eq!(out.exit_code, 3_221_225_477, "{out:?}");
    let argv: Vec<String> = ["cmd.exe", "/d", "/c", "exit 7"].map(String::from).to_vec();
    let env: Vec<_> = std::env::vars_os().collect();
    let out = run_output(&spec(&argv, &env));
    assert_eq!(out.exit_code, 7, "{out:?}");
}

#[test]
fn arguments_arrive_as_given() {
    let args = ["a b", "it's", "\"quoted\"", "back\\slash\\", "", "é"];
    let (argv, env) = (helper_argv(&args), test_helper::env("argv"));
    let out = run_output(&spec(&argv, &env));
    let seen: Vec<String> = serde_json::from_str(out.stdout.text().trim()).unwrap();
    assert_eq!(seen, args);
}

#[test]
fn stdin_is_written_or_empty() {
    let (argv, env) = (helper_argv(&[]), test_helper::env("cat"));
    let mut s = spec(&argv, &env);
    s.stdin = Some("abcé\n".as_bytes());
    assert_eq!(run_output(&s).stdout.text(), "abcé\n");
    let out = run_output(&spec(&argv, &env));
    assert_eq!((out.exit_code, out.stdout.text()), (0, ""));
    // A child that never reads its input does not block or break the run.
    let env = test_helper::env("exit");
    let big = vec![b'x'; 4 << 20];
    let mut s = spec(&argv, &env);
    s.stdin = Some(&big);
    assert_eq!(run_output(&s).exit_code, 3);
}

/// The whole tree dies at the timeout, including a process the command started: no survivor.
#[test]
fn timeout_kills_the_whole_tree() {
    let (argv, env) = (helper_argv(&[]), test_helper::env("tree"));
    let mut s = spec(&argv, &env);
    // Both pids must be printed before the timeout: on a loaded machine, again with a longer one.
    for timeout_ms in [2000, 8000, 20000] {
        s.timeout = Some(Duration::from_millis(timeout_ms));
        let started = Instant::now();
        let out = run_output(&s);
        let took = started.elapsed();
        let printed = pids(out.stdout.text());
        if printed.len() < 2 && timeout_ms < 20000 {
            continue;
        }
        assert_eq!(printed.len(), 2, "{out:?}");
        assert!(took < s.timeout.unwrap() + PROMPTLY, "{took:?}");
        assert_eq!((out.exit_code, out.timed_out), (124, true));
        for pid in printed {
            assert!(process_ends_soon(pid), "process {pid} survived the timeout");
        }
        break;
    }
}

/// What a command leaves running when it exits (without its output handles) ends with the
/// call, which returns at once.
#[test]
fn the_call_end_kills_what_the_command_left_behind() {
    let (argv, env) = (helper_argv(&[]), test_helper::env("detach"));
    let started = Instant::now();
    let out = run_output(&spec(&argv, &env));
    assert!(started.elapsed() < PROMPTLY, "{out:?}");
    assert_eq!((out.exit_code, out.timed_out), (0, false), "{out:?}");
    let printed = pids(out.stdout.text());
    assert_eq!(printed.len(), 1, "{out:?}");
    assert!(
        process_ends_soon(printed[0]),
        "the background process survived"
    );
}

#[test]
fn cancellation_kills_the_tree_at_once() {
    let cancel = std::sync::Arc::new(crate::cancel::Cancellation::new().unwrap());
    let (argv, env) = (helper_argv(&[]), test_helper::env("tree"));
    let mut s = spec(&argv, &env);
    s.timeout = Some(Duration::from_secs(60));
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        trigger.cancel();
    });
    s.cancel = Some(&cancel);
    let started = Instant::now();
    let out = run_output(&s);
    canceller.join().unwrap();
    assert!(out.cancelled && !out.timed_out, "{out:?}");
    assert!(started.elapsed() < PROMPTLY, "returned promptly");
    for pid in pids(out.stdout.text()) {
        assert!(
            process_ends_soon(pid),
            "process {pid} survived the cancellation"
        );
    }
}

#[test]
fn endless_output_does_not_defeat_the_timeout() {
    let (argv, env) = (helper_argv(&[]), test_helper::env("endless"));
    let mut s = spec(&argv, &env);
    s.max_output_units = 1000;
    // A loaded machine (or wine) may take longer than the timeout to start the program: then
    // again with a longer one.
    for timeout_ms in [500, 2000, 8000] {
        s.timeout = Some(Duration::from_millis(timeout_ms));
        let started = Instant::now();
        let out = run_output(&s);
        if out.stdout.text().is_empty() && timeout_ms < 8000 {
            continue;
        }
        assert!(started.elapsed() < s.timeout.unwrap() + PROMPTLY);
        assert_eq!((out.exit_code, out.timed_out), (124, true));
        assert_eq!(out.stdout.text(), "y\n".repeat(500));
        assert!(out.stdout.truncated());
        break;
    }
}

#[test]
fn bare_names_resolve_through_path_and_pathext() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    std::fs::create_dir(&first).unwrap();
    std::fs::create_dir(&second).unwrap();
    std::fs::write(first.join("atn-tool.cmd"), "@echo cmd %1\r\n").unwrap();
    std::fs::write(second.join("atn-tool.bat"), "@echo bat %1\r\n").unwrap();
    test_helper::install_as(&second, "atn-tool.exe");
    let path = format!(" ; {} ;{}", first.display(), second.display());
    let env_with = |pathext: Option<&str>| {
        let mut env: Vec<(OsString, OsString)> = test_helper::env("argv")
            .into_iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("PATH") && !k.eq_ignore_ascii_case("PATHEXT"))
            .collect();
        // Windows spells it `Path`; the lookup ignores case.
        env.push(("Path".into(), path.clone().into()));
        if let Some(pathext) = pathext {
            env.push(("PATHEXT".into(), pathext.into()));
        }
        env
    };
    let argv = ["atn-tool", "x"].map(String::from).to_vec();
    // Directory by directory, then extension by extension: the first directory's .cmd wins.
    let env = env_with(Some(".EXE;.CMD"));
    let out = run_output(&spec(&argv, &env));
    assert_eq!((out.exit_code, out.stdout.text()), (0, "cmd x\r\n"));
    // Without .CMD the second directory's .exe (this test binary, printing its arguments).
    let env = env_with(Some(" .exe ; ;.bat"));
    assert_eq!(run_output(&spec(&argv, &env)).stdout.text(), "[\"x\"]\n");
    // Unset: .COM;.EXE;.BAT;.CMD.
    let env = env_with(None);
    assert_eq!(run_output(&spec(&argv, &env)).stdout.text(), "cmd x\r\n");
    // A name with a listed extension is tried as given first.
    let argv = ["atn-tool.bat", "y"].map(String::from).to_vec();
    let env = env_with(Some(".CMD;.BAT"));
    assert_eq!(run_output(&spec(&argv, &env)).stdout.text(), "bat y\r\n");
    // Not found: the runtime's wording.
    let argv = ["atn-missing-tool".to_string()];
    let err = run(&spec(&argv, &env)).unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(
        err.message(),
        "Executable not found in $PATH: \"atn-missing-tool\""
    );
}

#[test]
fn candidates_follow_pathext_order() {
    let exts = path_extensions(Some(" .exe ; ;.Cmd".into()));
    assert_eq!(exts, [".EXE", ".CMD"]);
    assert_eq!(
        path_extensions(Some("".into())),
        [".COM", ".EXE", ".BAT", ".CMD"]
    );
    assert_eq!(path_extensions(None), [".COM", ".EXE", ".BAT", ".CMD"]);
    let list = |name: &str| -> Vec<PathBuf> { candidates(name, ["C:\\a", "b"].into_iter(), &exts) };
    assert_eq!(
        list("git"),
        [
            "C:\\a\\git.EXE",
            "C:\\a\\git.CMD",
            "b\\git.EXE",
            "b\\git.CMD"
        ]
        .map(PathBuf::from)
    );
    assert_eq!(
        list("git.exe"),
        [
            "C:\\a\\git.exe",
            "C:\\a\\git.exe.EXE",
            "C:\\a\\git.exe.CMD",
            "b\\git.exe",
            "b\\git.exe.EXE",
            "b\\git.exe.CMD"
        ]
        .map(PathBuf::from)
    );
}

#[test]
fn relative_program_paths_count_from_the_child_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin").join("t.cmd"), "@cd\r\n").unwrap();
    let argv = ["bin\\t.cmd".to_string()];
    let env: Vec<_> = std::env::vars_os().collect();
    let mut s = spec(&argv, &env);
    s.cwd = Some(dir.path());
    let out = run_output(&s);
    assert_eq!(out.exit_code, 0, "{out:?}");
    let printed = PathBuf::from(out.stdout.text().trim_end());
    assert_eq!(
        printed.canonicalize().unwrap(),
        dir.path().canonicalize().unwrap()
    );
}
