//! Windows: the tools with `tty` in a pseudo console (ConPTY). The names hold `conpty`: under
//! wine they need the test binary on wine's console (scripts/test-windows.sh runs them under
//! `script`), and fail, saying so, without one.

use super::windows_tests::{echo, toolkit};
use crate::process::windows::test_helper;
use serde_json::json;

/// The output is text (the console's escape sequences stripped, `\r\n` as `\n`), as on
/// Unix, unless `raw`.
#[test]
fn conpty_tty_output_is_text_unless_raw() {
    let _one = test_helper::console();
    let dir = tempfile::tempdir().unwrap();
    let mut toolkit = toolkit(dir.path());
    let out = toolkit
        .invoke("process_start", &echo(dir.path(), true))
        .unwrap();
    assert_eq!(
        (&out["status"], &out["exit_code"], &out["output"]),
        (&json!("exited"), &json!(0), &json!("hello\n")),
        "{out}"
    );
    let mut raw = echo(dir.path(), true);
    raw["raw"] = json!(true);
    let out = toolkit.invoke("process_start", &raw).unwrap();
    let text = out["output"].as_str().unwrap();
    assert!(text.contains("\u{1b}["), "{text:?}");
    assert_eq!(strip_ansi_escapes::strip_str(text), "hello\n", "{text:?}");
}

/// process_write drives an interactive cmd.exe ("\n" ends a line), its exit code is
/// reported; process_kill ends a tree and its console.
#[test]
fn conpty_process_write_and_kill() {
    let _one = test_helper::console();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let mut toolkit = toolkit(dir.path());
    let shell = toolkit
        .invoke(
            "process_start",
            &json!({"cwd": root, "command": ["cmd.exe", "/d"], "shell_mode": "direct", "tty": true, "env": {"ATN_ANSWER": "42"}, "wait_for": ">", "wait_ms": 30000}),
        )
        .unwrap();
    assert_eq!(shell["status"], "running", "{shell}");
    let id = shell["process_id"].clone();
    let answer = toolkit
        .invoke(
            "process_write",
            &json!({"process_id": id, "input": "echo the answer is %ATN_ANSWER%\n", "wait_for": "answer is 42", "wait_ms": 30000}),
        )
        .unwrap();
    let text = answer["output"].as_str().unwrap();
    // The console echoes the line, then cmd.exe runs it.
    assert!(
        text.contains("echo the answer is %ATN_ANSWER%\nthe answer is 42"),
        "{text:?}"
    );
    let ended = toolkit
        .invoke(
            "process_write",
            &json!({"process_id": id, "input": "exit 6\n", "wait_ms": 30000}),
        )
        .unwrap();
    assert_eq!(
        (&ended["status"], &ended["exit_code"]),
        (&json!("exited"), &json!(6)),
        "{ended}"
    );
    let exe = test_helper::exe().to_string_lossy().into_owned();
    let tree = toolkit
        .invoke(
            "process_start",
            &json!({"cwd": root, "command": [exe], "shell_mode": "direct", "tty": true, "env": {"ATN_PROCESS_HELPER": "tree"}, "wait_ms": 0}),
        )
        .unwrap();
    // Both print their pid; read from the start until both are there.
    let id = &tree["process_id"];
    let mut pids: Vec<u32> = Vec::new();
    for _ in 0..100 {
        let read = toolkit
            .invoke(
                "process_read",
                &json!({"process_id": id, "cursor": 0, "wait_ms": 300}),
            )
            .unwrap();
        pids = read["output"]
            .as_str()
            .unwrap()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if pids.len() >= 2 {
            break;
        }
    }
    assert_eq!(pids.len(), 2, "{pids:?}");
    let killed = toolkit
        .invoke("process_kill", &json!({"process_id": id}))
        .unwrap();
    assert_eq!(killed["status"], "exited");
    for pid in pids {
        assert!(test_helper::process_ends_soon(pid), "{pid} is left");
    }
}
