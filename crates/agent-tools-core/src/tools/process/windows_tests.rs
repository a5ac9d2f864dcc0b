//! Windows: `tty` through the tools. The programs are cmd.exe and this test binary in a helper
//! role (crate::process's test helper).

use crate::context::ToolContext;
use crate::error::ErrorCode;
use crate::processes::{Limits, ProcessTable};
use crate::toolkit::{InvokeError, Toolkit};
use serde_json::{json, Value};

pub(super) fn toolkit(root: &std::path::Path) -> Toolkit {
    let mut ctx = ToolContext::allow_all(root.to_str().unwrap());
    ctx.processes = Some(std::sync::Arc::new(ProcessTable::new(Limits::default())));
    let mut toolkit = Toolkit::new(ctx);
    for name in [
        "process_start",
        "process_write",
        "process_read",
        "process_kill",
    ] {
        toolkit.enable(name).unwrap();
    }
    toolkit
}

pub(super) fn echo(root: &std::path::Path, tty: bool) -> Value {
    json!({
        "cwd": root.to_str().unwrap(),
        "command": ["cmd.exe", "/d", "/c", "echo hello"],
        "shell_mode": "direct",
        "tty": tty,
        "wait_ms": 30000,
    })
}

/// Where no pseudo console can be had (under wine, this test binary off wine's console, as
/// `cargo test` runs it), `tty` is a coded refusal that says why, and pipes work; where one
/// can, it starts.
#[test]
fn tty_is_refused_with_its_reason_only_where_there_is_no_pseudo_console() {
    let dir = tempfile::tempdir().unwrap();
    let mut toolkit = toolkit(dir.path());
    let started = toolkit.invoke("process_start", &echo(dir.path(), true));
    match crate::conpty::unavailable() {
        Some(reason) => {
            if crate::conpty::under_wine() {
                assert_eq!(reason, crate::conpty::WINE_WITHOUT_CONSOLE);
            }
            let Err(InvokeError::Tool(error)) = started else {
                panic!("not refused: {started:?}");
            };
            assert_eq!(error.code, ErrorCode::TtyUnsupported);
            assert_eq!(
                error.message,
                format!(
                    "TTY_UNSUPPORTED: a pseudo-terminal is not available: {reason}: run \
                     without tty (pipes)"
                )
            );
            let piped = toolkit
                .invoke("process_start", &echo(dir.path(), false))
                .unwrap();
            assert_eq!(piped["output"], "hello\r\n");
            assert_eq!(piped["exit_code"], 0);
        }
        None => assert_eq!(started.unwrap()["exit_code"], 0),
    }
}
