//! Test-only fault injection: makes one built-in tool's handler panic, to prove that a panic
//! inside any tool becomes an `INTERNAL` error of that call only (the binding catches it) and
//! leaves the process and later calls unaffected; and hides Landlock from the exec sandbox, to
//! test `"auto"` and `"required"` on a kernel without it. The switch can only be turned on in a process
//! started with `AGENT_TOOLS_NATIVE_TEST_HOOKS=1`; otherwise it stays off for good.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::registry;

/// The environment variable that enables the test hooks (value `1`).
pub const ENV_VAR: &str = "AGENT_TOOLS_NATIVE_TEST_HOOKS";

/// The tool whose handler panics: its `CATALOG` index + 1, or 0 for none. Lock-free, so the
/// check before every handler costs one atomic load and can never be poisoned by the panic.
static PANICKING_TOOL: AtomicUsize = AtomicUsize::new(0);

/// Set: the exec sandbox behaves as on a kernel without Landlock (`debugSimulateNoLandlock`).
static LANDLOCK_HIDDEN: AtomicBool = AtomicBool::new(false);

/// True when the process was started with the hooks enabled.
pub fn enabled() -> bool {
    std::env::var_os(ENV_VAR).is_some_and(|v| v == "1")
}

/// Makes the handler of `tool` panic from now on (`None`: no tool). Refused unless the hooks
/// are enabled, and for names that are not built-in tools.
pub fn inject_panic(tool: Option<&str>) -> Result<(), String> {
    if !enabled() {
        return Err(format!(
            "debugInjectPanic is a test hook: start the process with {ENV_VAR}=1 to use it"
        ));
    }
    set_panicking_tool(tool)
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

fn set_panicking_tool(tool: Option<&str>) -> Result<(), String> {
    let slot = match tool {
        None => 0,
        Some(name) => {
            registry::CATALOG
                .iter()
                .position(|t| t.name == name)
                .ok_or_else(|| format!("debugInjectPanic: not a built-in tool: {name}"))?
                + 1
        }
    };
    PANICKING_TOOL.store(slot, Ordering::SeqCst);
    Ok(())
}

/// Called right before the built-in handler of `name` runs: panics when the hook names it.
pub fn before_handler(name: &str) {
    let slot = PANICKING_TOOL.load(Ordering::SeqCst);
    if slot != 0
        && registry::CATALOG
            .get(slot - 1)
            .is_some_and(|t| t.name == name)
    {
        panic!("injected panic in {name}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_is_refused_without_the_environment_variable() {
        // Test processes never set the variable.
        assert!(!enabled());
        let err = inject_panic(Some("read_file")).unwrap_err();
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
        assert!(set_panicking_tool(Some("nope")).is_err());
        set_panicking_tool(Some("task_validate_completion")).unwrap();
        before_handler("tree");
        let panic =
            std::panic::catch_unwind(|| before_handler("task_validate_completion")).unwrap_err();
        assert_eq!(
            panic.downcast_ref::<String>().map(String::as_str),
            Some("injected panic in task_validate_completion")
        );
        set_panicking_tool(None).unwrap();
        before_handler("task_validate_completion");
    }
}
