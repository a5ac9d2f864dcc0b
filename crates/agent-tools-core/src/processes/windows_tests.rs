//! The process table on Windows: the programs are this test binary in a helper role
//! (crate::process's test helper), as Windows has no `sh`.
use super::*;
use crate::process::windows::test_helper;
use std::time::Duration;

fn spec(role: &str, dir: &std::path::Path) -> StartSpec {
    StartSpec {
        argv: vec![test_helper::exe().to_string_lossy().into_owned()],
        cwd: dir.to_path_buf(),
        env: test_helper::env(role),
        restriction: None,
        keep: None,
        terminal: None,
    }
}

#[test]
fn output_exit_codes_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let t = ProcessTable::new(Limits::default());
    let p = t.start(spec("exit", dir.path())).unwrap();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    let out = p.read(Some(0), usize::MAX);
    // stdout is flushed at the exit, stderr at once: one pipe, in the order written.
    assert_eq!(out.text, "errout");
    assert_eq!(
        out.status,
        Status::Exited {
            code: Some(3),
            signal: None
        }
    );
    let cat = t.start(spec("cat", dir.path())).unwrap();
    cat.write(b"hello", true).unwrap();
    assert!(cat.wait_gone(Some(Duration::from_secs(30))));
    assert_eq!(cat.read(Some(0), usize::MAX).text, "hello");
    assert!(matches!(
        cat.write(b"more", false),
        Err(ProcessError::StdinClosed(_))
    ));
}

/// The `tree` role starts a `sleep` child sharing its output: the output only closes once both
/// are gone.
#[test]
fn ending_a_process_ends_its_tree() {
    let dir = tempfile::tempdir().unwrap();
    let t = ProcessTable::new(Limits::default());
    let p = t.start(spec("tree", dir.path())).unwrap();
    let pid: u32 = read_until(&p, r"\d+\r?\n").text.trim().parse().unwrap();
    assert!(p.is_running());
    p.end();
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
    assert!(test_helper::process_ends_soon(pid));
    assert!(!p.is_running());
}

#[test]
fn dropping_the_table_ends_its_processes() {
    let dir = tempfile::tempdir().unwrap();
    let t = ProcessTable::new(Limits::default());
    let p = t.start(spec("sleep", dir.path())).unwrap();
    let pid: u32 = read_until(&p, r"\d+\r?\n").text.trim().parse().unwrap();
    drop(t);
    assert!(test_helper::process_ends_soon(pid));
    assert!(p.wait_gone(Some(Duration::from_secs(30))));
}

/// `tty`: the process in a pseudo console (ConPTY). Every name here holds `conpty`:
/// scripts/test-windows.sh runs these apart, with the test binary on wine's console (under
/// `script`), since only then does wine 8's pseudo console reach the program; run without a
/// console, under wine, they fail and say so.
mod conpty {
    use super::*;
    use std::time::Instant;
    use test_helper::{console, consoles};

    fn tty(role: &str, dir: &std::path::Path) -> StartSpec {
        StartSpec {
            terminal: Some((100, 30)),
            ..spec(role, dir)
        }
    }

    fn cmd(args: &[&str], dir: &std::path::Path) -> StartSpec {
        let cmd = crate::process::locate_program("cmd.exe", None, None).unwrap();
        StartSpec {
            argv: std::iter::once(cmd.to_string_lossy().into_owned())
                .chain(args.iter().map(|a| a.to_string()))
                .collect(),
            cwd: dir.to_path_buf(),
            env: std::env::vars_os().collect(),
            restriction: None,
            keep: None,
            terminal: Some((100, 30)),
        }
    }

    /// The numbers on lines of their own in a terminal's output.
    fn pids(output: &str) -> Vec<u32> {
        strip_ansi_escapes::strip_str(output)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// The whole output as text (the console's escape sequences and carriage returns stripped,
    /// as the tools give it), once it matches `pattern` (30 s at most).
    fn text_until(p: &Process, pattern: &str) -> String {
        let re = regex::Regex::new(pattern).unwrap();
        let until = Instant::now() + LONG;
        loop {
            let text = strip_ansi_escapes::strip_str(p.read(Some(0), usize::MAX).text);
            if re.is_match(&text) || Instant::now() >= until {
                return text;
            }
            p.wait_for_output(
                p.end_offset(),
                until.min(Instant::now() + Duration::from_millis(200)),
            );
        }
    }

    const LONG: Duration = Duration::from_secs(30);

    #[test]
    fn conpty_output_exit_codes_and_size_arrive() {
        let _one = console();
        let dir = tempfile::tempdir().unwrap();
        let t = ProcessTable::new(Limits::default());
        let before = consoles();
        let p = t
            .start(cmd(&["/d", "/c", "echo hello"], dir.path()))
            .unwrap();
        assert!(p.terminal);
        assert!(p.wait_gone(Some(LONG)));
        let out = p.read(Some(0), usize::MAX);
        // The console's own escape sequences come with it (tools::process strips them).
        let text = strip_ansi_escapes::strip_str(&out.text);
        assert!(text.contains("hello\n"), "{:?}", out.text);
        assert_eq!(
            out.status,
            Status::Exited {
                code: Some(0),
                signal: None
            }
        );
        // The exit closed the pseudo console: its conhost is gone too.
        for pid in consoles().into_iter().filter(|pid| !before.contains(pid)) {
            assert!(test_helper::process_ends_soon(pid), "conhost {pid} is left");
        }
        let p = t.start(tty("exit", dir.path())).unwrap();
        assert!(p.wait_gone(Some(LONG)));
        let out = p.read(Some(0), usize::MAX);
        assert!(
            out.text.contains("out") && out.text.contains("err"),
            "{:?}",
            out.text
        );
        assert_eq!(
            out.status,
            Status::Exited {
                code: Some(3),
                signal: None
            }
        );
        // process_start's cols and rows are the console's size.
        let p = t.start(tty("size", dir.path())).unwrap();
        let text = text_until(&p, r"\d+x\d+");
        assert!(text.contains("100x30\n"), "{text:?}");
        p.end();
        assert!(p.wait_gone(Some(LONG)));
    }

    #[test]
    fn conpty_input_reaches_the_program() {
        let _one = console();
        let dir = tempfile::tempdir().unwrap();
        let t = ProcessTable::new(Limits::default());
        // "\n" ends the line (written as the console's Enter, "\r").
        let p = t.start(tty("line", dir.path())).unwrap();
        p.write(b"ada\n", false).unwrap();
        assert!(p.wait_gone(Some(LONG)));
        let out = p.read(Some(0), usize::MAX);
        let text = strip_ansi_escapes::strip_str(&out.text);
        assert!(text.contains("ada\ngot ada\n"), "{:?}", out.text);
        assert_eq!(
            out.status,
            Status::Exited {
                code: Some(4),
                signal: None
            }
        );
        // An interactive cmd.exe, turn by turn.
        let p = t.start(cmd(&["/d"], dir.path())).unwrap();
        text_until(&p, r">");
        p.write(b"echo hi there\n", false).unwrap();
        // The console echoes the line, then cmd.exe runs it.
        let text = text_until(&p, r"echo hi there\nhi there\n");
        assert!(text.contains("echo hi there\nhi there\n"), "{text:?}");
        p.write(b"exit 6\n", false).unwrap();
        assert!(p.wait_gone(Some(LONG)));
        assert_eq!(
            p.status(),
            Status::Exited {
                code: Some(6),
                signal: None
            }
        );
        // Closing stdin types the end of input (Ctrl-Z, Enter): `cat` copies what it read.
        let p = t.start(tty("cat", dir.path())).unwrap();
        p.write(b"abc\n", false).unwrap();
        p.write(b"", true).unwrap();
        assert!(p.wait_gone(Some(LONG)));
        let out = p.read(Some(0), usize::MAX);
        // The console echoes the line, then `cat` prints it.
        let text = strip_ansi_escapes::strip_str(&out.text);
        assert!(text.contains("abc\n"), "{:?}", out.text);
        assert_eq!(text.matches("abc").count(), 2, "{:?}", out.text);
        assert_eq!(
            out.status,
            Status::Exited {
                code: Some(0),
                signal: None
            }
        );
    }

    #[test]
    fn conpty_kill_and_close_leave_no_process() {
        let _one = console();
        let dir = tempfile::tempdir().unwrap();
        let t = ProcessTable::new(Limits::default());
        let before = consoles();
        // `tree` and the `sleep` it starts share the console; both print their pids.
        let p = t.start(tty("tree", dir.path())).unwrap();
        let text = text_until(&p, r"(?m)^\d+\n(.|\n)*^\d+\n");
        let mut left = pids(&text);
        assert_eq!(left.len(), 2, "{text:?}");
        let ours: Vec<u32> = consoles()
            .into_iter()
            .filter(|pid| !before.contains(pid))
            .collect();
        assert_eq!(ours.len(), 1, "the pseudo console's conhost: {ours:?}");
        left.extend(ours);
        p.end();
        assert!(p.wait_gone(Some(LONG)));
        assert!(!p.is_running());
        for pid in left {
            assert!(test_helper::process_ends_soon(pid), "{pid} is left");
        }
        // Closing the table ends a terminal's process and its console too.
        let p = t.start(tty("sleep", dir.path())).unwrap();
        let mut left = pids(&text_until(&p, r"(?m)^\d+\n"));
        left.extend(consoles().into_iter().filter(|pid| !before.contains(pid)));
        assert_eq!(left.len(), 2, "{left:?}");
        t.close();
        for pid in left {
            assert!(test_helper::process_ends_soon(pid), "{pid} is left");
        }
        assert!(p.wait_gone(Some(LONG)));
    }

    #[test]
    #[ignore = "wine 8: \"\\x03\" on a pseudo console's input ends wine's conhost and every process on it (exit code 0, no handler runs); run on Windows"]
    fn conpty_ctrl_c_interrupts_the_program_and_the_shell_survives() {
        let _one = console();
        let dir = tempfile::tempdir().unwrap();
        let t = ProcessTable::new(Limits::default());
        let mut spec = cmd(&["/d"], dir.path());
        // What cmd.exe starts of this binary is the `sleep` role.
        spec.env = test_helper::env("sleep");
        let p = t.start(spec).unwrap();
        text_until(&p, r">");
        let exe = test_helper::exe();
        p.write(format!("\"{}\"\n", exe.display()).as_bytes(), false)
            .unwrap();
        let sleeper = pids(&text_until(&p, r"(?m)^\d+\n"));
        assert_eq!(sleeper.len(), 1);
        p.write(b"\x03", false).unwrap();
        assert!(test_helper::process_ends_soon(sleeper[0]));
        p.write(b"echo alive\n", false).unwrap();
        let text = text_until(&p, r"(?m)^alive\n");
        assert!(text.contains("\nalive\n"), "{text:?}");
        assert!(p.is_running());
        p.end();
        assert!(p.wait_gone(Some(LONG)));
    }
}
