#[cfg(unix)]
use super::unix::*;
use super::*;
#[cfg(unix)]
use rustix::process::{Pid, Signal};
#[cfg(all(portable, unix))]
use std::os::fd::AsFd;
#[cfg(unix)]
use std::os::fd::OwnedFd;
#[cfg(unix)]
use std::os::unix::process::{CommandExt, ExitStatusExt};
#[cfg(unix)]
use std::time::Instant;

fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

fn spec<'a>(argv: &'a [String]) -> RunSpec<'a> {
    RunSpec {
        argv,
        cwd: None,
        cwd_dir: None,
        env: None,
        stdin: None,
        timeout: Some(Duration::from_secs(20)),
        max_output_units: DEFAULT_MAX_OUTPUT_UNITS,
        cancel: None,
        restriction: None,
    }
}

fn capture(cap: usize, chunks: &[&[u8]]) -> CappedText {
    let mut c = CappedText::new(cap);
    for chunk in chunks {
        c.push_bytes(chunk);
    }
    c.finish();
    c
}

#[test]
fn decoding_is_streaming_and_lossy() {
    let e_acute = "é".as_bytes();
    let c = capture(100, &[b"a", &e_acute[..1], &e_acute[1..], b"b"]);
    assert_eq!(c.text(), "aéb");
    let c = capture(100, &[b"a\xffb\xe2\x82"]);
    assert_eq!(c.text(), "a\u{FFFD}b\u{FFFD}");
    let c = capture(100, &[b"\xef\xbb", b"\xbfx\xef\xbb\xbf"]);
    assert_eq!(c.text(), "x\u{FEFF}", "only the leading BOM is dropped");
    assert!(!c.truncated());
}

#[test]
fn cap_counts_utf16_units() {
    let c = capture(4, &["ab😀".as_bytes()]);
    assert_eq!((c.text(), c.truncated()), ("ab😀", false));
    let c = capture(4, &["ab😀c".as_bytes()]);
    assert_eq!((c.text(), c.truncated()), ("ab😀", true));
    let c = capture(3, &["ab😀".as_bytes()]);
    assert_eq!((c.text(), c.truncated()), ("ab", true));
    assert_eq!(c.to_json_literal(), "\"ab\\ud83d\"");
    let value: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap_or_default();
    // serde_json itself refuses lone surrogates; JavaScript's JSON.parse accepts them.
    assert_eq!(value, serde_json::Value::Null);
    assert_eq!(serde_json::to_string(&c).unwrap(), "\"ab\\ud83d\"");
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn exit_codes_and_signals() {
    let out = run(&spec(&argv(&[
        "sh",
        "-c",
        "echo out; echo err >&2; exit 3",
    ])))
    .unwrap();
    assert_eq!(out.exit_code, 3);
    assert_eq!(out.stdout.text(), "out\n");
    assert_eq!(out.stderr.text(), "err\n");
    assert!(!out.timed_out);
    let out = run(&spec(&argv(&["sh", "-c", "kill -9 $$"]))).unwrap();
    assert_eq!(out.exit_code, 137);
    let out = run(&spec(&argv(&["sh", "-c", "kill -15 $$"]))).unwrap();
    assert_eq!(out.exit_code, 143);
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn stdin_is_written_or_empty() {
    let args = argv(&["cat"]);
    let mut s = spec(&args);
    s.stdin = Some("abcé".as_bytes());
    assert_eq!(run(&s).unwrap().stdout.text(), "abcé");
    let out = run(&spec(&args)).unwrap();
    assert_eq!((out.exit_code, out.stdout.text()), (0, ""));
    // A child that never reads its input does not block or break the run.
    let args = argv(&["true"]);
    let big = vec![b'x'; 4 << 20];
    let mut s = spec(&args);
    s.stdin = Some(&big);
    assert_eq!(run(&s).unwrap().exit_code, 0);
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn both_pipes_full_do_not_deadlock() {
    let args = argv(&[
        "sh",
        "-c",
        "head -c 10000000 /dev/zero | tr '\\0' o & head -c 10000000 /dev/zero | tr '\\0' e >&2; wait",
    ]);
    let mut s = spec(&args);
    s.max_output_units = 1000;
    let out = run(&s).unwrap();
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.stdout.text(), "o".repeat(1000));
    assert_eq!(out.stderr.text(), "e".repeat(1000));
    assert!(out.stdout.truncated() && out.stderr.truncated());
}

/// Killed processes close their pipes before the kernel marks them dead, so a member can
/// look alive for a moment after the run returned; allow it a second on a loaded machine.
/// How soon a call must return when it must not wait for a command that would run 30 s or
/// more: a third of that wait, room for a loaded machine.
#[cfg(unix)]
const PROMPTLY: Duration = Duration::from_secs(10);

/// Whether the group is gone within 20 s (polled every 10 ms; its sleeps would last 30 s).
#[cfg(unix)]
fn group_dies_soon(pgid: i32) -> bool {
    (0..2000).any(|_| {
        let dead = living_group_members(pgid).is_empty();
        if !dead {
            std::thread::sleep(Duration::from_millis(10));
        }
        dead
    })
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn timeout_kills_the_whole_group_promptly() {
    let args = argv(&["sh", "-c", "echo $$; sleep 30 & sleep 30"]);
    let mut s = spec(&args);
    // Long enough for a loaded machine to start the shell (its pid is read below).
    s.timeout = Some(Duration::from_millis(1000));
    let started = Instant::now();
    let out = run(&s).unwrap();
    assert!(started.elapsed() < PROMPTLY, "{out:?}");
    assert!(out.timed_out);
    assert_eq!(out.exit_code, 124);
    let pgid: i32 = out.stdout.text().trim().parse().unwrap();
    assert!(group_dies_soon(pgid), "a process of the group survived");
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn cancellation_kills_the_group_at_once() {
    let cancel = std::sync::Arc::new(crate::cancel::Cancellation::new().unwrap());
    let argv = ["sh", "-c", "sleep 30 & sleep 30"]
        .map(String::from)
        .to_vec();
    let mut s = spec(&argv);
    s.timeout = Some(Duration::from_secs(60));
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        trigger.cancel();
    });
    s.cancel = Some(&cancel);
    let started = Instant::now();
    let out = run(&s).unwrap();
    canceller.join().unwrap();
    assert!(out.cancelled);
    assert!(started.elapsed() < PROMPTLY, "returned promptly");
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn endless_output_does_not_defeat_the_timeout() {
    let args = argv(&["yes"]);
    let mut s = spec(&args);
    s.timeout = Some(Duration::from_millis(200));
    s.max_output_units = 1000;
    // On a busy machine `yes` may not have written before its 200 ms are up: the timeout must
    // hold either way, and a few attempts (by design) give the output check a run that wrote.
    for _ in 0..5 {
        let started = Instant::now();
        let out = run(&s).unwrap();
        assert!(started.elapsed() < PROMPTLY);
        assert_eq!((out.exit_code, out.timed_out), (124, true));
        if out.stdout.text().is_empty() {
            continue;
        }
        assert_eq!(out.stdout.text(), "y\n".repeat(500));
        assert!(out.stdout.truncated());
        return;
    }
    panic!("yes wrote nothing within 200 ms in five runs");
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn pipes_held_outside_the_group_are_abandoned_after_the_grace() {
    let args = argv(&["sh", "-c", "setsid sh -c 'echo $$; exec sleep 30' & wait"]);
    let mut s = spec(&args);
    // Long enough for a loaded machine to start the escaping shell (its pid is read below).
    s.timeout = Some(Duration::from_millis(1000));
    let started = Instant::now();
    let out = run(&s).unwrap();
    let took = started.elapsed();
    let escaped: i32 = out.stdout.text().trim().parse().unwrap();
    let _ = rustix::process::kill_process(Pid::from_raw(escaped).unwrap(), Signal::KILL);
    assert!(took < PROMPTLY, "{took:?}");
    assert_eq!((out.exit_code, out.timed_out), (124, true));
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn sigterm_ignoring_child_is_killed_after_the_grace() {
    let args = argv(&[
        "sh",
        "-c",
        "trap '' TERM; echo ready; while :; do sleep 1; done",
    ]);
    let mut s = spec(&args);
    // On a loaded machine the timeout can come before the shell has set its trap and printed
    // "ready": then the same run again with a longer timeout.
    for timeout_ms in [100, 400, 1600, 6400] {
        s.timeout = Some(Duration::from_millis(timeout_ms));
        let started = Instant::now();
        let out = run(&s).unwrap();
        let took = started.elapsed();
        if out.stdout.text().is_empty() && timeout_ms < 6400 {
            continue;
        }
        assert!(
            took >= KILL_GRACE && took < s.timeout.unwrap() + PROMPTLY,
            "{took:?}"
        );
        assert_eq!((out.exit_code, out.timed_out), (124, true));
        assert_eq!(out.stdout.text(), "ready\n");
        break;
    }
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn thread_exit_watch_works_too() {
    let args = argv(&["sh", "-c", "echo $$; sleep 30 & sleep 30"]);
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let watch = ExitWatch::with_thread(Pid::from_child(&child)).unwrap();
    let mut s = spec(&args);
    // Long enough for a loaded machine to start the shell (its pid is read below).
    s.timeout = Some(Duration::from_millis(1000));
    let mut tree = Tree::Group(Pid::from_child(&child));
    let mut streams = Streams {
        stdin: None,
        stdout: child.stdout.take().map(OwnedFd::from),
        stderr: child.stderr.take().map(OwnedFd::from),
    };
    let (stdout, _, timed_out) =
        pump(&mut streams, &mut tree, Some(&watch), &s, Instant::now()).unwrap();
    let status = child.wait().unwrap();
    drop(watch);
    assert!(timed_out);
    assert_eq!(status.signal(), Some(Signal::TERM.as_raw()));
    let pgid: i32 = stdout.text().trim().parse().unwrap();
    assert!(group_dies_soon(pgid), "a process of the group survived");
}

/// Without a `/proc/self/fd` path (macOS, `portable-unix`) the child starts in the open
/// directory it was given, whatever the path names by then (here a symlink to another one).
#[cfg(all(portable, unix))]
#[test]
fn the_child_starts_in_the_open_directory_not_where_the_path_leads() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    std::fs::create_dir(base.join("checked")).unwrap();
    std::fs::create_dir(base.join("outside")).unwrap();
    std::os::unix::fs::symlink(base.join("outside"), base.join("swapped")).unwrap();
    let checked = std::fs::File::open(base.join("checked")).unwrap();
    let argv = argv(&["/bin/sh", "-c", "pwd -P"]);
    let path = base.join("swapped");
    let out = run(&RunSpec {
        cwd: Some(&path),
        cwd_dir: Some(checked.as_fd()),
        ..spec(&argv)
    })
    .unwrap();
    let expected = format!("{}\n", base.join("checked").display());
    assert_eq!(out.stdout.text(), expected);
    assert_eq!(out.exit_code, 0);
}

#[test]
fn spawn_errors_use_the_runtime_wording() {
    let err = run(&spec(&argv(&["definitely-not-a-cmd-xyz"]))).unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(
        err.message(),
        "Executable not found in $PATH: \"definitely-not-a-cmd-xyz\""
    );
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn bare_names_are_found_on_the_child_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    for (bin, mode) in [(&first, 0o644), (&second, 0o755)] {
        std::fs::create_dir(bin).unwrap();
        let tool = bin.join("atn-tool");
        std::fs::write(&tool, format!("#!/bin/sh\necho {}\n", bin.display())).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let path = std::env::join_paths([&first, &second]).unwrap();
    let env = [(OsString::from("PATH"), path)];
    let args = argv(&["atn-tool"]);
    let mut s = spec(&args);
    s.env = Some(&env);
    assert_eq!(
        run(&s).unwrap().stdout.text(),
        format!("{}\n", second.display()),
        "the non-executable first match is skipped"
    );
    let env = [(OsString::from("PATH"), first.into_os_string())];
    s.env = Some(&env);
    assert!(run(&s).unwrap_err().is_not_found());
}

#[cfg(unix)] // sh and POSIX tools; Windows: process/windows.rs
#[test]
fn environment_is_exactly_the_given_one() {
    let args = argv(&["sh", "-c", "echo \"$ATN_A|$HOME\""]);
    let env = [
        (OsString::from("ATN_A"), OsString::from("1")),
        (
            OsString::from("PATH"),
            std::env::var_os("PATH").unwrap_or_default(),
        ),
    ];
    let mut s = spec(&args);
    s.env = Some(&env);
    assert_eq!(run(&s).unwrap().stdout.text(), "1|\n");
}

/// Pids of the group's members that are not zombies (a zombie is already dead).
#[cfg(unix)]
fn living_group_members(pgid: i32) -> Vec<i32> {
    let mut alive = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the command name: state ppid pgrp ...
        let after = &stat[stat.rfind(')').unwrap_or(0) + 2..];
        let fields: Vec<&str> = after.split(' ').collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            alive.push(pid);
        }
    }
    alive
}
