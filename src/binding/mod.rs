//! The napi binding: converts JavaScript values to the core's types and the core's results back,
//! and moves file work off the JavaScript thread. No tool logic lives here.

mod convert;
pub mod exec_sandbox;
pub mod output_cache;
pub mod providers;

use std::panic::AssertUnwindSafe;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_core::context::ToolContext;
use agent_tools_core::invoke::{self, CallSite, Denial, Rejection};
use agent_tools_core::registry;
use agent_tools_core::tools::todo;
use agent_tools_core::value::ArgValue;
use convert::{read_context, read_process_env, to_arg};

/// What a native call resolves with; the JavaScript wrapper switches on `kind` (typed in
/// binding.d.ts) and turns it into a value, a `ToolResult` or the right error object.
#[napi(
    discriminant = "kind",
    discriminant_case = "snake_case",
    object_from_js = false
)]
pub enum Outcome {
    /// A handler's output as JSON text; for a session tool, its change to `context.todo` too.
    Ok {
        json: String,
        change: Option<String>,
    },
    /// The positional arguments for a user-replaced handler.
    Prepared {
        #[napi(ts_type = "unknown[]")]
        args: convert::Positional,
    },
    /// `InvokeToolError` (code, raw message).
    InvokeError { code: String, message: String },
    /// A plain `Error` (sandbox violation seen through `invoke`).
    PlainError { message: String },
    /// A tool's own error (class name, code, message).
    ToolError {
        name: String,
        code: String,
        message: String,
    },
    /// A secure-wrapper denial.
    Denied {
        reason: DenialReason,
        message: String,
    },
    /// A secure-wrapper runtime failure before the handler ran.
    Failure { message: String },
    /// A panic inside native code, caught.
    Internal { message: String },
}

/// Why the secure wrapper denied a call (`ToolResult.reason`).
#[napi(string_enum = "lowercase")]
pub enum DenialReason {
    Policy,
    Sandbox,
}

impl Outcome {
    fn ok(json: String) -> Outcome {
        Outcome::Ok { json, change: None }
    }

    fn internal(message: impl Into<String>) -> Outcome {
        Outcome::Internal {
            message: message.into(),
        }
    }

    fn tool_error(e: agent_tools_core::error::ToolError) -> Outcome {
        Outcome::ToolError {
            name: e.class_name.to_string(),
            code: e.code.as_str().to_string(),
            message: e.message,
        }
    }
}

#[napi(object)]
pub struct CallSiteInput {
    pub name: String,
    pub registered: bool,
    pub is_write_op: bool,
    pub bypass: bool,
}

impl From<CallSiteInput> for CallSite {
    fn from(c: CallSiteInput) -> Self {
        CallSite {
            name: c.name,
            registered: c.registered,
            is_write_op: c.is_write_op,
            bypass: c.bypass,
        }
    }
}

/// Runs blocking work on the blocking pool; a panic becomes `Outcome::Internal`.
fn off_thread<F>(env: &Env, work: F) -> Result<PromiseRaw<'_, Outcome>>
where
    F: FnOnce() -> Outcome + Send + 'static,
{
    env.spawn_future(async move {
        let joined = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(work))
                .unwrap_or_else(|panic| Outcome::internal(panic_message(&panic)))
        })
        .await;
        Ok(joined.unwrap_or_else(|e| Outcome::internal(e.to_string())))
    })
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("native panic: {text}")
}

fn ran(result: std::result::Result<String, agent_tools_core::error::ToolError>) -> Outcome {
    match result {
        Ok(json) => Outcome::ok(json),
        Err(e) => Outcome::tool_error(e),
    }
}

/// The per-call context; tools that start processes also get the caller's `process.env`.
fn context_for(context: &Unknown, name: &str, process_env: &Unknown) -> Result<ToolContext> {
    let mut ctx = read_context(context)?;
    if registry::find(name).is_some_and(|t| t.spawns_processes) {
        ctx.process_env = Some(read_process_env(process_env)?);
    }
    Ok(ctx)
}

/// `TOOL_DEFINITIONS` as JSON text, in declaration order.
#[napi(catch_unwind)]
pub fn tool_definitions_json() -> &'static str {
    registry::DEFINITIONS_JSON
}

/// `ToolCatalog` metadata as JSON text, in catalog order: `[{ name, isWriteOp, description,
/// session, effect, reviewFields }]` (`reviewFields`: `[previewKey, argumentName]` pairs).
#[napi(catch_unwind)]
pub fn catalog_json() -> String {
    let entries: Vec<serde_json::Value> = registry::CATALOG
        .iter()
        .map(|t| {
            let session = matches!(t.handler, registry::Handler::Session(_));
            serde_json::json!({
                "name": t.name,
                "isWriteOp": t.effect.is_write_op(),
                "description": t.description,
                "session": session,
                "effect": t.effect.as_str(),
                "reviewFields": t.review_fields,
            })
        })
        .collect();
    serde_json::Value::Array(entries).to_string()
}

/// The tool names `getAllowedTools()` returns for `context`: the built-ins in declaration order,
/// then the allowed ones of `extra` (user tools) in their order.
#[napi(catch_unwind, ts_args_type = "context: object, extra?: string[]")]
pub fn allowed_tool_names(context: Unknown, extra: Option<Vec<String>>) -> Result<Vec<String>> {
    let ctx = read_context(&context)?;
    let mut names = registry::allowed_tool_names(&ctx);
    names.extend(
        extra
            .unwrap_or_default()
            .into_iter()
            .filter(|n| agent_tools_core::policy::is_allowed(&ctx, n)),
    );
    Ok(names)
}

/// `toolkit.invoke`: the checks, then the built-in handler when `runBuiltIn` (else the
/// positional arguments for the caller's own handler). A bounded tool with a small input finishes
/// here, synchronously; other calls resolve from the blocking pool.
#[napi(
    catch_unwind,
    ts_args_type = "context: object, call: CallSiteInput, args: unknown, runBuiltIn: boolean, processEnv: object, signal?: AbortSignal",
    ts_return_type = "Outcome | Promise<Outcome>"
)]
pub fn invoke<'env>(
    env: &'env Env,
    context: Unknown,
    call: CallSiteInput,
    args: Unknown,
    run_built_in: bool,
    process_env: Unknown,
    signal: Option<AbortSignal>,
) -> Result<Either<Outcome, PromiseRaw<'env, Outcome>>> {
    let mut ctx = context_for(&context, &call.name, &process_env)?;
    let args = to_arg(&args)?;
    let call: CallSite = call.into();
    if run_built_in && invoke::is_bounded(&call.name) {
        let positional = match invoke::prepare_invoke(&ctx, &call, &args) {
            Ok(positional) => positional,
            Err(rejection) => return Ok(Either::A(rejected(rejection))),
        };
        return finish_bounded(env, ctx, call.name, positional);
    }
    if let Some(signal) = signal {
        let cancellation = std::sync::Arc::new(
            agent_tools_core::cancel::Cancellation::new()
                .map_err(|e| Error::from_reason(e.to_string()))?,
        );
        // The signal keeps every callback registered on it until it is garbage-collected (a
        // tool loop passes one signal to all its calls), so the callback holds the cancellation
        // weakly: its wake-up pipe is closed as soon as this call ends.
        let on_abort = std::sync::Arc::downgrade(&cancellation);
        signal.on_abort(move || {
            if let Some(cancellation) = on_abort.upgrade() {
                cancellation.cancel();
            }
        });
        ctx.cancellation = Some(cancellation);
    }
    off_thread(env, move || {
        match invoke::prepare_invoke(&ctx, &call, &args) {
            Err(rejection) => rejected(rejection),
            Ok(positional) => run_or_prepare(&ctx, &call.name, positional, run_built_in),
        }
    })
    .map(Either::B)
}

fn rejected(rejection: Rejection) -> Outcome {
    match rejection {
        Rejection::Invoke { code, raw_message } => Outcome::InvokeError {
            code: code.as_str().to_string(),
            message: raw_message,
        },
        Rejection::Plain(message) => Outcome::PlainError { message },
        Rejection::Tool(e) => Outcome::tool_error(e),
    }
}

/// A bounded tool after its checks passed: finished here when its input is small, else on the
/// blocking pool. Its checks and first attempt are a few system calls on the JavaScript thread.
fn finish_bounded(
    env: &Env,
    ctx: ToolContext,
    name: String,
    positional: Vec<ArgValue>,
) -> Result<Either<Outcome, PromiseRaw<'_, Outcome>>> {
    let inline = std::panic::catch_unwind(AssertUnwindSafe(|| {
        invoke::run_inline(&ctx, &name, &positional)
    }));
    match inline {
        Ok(Some(result)) => Ok(Either::A(ran(result))),
        Err(panic) => Ok(Either::A(Outcome::internal(panic_message(&panic)))),
        Ok(None) => off_thread(env, move || {
            ran(invoke::run(&ctx, &name, &positional, true))
        })
        .map(Either::B),
    }
}

/// After the checks passed: run the built-in handler, or hand the arguments back to JavaScript.
fn run_or_prepare(
    ctx: &ToolContext,
    name: &str,
    positional: Vec<ArgValue>,
    run_built_in: bool,
) -> Outcome {
    if run_built_in {
        ran(invoke::run(ctx, name, &positional, true))
    } else {
        Outcome::Prepared {
            args: convert::Positional(positional),
        }
    }
}

/// `toolkit.tools.<name>(...args)`: the secure wrapper's checks, then the built-in handler
/// when `runBuiltIn`.
#[napi(
    catch_unwind,
    ts_args_type = "context: object, call: CallSiteInput, args: unknown[], runBuiltIn: boolean, processEnv: object",
    ts_return_type = "Outcome | Promise<Outcome>"
)]
pub fn secure_call<'env>(
    env: &'env Env,
    context: Unknown,
    call: CallSiteInput,
    args: Vec<Unknown>,
    run_built_in: bool,
    process_env: Unknown,
) -> Result<Either<Outcome, PromiseRaw<'env, Outcome>>> {
    let ctx = context_for(&context, &call.name, &process_env)?;
    let args = args.iter().map(to_arg).collect::<Result<Vec<_>>>()?;
    let call: CallSite = call.into();
    if run_built_in && invoke::is_bounded(&call.name) {
        let positional = match invoke::prepare_secure(&ctx, &call, args) {
            Ok(positional) => positional,
            Err(denial) => return Ok(Either::A(denied(denial))),
        };
        return finish_bounded(env, ctx, call.name, positional);
    }
    off_thread(env, move || {
        match invoke::prepare_secure(&ctx, &call, args) {
            Err(denial) => denied(denial),
            Ok(positional) => run_or_prepare(&ctx, &call.name, positional, run_built_in),
        }
    })
    .map(Either::B)
}

fn denied(denial: Denial) -> Outcome {
    match denial {
        Denial::Policy(message) => Outcome::Denied {
            reason: DenialReason::Policy,
            message,
        },
        Denial::Sandbox(message) => Outcome::Denied {
            reason: DenialReason::Sandbox,
            message,
        },
        Denial::Failure(message) => Outcome::Failure { message },
    }
}

/// `ToolCatalog[name].handler(context, ...args)`: the raw handler, without policy or sandbox.
#[napi(
    catch_unwind,
    ts_args_type = "name: string, context: object, args: unknown[], processEnv: object",
    ts_return_type = "Promise<Outcome>"
)]
pub fn run_handler<'env>(
    env: &'env Env,
    name: String,
    context: Unknown,
    args: Vec<Unknown>,
    process_env: Unknown,
) -> Result<PromiseRaw<'env, Outcome>> {
    let ctx = context_for(&context, &name, &process_env)?;
    let args = args.iter().map(to_arg).collect::<Result<Vec<_>>>()?;
    off_thread(env, move || ran(invoke::run(&ctx, &name, &args, false)))
}

/// A session tool (the todo tools), run synchronously on the JavaScript thread: `state` is
/// `context.todo` as `{ tasks: [[id, task], ...], order }` (or null), `args` the handler's
/// positional arguments. Pure computation, no I/O.
#[napi(
    catch_unwind,
    ts_args_type = "name: string, state: unknown, args: unknown[]",
    ts_return_type = "Outcome"
)]
pub fn run_session_tool(name: String, state: Unknown, args: Vec<Unknown>) -> Result<Outcome> {
    let state = todo::TodoState::from_value(&to_arg(&state)?);
    let args = args.iter().map(to_arg).collect::<Result<Vec<_>>>()?;
    Ok(session_outcome(&name, state.as_ref(), &args))
}

/// A session tool's outcome; a panic inside it becomes `Outcome::Internal`, as on the worker pool.
fn session_outcome(name: &str, state: Option<&todo::TodoState>, args: &[ArgValue]) -> Outcome {
    let run = || match invoke::run_session(name, state, args) {
        Ok(result) => Outcome::Ok {
            json: result.output,
            change: result
                .change
                .map(|c| serde_json::to_string(&c).unwrap_or_default()),
        },
        Err(e) => Outcome::tool_error(e),
    };
    std::panic::catch_unwind(AssertUnwindSafe(run))
        .unwrap_or_else(|panic| Outcome::internal(panic_message(&panic)))
}

/// `toolkit.invoke` for calls whose checks need no filesystem (session tools, user tools and
/// unknown names have no path argument): synchronous, so small bounded work pays no thread hop.
/// With `runBuiltIn`, a session tool also runs here with `state` (`context.todo`).
#[napi(
    catch_unwind,
    ts_args_type = "context: object, call: CallSiteInput, args: unknown, runBuiltIn: boolean, state: unknown",
    ts_return_type = "Outcome"
)]
pub fn invoke_now(
    context: Unknown,
    call: CallSiteInput,
    args: Unknown,
    run_built_in: bool,
    state: Unknown,
) -> Result<Outcome> {
    let ctx = read_context(&context)?;
    let args = to_arg(&args)?;
    let call: CallSite = call.into();
    Ok(match invoke::prepare_invoke(&ctx, &call, &args) {
        Err(rejection) => rejected(rejection),
        Ok(positional) if run_built_in => {
            let state = todo::TodoState::from_value(&to_arg(&state)?);
            session_outcome(&call.name, state.as_ref(), &positional)
        }
        Ok(positional) => Outcome::Prepared {
            args: convert::Positional(positional),
        },
    })
}

/// A context for `invokeSession`, from the JSON snapshot
/// `[workspaceRoot, writeScope, defaultPolicy, platform, [[tool, policy], ...]]` that the
/// JavaScript side makes of a context whose fields are all plain strings (the common case; any
/// other context takes `invokeNow`, which reads every field as it is).
#[napi(catch_unwind, ts_return_type = "ExternalObject<'ToolContext'>")]
pub fn context_snapshot(snapshot: String) -> Result<External<ToolContext>> {
    type Snapshot = (String, String, String, String, Vec<(String, String)>);
    let (root, write_scope, default_policy, platform, tools): Snapshot =
        serde_json::from_str(&snapshot).map_err(|e| Error::from_reason(e.to_string()))?;
    let text = |s: String| ArgValue::String(s);
    let tools = tools.into_iter().map(|(k, v)| (k, text(v))).collect();
    let fields = vec![
        ("workspaceRoot".to_string(), text(root)),
        ("writeScope".to_string(), text(write_scope)),
        (
            "policy".to_string(),
            ArgValue::Object(vec![
                ("tools".to_string(), ArgValue::Object(tools)),
                ("defaultPolicy".to_string(), text(default_policy)),
            ]),
        ),
        (
            "env".to_string(),
            ArgValue::Object(vec![("platform".to_string(), text(platform))]),
        ),
    ];
    Ok(External::new(ToolContext::from_value(&ArgValue::Object(
        fields,
    ))))
}

/// `toolkit.invoke` of a built-in session tool with a context snapshot: the checks and the tool,
/// synchronously. `state` is `context.todo` as JSON text (`{ tasks: [[id, task], ...], order }`)
/// or null. Resolves with the output's JSON text alone when the state is unchanged, else with an
/// outcome like `invokeNow`'s. Session tools have no path arguments, so the snapshot's workspace
/// root is never resolved here.
#[napi(
    catch_unwind,
    ts_args_type = "context: ExternalObject<'ToolContext'>, name: string, isWriteOp: boolean, bypass: boolean, args: unknown, state: string | null",
    ts_return_type = "string | Outcome"
)]
pub fn invoke_session(
    context: &External<ToolContext>,
    name: String,
    is_write_op: bool,
    bypass: bool,
    args: Unknown,
    state: Option<String>,
) -> Result<Either<String, Outcome>> {
    let call = CallSite {
        name,
        registered: true,
        is_write_op,
        bypass,
    };
    let positional = match invoke::prepare_invoke(context, &call, &to_arg(&args)?) {
        Ok(positional) => positional,
        Err(rejection) => return Ok(Either::B(rejected(rejection))),
    };
    let state = match state {
        Some(json) => serde_json::from_str::<ArgValue>(&json)
            .ok()
            .and_then(|value| todo::TodoState::from_value(&value)),
        None => None,
    };
    Ok(
        match session_outcome(&call.name, state.as_ref(), &positional) {
            Outcome::Ok { json, change: None } => Either::A(json),
            outcome => Either::B(outcome),
        },
    )
}

/// Test hook: from now on the handler of the built-in tool `tool` panics (`null`: none), to
/// prove that a panic inside any tool becomes an `INTERNAL` error of that call only. Throws
/// unless the process was started with `AGENT_TOOLS_NATIVE_TEST_HOOKS=1`.
#[napi(catch_unwind, ts_args_type = "tool: string | null")]
pub fn debug_inject_panic(tool: Option<String>) -> Result<()> {
    agent_tools_core::fault::inject_panic(tool.as_deref()).map_err(Error::from_reason)
}

/// Test hook: panics inside native code, synchronously (`"sync"`) or on the worker pool
/// (`"async"`), to prove that a panic never takes the host process down.
#[napi(catch_unwind, ts_return_type = "Promise<Outcome> | void")]
pub fn debug_panic(env: &Env, mode: String) -> Result<Option<PromiseRaw<'_, Outcome>>> {
    if mode == "async" {
        return off_thread(env, || panic!("debug panic on the worker pool")).map(Some);
    }
    panic!("debug panic on the JavaScript thread");
}
