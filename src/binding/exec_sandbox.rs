//! exec_command's OS sandbox seen from JavaScript: what a call would enforce (for the tool
//! loop's review hook) and the test hook that hides Landlock.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::convert::read_context;

/// What an exec_command call with this context would enforce now, as JSON text
/// (`ExecSandbox`), or null when `context.exec.sandbox` is off. Throws for a malformed
/// `context.exec`, with exec_command's message.
#[napi(catch_unwind, ts_args_type = "context: object")]
pub fn exec_sandbox_preview(context: Unknown) -> Result<Option<String>> {
    let ctx = read_context(&context)?;
    let preview = agent_tools_core::exec_sandbox::preview(&ctx)
        .map_err(|m| Error::new(Status::InvalidArg, format!("INVALID_ARGUMENT: {m}")))?;
    preview
        .map(|report| serde_json::to_string(&report).map_err(|e| Error::from_reason(e.to_string())))
        .transpose()
}

/// Test hook: from now on exec_command's OS sandbox acts as on a kernel without Landlock
/// (`false`: as it is), to test `"auto"` and `"required"` there. Throws unless the process was
/// started with `AGENT_TOOLS_NATIVE_TEST_HOOKS=1`.
#[napi(catch_unwind)]
pub fn debug_simulate_no_landlock(on: bool) -> Result<()> {
    agent_tools_core::test_hooks::simulate_no_landlock(on).map_err(Error::from_reason)
}
