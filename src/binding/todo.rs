//! The todo tools' session state on the native side: one store per context object. The
//! JavaScript side keeps the store beside the context (ts/todo_state.cts) and hands it to every
//! session-tool call, so a call reads the state and applies its change here, without the task
//! list crossing the boundary. `context.todo` stays the state users see; when it is no longer
//! what the store was made from (assigned, or its Map, order or tasks changed), the JavaScript
//! side loads it into the store again before the call (`todoStoreLoad`).

use std::sync::{Mutex, MutexGuard};

use napi::bindgen_prelude::*;
use napi_derive::napi;

use agent_tools_core::invoke::{Outcome, SessionCall};
pub use agent_tools_core::tools::todo::Listing;
use agent_tools_core::tools::todo::TodoState;
use agent_tools_core::value::ArgValue;

/// A context's task list (`None`: not initialized, as an absent `context.todo`).
#[derive(Default)]
pub struct TodoStore(Mutex<Option<TodoState>>);

impl TodoStore {
    /// The state; a panic in an earlier call (the test hooks inject them) leaves it as it was,
    /// since a change is applied only after its call succeeded.
    fn state(&self) -> MutexGuard<'_, Option<TodoState>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A new store with no task list: one per context object the session tools are called with.
#[napi(catch_unwind, ts_return_type = "ExternalObject<'TodoStore'>")]
pub fn todo_store_new() -> External<TodoStore> {
    External::new(TodoStore::default())
}

/// Replaces the store's task list with `context.todo` as JSON text (`{ tasks: [[id, task], ...],
/// order }`), or with none (`null`, or text that is not a task list).
#[napi(
    catch_unwind,
    ts_args_type = "store: ExternalObject<'TodoStore'>, state: string | null"
)]
pub fn todo_store_load(store: &External<TodoStore>, state: Option<String>) {
    *store.state() = state.as_deref().and_then(parse_state);
}

/// `context.todo` from its JSON text; anything that is not a task list reads as none.
fn parse_state(json: &str) -> Option<TodoState> {
    serde_json::from_str::<ArgValue>(json)
        .ok()
        .and_then(|value| TodoState::from_value(&value))
}

/// Runs the session call on the store's task list (none without a store) and applies its change
/// there; the change is in the outcome too, for `context.todo`. With a store, the outputs that
/// are copies of its tasks (task_list's list, an update's changed task) are left to the caller,
/// which makes them from `context.todo`, the state the store follows: their text is empty.
pub fn run(store: Option<&TodoStore>, session: SessionCall) -> Outcome {
    let Some(store) = store else {
        return session.run(None, Listing::Text);
    };
    let mut state = store.state();
    let outcome = session.run(state.as_ref(), Listing::Caller);
    if let Outcome::Ok {
        change: Some(change),
        ..
    } = &outcome
    {
        state.get_or_insert_with(TodoState::default).apply(change);
    }
    outcome
}
