//! The undo journal and the syntax check of a context's file changes
//! (`agent_tools_core::checkpoints`, `agent_tools_core::syntax_check`): one `EditHooks` per
//! context whose toolkit enables them, kept beside the context by the JavaScript side
//! (ts/context.cts), and the journal's operations behind `toolkit.checkpoints`.

use std::sync::Arc;

use agent_tools_core::checkpoints::{Journal, JournalOptions};
use agent_tools_core::context::EditHooks;
use agent_tools_core::syntax_check::SyntaxMode;
use agent_tools_core::{invoke, ToolContext};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::{Answer, Outcome};

/// The journal's settings (`createAgentToolkit`'s `checkpoints` option, checked there).
#[napi(object)]
pub struct CheckpointOptions {
    /// The journal's directory (default: in the user's state directory, per workspace).
    pub dir: Option<String>,
    /// Bytes of file contents kept (default 256 MiB).
    pub max_bytes: Option<f64>,
    /// Checkpoints kept (default 200).
    pub max_checkpoints: Option<u32>,
    /// `process.env`, where the variables that place the user's state directory are read
    /// (`XDG_STATE_HOME`, `HOME`, `LOCALAPPDATA`), not from the C environment, which Bun does
    /// not update when a program changes `process.env`.
    pub env: Option<std::collections::HashMap<String, String>>,
}

/// The journal (when `checkpoints` is given) and the syntax check (`"report"` or `"reject"`)
/// of the calls that change files.
#[napi(catch_unwind, ts_return_type = "ExternalObject<'EditHooks'>")]
pub fn new_edit_hooks(
    checkpoints: Option<CheckpointOptions>,
    syntax_check: Option<String>,
) -> Result<External<Arc<EditHooks>>> {
    let journal = checkpoints.map(|o| {
        let defaults = JournalOptions::default();
        let state_home = o.env.as_ref().and_then(|env| {
            agent_tools_core::checkpoints::state_home_in(|name| env.get(name).map(Into::into))
        });
        Journal::new(JournalOptions {
            dir: o.dir.map(Into::into),
            state_home,
            max_bytes: o.max_bytes.map_or(defaults.max_bytes, |b| b as u64),
            max_checkpoints: o
                .max_checkpoints
                .map_or(defaults.max_checkpoints, |n| n as usize),
        })
    });
    let syntax = match syntax_check.as_deref() {
        None => None,
        Some(mode) => Some(SyntaxMode::parse(mode).ok_or_else(|| {
            Error::from_reason(format!(
                "syntaxCheck must be \"report\" or \"reject\": {mode}"
            ))
        })?),
    };
    Ok(External::new(Arc::new(EditHooks {
        journal,
        syntax,
        ..EditHooks::default()
    })))
}

/// One operation of the journal of `context`'s workspace, off the JavaScript thread: `list`
/// (JSON of the checkpoints, oldest first), `diff` (the unified diff restoring `id` would
/// make, as a JSON string), `restore` (JSON of what it did) or `settle` (`null`: only what
/// background processes changed since the last call recorded, as every operation does first).
/// Errors are the journal's own (`CheckpointError`, with its code).
#[napi(
    catch_unwind,
    ts_args_type = "edits: ExternalObject<'EditHooks'>, context: ExternalObject<'ToolContext'>, op: 'list' | 'diff' | 'restore' | 'settle', id?: string, force?: boolean",
    ts_return_type = "Promise<string | Outcome>"
)]
pub fn checkpoints_call<'env>(
    env: &'env Env,
    edits: &External<Arc<EditHooks>>,
    context: &External<ToolContext>,
    op: String,
    id: Option<String>,
    force: Option<bool>,
) -> Result<PromiseRaw<'env, Answer>> {
    let edits = Arc::clone(edits);
    let ctx = ToolContext::clone(context);
    super::on_blocking_pool(env, move || {
        let outcome = match agent_tools_core::command_journal::operate(
            &edits,
            &ctx,
            &op,
            id.as_deref(),
            force.unwrap_or(false),
        ) {
            Ok(json) => invoke::Outcome::Ok { json, change: None },
            Err(e) => invoke::Outcome::ToolError(e),
        };
        Ok(Answer(Outcome::from(outcome)))
    })
}
