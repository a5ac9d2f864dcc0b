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
