//! Permission rules seen from JavaScript: their check when a context is made, and the decision
//! on a call that the tool loop and the adapters ask before they run it (an `ask` goes to the
//! review hook or the framework's approval).

use agent_tools_core::permissions::Permissions;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::convert::{read_context, to_arg};

/// A rule's decision on a call, and what made it.
#[napi(object)]
pub struct PermissionVerdict {
    /// `"allow"`, `"ask"` or `"deny"`.
    pub decision: String,
    /// The rule (`exec_command: "rm *" → deny`) or what could not be checked.
    pub because: String,
}

/// What is wrong with `permissions` when it is not `{ [tool]: { [pattern]: "allow" | "ask" |
/// "deny" } }`, or null (`undefined` is fine); `createToolContext` throws it as a `TypeError`.
#[napi(catch_unwind, ts_args_type = "permissions: unknown")]
pub fn permissions_problem(permissions: Unknown) -> Result<Option<String>> {
    Ok(Permissions::from_value(&to_arg(&permissions)?).err())
}

/// The rules' decision on `toolkit.invoke(name, input)` with `context`, or null when no rule
/// decides (the policy does). Malformed rules decide `deny`.
#[napi(
    catch_unwind,
    ts_args_type = "context: object, name: string, input: unknown"
)]
pub fn permission_decision(
    context: Unknown,
    name: String,
    input: Unknown,
) -> Result<Option<PermissionVerdict>> {
    let ctx = read_context(&context)?;
    let verdict = agent_tools_core::invoke::permission_decision(&ctx, &name, &to_arg(&input)?);
    Ok(match verdict {
        Ok(verdict) => verdict.map(|v| PermissionVerdict {
            decision: v.decision.as_str().to_string(),
            because: v.because,
        }),
        Err(message) => Some(PermissionVerdict {
            decision: "deny".into(),
            because: message,
        }),
    })
}
