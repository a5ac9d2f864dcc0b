use super::*;
use std::time::Duration;

fn spec(script: &str, dir: &std::path::Path) -> StartSpec {
    StartSpec {
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        cwd: dir.to_path_buf(),
        env: std::env::vars_os().collect(),
        restriction: None,
        keep: None,
        terminal: None,
    }
}

fn in_terminal(mut spec: StartSpec) -> StartSpec {
    spec.terminal = Some((100, 30));
    spec
}

fn table(limits: Limits) -> (tempfile::TempDir, ProcessTable) {
    (tempfile::tempdir().unwrap(), ProcessTable::new(limits))
}

fn alive(pid: i32) -> bool {
    // Signal 0 checks existence; a zombie counts as gone for this purpose only once reaped, so
    // the process's state is looked at too.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.contains(") Z "))
        .unwrap_or(false)
}

/// Whether `holds` becomes true within `limit` (looked at every 10 ms).
fn within(limit: Duration, mut holds: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while !holds() {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Whether `pid` is gone within 10 s (a killed process takes a moment to become a zombie after
/// it closed its descriptors).
fn dies_soon(pid: i32) -> bool {
    within(Duration::from_secs(10), || !alive(pid))
}

#[test]
fn a_dialogue_on_stdin_then_kill_ends_the_tree() {
    let (dir, t) = table(Limits::default());
    let p = t
        .start(spec(
            "sleep 300 & echo bg $!; echo ready; read line; echo \"got $line\"; sleep 300",
            dir.path(),
        ))
        .unwrap();
    let out = read_until(&p, "ready");
    assert!(out.text.contains("ready"), "{out:?}");
    let background: i32 = out
        .text
        .lines()
        .find_map(|l| l.strip_prefix("bg "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(alive(background));
    p.write(b"hello\n", false).unwrap();
    let out = read_until(&p, "got hello");
    assert_eq!(out.text, "got hello\n");
    assert_eq!(out.status, Status::Running);
    p.end();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    assert!(
        dies_soon(background),
        "the background child outlived the kill"
    );
    assert!(!p.is_running());
}

#[test]
fn exit_codes_signals_and_the_last_output_stay_readable() {
    let (dir, t) = table(Limits::default());
    let p = t.start(spec("echo bye; exit 3", dir.path())).unwrap();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    let out = p.read(None, usize::MAX);
    assert_eq!(out.text, "bye\n");
    assert_eq!(
        out.status,
        Status::Exited {
            code: Some(3),
            signal: None
        }
    );
    let q = t.start(spec("kill -KILL $$", dir.path())).unwrap();
    assert!(q.wait_gone(Some(Duration::from_secs(30))));
    assert_eq!(
        q.status(),
        Status::Exited {
            code: None,
            signal: Some(libc::SIGKILL)
        }
    );
    // Listing reports the exits, then forgets them.
    let listed = t.list();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].id, p.id);
    assert_eq!(listed[0].command[2], "echo bye; exit 3");
    assert!(t.list().is_empty());
    assert!(matches!(t.get(&p.id), Err(ProcessError::Unknown(_))));
}

#[test]
fn a_signal_reaches_the_process_and_stdin_can_be_closed() {
    let (dir, t) = table(Limits::default());
    let p = t
        .start(spec(
            "trap 'echo term; exit 7' TERM; echo ready; while :; do sleep 0.05; done",
            dir.path(),
        ))
        .unwrap();
    read_until(&p, "ready");
    p.signal(libc::SIGTERM);
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    // The whole group got the signal: the shell may also report its `sleep` terminated.
    assert!(p.read(None, usize::MAX).text.contains("term\n"));
    assert_eq!(
        p.status(),
        Status::Exited {
            code: Some(7),
            signal: None
        }
    );

    let cat = t.start(spec("cat; echo done", dir.path())).unwrap();
    cat.write(b"abc", true).unwrap();
    assert!(cat.wait_gone(Some(Duration::from_secs(30))));
    assert_eq!(cat.read(Some(0), usize::MAX).text, "abcdone\n");
    // stdout and stderr in the order they were written.
    let both = t
        .start(spec("echo 1; echo 2 >&2; echo 3; echo 4 >&2", dir.path()))
        .unwrap();
    assert!(both.wait_gone(Some(Duration::from_secs(30))));
    assert_eq!(both.read(Some(0), usize::MAX).text, "1\n2\n3\n4\n");
    assert!(matches!(
        cat.write(b"more", false),
        Err(ProcessError::StdinClosed(_))
    ));
}

#[test]
fn output_is_bounded_and_drops_are_counted() {
    let (dir, t) = table(Limits {
        buffer_bytes: 4096,
        ..Limits::default()
    });
    // 20 MB of output, far more than the buffer.
    let p = t
        .start(spec(
            "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo end",
            dir.path(),
        ))
        .unwrap();
    assert!(p.wait_gone(Some(Duration::from_secs(60))));
    let out = p.read(Some(0), usize::MAX);
    assert!(out.text.ends_with("xxx\nend\n"));
    assert_eq!(out.text.len(), 4096);
    assert_eq!(out.dropped_bytes, 20_000_005 - 4096);
    assert_eq!(out.cursor, 20_000_005);
}

#[test]
fn the_running_limit_is_enforced() {
    let (dir, t) = table(Limits {
        max_running: 2,
        ..Limits::default()
    });
    let a = t.start(spec("sleep 300", dir.path())).unwrap();
    let _b = t.start(spec("sleep 300", dir.path())).unwrap();
    assert!(matches!(
        t.start(spec("sleep 300", dir.path())),
        Err(ProcessError::TooMany { running: 2 })
    ));
    a.end();
    assert!(a.wait_gone(Some(Duration::from_secs(30))));
    assert!(t.start(spec("true", dir.path())).is_ok());
}

#[test]
fn closing_the_table_ends_everything() {
    let (dir, t) = table(Limits::default());
    let p = t.start(spec("echo $$; sleep 300", dir.path())).unwrap();
    let pid: i32 = read_until(&p, "\n").text.trim().parse().unwrap();
    assert!(alive(pid));
    drop(t);
    assert!(dies_soon(pid));
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    assert!(!p.is_running());
    // An explicit close waits until everything is gone.
    let (dir, t) = table(Limits::default());
    let q = t.start(spec("sleep 300", dir.path())).unwrap();
    t.close();
    assert!(q.wait_gone(Some(Duration::ZERO)));
}

/// Resident memory of `pid` in KiB (0 when it cannot be read).
fn resident_kib(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn close_returns_once_a_member_that_let_go_of_the_output_is_gone_too() {
    // dd holds 512 MiB, which its exit takes a while to give back; it does not hold the
    // output, so the output ends as soon as the shell is gone.
    let (dir, t) = table(Limits::default());
    let p = t
        .start(spec(
            "dd if=/dev/zero of=/dev/null bs=512M count=100000 </dev/null >/dev/null 2>&1 & echo $!; wait",
            dir.path(),
        ))
        .unwrap();
    let dd: i32 = read_until(&p, "\n").text.trim().parse().unwrap();
    assert!(
        within(Duration::from_secs(30), || resident_kib(dd) >= 256 * 1024),
        "dd never held its buffer"
    );
    t.close();
    assert!(
        !alive(dd),
        "close() returned while a member of the group ran on"
    );
}

#[test]
fn the_maximum_lifetime_ends_a_process() {
    let (dir, t) = table(Limits {
        max_lifetime: Some(Duration::from_millis(300)),
        ..Limits::default()
    });
    let p = t.start(spec("sleep 300", dir.path())).unwrap();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    assert!(!p.is_running());
}

#[test]
fn waiting_for_a_pattern_returns_early() {
    let (dir, t) = table(Limits::default());
    let p = t
        .start(spec(
            "echo starting; sleep 0.2; echo 'listening on :8080'; sleep 300",
            dir.path(),
        ))
        .unwrap();
    let started = Instant::now();
    let re = regex::Regex::new(r"listening on :\d+").unwrap();
    p.wait(0, started + Duration::from_secs(60), Some(&re));
    assert!(started.elapsed() < Duration::from_secs(30));
    let out = p.read(None, usize::MAX);
    assert!(out.text.contains("listening on :8080"), "{out:?}");
    // Nothing new: a wait without a pattern runs to its deadline.
    let started = Instant::now();
    p.wait(p.cursor(), started + Duration::from_millis(100), Some(&re));
    assert!(started.elapsed() >= Duration::from_millis(100));
    p.end();
}

#[test]
fn a_terminal_is_the_controlling_terminal_of_its_size() {
    let (dir, t) = table(Limits::default());
    let p = t
        .start(in_terminal(spec(
            "test -t 0 && test -t 1 && echo tty; stty size; tty >/dev/null && echo has-tty",
            dir.path(),
        )))
        .unwrap();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    let text = p.read(Some(0), usize::MAX).text.replace("\r\n", "\n");
    assert_eq!(text, "tty\n30 100\nhas-tty\n");
}

#[test]
fn ctrl_c_interrupts_the_foreground_job_and_the_shell_survives() {
    // as in a host a shell started in the background: SIGINT ignored, which the command must
    // not inherit (restored when the test ends)
    struct Restore(libc::sighandler_t);
    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: puts back the disposition read below
            unsafe { libc::signal(libc::SIGINT, self.0) };
        }
    }
    // SAFETY: the test process's own SIGINT disposition; nothing here handles SIGINT
    let _restore = Restore(unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) });
    let (dir, t) = table(Limits::default());
    let mut s = spec("", dir.path());
    s.argv = vec!["/bin/sh".into(), "-i".into()];
    s.env.push(("PS1".into(), "$ ".into()));
    let p = t.start(in_terminal(s)).unwrap();
    read_until(&p, "\\$ ");
    // Ctrl-C once the job runs in the foreground (it says so itself): sent earlier, while the
    // shell still reads the line or starts the job, it would reach the shell instead
    p.write(b"sh -c 'echo sleeping; exec sleep 300'\n", false)
        .unwrap();
    read_until(&p, "(?m)^sleeping\r?$");
    p.write(b"\x03", false).unwrap();
    // The foreground job got SIGINT; the shell prompts again.
    let out = read_until(&p, "\\$ $");
    assert!(out.text.contains("^C"), "{out:?}");
    p.write(b"echo status $?\n", false).unwrap();
    let out = read_until(&p, "status \\d+");
    assert!(out.text.contains("status 130"), "{out:?}");
    p.write(b"echo still-here\n", false).unwrap();
    let out = read_until(&p, "still-here\r?\n");
    assert!(out.text.contains("still-here"), "{out:?}");
    assert!(p.is_running());
    // Ctrl-D at an empty prompt: the shell exits.
    p.write(b"", true).unwrap();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
}
