//! One way into a tool. A call, whichever front door it comes through, is resolved once by
//! [`plan`] into a [`Plan`]: the checks of its door in upstream's exact order (docs/compat.md,
//! "Order of checks in invoke" and "Order of checks in toolkit.tools"), the tool's spec (looked up
//! once), and where the rest runs. The binding turns a plan into a value or a Promise, and
//! `Toolkit::invoke` (the Rust entry) runs it on the calling thread; neither branches on tools.
//!
//! Every refusal keeps its structure: an [`Outcome`] carries the code and the [`Reason`]
//! (policy, write scope, sandbox) as data, next to the exact message.

use std::borrow::Cow;

use super::context::{RunContext, ToolContext};
use super::error::{ErrorClass, ErrorCode, Reason, ToolError};
use super::permissions::{Decision, Permissions, Subject, Verdict};
use super::policy;
use super::registry::{self, Handler, InvokeArgs, ToolSpec};
use super::sandbox::{self, Confinement};
use super::test_hooks;
use super::tools::todo::{self, StateChange, TodoOp, TodoState};
use super::value::ArgValue;

/// The front door a call comes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// `toolkit.invoke(name, args)`: the arguments are the input object.
    Invoke,
    /// `toolkit.tools.<name>(...args)`: the arguments are the argument list.
    Tools,
    /// `ToolCatalog[name].handler(context, ...args)`: the argument list; no checks, and the
    /// handler is not confined (upstream leaves this call unchecked).
    Handler,
}

/// One call of a tool, as its caller describes it. The facts that live in JavaScript (the
/// mutable `ToolCatalog`, the `SecurityBypass` scope) come with it.
#[derive(Debug, Clone)]
pub struct Call {
    pub door: Door,
    pub name: String,
    /// `Object.hasOwn(ToolCatalog, name)` at call time (`toolkit.tools.<name>` exists only for
    /// registered tools); `None`: whether the catalog has the tool (the Rust `Toolkit`).
    pub registered: Option<bool>,
    /// `ToolCatalog[name].metadata.isWriteOp === true` at call time; `None`: the tool's effect.
    pub is_write_op: Option<bool>,
    /// `SecurityBypass.isEnabled()` at call time.
    pub bypass: bool,
    /// False when `ToolCatalog[name].handler` was replaced, or the name is a user tool's: the
    /// call then ends in [`Outcome::Prepared`] and the caller runs that handler itself.
    pub run_built_in: bool,
    /// The caller enabled the opt-in tool of this name (`extraTools`); otherwise an opt-in
    /// tool's name is only a user tool's, and the opt-in tool's argument mapping does not apply.
    pub opt_in: bool,
    /// Somebody approved this very call (the tool loop's review, a framework's approval): a
    /// permission rule that says ask lets it through.
    pub approved: bool,
}

/// How a call ends, as data; the binding maps it 1:1 to the JavaScript `Outcome`.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The handler's output as JSON text; for a session tool, its change to `context.todo`.
    Ok {
        json: String,
        change: Option<Box<StateChange>>,
    },
    /// The checks passed and the caller runs its own handler with these positional arguments.
    Prepared(Vec<ArgValue>),
    /// `invoke` refused: an `InvokeToolError` with one of the `InvokeToolErrorCode`s, its raw
    /// message, and why (`TOOL_NOT_ALLOWED`: the policy or the write scope).
    InvokeError {
        code: ErrorCode,
        message: String,
        reason: Option<Reason>,
    },
    /// `invoke` failed with a plain `Error`: the path mapping (docs/compat.md, "Order of checks
    /// in invoke" step 6); `reason: Sandbox` for a path outside the workspace.
    PlainError {
        message: String,
        reason: Option<Reason>,
    },
    /// The tool's own error, unchanged.
    ToolError(ToolError),
    /// The secure wrapper denied the call (`ToolResult.status: "denied"`). `reason` is the fine
    /// one: the public `ToolResult.reason` reports `Scope` as `"sandbox"`, as upstream does.
    Denied { reason: Reason, message: String },
    /// The secure wrapper failed before the handler ran (`status: "failure"`, e.g.
    /// `Invalid path argument`).
    Failure { message: String },
}

impl From<Result<String, ToolError>> for Outcome {
    fn from(result: Result<String, ToolError>) -> Outcome {
        match result {
            Ok(json) => Outcome::Ok { json, change: None },
            Err(e) => Outcome::ToolError(e),
        }
    }
}

/// What is left of a call once [`plan`] resolved it.
#[derive(Debug)]
pub enum Plan {
    /// Over: a check refused it, or the caller runs its own handler (`Outcome::Prepared`).
    Done(Outcome),
    /// A bounded built-in tool, checked: [`Job::try_inline`] on the caller's thread, then
    /// [`Job::run`] in full on a worker thread when it gives up (a large input).
    Inline(Job),
    /// Blocking work: [`Job::run`] on a worker thread. The path mapping of its checks may be
    /// left to it, since resolving a path reads the filesystem too.
    Worker(Job),
    /// A session (todo) tool: [`SessionCall::run`] on the caller's thread, with the state.
    Session(SessionCall),
}

/// A built-in handler's run, with the tool's spec resolved once.
pub struct Job {
    /// The call's own copy of the context (it resolves the real root afresh, once for the
    /// path checks and the confinement); the binding adds `process_env` and `cancellation`.
    pub ctx: ToolContext,
    pub spec: &'static ToolSpec,
    args: JobArgs,
    /// Checked by a front door: the handler is confined to the workspace.
    confined: bool,
    /// The door it came through: a handler's `SANDBOX_VIOLATION` is answered as that door
    /// answers a path outside the workspace ([`Job::answer`]).
    door: Door,
    /// False: the job ends in `Outcome::Prepared` once its path mapping is done.
    run_built_in: bool,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("tool", &self.spec.name)
            .field("args", &self.args)
            .field("confined", &self.confined)
            .field("run_built_in", &self.run_built_in)
            .finish()
    }
}

#[derive(Debug)]
enum JobArgs {
    /// The handler's positional arguments.
    Ready(Vec<ArgValue>),
    /// Checked up to the path mapping, which the job does first.
    Unmapped(Unmapped),
}

/// Arguments whose checks passed except the path mapping.
#[derive(Debug)]
enum Unmapped {
    /// `invoke`'s input object (step 6 of its order).
    Invoke(ArgValue),
    /// The secure wrapper's argument list (step 4 of its order).
    Tools(Vec<ArgValue>),
}

/// A session tool's call: the operation and its positional arguments.
#[derive(Debug)]
pub struct SessionCall {
    pub name: &'static str,
    pub op: TodoOp,
    pub args: Vec<ArgValue>,
}

/// Resolves a call into its plan: the one registry lookup and the checks of its door, in
/// upstream's order. `handle` is the caller's context; a call that may resolve a path works on
/// its own copy of it, so the real root is resolved afresh for each call. `args` is the input
/// object (`Door::Invoke`) or the argument list (any other value: no arguments).
pub fn plan(handle: &ToolContext, call: &Call, args: ArgValue) -> Plan {
    let spec = registry::find_enabled(&call.name, call.opt_in);
    if call.door == Door::Handler {
        return plan_unchecked(handle, &call.name, spec, args_list(args));
    }
    let registered = call.registered.unwrap_or(spec.is_some());
    let is_write_op = call
        .is_write_op
        .unwrap_or_else(|| spec.is_some_and(|s| s.effect.is_write_op()));
    let unmapped = match call.door {
        Door::Invoke => check_invoke(handle, call, registered, is_write_op, &args)
            .map(|()| Unmapped::Invoke(args)),
        _ => check_secure(handle, call, is_write_op, args_list(args)).map(Unmapped::Tools),
    };
    let unmapped = match unmapped {
        Ok(unmapped) => unmapped,
        Err(outcome) => return Plan::Done(outcome),
    };
    if let Err(outcome) = check_permissions(handle, call, spec, &unmapped) {
        return Plan::Done(outcome);
    }
    // The checks above read no filesystem and ran here for every tool, so their refusals are
    // answered at once. Where the path mapping runs: with a bounded built-in or a session tool
    // (and for names that are not built-ins), here; otherwise on the worker, with the rest.
    let run_built_in = call.run_built_in;
    let door = call.door;
    let job = |ctx: ToolContext, spec, args| Job {
        ctx,
        spec,
        args,
        confined: true,
        door,
        run_built_in,
    };
    match spec.map(|s| (s, s.handler)) {
        Some((spec, Handler::Bounded(_))) if run_built_in => {
            let ctx = handle.clone();
            match map_paths(&ctx, Some(spec), unmapped) {
                Ok(args) => Plan::Inline(job(ctx, spec, JobArgs::Ready(args))),
                Err(outcome) => Plan::Done(outcome),
            }
        }
        Some((spec, Handler::Worker(_) | Handler::Bounded(_))) => {
            Plan::Worker(job(handle.clone(), spec, JobArgs::Unmapped(unmapped)))
        }
        _ => {
            // No path argument to resolve for `invoke` (the session tools, user tools and unknown
            // names take none), so its mapping reads the handle itself and skips the copy.
            let ctx = match unmapped {
                Unmapped::Invoke(_) => Cow::Borrowed(handle),
                Unmapped::Tools(_) => Cow::Owned(handle.clone()),
            };
            match map_paths(&ctx, spec, unmapped) {
                Err(outcome) => Plan::Done(outcome),
                Ok(args) => match spec.map(|s| (s, s.handler)) {
                    Some((spec, Handler::Session(op))) if run_built_in => {
                        Plan::Session(SessionCall {
                            name: spec.name,
                            op,
                            args,
                        })
                    }
                    _ => Plan::Done(Outcome::Prepared(args)),
                },
            }
        }
    }
}

/// `ToolCatalog[name].handler(...)`: the built-in handler, unchecked and unconfined.
fn plan_unchecked(
    handle: &ToolContext,
    name: &str,
    spec: Option<&'static ToolSpec>,
    args: Vec<ArgValue>,
) -> Plan {
    match spec.map(|s| (s, s.handler)) {
        Some((spec, Handler::Session(op))) => Plan::Session(SessionCall {
            name: spec.name,
            op,
            args,
        }),
        Some((spec, _)) => Plan::Worker(Job {
            ctx: handle.clone(),
            spec,
            args: JobArgs::Ready(args),
            confined: false,
            door: Door::Handler,
            run_built_in: true,
        }),
        None => Plan::Done(Outcome::ToolError(
            ErrorClass("Error").internal(format!("not a session tool: {name}")),
        )),
    }
}

impl Job {
    /// The name of the job's tool.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// Runs a bounded tool on this thread while its input stays under [`INLINE_BYTES`]; `None`
    /// when it gave up (then [`Job::run`] it on a worker thread).
    pub fn try_inline(&self) -> Option<Outcome> {
        let (Handler::Bounded(handler), JobArgs::Ready(args)) = (self.spec.handler, &self.args)
        else {
            return None;
        };
        let result = match run_context(&self.ctx, self.spec, self.confined) {
            Ok(rc) => handler(&rc, args, Some(INLINE_BYTES)).transpose()?,
            Err(e) => Err(e),
        };
        Some(answer(self.door, result))
    }

    /// Runs the job in full on this thread: the path mapping if left, then the built-in
    /// handler (or `Outcome::Prepared` when the caller runs its own).
    pub fn run(self) -> Outcome {
        let Job {
            mut ctx,
            spec,
            args,
            confined,
            door,
            run_built_in,
        } = self;
        let args = match args {
            JobArgs::Ready(args) => args,
            JobArgs::Unmapped(unmapped) => match map_paths(&ctx, Some(spec), unmapped) {
                Ok(args) => args,
                Err(outcome) => return outcome,
            },
        };
        if !run_built_in {
            return Outcome::Prepared(args);
        }
        if let Err(e) = begin_edit_record(&mut ctx, spec) {
            return Outcome::ToolError(e);
        }
        let rc = match run_context(&ctx, spec, confined) {
            Ok(rc) => rc,
            Err(e) => return Outcome::ToolError(e),
        };
        match spec.handler {
            Handler::Worker(handler) => {
                let watch = match watch_background(&rc, spec) {
                    Ok(watch) => watch,
                    Err(e) => return Outcome::ToolError(e),
                };
                let command = match command_journal_before(&rc, spec) {
                    Ok(command) => command,
                    Err(e) => return Outcome::ToolError(e),
                };
                let result = end_edit_record(&ctx, handler(&rc, &args));
                if let Some(watch) = watch {
                    watch.finish(&rc);
                }
                answer(door, command_journal_after(&rc, spec, command, result))
            }
            Handler::Bounded(handler) => answer(
                door,
                handler(&rc, &args, None).and_then(|out| {
                    out.ok_or_else(|| spec.error_class.internal("unbounded run gave up"))
                }),
            ),
            Handler::Session(_) => Outcome::ToolError(spec.error_class.internal(format!(
                "{} runs on the JavaScript thread with the session state",
                spec.name
            ))),
        }
    }
}

/// A call of a tool that changes files, under a toolkit with the journal or the syntax check:
/// the call's record (`ToolContext::call`), which the tool fills as it changes files.
fn begin_edit_record(ctx: &mut ToolContext, spec: &ToolSpec) -> Result<(), ToolError> {
    let Some(edits) = ctx.edits.clone() else {
        return Ok(());
    };
    if spec.effect != crate::registry::Effect::Write || ctx.workspace_root.is_none() {
        return Ok(());
    }
    let Ok(root) = ctx.real_root().map(|r| r.to_path_buf()) else {
        return Ok(()); // the call fails on its root anyway
    };
    let store = match &edits.journal {
        Some(journal) => Some(
            journal
                .store(&root)
                .map_err(|e| e.in_class(spec.error_class))?,
        ),
        None => None,
    };
    ctx.call = Some(std::sync::Arc::new(crate::checkpoints::CallRecord::new(
        spec.name,
        store,
        edits.syntax.map(|mode| (mode, edits.trees.clone())),
        root,
    )));
    Ok(())
}

/// The end of a call with a record: its checkpoint written (also after a failure, which may have
/// changed files before it failed), and in report mode the new syntax errors added to the
/// result as `diagnostics`.
fn end_edit_record(
    ctx: &ToolContext,
    result: Result<String, ToolError>,
) -> Result<String, ToolError> {
    let Some(call) = &ctx.call else {
        return result;
    };
    let committed = call.commit(None);
    let json = result?;
    committed?;
    if !matches!(
        call.syntax,
        Some((crate::syntax_check::SyntaxMode::Report, _))
    ) {
        return Ok(json);
    }
    let Some(diagnostics) = call.diagnostics() else {
        return Ok(json);
    };
    let mut value: serde_json::Value = match serde_json::from_str(&json) {
        Ok(value) => value,
        Err(_) => return Ok(json),
    };
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "diagnostics".into(),
            serde_json::to_value(diagnostics).unwrap_or_default(),
        );
    }
    Ok(serde_json::to_string(&value).unwrap_or(json))
}

/// The journal of a call's workspace, opened, with its background state, when the toolkit
/// keeps one.
fn journal_of<'c>(
    rc: &RunContext<'c>,
    spec: &ToolSpec,
) -> Result<
    Option<(
        &'c crate::command_journal::Background,
        crate::checkpoints::Store,
    )>,
    ToolError,
> {
    let Some(journal) = rc.ctx.edits.as_ref().and_then(|e| e.journal.as_ref()) else {
        return Ok(None);
    };
    if rc.ctx.workspace_root.is_none() {
        return Ok(None);
    }
    let Ok(root) = rc.ctx.real_root() else {
        return Ok(None);
    };
    let Some(background) = crate::command_journal::background(journal) else {
        return Ok(None);
    };
    let store = journal
        .store(root)
        .map_err(|e| e.in_class(spec.error_class))?;
    Ok(Some((background, store)))
}

/// Before a call that changes files or reads the processes or the journal, under a toolkit
/// with the journal: what background processes changed since the last call, recorded first
/// (`crate::command_journal::Background`). A call that changes files keeps the watch until it
/// ends.
fn watch_background<'c>(
    rc: &RunContext<'c>,
    spec: &ToolSpec,
) -> Result<Option<crate::command_journal::Watch<'c>>, ToolError> {
    let changes_files = spec.effect == crate::registry::Effect::Write;
    if !changes_files
        && !matches!(
            spec.name,
            "process_read" | "process_list" | "checkpoint_list"
        )
    {
        return Ok(None);
    }
    let Some((background, store)) = journal_of(rc, spec)? else {
        return Ok(None);
    };
    let watch = background
        .watch(rc, &store)
        .map_err(|e| e.in_class(spec.error_class))?;
    Ok(changes_files.then_some(watch))
}

/// Before a command (a tool that runs programs) under a toolkit with the journal: the
/// workspace's state (`crate::command_journal`), after recording what background processes
/// changed since the last call.
fn command_journal_before<'c>(
    rc: &RunContext<'c>,
    spec: &ToolSpec,
) -> Result<Option<CommandJournal<'c>>, ToolError> {
    if spec.effect != crate::registry::Effect::Exec {
        return Ok(None);
    }
    let Some((background, store)) = journal_of(rc, spec)? else {
        return Ok(None);
    };
    let caught_up = background
        .catch_up(rc, &store)
        .map_err(|e| e.in_class(spec.error_class))?;
    let before = caught_up.unwrap_or_else(|| background.before(rc, store.root()));
    Ok(Some((background, store, before)))
}

type CommandJournal<'c> = (
    &'c crate::command_journal::Background,
    crate::checkpoints::Store,
    crate::command_journal::Before,
);

/// After a command: the checkpoint of what it changed.
fn command_journal_after(
    rc: &RunContext,
    spec: &ToolSpec,
    command: Option<CommandJournal>,
    result: Result<String, ToolError>,
) -> Result<String, ToolError> {
    let Some((background, store, before)) = command else {
        return result;
    };
    let committed = crate::command_journal::after(rc, &store, spec.name, before)
        .map(|(_, now)| background.keep(rc, &store, now));
    let json = result?;
    committed.map_err(|e| e.in_class(spec.error_class))?;
    Ok(json)
}

/// A handler's result as `door` answers it. A `SANDBOX_VIOLATION` the handler found (something
/// the call would use lies outside the workspace) is answered as a path outside the workspace
/// is: denied by the secure wrapper, the plain sandbox `Error` of `invoke`, and the `INTERNAL`
/// error of the raw handler.
fn answer(door: Door, result: Result<String, ToolError>) -> Outcome {
    match result {
        Err(e) if e.code == ErrorCode::SandboxViolation => match door {
            Door::Tools => Outcome::Denied {
                reason: Reason::Sandbox,
                message: e.message,
            },
            Door::Invoke => Outcome::PlainError {
                message: e.message,
                reason: Some(Reason::Sandbox),
            },
            Door::Handler => Outcome::ToolError(
                ErrorClass(e.class_name)
                    .internal(e.message)
                    .refused(Reason::Sandbox),
            ),
        },
        result => result.into(),
    }
}

/// A handler's run context; every run of a built-in handler (on a worker or inline) starts
/// here, so the test hook `test_hooks::before_handler` sits here too.
fn run_context<'c>(
    ctx: &'c ToolContext,
    spec: &ToolSpec,
    confined: bool,
) -> Result<RunContext<'c>, ToolError> {
    test_hooks::before_handler(spec.name);
    let confinement = match (confined, ctx.workspace_root.is_some()) {
        (true, true) => {
            let real_root = ctx.real_root().map_err(|e| spec.error_class.internal(e))?;
            check_root(ctx, spec, real_root)?;
            Some(Confinement::at(real_root.to_path_buf()))
        }
        _ => None,
    };
    Ok(RunContext { ctx, confinement })
}

/// The workspace root must be a directory that exists (it is read afresh for every call): a
/// missing one is the call's `NOT_FOUND`, and a file `NOT_DIRECTORY`, naming the root rather
/// than some file under it.
fn check_root(
    ctx: &ToolContext,
    spec: &ToolSpec,
    real_root: &std::path::Path,
) -> Result<(), ToolError> {
    let root = ctx.workspace_root.as_deref().unwrap_or_default();
    match std::fs::metadata(real_root) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(spec.error_class.coded(
            ErrorCode::NotDirectory,
            format!("workspaceRoot is not a directory: {root}"),
        )),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Err(spec.error_class.coded(
                ErrorCode::NotFound,
                format!("workspaceRoot does not exist: {root}"),
            ))
        }
        Err(e) => Err(spec.error_class.internal(e.to_string())),
    }
}

impl SessionCall {
    /// Runs the session tool on the current state of `context.todo`; its change to the state
    /// comes back in `Outcome::Ok`. `listing` says who writes the outputs that are the whole
    /// list (`todo::Listing`).
    pub fn run(self, state: Option<&TodoState>, listing: todo::Listing) -> Outcome {
        test_hooks::before_handler(self.name);
        match todo::run_for(self.op, state, &self.args, listing) {
            Ok(result) => Outcome::Ok {
                json: result.output,
                change: result.change.map(Box::new),
            },
            Err(e) => Outcome::ToolError(e),
        }
    }
}

/// Input size up to which a bounded tool runs on the caller's (JavaScript) thread: a few
/// system calls and a copy cost less than the round trip to the blocking pool.
pub const INLINE_BYTES: u64 = 64 * 1024;

/// The argument list of a `tools` or `handler` call (any other value: no arguments).
fn args_list(args: ArgValue) -> Vec<ArgValue> {
    match args {
        ArgValue::Array(items) => items,
        _ => Vec::new(),
    }
}

/// docs/compat.md, "Order of checks in invoke" steps 1–5 (they read no filesystem).
fn check_invoke(
    ctx: &ToolContext,
    call: &Call,
    registered: bool,
    is_write_op: bool,
    args: &ArgValue,
) -> Result<(), Outcome> {
    let refused = |code, message: String, reason| Outcome::InvokeError {
        code,
        message,
        reason,
    };
    if !registered {
        return Err(refused(
            ErrorCode::ToolNotFound,
            format!("tool is not registered: {}", call.name),
            None,
        ));
    }
    policy::authorize(ctx, &call.name, call.bypass)
        .map_err(|m| refused(ErrorCode::ToolNotAllowed, m, Some(Reason::Policy)))?;
    if !args.is_plain_object() {
        return Err(refused(
            ErrorCode::InvalidToolArgumentsType,
            "args must be an object".to_string(),
            None,
        ));
    }
    policy::check_write_scope(ctx, is_write_op)
        .map_err(|m| refused(ErrorCode::ToolNotAllowed, m, Some(Reason::Scope)))
}

/// The permission rules (`crate::permissions`), after the policy and the write scope and before
/// any path is resolved or file touched: a deny refuses the call, and so does an ask unless the
/// call was approved. `invoke` refuses with its `TOOL_NOT_ALLOWED` (the drop-in code), the secure
/// wrapper with a denial; the reason (`permission`, `approval`) gives the precise code.
fn check_permissions(
    ctx: &ToolContext,
    call: &Call,
    spec: Option<&ToolSpec>,
    unmapped: &Unmapped,
) -> Result<(), Outcome> {
    let refuse = |reason: Reason, message: String| match call.door {
        Door::Invoke => Outcome::InvokeError {
            code: ErrorCode::ToolNotAllowed,
            message,
            reason: Some(reason),
        },
        _ => Outcome::Denied { reason, message },
    };
    let verdict = match permission_verdict(ctx, &call.name, spec, unmapped) {
        Ok(verdict) => verdict,
        Err(message) => return Err(refuse(Reason::Permission, message)),
    };
    match verdict {
        Some(Verdict {
            decision: Decision::Deny,
            because,
        }) => Err(refuse(
            Reason::Permission,
            format!("[Permission] {} is denied by {because}", call.name),
        )),
        Some(Verdict {
            decision: Decision::Ask,
            because,
        }) if !call.approved => Err(refuse(
            Reason::Approval,
            format!(
                "[Permission] {} needs an approval ({because}), and nobody approved it",
                call.name
            ),
        )),
        _ => Ok(()),
    }
}

/// The rules' verdict on a call of `name` with its arguments (the input object of `invoke`, the
/// argument list of the secure wrapper); `Err`: the rules themselves are malformed.
fn permission_verdict(
    ctx: &ToolContext,
    name: &str,
    spec: Option<&ToolSpec>,
    unmapped: &Unmapped,
) -> Result<Option<Verdict>, String> {
    let Some(permissions) = Permissions::from_value(&ctx.permissions)? else {
        return Ok(None);
    };
    let input = match unmapped {
        Unmapped::Invoke(args) => args,
        Unmapped::Tools(args) => args.first().unwrap_or(&ArgValue::Undefined),
    };
    if matches!(name, "exec_command" | "process_start") {
        let ArgValue::Array(items) = input.get("command") else {
            return Ok(None);
        };
        let tokens: Vec<String> = items
            .iter()
            .map(|t| t.as_str().unwrap_or_default().to_string())
            .collect();
        return Ok(permissions.decide(name, &Subject::Command(&tokens)));
    }
    let field = match spec.map(|s| s.invoke_args()) {
        Some(
            InvokeArgs::PathAndField(path, _)
            | InvokeArgs::PathAndOptions(path, _)
            | InvokeArgs::OptionalPath(path)
            | InvokeArgs::Object(Some(path)),
        ) => Some(path),
        _ => None,
    };
    let path = match (unmapped, field) {
        (Unmapped::Tools(args), _) if matches!(args.first(), Some(ArgValue::String(_))) => {
            args[0].as_str()
        }
        (_, Some(field)) => input.get(field).as_str(),
        _ => None,
    };
    let Some(path) = path else {
        return Ok(permissions.decide(name, &Subject::Whole));
    };
    let Ok(root) = ctx.root() else {
        return Ok(None);
    };
    Ok(permissions.decide(
        name,
        &Subject::Path {
            path,
            root: std::path::Path::new(root),
            real_root: ctx.real_root().ok(),
        },
    ))
}

/// The permission rules' decision on `toolkit.invoke(name, input)`, as the tool loop and the
/// adapters ask it before they run a call: `None` when no rule decides (the policy does).
pub fn permission_decision(
    ctx: &ToolContext,
    name: &str,
    input: &ArgValue,
) -> Result<Option<Verdict>, String> {
    let spec = registry::find(name).or_else(|| registry::find_opt_in(name));
    permission_verdict(ctx, name, spec, &Unmapped::Invoke(input.clone()))
}

/// The secure wrapper's steps 1–3 for `toolkit.tools.<name>(...args)`: the first argument's
/// shape, the policy, the write scope (docs/compat.md); the path is `map_paths`.
fn check_secure(
    ctx: &ToolContext,
    call: &Call,
    is_write_op: bool,
    mut args: Vec<ArgValue>,
) -> Result<Vec<ArgValue>, Outcome> {
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
            return Err(Outcome::Failure {
                message: "Invalid path argument".to_string(),
            });
        }
    }
    let denied = |reason| move |message| Outcome::Denied { reason, message };
    policy::authorize(ctx, &call.name, call.bypass).map_err(denied(Reason::Policy))?;
    policy::check_write_scope(ctx, is_write_op).map_err(denied(Reason::Scope))?;
    Ok(args)
}

/// The last check of both doors: the path arguments resolved inside the workspace, and the
/// handler's positional arguments. `spec` is the built-in or enabled opt-in tool of the name.
fn map_paths(
    ctx: &ToolContext,
    spec: Option<&ToolSpec>,
    unmapped: Unmapped,
) -> Result<Vec<ArgValue>, Outcome> {
    match unmapped {
        Unmapped::Invoke(args) => map_invoke(ctx, spec, &args),
        Unmapped::Tools(args) => map_secure(ctx, spec, args),
    }
}

/// docs/compat.md, "Order of checks in invoke" step 6: the positional arguments for
/// `ToolCatalog[name].handler`, the path sandboxed (a plain `Error` when outside).
fn map_invoke(
    ctx: &ToolContext,
    spec: Option<&ToolSpec>,
    args: &ArgValue,
) -> Result<Vec<ArgValue>, Outcome> {
    let mapping = spec
        .map(|t| t.invoke_args())
        .unwrap_or(InvokeArgs::Object(None));
    let sandboxed = |v: &ArgValue| -> Result<ArgValue, Outcome> {
        match v {
            ArgValue::String(p) => resolve(ctx, p)
                .map(ArgValue::String)
                .map_err(|PathRefusal { message, reason }| Outcome::PlainError { message, reason }),
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

/// The secure wrapper's step 4: the path argument (a string first argument, or the path field
/// of the tool's object argument: `cwd` for exec_command, `root_path` for the search tools)
/// resolved inside the workspace. Keys a tool does not take never reach it and are not checked,
/// as upstream ignores them. Any failure to resolve it is a sandbox denial.
fn map_secure(
    ctx: &ToolContext,
    spec: Option<&ToolSpec>,
    mut args: Vec<ArgValue>,
) -> Result<Vec<ArgValue>, Outcome> {
    let denied = |refusal: PathRefusal| Outcome::Denied {
        reason: Reason::Sandbox,
        message: refusal.message,
    };
    if let Some(first) = args.first_mut() {
        match first {
            ArgValue::String(p) => *p = resolve(ctx, p).map_err(denied)?,
            ArgValue::Object(_) => {
                let field = match spec.map(|s| s.invoke_args()) {
                    Some(InvokeArgs::Object(field)) => field,
                    _ => None,
                };
                if let Some(field) = field {
                    if let ArgValue::String(p) = first.get(field) {
                        let resolved = resolve(ctx, p).map_err(denied)?;
                        *first = first.with_field(field, ArgValue::String(resolved));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(args)
}

/// A path that could not be mapped: outside the workspace (`reason: Sandbox`), or a workspace
/// root that is not a string (no reason: Node's own error).
struct PathRefusal {
    message: String,
    reason: Option<Reason>,
}

fn resolve(ctx: &ToolContext, path: &str) -> Result<String, PathRefusal> {
    let root = ctx.root().map_err(|message| PathRefusal {
        message,
        reason: None,
    })?;
    sandbox::resolve_in_root(path, root, ctx.real_root().ok()).map_err(|v| PathRefusal {
        message: v.message,
        reason: Some(Reason::Sandbox),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The workspace root of `ctx`: an absolute path of the host (`/ws`; on Windows `C:\ws`,
    /// which the win32 rules take as absolute).
    const WS: &str = if cfg!(windows) { "C:\\ws" } else { "/ws" };

    /// `rel` (written with `/`) below [`WS`], with the host's separator.
    fn in_ws(rel: &str) -> String {
        if cfg!(windows) {
            format!("{WS}\\{}", rel.replace('/', "\\"))
        } else {
            format!("{WS}/{rel}")
        }
    }

    fn ctx(default_policy: &str) -> ToolContext {
        ToolContext::from_value(&ArgValue::from(&json!({
            "workspaceRoot": WS, "writeScope": "workspace-write",
            "policy": {"tools": {}, "defaultPolicy": default_policy},
            "env": {"platform": "linux", "osRelease": "6"}
        })))
    }

    /// A call as the JavaScript layer makes it for a built-in's name.
    fn call(door: Door, name: &str) -> Call {
        let spec = registry::find(name);
        Call {
            door,
            name: name.to_string(),
            registered: Some(spec.is_some()),
            is_write_op: Some(spec.is_some_and(|s| s.effect.is_write_op())),
            bypass: false,
            run_built_in: spec.is_some(),
            opt_in: false,
            approved: false,
        }
    }

    fn args(v: serde_json::Value) -> ArgValue {
        ArgValue::from(&v)
    }

    /// Carries a plan out on this thread, as `Toolkit::invoke` does.
    fn settle(plan: Plan) -> Outcome {
        match plan {
            Plan::Done(outcome) => outcome,
            Plan::Inline(job) | Plan::Worker(job) => job.run(),
            Plan::Session(session) => session.run(None, todo::Listing::Text),
        }
    }

    /// The handler's positional arguments a front door prepares (a replaced handler's call),
    /// or the outcome that ended the call.
    fn prepared(
        ctx: &ToolContext,
        door: Door,
        name: &str,
        a: ArgValue,
    ) -> Result<Vec<ArgValue>, Outcome> {
        let mut c = call(door, name);
        c.run_built_in = false;
        match settle(plan(ctx, &c, a)) {
            Outcome::Prepared(positional) => Ok(positional),
            other => Err(other),
        }
    }

    fn invoke_error(code: ErrorCode, message: &str, reason: Option<Reason>) -> Outcome {
        Outcome::InvokeError {
            code,
            message: message.to_string(),
            reason,
        }
    }

    #[test]
    fn invoke_checks_run_in_contract_order() {
        let deny = ctx("deny");
        assert_eq!(
            prepared(&deny, Door::Invoke, "nope", ArgValue::Null).unwrap_err(),
            invoke_error(
                ErrorCode::ToolNotFound,
                "tool is not registered: nope",
                None
            )
        );
        // policy before the args type check
        assert_eq!(
            prepared(&deny, Door::Invoke, "read_file", ArgValue::Null).unwrap_err(),
            invoke_error(
                ErrorCode::ToolNotAllowed,
                "[Security Policy] Access denied for tool: \"read_file\"",
                Some(Reason::Policy)
            )
        );
        // args type check before the write scope
        let mut ro = ctx("allow");
        ro.write_scope = "read-only".into();
        assert_eq!(
            prepared(&ro, Door::Invoke, "write_file", args(json!([1]))).unwrap_err(),
            invoke_error(
                ErrorCode::InvalidToolArgumentsType,
                "args must be an object",
                None
            )
        );
        // the write scope is its own reason, though its message says "[Sandbox Violation]"
        assert_eq!(
            prepared(&ro, Door::Invoke, "write_file", args(json!({}))).unwrap_err(),
            invoke_error(
                ErrorCode::ToolNotAllowed,
                "[Sandbox Violation] Write operation denied. Current mode: \"read-only\"",
                Some(Reason::Scope)
            )
        );
        let mut bypassed = call(Door::Invoke, "read_file");
        bypassed.bypass = true;
        bypassed.run_built_in = false;
        assert!(matches!(
            settle(plan(&deny, &bypassed, args(json!({"path": "a"})))),
            Outcome::Prepared(_)
        ));
    }

    #[test]
    fn invoke_maps_arguments() {
        let c = ctx("allow");
        let out = prepared(
            &c,
            Door::Invoke,
            "read_file",
            args(json!({"path": "src/main.ts", "x": 1})),
        )
        .unwrap();
        assert_eq!(out[0], ArgValue::from(in_ws("src/main.ts").as_str()));
        assert_eq!(
            out[1],
            ArgValue::Object(vec![
                ("start_line".into(), ArgValue::Undefined),
                ("max_lines".into(), ArgValue::Undefined)
            ])
        );
        let out = prepared(&c, Door::Invoke, "git_status_summary", args(json!({}))).unwrap();
        assert_eq!(out, vec![ArgValue::Undefined]);
        let out = prepared(
            &c,
            Door::Invoke,
            "regexp_search",
            args(json!({"pattern": "TODO", "root_path": "src\\nested\\..", "cwd": "../.."})),
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"pattern": "TODO", "root_path": in_ws("src"), "cwd": "../.."}))
        );
        let out = prepared(&c, Door::Invoke, "task_list", args(json!({"cwd": "../.."}))).unwrap();
        assert_eq!(out[0], args(json!({"cwd": "../.."})));
        assert_eq!(
            prepared(
                &c,
                Door::Invoke,
                "read_file",
                args(json!({"path": "..\\x"}))
            )
            .unwrap_err(),
            Outcome::PlainError {
                message:
                    "[Sandbox Violation] Attempted to access path outside of workspace: \"../x\""
                        .into(),
                reason: Some(Reason::Sandbox)
            }
        );
        // a root that is not a string is Node's error, not a sandbox refusal
        let mut rootless = ctx("allow");
        rootless.workspace_root = None;
        assert!(matches!(
            prepared(&rootless, Door::Invoke, "read_file", args(json!({"path": "a"}))).unwrap_err(),
            Outcome::PlainError { reason: None, ref message } if message.starts_with("The \"paths[0]\" argument")
        ));
    }

    #[test]
    fn secure_wrapper_order_and_classification() {
        let deny = ctx("deny");
        let list = |items: Vec<ArgValue>| ArgValue::Array(items);
        assert_eq!(
            prepared(
                &deny,
                Door::Tools,
                "read_file",
                list(vec![ArgValue::Number(5.0)])
            )
            .unwrap_err(),
            Outcome::Failure {
                message: "Invalid path argument".into()
            }
        );
        assert!(matches!(
            prepared(&deny, Door::Tools, "read_file", list(vec!["a".into()])).unwrap_err(),
            Outcome::Denied {
                reason: Reason::Policy,
                ..
            }
        ));
        let allow = ctx("allow");
        // classified by kind, not by the word "Policy" in the message (docs/compat.md)
        assert!(matches!(
            prepared(
                &allow,
                Door::Tools,
                "read_file",
                list(vec!["../Policy".into()])
            )
            .unwrap_err(),
            Outcome::Denied {
                reason: Reason::Sandbox,
                ..
            }
        ));
        let mut ro = ctx("allow");
        ro.write_scope = "read-only".into();
        assert_eq!(
            prepared(
                &ro,
                Door::Tools,
                "write_file",
                list(vec!["a".into(), "x".into()])
            )
            .unwrap_err(),
            Outcome::Denied {
                reason: Reason::Scope,
                message: "[Sandbox Violation] Write operation denied. Current mode: \"read-only\""
                    .into()
            }
        );
        // an explicit undefined is an omitted argument (docs/compat.md)
        assert_eq!(
            prepared(
                &allow,
                Door::Tools,
                "git_status_summary",
                list(vec![ArgValue::Undefined])
            )
            .unwrap(),
            Vec::<ArgValue>::new()
        );
        // a leading undefined is an omitted argument too: it reaches the tool's validation
        let opts = args(json!({"start_line": 1}));
        assert_eq!(
            prepared(
                &allow,
                Door::Tools,
                "read_file",
                list(vec![ArgValue::Undefined, opts.clone()])
            )
            .unwrap(),
            vec![ArgValue::Undefined, opts]
        );
        // keys a tool does not take are not checked (and never reach it)
        let out = prepared(
            &allow,
            Door::Tools,
            "exec_command",
            list(vec![args(
                json!({"cwd": ".", "command": ["ls"], "root_path": ".."}),
            )]),
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"cwd": WS, "command": ["ls"], "root_path": ".."}))
        );
        let out = prepared(
            &allow,
            Door::Tools,
            "regexp_search",
            list(vec![args(
                json!({"pattern": "x", "cwd": "../..", "root_path": "src"}),
            )]),
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"pattern": "x", "cwd": "../..", "root_path": in_ws("src")}))
        );
        assert_eq!(
            prepared(
                &allow,
                Door::Tools,
                "task_list",
                list(vec![args(json!({"cwd": "../.."}))])
            )
            .unwrap()[0],
            args(json!({"cwd": "../.."}))
        );
        // every path field a tool takes is checked, whatever other keys say
        assert!(matches!(
            prepared(
                &allow,
                Door::Tools,
                "regexp_search",
                list(vec![args(
                    json!({"pattern": "x", "cwd": "src", "root_path": "../.."})
                )])
            )
            .unwrap_err(),
            Outcome::Denied {
                reason: Reason::Sandbox,
                ..
            }
        ));
        let out = prepared(
            &allow,
            Door::Tools,
            "exec_command",
            list(vec![args(json!({"cwd": "src", "command": ["ls"]}))]),
        )
        .unwrap();
        assert_eq!(
            out[0],
            args(json!({"cwd": in_ws("src"), "command": ["ls"]}))
        );
    }

    #[test]
    fn each_kind_of_call_gets_its_plan() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "hi\n").unwrap();
        let c = ToolContext::allow_all(root.to_str().unwrap());
        let list = |items: Vec<ArgValue>| ArgValue::Array(items);

        // checks that need no filesystem end the call in the plan, whatever the tool
        let mut ro = ToolContext::allow_all(root.to_str().unwrap());
        ro.write_scope = "read-only".into();
        let p = plan(
            &ro,
            &call(Door::Invoke, "write_file"),
            args(json!({"path": "b"})),
        );
        assert!(matches!(
            p,
            Plan::Done(Outcome::InvokeError {
                reason: Some(Reason::Scope),
                ..
            })
        ));

        // a bounded tool runs on the caller's thread, with its paths already mapped
        let p = plan(
            &c,
            &call(Door::Invoke, "read_file"),
            args(json!({"path": "a.txt"})),
        );
        let Plan::Inline(job) = p else {
            panic!("{p:?}")
        };
        assert_eq!(job.name(), "read_file");
        let out = job.try_inline().unwrap();
        assert!(
            matches!(out, Outcome::Ok { ref json, change: None } if json.contains("\"content\":\"hi\\n\""))
        );
        // a bounded tool's path outside the workspace ends in the plan
        let p = plan(
            &c,
            &call(Door::Tools, "read_file"),
            list(vec!["../x".into()]),
        );
        assert!(matches!(
            p,
            Plan::Done(Outcome::Denied {
                reason: Reason::Sandbox,
                ..
            })
        ));

        // a blocking tool goes to a worker, which maps its paths first
        let p = plan(
            &c,
            &call(Door::Tools, "write_file"),
            list(vec!["../x".into(), "y".into()]),
        );
        let Plan::Worker(job) = p else {
            panic!("{p:?}")
        };
        assert_eq!(job.spec.name, "write_file");
        assert!(matches!(
            job.run(),
            Outcome::Denied {
                reason: Reason::Sandbox,
                ..
            }
        ));
        let p = plan(
            &c,
            &call(Door::Tools, "write_file"),
            list(vec!["b.txt".into(), "y".into()]),
        );
        assert!(matches!(p, Plan::Worker(_)));
        assert!(matches!(settle(p), Outcome::Ok { .. }));
        assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "y");

        // the raw handler: a worker, unchecked and unconfined (a path outside is not refused)
        let p = plan(
            &c,
            &call(Door::Handler, "read_file"),
            list(vec![root.join("../nowhere").to_str().unwrap().into()]),
        );
        let Plan::Worker(job) = p else {
            panic!("{p:?}")
        };
        assert!(!job.confined);
        assert!(
            matches!(job.run(), Outcome::ToolError(e) if e.code == ErrorCode::NotFound && e.reason.is_none())
        );

        // a session tool: its operation, run with the state
        let p = plan(
            &c,
            &call(Door::Invoke, "task_create_many"),
            args(json!({"tasks": [{"title": "a"}]})),
        );
        let Plan::Session(session) = p else {
            panic!("{p:?}")
        };
        assert_eq!(
            (session.name, session.op),
            ("task_create_many", TodoOp::CreateMany)
        );
        match session.run(None, todo::Listing::Text) {
            Outcome::Ok {
                change: Some(change),
                ..
            } => assert!(matches!(*change, StateChange::Replace(ref tasks) if tasks.len() == 1)),
            other => panic!("{other:?}"),
        }
        // a replaced session handler: prepared here
        let mut replaced = call(Door::Invoke, "task_list");
        replaced.run_built_in = false;
        assert!(matches!(
            plan(&c, &replaced, args(json!({}))),
            Plan::Done(Outcome::Prepared(_))
        ));

        // an opt-in tool is a tool only when the caller enabled it
        let mut edit = call(Door::Invoke, "edit_file");
        let input = args(json!({"path": "a.txt", "old_string": "hi", "new_string": "ho"}));
        assert!(matches!(
            plan(&c, &edit, input.clone()),
            Plan::Done(Outcome::InvokeError {
                code: ErrorCode::ToolNotFound,
                ..
            })
        ));
        edit.registered = Some(true);
        edit.run_built_in = true;
        edit.opt_in = true;
        let Plan::Worker(job) = plan(&c, &edit, input) else {
            panic!("edit_file runs on a worker")
        };
        assert_eq!(job.name(), "edit_file");
    }
}
