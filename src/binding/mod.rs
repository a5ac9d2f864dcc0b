//! The napi binding: converts JavaScript values to the core's types and the core's results back,
//! and moves file work off the JavaScript thread. No tool logic lives here.

mod convert;
pub mod exec_sandbox;
pub mod output_cache;
pub mod providers;
pub mod search_cache;

use std::panic::AssertUnwindSafe;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_core::context::{ReadLedger, ToolContext};
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

/// What `callTool` answers: an outcome, where an `ok` without a state change (the common case)
/// is its JSON text alone, a string, which costs less to hand over than an object.
pub struct Answer(Outcome);

impl TypeName for Answer {
    fn type_name() -> &'static str {
        "string | Outcome"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for Answer {
    unsafe fn to_napi_value(
        env: napi::sys::napi_env,
        answer: Self,
    ) -> Result<napi::sys::napi_value> {
        match answer.0 {
            // SAFETY: called by napi-rs on the JavaScript thread with its `env`, as this impl is.
            Outcome::Ok { json, change: None } => unsafe { String::to_napi_value(env, json) },
            // SAFETY: as above.
            outcome => unsafe { Outcome::to_napi_value(env, outcome) },
        }
    }
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

/// One call of a tool, by the front door it comes through. The facts that live in JavaScript
/// (the mutable `ToolCatalog`, the `SecurityBypass` scope) come with it.
#[napi(
    discriminant = "door",
    discriminant_case = "lowercase",
    object_to_js = false
)]
pub enum CallRequest {
    /// `toolkit.invoke(name, args)`: `args` is the input object.
    Invoke {
        name: String,
        registered: bool,
        is_write_op: bool,
        bypass: bool,
        /// False when `ToolCatalog[name].handler` was replaced: the call ends in `prepared`.
        run_built_in: bool,
    },
    /// `toolkit.tools.<name>(...args)`: `args` is the argument list.
    Tools {
        name: String,
        is_write_op: bool,
        bypass: bool,
        run_built_in: bool,
    },
    /// `ToolCatalog[name].handler(context, ...args)`: no policy or sandbox check.
    Handler { name: String },
}

/// Runs blocking work on the blocking pool; a panic becomes `Outcome::Internal`.
fn off_thread<F>(env: &Env, work: F) -> Result<PromiseRaw<'_, Answer>>
where
    F: FnOnce() -> Outcome + Send + 'static,
{
    env.spawn_future(async move {
        let joined = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(work))
                .unwrap_or_else(|panic| Outcome::internal(panic_message(&panic)))
        })
        .await;
        Ok(Answer(
            joined.unwrap_or_else(|e| Outcome::internal(e.to_string())),
        ))
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

/// `TOOL_DEFINITIONS` as JSON text, in declaration order.
#[napi(catch_unwind)]
pub fn tool_definitions_json() -> &'static str {
    registry::DEFINITIONS_JSON
}

/// Every tool's metadata as JSON text, in catalog order: `[{ name, isWriteOp, description,
/// session, effect, reviewFields, optIn, definition? }]` (`reviewFields`: `[previewKey,
/// argumentName]` pairs): the 13 built-ins of `ToolCatalog`, then the opt-in tools (`optIn`,
/// with their `definition`).
#[napi(catch_unwind)]
pub fn catalog_json() -> String {
    let entries: Vec<serde_json::Value> = registry::CATALOG
        .iter()
        .map(|t| {
            let session = matches!(t.handler, registry::Handler::Session(_));
            let mut entry = serde_json::json!({
                "name": t.name,
                "isWriteOp": t.effect.is_write_op(),
                "description": t.description,
                "session": session,
                "effect": t.effect.as_str(),
                "reviewFields": t.review_fields,
                "optIn": t.opt_in,
            });
            if t.opt_in {
                entry["definition"] = registry::opt_in_definition(t.name).unwrap_or_default();
            }
            entry
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

/// The context of calls: the fields of a `ToolContext` object read once. The JavaScript side keeps
/// one per context and makes a new one whenever a field changes, so edits apply to the next call.
/// `reads` is the context's read ledger (`newReadLedger()`), when a toolkit over it enabled
/// edit_file: the calls then record what they read and write, and edit_file checks it.
#[napi(
    catch_unwind,
    ts_args_type = "context: object, reads?: ExternalObject<'ReadLedger'>",
    ts_return_type = "ExternalObject<'ToolContext'>"
)]
pub fn context_handle(
    context: Unknown,
    reads: Option<&External<std::sync::Arc<ReadLedger>>>,
) -> Result<External<ToolContext>> {
    let mut ctx = read_context(&context)?;
    ctx.reads = reads.map(|r| std::sync::Arc::clone(r));
    Ok(External::new(ctx))
}

/// A new, empty read ledger: one per context object whose toolkit enables edit_file (see
/// `ReadLedger` in the core's context module).
#[napi(catch_unwind, ts_return_type = "ExternalObject<'ReadLedger'>")]
pub fn new_read_ledger() -> External<std::sync::Arc<ReadLedger>> {
    External::new(std::sync::Arc::new(ReadLedger::default()))
}

/// Calls a tool through one of its front doors. `args` is the input object (`invoke`) or the
/// argument list (`tools`, `handler`); `state` is `context.todo` as JSON text
/// (`{ tasks: [[id, task], ...], order }`) or null, read by the session tools only; `processEnv`
/// is `process.env`, read by the tools that start processes; `signal` aborts an `invoke`.
///
/// It answers with an `Outcome`, except that an `ok` without a state change is its JSON text alone.
///
/// Where it runs: checks that need no filesystem and the session tools (pure computation) finish
/// here, synchronously, and so does a bounded tool with a small input; everything else resolves
/// from the blocking pool.
#[napi(
    catch_unwind,
    ts_args_type = "request: CallRequest, context: ExternalObject<'ToolContext'>, args: unknown, state: string | null, processEnv: object, signal?: AbortSignal",
    ts_return_type = "string | Outcome | Promise<string | Outcome>"
)]
pub fn call_tool<'env>(
    env: &'env Env,
    request: CallRequest,
    context: &External<ToolContext>,
    args: Unknown,
    state: Option<String>,
    process_env: Unknown,
    signal: Option<AbortSignal>,
) -> Result<Either<Answer, PromiseRaw<'env, Answer>>> {
    let args = to_arg(&args)?;
    let (name, door) = request.into_door();
    let spec = match &door {
        Door::Checked { call, .. } => registry::find_enabled(&name, call.opt_in),
        Door::Raw => registry::find(&name),
    };
    let session = spec.is_some_and(|s| matches!(s.handler, registry::Handler::Session(_)));
    if spec.is_none() || session {
        // No path argument to resolve beyond a string check: the whole call is bounded.
        let state = state.as_deref().and_then(todo_state);
        return Ok(Either::A(Answer(catch_panic(|| match door {
            Door::Raw => session_outcome(&name, state.as_ref(), &args_list(args)),
            Door::Checked {
                call,
                secure,
                run_built_in,
            } => match check(&call_context(context, secure), &call, secure, args) {
                Err(outcome) => outcome,
                Ok(positional) if run_built_in && session => {
                    session_outcome(&name, state.as_ref(), &positional)
                }
                Ok(positional) => prepared(positional),
            },
        }))));
    }
    let mut ctx = ToolContext::clone(context);
    if spec.is_some_and(|t| t.spawns_processes) {
        ctx.process_env = Some(read_process_env(&process_env)?);
    }
    let Door::Checked {
        call,
        secure,
        run_built_in,
    } = door
    else {
        return off_thread(env, move || {
            ran(invoke::run(&ctx, &name, &args_list(args), false))
        })
        .map(Either::B);
    };
    if run_built_in && invoke::is_bounded(&name) {
        let positional = match check(&ctx, &call, secure, args) {
            Ok(positional) => positional,
            Err(outcome) => return Ok(Either::A(Answer(outcome))),
        };
        return finish_bounded(env, ctx, name, positional);
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
    off_thread(env, move || match check(&ctx, &call, secure, args) {
        Err(outcome) => outcome,
        Ok(positional) if run_built_in => ran(invoke::run(&ctx, &name, &positional, true)),
        Ok(positional) => prepared(positional),
    })
    .map(Either::B)
}

impl CallRequest {
    /// The tool's name and how the call is checked.
    fn into_door(self) -> (String, Door) {
        let checked = |name: String, registered, is_write_op, bypass, secure, run_built_in| {
            // A call that runs a built-in handler of an opt-in tool's name comes from a toolkit
            // that enabled it (user tools never run a built-in handler).
            let opt_in = run_built_in && registry::find_opt_in(&name).is_some();
            let call = CallSite {
                name: name.clone(),
                registered,
                is_write_op,
                bypass,
                opt_in,
            };
            (
                name,
                Door::Checked {
                    call,
                    secure,
                    run_built_in,
                },
            )
        };
        match self {
            CallRequest::Invoke {
                name,
                registered,
                is_write_op,
                bypass,
                run_built_in,
            } => checked(name, registered, is_write_op, bypass, false, run_built_in),
            CallRequest::Tools {
                name,
                is_write_op,
                bypass,
                run_built_in,
            } => checked(name, true, is_write_op, bypass, true, run_built_in),
            CallRequest::Handler { name } => (name, Door::Raw),
        }
    }
}

/// How a call is checked before its handler runs.
enum Door {
    /// The checks of `invoke` (`secure: false`) or of the secure wrapper (`secure: true`).
    Checked {
        call: CallSite,
        secure: bool,
        run_built_in: bool,
    },
    /// The raw handler: no checks.
    Raw,
}

/// The context a call's checks read. The handle is a template that outlives the call: a call that
/// may resolve a path works on its own copy, whose real root is resolved afresh. The checks of
/// `invoke` resolve no path for the tools that run here (the session tools, user tools and
/// unknown names take no path argument), so they read the handle itself and skip the copy.
fn call_context(handle: &ToolContext, secure: bool) -> std::borrow::Cow<'_, ToolContext> {
    if secure {
        std::borrow::Cow::Owned(handle.clone())
    } else {
        std::borrow::Cow::Borrowed(handle)
    }
}

/// The checks of a front door: the handler's positional arguments, or the outcome that ends
/// the call.
fn check(
    ctx: &ToolContext,
    call: &CallSite,
    secure: bool,
    args: ArgValue,
) -> std::result::Result<Vec<ArgValue>, Outcome> {
    if secure {
        invoke::prepare_secure(ctx, call, args_list(args)).map_err(denied)
    } else {
        invoke::prepare_invoke(ctx, call, &args).map_err(rejected)
    }
}

/// The argument list of a `tools` or `handler` call (any other value: no arguments).
fn args_list(args: ArgValue) -> Vec<ArgValue> {
    match args {
        ArgValue::Array(items) => items,
        _ => Vec::new(),
    }
}

fn prepared(positional: Vec<ArgValue>) -> Outcome {
    Outcome::Prepared {
        args: convert::Positional(positional),
    }
}

/// `context.todo` from its JSON text; anything that is not a task list reads as none.
fn todo_state(json: &str) -> Option<todo::TodoState> {
    serde_json::from_str::<ArgValue>(json)
        .ok()
        .and_then(|value| todo::TodoState::from_value(&value))
}

/// Runs `work` on this thread; a panic becomes `Outcome::Internal`.
fn catch_panic(work: impl FnOnce() -> Outcome) -> Outcome {
    std::panic::catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|panic| Outcome::internal(panic_message(&panic)))
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

/// A bounded tool after its checks passed: finished here when its input is small, else on the
/// blocking pool. Its checks and first attempt are a few system calls on the JavaScript thread.
fn finish_bounded(
    env: &Env,
    ctx: ToolContext,
    name: String,
    positional: Vec<ArgValue>,
) -> Result<Either<Answer, PromiseRaw<'_, Answer>>> {
    let inline = std::panic::catch_unwind(AssertUnwindSafe(|| {
        invoke::run_inline(&ctx, &name, &positional)
    }));
    match inline {
        Ok(Some(result)) => Ok(Either::A(Answer(ran(result)))),
        Err(panic) => Ok(Either::A(Answer(Outcome::internal(panic_message(&panic))))),
        Ok(None) => off_thread(env, move || {
            ran(invoke::run(&ctx, &name, &positional, true))
        })
        .map(Either::B),
    }
}

/// A session tool's outcome with its change to the state.
fn session_outcome(name: &str, state: Option<&todo::TodoState>, args: &[ArgValue]) -> Outcome {
    match invoke::run_session(name, state, args) {
        Ok(result) => Outcome::Ok {
            json: result.output,
            change: result
                .change
                .map(|c| serde_json::to_string(&c).unwrap_or_default()),
        },
        Err(e) => Outcome::tool_error(e),
    }
}

/// Test hook: from now on the handler of the built-in tool `tool` panics (`null`: none), to
/// prove that a panic inside any tool becomes an `INTERNAL` error of that call only. Throws
/// unless the process was started with `AGENT_TOOLS_NATIVE_TEST_HOOKS=1`.
#[napi(catch_unwind, ts_args_type = "tool: string | null")]
pub fn debug_inject_panic(tool: Option<String>) -> Result<()> {
    agent_tools_core::test_hooks::inject_panic(tool.as_deref(), |name| {
        registry::CATALOG.iter().any(|t| t.name == name)
    })
    .map_err(Error::from_reason)
}

/// Test hook: panics inside native code, synchronously (`"sync"`) or on the worker pool
/// (`"async"`), to prove that a panic never takes the host process down.
#[napi(catch_unwind, ts_return_type = "Promise<Outcome> | void")]
pub fn debug_panic(env: &Env, mode: String) -> Result<Option<PromiseRaw<'_, Answer>>> {
    if mode == "async" {
        return off_thread(env, || panic!("debug panic on the worker pool")).map(Some);
    }
    panic!("debug panic on the JavaScript thread");
}
