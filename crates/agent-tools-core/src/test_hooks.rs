//! Test-only fault injection: makes one built-in tool's handler panic, to prove that a panic
//! inside any tool becomes an `INTERNAL` error of that call only (the binding catches it) and
//! leaves the process and later calls unaffected; and hides Landlock from the exec sandbox, to
//! test `"auto"` and `"required"` on a kernel without it. The switch can only be turned on in a process
//! started with `AGENT_TOOLS_NATIVE_TEST_HOOKS=1`; otherwise it stays off for good.
//!
//! This module imports nothing from the crate: which names are built-in tools is the caller's
//! answer (`inject_panic` takes it), so the exec sandbox can use the hooks without depending on
//! the tool registry.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// The environment variable that enables the test hooks (value `1`).
pub const ENV_VAR: &str = "AGENT_TOOLS_NATIVE_TEST_HOOKS";

/// Set while a tool's handler is to panic: the check before every handler costs one atomic load
/// when the hook is off.
static ARMED: AtomicBool = AtomicBool::new(false);

/// The name of the tool whose handler panics (meaningful while `ARMED`). The lock is never held
/// while panicking, and a poisoned lock is still read.
static PANICKING_TOOL: Mutex<String> = Mutex::new(String::new());

/// Set: the exec sandbox behaves as on a kernel without Landlock (`debugSimulateNoLandlock`).
static LANDLOCK_HIDDEN: AtomicBool = AtomicBool::new(false);

/// True when the process was started with the hooks enabled.
pub fn enabled() -> bool {
    std::env::var_os(ENV_VAR).is_some_and(|v| v == "1")
}

/// Makes the handler of `tool` panic from now on (`None`: no tool). Refused unless the hooks
/// are enabled, and for names that are not built-in tools (`is_builtin` answers that).
pub fn inject_panic(tool: Option<&str>, is_builtin: impl Fn(&str) -> bool) -> Result<(), String> {
    if !enabled() {
        return Err(format!(
            "debugInjectPanic is a test hook: start the process with {ENV_VAR}=1 to use it"
        ));
    }
    set_panicking_tool(tool, is_builtin)
}

/// From now on the exec sandbox acts as on a kernel without Landlock (`false`: as it is).
/// Refused unless the hooks are enabled.
pub fn simulate_no_landlock(on: bool) -> Result<(), String> {
    if !enabled() {
        return Err(format!(
            "debugSimulateNoLandlock is a test hook: start the process with {ENV_VAR}=1 to use it"
        ));
    }
    LANDLOCK_HIDDEN.store(on, Ordering::SeqCst);
    Ok(())
}

/// True while [`simulate_no_landlock`] is on.
pub fn landlock_hidden() -> bool {
    LANDLOCK_HIDDEN.load(Ordering::Relaxed)
}

fn set_panicking_tool(tool: Option<&str>, is_builtin: impl Fn(&str) -> bool) -> Result<(), String> {
    if let Some(name) = tool {
        if !is_builtin(name) {
            return Err(format!("debugInjectPanic: not a built-in tool: {name}"));
        }
    }
    let mut slot = PANICKING_TOOL
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    slot.clear();
    slot.push_str(tool.unwrap_or_default());
    ARMED.store(tool.is_some(), Ordering::SeqCst);
    Ok(())
}

/// Called right before the built-in handler of `name` runs: panics when the hook names it.
pub fn before_handler(name: &str) {
    if !ARMED.load(Ordering::SeqCst) {
        return;
    }
    let hit = *PANICKING_TOOL
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        == name;
    if hit {
        panic!("injected panic in {name}");
    }
}

type Pause = std::sync::OnceLock<Option<std::time::Duration>>;

/// Sleeps for the milliseconds the environment variable `var` gives, in a process started with
/// the hooks enabled (`cell` keeps what was read the first time).
fn pause(cell: &Pause, var: &str) {
    let pause = cell.get_or_init(|| {
        if !enabled() {
            return None;
        }
        std::env::var(var)
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map(std::time::Duration::from_millis)
    });
    if let Some(pause) = pause {
        std::thread::sleep(*pause);
    }
}

static JOURNAL_PAUSE: Pause = Pause::new();

/// Test hook: sleeps between writing a journal file under its temporary name and renaming it
/// into place, so a test can kill the process in the middle of a journal write
/// (`AGENT_TOOLS_NATIVE_JOURNAL_PAUSE_MS`).
pub fn journal_write_pause() {
    pause(&JOURNAL_PAUSE, "AGENT_TOOLS_NATIVE_JOURNAL_PAUSE_MS");
}

static SEARCH_PAUSE: Pause = Pause::new();

/// Test hook: sleeps as a regexp_search call starts, its timeout already counting, so a test can
/// make a search outlast its `timeout_ms` whatever the machine's speed
/// (`AGENT_TOOLS_NATIVE_SEARCH_PAUSE_MS`).
pub fn search_start_pause() {
    pause(&SEARCH_PAUSE, "AGENT_TOOLS_NATIVE_SEARCH_PAUSE_MS");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_is_refused_without_the_environment_variable() {
        // Test processes never set the variable.
        assert!(!enabled());
        let err = inject_panic(Some("read_file"), |_| true).unwrap_err();
        assert!(err.contains(ENV_VAR), "{err}");
        before_handler("read_file");
        let err = simulate_no_landlock(true).unwrap_err();
        assert!(err.contains(ENV_VAR), "{err}");
        assert!(!landlock_hidden());
    }

    #[test]
    fn only_the_named_tool_panics() {
        // The switch is global: the tool named here is one no other unit test runs (the
        // toolkit's tests run task_list, so naming it made them panic now and then).
        let builtin = |name: &str| ["tree", "task_validate_completion"].contains(&name);
        let err = set_panicking_tool(Some("nope"), builtin).unwrap_err();
        assert_eq!(err, "debugInjectPanic: not a built-in tool: nope");
        set_panicking_tool(Some("task_validate_completion"), builtin).unwrap();
        before_handler("tree");
        let panic =
            std::panic::catch_unwind(|| before_handler("task_validate_completion")).unwrap_err();
        assert_eq!(
            panic.downcast_ref::<String>().map(String::as_str),
            Some("injected panic in task_validate_completion")
        );
        set_panicking_tool(None, builtin).unwrap();
        before_handler("task_validate_completion");
    }
}
