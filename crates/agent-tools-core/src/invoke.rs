//! The two front doors, each with upstream's exact order of checks:
//! `toolkit.invoke(name, args)` (docs/compat.md, "Order of checks in invoke") and `toolkit.tools.<name>(...)` (docs/compat.md, "Order of checks in toolkit.tools").
//! Both end in `prepare_*` returning the handler's positional arguments; `run` then calls the
//! built-in handler (the JavaScript side calls a user-replaced handler itself).

use super::context::{RunContext, ToolContext};
use super::error::{ErrorClass, ErrorCode, ToolError};
use super::fault;
use super::policy;
use super::registry::{self, Handler, InvokeArgs};
use super::sandbox::{self, Confinement};
use super::tools::todo::{self, TodoResult, TodoState};
use super::value::ArgValue;

/// Facts about the call that live in JavaScript: the mutable `ToolCatalog` and the bypass scope.
#[derive(Debug, Clone)]
pub struct CallSite {
    pub name: String,
    /// `Object.hasOwn(ToolCatalog, name)` at call time.
    pub registered: bool,
    /// `ToolCatalog[name].metadata.isWriteOp === true` at call time.
    pub is_write_op: bool,
    /// `SecurityBypass.isEnabled()` at call time.
    pub bypass: bool,
    /// The call is of an opt-in tool its toolkit enabled (`extraTools`); otherwise an opt-in
    /// tool's name is only a user tool's, and the opt-in tool's argument mapping does not apply.
    pub opt_in: bool,
}

/// Why `invoke` rejects.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejection {
    /// An `InvokeToolError` with one of the `InvokeToolErrorCode`s.
    Invoke {
        code: ErrorCode,
        raw_message: String,
    },
    /// A plain `Error` (sandbox violations, docs/compat.md, "Order of checks in invoke" step 6).
    Plain(String),
    /// The handler's own error, unchanged.
    Tool(ToolError),
}

/// Why a secure-wrapper call did not succeed (before the handler's own errors).
#[derive(Debug, Clone, PartialEq)]
pub enum Denial {
    Policy(String),
    Sandbox(String),
    /// `status: "failure"` (e.g. `Invalid path argument`).
    Failure(String),
}

/// docs/compat.md, "Order of checks in invoke" steps 1–6: the positional arguments for `ToolCatalog[name].handler`.
pub fn prepare_invoke(
    ctx: &ToolContext,
    call: &CallSite,
    args: &ArgValue,
) -> Result<Vec<ArgValue>, Rejection> {
    let invoke_error = |code, raw_message: String| Rejection::Invoke { code, raw_message };
    if !call.registered {
        return Err(invoke_error(
            ErrorCode::ToolNotFound,
            format!("tool is not registered: {}", call.name),
        ));
    }
    policy::authorize(ctx, &call.name, call.bypass)
        .map_err(|m| invoke_error(ErrorCode::ToolNotAllowed, m))?;
    if !args.is_plain_object() {
        return Err(invoke_error(
            ErrorCode::InvalidToolArgumentsType,
            "args must be an object".to_string(),
        ));
    }
    policy::check_write_scope(ctx, call.is_write_op)
        .map_err(|m| invoke_error(ErrorCode::ToolNotAllowed, m))?;

    let mapping = registry::find_enabled(&call.name, call.opt_in)
        .map(|t| t.invoke_args)
        .unwrap_or(InvokeArgs::Object(None));
    let sandboxed = |v: &ArgValue| -> Result<ArgValue, Rejection> {
        match v {
            ArgValue::String(p) => resolve(ctx, p)
                .map(ArgValue::String)
                .map_err(Rejection::Plain),
            other => Ok(other.clone()),
        }
    };
    Ok(match mapping {
        InvokeArgs::PathAndField(path, second) => {
            vec![sandboxed(args.get(path))?, args.get(second).clone()]
        }
        InvokeArgs::PathAndOptions(path, keys) => vec![sandboxed(args.get(path))?, args.pick(keys)],
        InvokeArgs::OptionalPath(path) => vec![sandboxed(args.get(path))?],
        InvokeArgs::Object(Some(field)) => match args.get(field) {
            ArgValue::String(_) => vec![args.with_field(field, sandboxed(args.get(field))?)],
            _ => vec![args.clone()],
        },
        InvokeArgs::Object(None) => vec![args.clone()],
    })
}

/// The path field the secure wrapper sandboxes in a tool's object argument: the one the tool
/// takes (`cwd` for exec_command, `root_path` for the search tools). Keys a tool does not take
/// never reach it and are not checked, as upstream ignores them.
fn object_path_field(tool: &str, opt_in: bool) -> Option<&'static str> {
    match registry::find_enabled(tool, opt_in)?.invoke_args {
        InvokeArgs::Object(field) => field,
        _ => None,
    }
}

/// The secure wrapper's steps 1–4 for `toolkit.tools.<name>(...args)`: the first argument's
/// shape, the policy, the write scope, then the path (docs/compat.md).
pub fn prepare_secure(
    ctx: &ToolContext,
    call: &CallSite,
    mut args: Vec<ArgValue>,
) -> Result<Vec<ArgValue>, Denial> {
    // An explicit `undefined`, at any position, is an omitted argument: trailing ones are
    // dropped; a leading one is not an "Invalid path argument" and the tool's own validation
    // sees a missing path.
    while args.last() == Some(&ArgValue::Undefined) {
        args.pop();
    }
    if let Some(first) = args.first() {
        if !matches!(
            first,
            ArgValue::String(_) | ArgValue::Object(_) | ArgValue::Undefined
        ) {
            return Err(Denial::Failure("Invalid path argument".to_string()));
        }
    }
    policy::authorize(ctx, &call.name, call.bypass).map_err(Denial::Policy)?;
    policy::check_write_scope(ctx, call.is_write_op).map_err(Denial::Sandbox)?;
    if let Some(first) = args.first_mut() {
        match first {
            ArgValue::String(p) => *p = resolve(ctx, p).map_err(Denial::Sandbox)?,
            ArgValue::Object(_) => {
                if let Some(field) = object_path_field(&call.name, call.opt_in) {
                    if let ArgValue::String(p) = first.get(field) {
                        let resolved = resolve(ctx, p).map_err(Denial::Sandbox)?;
                        *first = first.with_field(field, ArgValue::String(resolved));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(args)
}

fn resolve(ctx: &ToolContext, path: &str) -> Result<String, String> {
    let root = ctx.root()?;
    sandbox::resolve_in_root(path, root, ctx.real_root().ok()).map_err(|v| v.message)
}

/// Runs the built-in handler of `name`. `confined` is true for calls that passed a front door.
pub fn run(
    ctx: &ToolContext,
    name: &str,
    positional: &[ArgValue],
    confined: bool,
) -> Result<String, ToolError> {
    let (spec, rc) = run_context(ctx, name, confined)?;
    match spec.handler {
        Handler::Worker(handler) => handler(&rc, positional),
        Handler::Bounded(handler) => handler(&rc, positional, None)?
            .ok_or_else(|| spec.error_class.internal("unbounded run gave up")),
        Handler::Session(_) => Err(spec.error_class.internal(format!(
            "{name} runs on the JavaScript thread with the session state"
        ))),
    }
}

/// Input size up to which a bounded tool runs on the caller's (JavaScript) thread: a few
/// system calls and a copy cost less than the round trip to the blocking pool.
pub const INLINE_BYTES: u64 = 64 * 1024;

/// A sandboxed run of a bounded tool on the caller's thread; `None` when the tool is not
/// bounded or its input is larger than `INLINE_BYTES` (then `run` it on the blocking pool).
pub fn run_inline(
    ctx: &ToolContext,
    name: &str,
    positional: &[ArgValue],
) -> Option<Result<String, ToolError>> {
    let (spec, rc) = match run_context(ctx, name, true) {
        Ok(found) => found,
        Err(e) => return Some(Err(e)),
    };
    match spec.handler {
        Handler::Bounded(handler) => handler(&rc, positional, Some(INLINE_BYTES)).transpose(),
        Handler::Worker(_) | Handler::Session(_) => None,
    }
}

/// True when `name` may finish on the caller's thread (see `run_inline`).
pub fn is_bounded(name: &str) -> bool {
    registry::find_enabled(name, true)
        .is_some_and(|spec| matches!(spec.handler, Handler::Bounded(_)))
}

/// The tool's spec and run context; every run of a built-in handler (on the pool or inline)
/// starts here, so the test hook `fault::before_handler` sits here too.
fn run_context<'c>(
    ctx: &'c ToolContext,
    name: &str,
    confined: bool,
) -> Result<(&'static registry::ToolSpec, RunContext<'c>), ToolError> {
    fault::before_handler(name);
    // Opt-in tools too: their calls reach a handler only through the checks of a toolkit that
    // enabled them (no `ToolCatalog` handler exists for them).
    let spec = registry::find_enabled(name, true).ok_or_else(|| {
        ErrorClass("Error").internal(format!("no built-in handler for tool: {name}"))
    })?;
    let confinement = match (confined, ctx.workspace_root.is_some()) {
        (true, true) => Some(Confinement::at(
            ctx.real_root()
                .map_err(|e| spec.error_class.internal(e))?
                .to_path_buf(),
        )),
        _ => None,
    };
    Ok((spec, RunContext { ctx, confinement }))
}

/// Runs the session tool `name` (a todo tool) on the current state `state`, on the JavaScript
/// thread; `listing` says who writes the outputs that are the whole list (`todo::Listing`).
pub fn run_session(
    name: &str,
    state: Option<&TodoState>,
    positional: &[ArgValue],
    listing: todo::Listing,
) -> Result<TodoResult, ToolError> {
    let Some(Handler::Session(op)) = registry::find(name).map(|t| t.handler) else {
        return Err(ErrorClass("Error").internal(format!("not a session tool: {name}")));
    };
    fault::before_handler(name);
    todo::run_for(op, state, positional, listing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(default_policy: &str) -> ToolContext {
        ToolContext::from_value(&ArgValue::from(&json!({
            "workspaceRoot": "/ws", "writeScope": "workspace-write",
            "policy": {"tools": {}, "defaultPolicy": default_policy},
            "env": {"platform": "linux", "osRelease": "6"}
        })))
    }

    fn site(name: &str) -> CallSite {
        let spec = registry::find(name);
        CallSite {
            name: name.to_string(),
            registered: spec.is_some(),
            is_write_op: spec.is_some_and(|s| s.effect.is_write_op()),
            bypass: false,
            opt_in: false,
        }
    }

    fn args(v: serde_json::Value) -> ArgValue {
        ArgValue::from(&v)
    }

    #[test]
    fn invoke_checks_run_in_contract_order() {
        let deny = ctx("deny");
        let err = prepare_invoke(&deny, &site("nope"), &ArgValue::Null).unwrap_err();
        assert!(
            matches!(err, Rejection::Invoke { code: ErrorCode::ToolNotFound, ref raw_message } if raw_message == "tool is not registered: nope")
        );
        // policy before the args type check
        let err = prepare_invoke(&deny, &site("read_file"), &ArgValue::Null).unwrap_err();
        assert!(matches!(
            err,
            Rejection::Invoke {
                code: ErrorCode::ToolNotAllowed,
                ..
            }
        ));
        // args type check before the write scope
        let mut ro = ctx("allow");
        ro.write_scope = "read-only".into();
        let err = prepare_invoke(&ro, &site("write_file"), &args(json!([1]))).unwrap_err();
        assert!(matches!(
            err,
            Rejection::Invoke {
                code: ErrorCode::InvalidToolArgumentsType,
                ..
            }
        ));
        let err = prepare_invoke(&ro, &site("write_file"), &args(json!({}))).unwrap_err();
        assert_eq!(
            err,
            Rejection::Invoke {
                code: ErrorCode::ToolNotAllowed,
                raw_message:
                    "[Sandbox Violation] Write operation denied. Current mode: \"read-only\"".into()
            }
        );
        let mut bypassed = site("read_file");
        bypassed.bypass = true;
        assert!(prepare_invoke(&deny, &bypassed, &args(json!({"path": "a"}))).is_ok());
    }

    #[test]
    fn invoke_maps_arguments() {
        let c = ctx("allow");
        let out = prepare_invoke(
            &c,
            &site("read_file"),
            &args(json!({"path": "src/main.ts", "x": 1})),
        )
        .unwrap();
        assert_eq!(out[0], ArgValue::from("/ws/src/main.ts"));
        assert_eq!(
            out[1],
            ArgValue::Object(vec![
                ("start_line".into(), ArgValue::Undefined),
                ("max_lines".into(), ArgValue::Undefined)
            ])
        );
        let out = prepare_invoke(&c, &site("git_status_summary"), &args(json!({}))).unwrap();
        assert_eq!(out, vec![ArgValue::Undefined]);
        let out = prepare_invoke(
            &c,
            &site("regexp_search"),
            &args(json!({"pattern": "TODO", "root_path": "src\\nested\\..", "cwd": "../.."})),
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"pattern": "TODO", "root_path": "/ws/src", "cwd": "../.."}))
        );
        let out = prepare_invoke(&c, &site("task_list"), &args(json!({"cwd": "../.."}))).unwrap();
        assert_eq!(out[0], args(json!({"cwd": "../.."})));
        let err =
            prepare_invoke(&c, &site("read_file"), &args(json!({"path": "..\\x"}))).unwrap_err();
        assert_eq!(
            err,
            Rejection::Plain(
                "[Sandbox Violation] Attempted to access path outside of workspace: \"../x\""
                    .into()
            )
        );
    }

    #[test]
    fn secure_wrapper_order_and_classification() {
        let deny = ctx("deny");
        assert_eq!(
            prepare_secure(&deny, &site("read_file"), vec![ArgValue::Number(5.0)]).unwrap_err(),
            Denial::Failure("Invalid path argument".into())
        );
        assert!(matches!(
            prepare_secure(&deny, &site("read_file"), vec!["a".into()]).unwrap_err(),
            Denial::Policy(_)
        ));
        let allow = ctx("allow");
        // classified by kind, not by the word "Policy" in the message (docs/compat.md)
        assert!(matches!(
            prepare_secure(&allow, &site("read_file"), vec!["../Policy".into()]).unwrap_err(),
            Denial::Sandbox(_)
        ));
        // an explicit undefined is an omitted argument (docs/compat.md)
        assert_eq!(
            prepare_secure(
                &allow,
                &site("git_status_summary"),
                vec![ArgValue::Undefined]
            )
            .unwrap(),
            Vec::<ArgValue>::new()
        );
        // a leading undefined is an omitted argument too: it reaches the tool's validation
        let opts = args(json!({"start_line": 1}));
        assert_eq!(
            prepare_secure(
                &allow,
                &site("read_file"),
                vec![ArgValue::Undefined, opts.clone()]
            )
            .unwrap(),
            vec![ArgValue::Undefined, opts]
        );
        // keys a tool does not take are not checked (and never reach it)
        let out = prepare_secure(
            &allow,
            &site("exec_command"),
            vec![args(
                json!({"cwd": ".", "command": ["ls"], "root_path": ".."}),
            )],
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"cwd": "/ws", "command": ["ls"], "root_path": ".."}))
        );
        let out = prepare_secure(
            &allow,
            &site("regexp_search"),
            vec![args(
                json!({"pattern": "x", "cwd": "../..", "root_path": "src"}),
            )],
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"pattern": "x", "cwd": "../..", "root_path": "/ws/src"}))
        );
        assert_eq!(
            prepare_secure(
                &allow,
                &site("task_list"),
                vec![args(json!({"cwd": "../.."}))]
            )
            .unwrap()[0],
            args(json!({"cwd": "../.."}))
        );
        // every path field a tool takes is checked, whatever other keys say
        assert!(matches!(
            prepare_secure(
                &allow,
                &site("regexp_search"),
                vec![args(
                    json!({"pattern": "x", "cwd": "src", "root_path": "../.."})
                )]
            )
            .unwrap_err(),
            Denial::Sandbox(_)
        ));
        let out = prepare_secure(
            &allow,
            &site("exec_command"),
            vec![args(json!({"cwd": "src", "command": ["ls"]}))],
        )
        .unwrap();
        assert_eq!(out[0], args(json!({"cwd": "/ws/src", "command": ["ls"]})));
    }
}
