//! The napi binding: converts JavaScript values to the core's types and the core's results back,
//! and moves file work off the JavaScript thread. No tool logic lives here.

pub mod catalog;
pub mod checkpoints;
mod convert;
pub mod exec_sandbox;
pub mod output_cache;
pub mod permissions;
pub mod processes;
pub mod providers;
pub mod search_cache;
pub mod todo;

use std::panic::AssertUnwindSafe;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_core::context::{ReadLedger, ToolContext};
use agent_tools_core::error::Reason;
use agent_tools_core::invoke::{self, Call, Door, Plan};
use agent_tools_core::registry;
use convert::{read_context, read_process_env, to_arg};

/// What a native call resolves with: the core's `invoke::Outcome`, variant for variant, plus
/// `internal` (a panic caught). The JavaScript wrapper switches on `kind` (typed in
/// binding.d.ts) and turns it into a value, a `ToolResult` or the right error object; `reason`
/// says why a call was refused, as data (never read back out of a message).
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
    /// `InvokeToolError` (code, raw message; `reason` for `TOOL_NOT_ALLOWED`).
    InvokeError {
        code: String,
        message: String,
        reason: Option<Refusal>,
    },
    /// A plain `Error` (a path mapping failure seen through `invoke`).
    PlainError {
        message: String,
        reason: Option<Refusal>,
    },
    /// A tool's own error (class name, code, message; `reason` when the tool refused a path;
    /// `details`, JSON text of an object whose fields become the error's properties; `text_at`,
    /// where the text starts in `message`, after its `"<CODE>: "`).
    ToolError {
        name: String,
        code: String,
        message: String,
        reason: Option<Refusal>,
        details: Option<String>,
        text_at: u32,
    },
    /// A secure-wrapper denial. `reason` is the fine one: `ToolResult.reason` reports `scope`
    /// as `"sandbox"`, as upstream does.
    Denied { reason: Refusal, message: String },
    /// A secure-wrapper runtime failure before the handler ran.
    Failure { message: String },
    /// A panic inside native code, caught.
    Internal { message: String },
}

/// Why a call was refused: the tool policy, the write scope, a path outside the workspace, a
/// permission rule that denies it, or one that asks for an approval the call did not carry.
#[napi(string_enum = "lowercase")]
pub enum Refusal {
    Policy,
    Scope,
    Sandbox,
    Permission,
    Approval,
}

impl From<Reason> for Refusal {
    fn from(reason: Reason) -> Refusal {
        match reason {
            Reason::Policy => Refusal::Policy,
            Reason::Scope => Refusal::Scope,
            Reason::Sandbox => Refusal::Sandbox,
            Reason::Permission => Refusal::Permission,
            Reason::Approval => Refusal::Approval,
        }
    }
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
            Outcome::Ok { json, change: None } => unsafe { text_to_napi(env, &json) },
            // SAFETY: as above.
            outcome => unsafe { Outcome::to_napi_value(env, outcome) },
        }
    }
}

/// A JavaScript string of `text`. ASCII text (most tools' JSON) is handed over as Latin-1, which
/// the runtimes copy as it is, where UTF-8 is decoded first (in Bun, byte by byte).
///
/// # Safety
/// On the JavaScript thread, inside a napi call, with that call's `env`.
unsafe fn text_to_napi(env: napi::sys::napi_env, text: &str) -> Result<napi::sys::napi_value> {
    if !text.is_ascii() {
        // SAFETY: as this function's.
        return unsafe { <&str>::to_napi_value(env, text) };
    }
    let mut out = std::ptr::null_mut();
    // SAFETY: as this function's; `text` is alive for the call and its length is given, so it
    // need not end in NUL; ASCII is valid Latin-1 with the same characters.
    check_status!(unsafe {
        napi::sys::napi_create_string_latin1(
            env,
            text.as_ptr().cast(),
            text.len() as isize,
            &mut out,
        )
    })?;
    Ok(out)
}

impl Outcome {
    fn internal(message: impl Into<String>) -> Outcome {
        Outcome::Internal {
            message: message.into(),
        }
    }
}

impl From<invoke::Outcome> for Outcome {
    fn from(outcome: invoke::Outcome) -> Outcome {
        match outcome {
            invoke::Outcome::Ok { json, change } => Outcome::Ok {
                json,
                change: change.map(|c| serde_json::to_string(&c).unwrap_or_default()),
            },
            invoke::Outcome::Prepared(args) => Outcome::Prepared {
                args: convert::Positional(args),
            },
            invoke::Outcome::InvokeError {
                code,
                message,
                reason,
            } => Outcome::InvokeError {
                code: code.as_str().to_string(),
                message,
                reason: reason.map(Refusal::from),
            },
            invoke::Outcome::PlainError { message, reason } => Outcome::PlainError {
                message,
                reason: reason.map(Refusal::from),
            },
            invoke::Outcome::ToolError(e) => Outcome::ToolError {
                name: e.class_name.to_string(),
                code: e.code.as_str().to_string(),
                message: e.message,
                reason: e.reason.map(Refusal::from),
                details: e.details.map(|d| d.to_string()),
                text_at: e.text_at as u32,
            },
            invoke::Outcome::Denied { reason, message } => Outcome::Denied {
                reason: reason.into(),
                message,
            },
            invoke::Outcome::Failure { message } => Outcome::Failure { message },
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
        /// Somebody approved this call: a permission rule that asks lets it through.
        approved: Option<bool>,
    },
    /// `toolkit.tools.<name>(...args)`: `args` is the argument list.
    Tools {
        name: String,
        is_write_op: bool,
        bypass: bool,
        run_built_in: bool,
        approved: Option<bool>,
    },
    /// `ToolCatalog[name].handler(context, ...args)`: no policy or sandbox check.
    Handler { name: String },
}

/// Runs blocking work on the blocking pool. The pool thread settles the promise itself: one
/// hand-over to the JavaScript thread, no async task between. A panic rejects it.
pub(crate) fn on_blocking_pool<T, F>(env: &Env, work: F) -> Result<PromiseRaw<'_, T>>
where
    T: ToNapiValue + Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    let (deferred, promise) = env.create_deferred()?;
    napi::bindgen_prelude::spawn_blocking(move || {
        match std::panic::catch_unwind(AssertUnwindSafe(work)) {
            Ok(Ok(value)) => deferred.resolve(move |_| Ok(value)),
            Ok(Err(error)) => deferred.reject(error),
            Err(panic) => deferred.reject(Error::from_reason(panic_message(&panic))),
        }
    });
    Ok(PromiseRaw::new(env.raw(), promise.raw()))
}

/// A JavaScript `Error` with `message` and an own `code`, as a napi `Error` that settles a
/// promise or throws as that very object.
pub(crate) fn coded_error(env: &Env, code: &str, message: String) -> Error {
    use napi::JsValue;
    let made = env
        .create_error(Error::from_reason(message.clone()))
        .and_then(|mut object| {
            object.set_named_property("code", code)?;
            Ok(Error::from(object.to_unknown()))
        });
    made.unwrap_or_else(|e| e)
}

/// [`on_blocking_pool`] for work whose failure has a code: the promise is rejected with an
/// `Error` whose `code` is the work's (see [`coded_error`]).
pub(crate) fn on_blocking_pool_coded<T, F>(env: &Env, work: F) -> Result<PromiseRaw<'_, T>>
where
    T: ToNapiValue + Send + 'static,
    F: FnOnce() -> std::result::Result<T, (&'static str, String)> + Send + 'static,
{
    let (deferred, promise) = env.create_deferred()?;
    napi::bindgen_prelude::spawn_blocking(move || {
        match std::panic::catch_unwind(AssertUnwindSafe(work)) {
            Ok(done) => deferred.resolve(move |env| {
                done.map_err(|(code, message)| coded_error(&env, code, message))
            }),
            Err(panic) => deferred.reject(Error::from_reason(panic_message(&panic))),
        }
    });
    Ok(PromiseRaw::new(env.raw(), promise.raw()))
}

/// A call's blocking work on the pool; a panic becomes `Outcome::Internal`.
fn off_thread<F>(env: &Env, work: F) -> Result<PromiseRaw<'_, Answer>>
where
    F: FnOnce() -> Outcome + Send + 'static,
{
    on_blocking_pool(env, move || {
        Ok(Answer(
            std::panic::catch_unwind(AssertUnwindSafe(work))
                .unwrap_or_else(|panic| Outcome::internal(panic_message(&panic))),
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

/// `TOOL_DEFINITIONS` as JSON text, in declaration order.
#[napi(catch_unwind)]
pub fn tool_definitions_json() -> &'static str {
    registry::DEFINITIONS_JSON
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
/// `processes` is its process table (`newProcessTable()`), when a toolkit enabled the process
/// tools; `edits` its journal and syntax check (`newEditHooks()`), when a toolkit enabled one.
#[napi(
    catch_unwind,
    ts_args_type = "context: object, reads?: ExternalObject<'ReadLedger'>, processes?: ExternalObject<'ProcessTable'>, edits?: ExternalObject<'EditHooks'>",
    ts_return_type = "ExternalObject<'ToolContext'>"
)]
pub fn context_handle(
    context: Unknown,
    reads: Option<&External<std::sync::Arc<ReadLedger>>>,
    processes: Option<&External<std::sync::Arc<agent_tools_core::processes::ProcessTable>>>,
    edits: Option<&External<std::sync::Arc<agent_tools_core::context::EditHooks>>>,
) -> Result<External<ToolContext>> {
    let mut ctx = read_context(&context)?;
    ctx.reads = reads.map(|r| std::sync::Arc::clone(r));
    ctx.processes = processes.map(|p| std::sync::Arc::clone(p));
    ctx.edits = edits.map(|e| std::sync::Arc::clone(e));
    Ok(External::new(ctx))
}

/// A new, empty read ledger: one per context object whose toolkit enables edit_file (see
/// `ReadLedger` in the core's context module).
#[napi(catch_unwind, ts_return_type = "ExternalObject<'ReadLedger'>")]
pub fn new_read_ledger() -> External<std::sync::Arc<ReadLedger>> {
    External::new(std::sync::Arc::new(ReadLedger::default()))
}

/// Calls a tool through one of its front doors. `args` is the input object (`invoke`) or the
/// argument list (`tools`, `handler`); `state` is the task list of the context (its `TodoStore`,
/// in step with `context.todo`) or null, read and changed by the session tools only; `processEnv`
/// is `process.env`, read by the tools that start processes; `signal` aborts an `invoke`.
///
/// It answers with an `Outcome`, except that an `ok` without a state change is its JSON text alone
/// (task_list's is empty with a store: the caller renders the list, see `todo::run`; so is
/// task_validate_completion's for a packed request that says so).
///
/// The core resolves the call into its plan (`invoke::plan`: the checks, the tool); this only
/// carries the plan out. Where it runs: a call the checks end and a session tool (pure
/// computation) finish here, synchronously, and so does a bounded tool with a small input;
/// everything else resolves from the blocking pool.
///
/// The request is a `CallRequest` object, or the same facts packed into one number for a tool of
/// the registry (`unpack_call`; ts/native_call.cts, `packCall`): the cheaper form the toolkit
/// uses, read without a property lookup.
#[napi(
    catch_unwind,
    ts_args_type = "request: CallRequest | number, context: ExternalObject<'ToolContext'>, args: unknown, state: ExternalObject<'TodoStore'> | null, processEnv: object, signal?: AbortSignal",
    ts_return_type = "string | Outcome | Promise<string | Outcome>"
)]
pub fn call_tool<'env>(
    env: &'env Env,
    request: Unknown,
    context: &External<ToolContext>,
    args: Unknown,
    state: Option<&External<todo::TodoStore>>,
    process_env: Unknown,
    signal: Option<AbortSignal>,
) -> Result<Either<Answer, PromiseRaw<'env, Answer>>> {
    let call = if request.get_type()? == ValueType::Number {
        // SAFETY: `napi_typeof` just reported a number.
        unpack_call(unsafe { request.cast::<f64>()? })?
    } else {
        // SAFETY: `request` is this call's argument, on the JavaScript thread.
        let request =
            unsafe { CallRequest::from_napi_value(request.value().env, request.value().value)? };
        request.into_call()
    };
    let args = to_arg(&args)?;
    let plan =
        match std::panic::catch_unwind(AssertUnwindSafe(|| invoke::plan(context, &call, args))) {
            Ok(plan) => plan,
            Err(panic) => return now(Outcome::internal(panic_message(&panic))),
        };
    match plan {
        Plan::Done(outcome) => now(outcome.into()),
        Plan::Session(session) => now(catch_panic(|| {
            todo::run(state.map(|store| &**store), session).into()
        })),
        Plan::Inline(mut job) => {
            job.ctx.process_env = host_env(&job, &process_env)?;
            match std::panic::catch_unwind(AssertUnwindSafe(|| job.try_inline())) {
                Ok(Some(outcome)) => now(outcome.into()),
                Ok(None) => off_thread(env, move || job.run().into()).map(Either::B),
                Err(panic) => now(Outcome::internal(panic_message(&panic))),
            }
        }
        Plan::Worker(mut job) => {
            job.ctx.process_env = host_env(&job, &process_env)?;
            if let Some(signal) = signal {
                job.ctx.cancellation = Some(cancellation_of(signal)?);
            }
            off_thread(env, move || job.run().into()).map(Either::B)
        }
    }
}

/// An answer given synchronously.
fn now<'env>(outcome: Outcome) -> Result<Either<Answer, PromiseRaw<'env, Answer>>> {
    Ok(Either::A(Answer(outcome)))
}

/// `process.env` for a tool that starts processes (`None` for any other).
fn host_env(job: &invoke::Job, process_env: &Unknown) -> Result<Option<Vec<(String, String)>>> {
    if job.spec.spawns_processes {
        read_process_env(process_env).map(Some)
    } else {
        Ok(None)
    }
}

/// A cancellation that `signal` fires.
fn cancellation_of(
    signal: AbortSignal,
) -> Result<std::sync::Arc<agent_tools_core::cancel::Cancellation>> {
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
    Ok(cancellation)
}

/// The bits of a packed request (`callTool`'s number form): the door in the low two bits, then
/// one bit per flag, and the tool's index in the registry (`toolCatalog()` order) from bit 8.
const DOOR_BITS: u32 = 0b11;
const REGISTERED: u32 = 1 << 2;
const IS_WRITE_OP: u32 = 1 << 3;
const BYPASS: u32 = 1 << 4;
const RUN_BUILT_IN: u32 = 1 << 5;
const APPROVED: u32 = 1 << 6;
const INDEX_SHIFT: u32 = 8;

/// The call a packed request stands for (the same as its `CallRequest` object's).
fn unpack_call(packed: f64) -> Result<Call> {
    let bad = || {
        Error::new(
            Status::InvalidArg,
            format!("not a packed call request: {packed}"),
        )
    };
    if packed.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&packed) {
        return Err(bad());
    }
    let packed = packed as u32;
    let name = registry::CATALOG
        .get((packed >> INDEX_SHIFT) as usize)
        .ok_or_else(bad)?
        .name
        .to_string();
    let flag = |bit: u32| packed & bit != 0;
    let request = match packed & DOOR_BITS {
        0 => CallRequest::Invoke {
            name,
            registered: flag(REGISTERED),
            is_write_op: flag(IS_WRITE_OP),
            bypass: flag(BYPASS),
            run_built_in: flag(RUN_BUILT_IN),
            approved: Some(flag(APPROVED)),
        },
        1 => CallRequest::Tools {
            name,
            is_write_op: flag(IS_WRITE_OP),
            bypass: flag(BYPASS),
            run_built_in: flag(RUN_BUILT_IN),
            approved: Some(flag(APPROVED)),
        },
        2 => CallRequest::Handler { name },
        _ => return Err(bad()),
    };
    Ok(request.into_call())
}

impl CallRequest {
    /// The call for the core. A call that runs the built-in handler of an opt-in tool's name
    /// comes from a toolkit that enabled it (user tools never run a built-in handler).
    fn into_call(self) -> Call {
        match self {
            CallRequest::Invoke {
                name,
                registered,
                is_write_op,
                bypass,
                run_built_in,
                approved,
            } => Call {
                door: Door::Invoke,
                name,
                registered: Some(registered),
                is_write_op: Some(is_write_op),
                bypass,
                run_built_in,
                opt_in: run_built_in,
                approved: approved == Some(true),
            },
            CallRequest::Tools {
                name,
                is_write_op,
                bypass,
                run_built_in,
                approved,
            } => Call {
                door: Door::Tools,
                name,
                registered: Some(true),
                is_write_op: Some(is_write_op),
                bypass,
                run_built_in,
                opt_in: run_built_in,
                approved: approved == Some(true),
            },
            CallRequest::Handler { name } => Call {
                door: Door::Handler,
                name,
                registered: None,
                is_write_op: None,
                bypass: false,
                run_built_in: true,
                opt_in: false,
                approved: false,
            },
        }
    }
}

/// Runs `work` on this thread; a panic becomes `Outcome::Internal`.
fn catch_panic(work: impl FnOnce() -> Outcome) -> Outcome {
    std::panic::catch_unwind(AssertUnwindSafe(work))
        .unwrap_or_else(|panic| Outcome::internal(panic_message(&panic)))
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
