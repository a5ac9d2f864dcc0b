//! The todo tools (docs/tools/todo.md). The session state lives on the caller's context object
//! (`context.todo = { tasks: Map, order }`), so these tools run on the JavaScript thread, where
//! that object is: the wrapper hands the current state in, and applies the returned change.
//! Each call is therefore atomic, as upstream's synchronous handlers are.

use schemars::JsonSchema;
use serde::Serialize;
#[cfg(feature = "typegen")]
use ts_rs::TS;

use super::input::{tool_input, Field, InputFields, ToolInput};
use super::to_json;
use crate::context::ToolContext;
use crate::error::{ErrorClass, ErrorCode, ToolError};
use crate::value::{js_trim, utf16_len, ArgValue};

pub const ERROR_CLASS: ErrorClass = ErrorClass("TodoError");

#[derive(Serialize, JsonSchema, Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "typegen", derive(TS))]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    Todo,
    Done,
    Canceled,
}

impl TaskStatus {
    fn parse(value: &ArgValue) -> Option<TaskStatus> {
        match value.as_str()? {
            "todo" => Some(TaskStatus::Todo),
            "done" => Some(TaskStatus::Done),
            "canceled" => Some(TaskStatus::Canceled),
            _ => None,
        }
    }
}

#[derive(Serialize, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskItem {
    pub task_id: String,
    pub status: TaskStatus,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typegen", ts(optional))]
    pub description: Option<String>,
}

// One task of task_create_many's input, its title trimmed.
#[tool_input]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskDraft {
    #[arg(check = title)]
    #[schemars(description = "Task title.")]
    pub title: String,
    #[arg(check = description)]
    #[schemars(description = "Optional detail.")]
    pub description: Option<String>,
}

// task_create_many's input: `task_create_many(input)`.
#[tool_input(
    name = "task_create_many",
    description = "Creates initial task list for the current execution session.",
    effect = State,
    class = ERROR_CLASS,
    output = TaskListOutput,
    handler = Session(TodoOp::CreateMany),
    shape = Object,
    object = engine
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskCreateManyInput {
    #[arg(check = drafts)]
    #[schemars(description = "Initial tasks (max: 100).")]
    pub tasks: Vec<TaskDraft>,
}

// task_list's input (none): `task_list(_input)`.
#[tool_input(
    name = "task_list",
    description = "Returns all tasks in creation order for this session.",
    effect = Read,
    class = ERROR_CLASS,
    output = TaskListOutput,
    handler = Session(TodoOp::List),
    shape = Object
)]
#[derive(JsonSchema, Debug)]
#[schemars(extend("type" = "object", "properties" = {}, "required" = []))]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(feature = "typegen", ts(type = "Record<string, never>"))]
pub struct TaskListInput {}

// task_update's input: `task_update(input)`.
#[tool_input(
    name = "task_update",
    description = "Updates title or description of an existing session task.",
    effect = State,
    class = ERROR_CLASS,
    output = TaskUpdateOutput,
    handler = Session(TodoOp::Update),
    shape = Object
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskUpdateInput {
    #[arg(check = task_id)]
    #[schemars(description = "Target task id.")]
    pub task_id: String,
    // Trimmed.
    #[arg(check = title)]
    #[schemars(description = "New task title.")]
    pub title: String,
    #[arg(check = description)]
    #[schemars(
        description = "Optional detail. Escape Windows backslashes in JSON, e.g. C:\\\\repo\\\\src."
    )]
    pub description: Option<String>,
}

// task_update_status's input: `task_update_status(input)`.
#[tool_input(
    name = "task_update_status",
    description = "Updates status of an existing session task.",
    effect = State,
    class = ERROR_CLASS,
    output = TaskUpdateOutput,
    handler = Session(TodoOp::UpdateStatus),
    shape = Object
)]
#[derive(JsonSchema, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskUpdateStatusInput {
    #[arg(check = task_id)]
    #[schemars(description = "Target task id.")]
    pub task_id: String,
    #[arg(check = status)]
    #[schemars(description = "New task status.")]
    pub status: TaskStatus,
}

// task_validate_completion's input (none): `task_validate_completion(_input)`.
#[tool_input(
    name = "task_validate_completion",
    description = "Validates whether unfinished todo tasks remain in this session.",
    effect = Read,
    class = ERROR_CLASS,
    output = TaskValidateCompletionOutput,
    handler = Session(TodoOp::ValidateCompletion),
    shape = Object
)]
#[derive(JsonSchema, Debug)]
#[schemars(extend("type" = "object", "properties" = {}, "required" = []))]
#[cfg_attr(feature = "typegen", derive(TS))]
#[cfg_attr(feature = "typegen", ts(type = "Record<string, never>"))]
pub struct TaskValidateCompletionInput {}

/// `tasks`: 1 to 100 task objects.
fn drafts(f: Field<Vec<TaskDraft>>) -> Result<Vec<TaskDraft>, ToolError> {
    let ArgValue::Array(drafts) = f.value else {
        return Err(f.must("be an array"));
    };
    if !(1..=100).contains(&drafts.len()) {
        return Err(f.must("contain 1..100 items"));
    }
    let mut tasks = Vec::with_capacity(drafts.len());
    for (i, draft) in drafts.iter().enumerate() {
        if !draft.is_plain_object() {
            return Err(f.errors.invalid(format!("tasks[{i}] must be an object")));
        }
        tasks.push(TaskDraft::parse_fields(draft, f.ctx, f.errors)?);
    }
    Ok(tasks)
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskListOutput {
    pub tasks: Vec<TaskItem>,
}

/// `TaskListOutput` over the state's tasks, serialized the same way without copying them.
#[derive(Serialize)]
struct TaskListView<'a> {
    tasks: Vec<&'a TaskItem>,
}

/// `TaskUpdateOutput` of a stored task, serialized the same way without copying it.
#[derive(Serialize)]
struct TaskUpdateView<'a> {
    task: &'a TaskItem,
}

/// `TaskValidateCompletionOutput` over the state's ids, serialized the same way.
#[derive(Serialize)]
struct CompletionView<'a> {
    ok: bool,
    remaining: Vec<&'a str>,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskUpdateOutput {
    pub task: TaskItem,
}

#[derive(Serialize, Debug)]
#[cfg_attr(feature = "typegen", derive(TS))]
pub struct TaskValidateCompletionOutput {
    pub ok: bool,
    pub remaining: Vec<String>,
}

/// The five operations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TodoOp {
    CreateMany,
    List,
    Update,
    UpdateStatus,
    ValidateCompletion,
}

/// The session state as read from `context.todo` (`tasks` as `[id, task]` pairs).
#[derive(Debug, Clone, Default)]
pub struct TodoState {
    pub tasks: Vec<(String, TaskItem)>,
    pub order: Vec<String>,
}

impl TodoState {
    /// Reads `{ tasks: [[id, task], ...], order: [...] }`; `None` for an absent state.
    pub fn from_value(value: &ArgValue) -> Option<TodoState> {
        if value.is_nullish() {
            return None;
        }
        let tasks = match value.get("tasks") {
            ArgValue::Array(pairs) => pairs
                .iter()
                .filter_map(|pair| match pair {
                    ArgValue::Array(kv) if kv.len() == 2 => {
                        Some((kv[0].as_str()?.to_string(), task_from_value(&kv[1])?))
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let order = match value.get("order") {
            ArgValue::Array(ids) => ids
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        Some(TodoState { tasks, order })
    }

    /// Applies a successful call's change, as the JavaScript wrapper applies it to `context.todo`
    /// (`Set` replaces the entry in place; an id not in the map is added, at the end).
    pub fn apply(&mut self, change: &StateChange) {
        match change {
            StateChange::Replace(tasks) => {
                self.order = tasks.iter().map(|t| t.task_id.clone()).collect();
                self.tasks = tasks
                    .iter()
                    .map(|t| (t.task_id.clone(), t.clone()))
                    .collect();
            }
            StateChange::Set(task) => {
                match self.tasks.iter_mut().find(|(id, _)| *id == task.task_id) {
                    Some((_, slot)) => *slot = task.clone(),
                    None => {
                        self.order.push(task.task_id.clone());
                        self.tasks.push((task.task_id.clone(), task.clone()));
                    }
                }
            }
        }
    }

    fn get(&self, id: &str) -> Option<&TaskItem> {
        self.tasks.iter().find(|(k, _)| k == id).map(|(_, t)| t)
    }

    /// The tasks in creation order; an id without a task is state corruption.
    fn ordered(&self) -> Result<Vec<&TaskItem>, ToolError> {
        self.order
            .iter()
            .enumerate()
            .map(|(i, id)| {
                // The entries are usually in creation order too: one comparison, not a search.
                let at_same_place = self.tasks.get(i).filter(|(key, _)| key == id);
                at_same_place
                    .map(|(_, t)| t)
                    .or_else(|| self.get(id))
                    .ok_or_else(|| {
                        ERROR_CLASS.coded(
                            ErrorCode::Internal,
                            format!("task not found in state: {id}"),
                        )
                    })
            })
            .collect()
    }
}

fn task_from_value(v: &ArgValue) -> Option<TaskItem> {
    let text = |k: &str| v.get(k).as_str().map(str::to_string);
    Some(TaskItem {
        task_id: text("task_id")?,
        status: TaskStatus::parse(v.get("status"))?,
        title: text("title")?,
        created_at: text("created_at")?,
        updated_at: text("updated_at")?,
        description: text("description"),
    })
}

/// What the wrapper must do to `context.todo` after a successful call.
#[derive(Serialize, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum StateChange {
    /// Replace the whole state with these tasks (in order).
    Replace(Vec<TaskItem>),
    /// Replace one entry of the map.
    Set(TaskItem),
}

/// A successful call: the output as JSON text and the state change, if any.
#[derive(Debug)]
pub struct TodoResult {
    pub output: String,
    pub change: Option<StateChange>,
}

fn now() -> String {
    humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string()
}

/// `now()` for a run of tasks: the text is made once per millisecond (as each task still takes
/// its own reading of the clock).
#[derive(Default)]
struct Clock(Option<(u128, String)>);

impl Clock {
    fn now(&mut self) -> String {
        let time = std::time::SystemTime::now();
        let millis = time
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        match &self.0 {
            Some((at, text)) if *at == millis => text.clone(),
            _ => {
                let text = humantime::format_rfc3339_millis(time).to_string();
                self.0 = Some((millis, text.clone()));
                text
            }
        }
    }
}

/// `n` new task ids (random UUIDs v4, lowercase), from one read of the system's random source.
fn new_task_ids(n: usize) -> Vec<String> {
    let mut bytes = vec![0u8; 16 * n];
    if getrandom::fill(&mut bytes).is_err() {
        return (0..n).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    }
    bytes
        .chunks_exact(16)
        .map(|chunk| {
            let mut random = [0u8; 16];
            random.copy_from_slice(chunk);
            uuid::Builder::from_random_bytes(random)
                .into_uuid()
                .to_string()
        })
        .collect()
}

fn title(f: Field<String>) -> Result<String, ToolError> {
    let raw = f.value.as_str().ok_or_else(|| f.must("be a string"))?;
    let trimmed = js_trim(raw);
    if !(1..=200).contains(&utf16_len(trimmed)) {
        return Err(f.must("be 1..200 chars after trim"));
    }
    Ok(trimmed.to_string())
}

fn description(f: Field<Option<String>>) -> Result<Option<String>, ToolError> {
    match f.value {
        ArgValue::Undefined => Ok(None),
        ArgValue::String(s) if utf16_len(s) <= 2000 => Ok(Some(s.clone())),
        ArgValue::String(_) => Err(f.must("be 0..2000 chars")),
        _ => Err(f.must("be a string")),
    }
}

/// `/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i`
fn task_id(f: Field<String>) -> Result<String, ToolError> {
    let id = f.value.as_str().unwrap_or("");
    let bytes = id.as_bytes();
    let valid = bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            14 => *b == b'4',
            19 => matches!(b.to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b'),
            _ => b.is_ascii_hexdigit(),
        });
    if valid {
        Ok(id.to_string())
    } else {
        Err(f.must("be UUID v4"))
    }
}

fn status(f: Field<TaskStatus>) -> Result<TaskStatus, ToolError> {
    TaskStatus::parse(f.value).ok_or_else(|| f.must("be one of \"todo\", \"done\", \"canceled\""))
}

fn initialized(state: Option<&TodoState>) -> Result<&TodoState, ToolError> {
    state.ok_or_else(|| {
        ERROR_CLASS.coded(
            ErrorCode::StateNotInitialized,
            "task state is not initialized. call task_create_many first",
        )
    })
}

fn found<'a>(state: &'a TodoState, id: &str) -> Result<&'a TaskItem, ToolError> {
    state
        .get(id)
        .ok_or_else(|| ERROR_CLASS.coded(ErrorCode::NotFound, format!("task not found: {id}")))
}

/// An update's output, the changed task: its JSON text, or none for a `Listing::Caller`, which
/// applies the change to its own state and answers with that task.
fn changed_output(task: &TaskItem, listing: Listing) -> Result<String, ToolError> {
    match listing {
        Listing::Text => to_json(&TaskUpdateView { task }, ERROR_CLASS),
        Listing::Caller => Ok(String::new()),
    }
}

/// Runs one operation. `args` are the handler's positional arguments (`[input]`).
pub fn run(
    op: TodoOp,
    state: Option<&TodoState>,
    args: &[ArgValue],
) -> Result<TodoResult, ToolError> {
    run_for(op, state, args, Listing::Text)
}

/// Who writes the outputs that are the state's whole list (task_list's, and task_create_many's,
/// the list it made).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Listing {
    /// Their JSON text, as every other output.
    Text,
    /// The caller, which holds the same state (the JavaScript wrapper, from `context.todo`, with
    /// the change applied): the `output` of these two is empty, and so is an update's that
    /// changed its task (the caller answers with the task it set).
    Caller,
}

/// A todo tool's input: the todo tools depend on no context.
fn parsed<T: ToolInput>(args: &[ArgValue]) -> Result<T, ToolError> {
    static NO_CONTEXT: std::sync::LazyLock<ToolContext> =
        std::sync::LazyLock::new(|| ToolContext::from_value(&ArgValue::Undefined));
    T::from_args(args, &NO_CONTEXT)
}

/// `run`, with the list outputs written by `listing`.
pub fn run_for(
    op: TodoOp,
    state: Option<&TodoState>,
    args: &[ArgValue],
    listing: Listing,
) -> Result<TodoResult, ToolError> {
    let unchanged = |output: String| {
        Ok(TodoResult {
            output,
            change: None,
        })
    };
    match op {
        TodoOp::CreateMany => {
            let validated = parsed::<TaskCreateManyInput>(args)?.tasks;
            let mut clock = Clock::default();
            let count = validated.len();
            let tasks: Vec<TaskItem> = validated
                .into_iter()
                .zip(new_task_ids(count))
                .map(|(TaskDraft { title, description }, task_id)| {
                    let stamp = clock.now();
                    TaskItem {
                        task_id,
                        status: TaskStatus::Todo,
                        title,
                        created_at: stamp.clone(),
                        updated_at: stamp,
                        description,
                    }
                })
                .collect();
            // The new list is the output: as task_list's, written by `listing`.
            let output = match listing {
                Listing::Text => to_json(
                    &TaskListView {
                        tasks: tasks.iter().collect(),
                    },
                    ERROR_CLASS,
                )?,
                Listing::Caller => String::new(),
            };
            Ok(TodoResult {
                output,
                change: Some(StateChange::Replace(tasks)),
            })
        }
        TodoOp::List => {
            let tasks = initialized(state)?.ordered()?;
            match listing {
                Listing::Text => unchanged(to_json(&TaskListView { tasks }, ERROR_CLASS)?),
                Listing::Caller => unchanged(String::new()),
            }
        }
        TodoOp::Update => {
            let TaskUpdateInput {
                task_id: id,
                title: new_title,
                description: new_description,
            } = parsed::<TaskUpdateInput>(args)?;
            let current = found(initialized(state)?, &id)?;
            let description_changed =
                new_description.is_some() && new_description != current.description;
            if new_title == current.title && !description_changed {
                return unchanged(to_json(&TaskUpdateView { task: current }, ERROR_CLASS)?);
            }
            let task = TaskItem {
                title: new_title,
                description: new_description.or_else(|| current.description.clone()),
                updated_at: now(),
                ..current.clone()
            };
            let output = changed_output(&task, listing)?;
            Ok(TodoResult {
                output,
                change: Some(StateChange::Set(task)),
            })
        }
        TodoOp::UpdateStatus => {
            let TaskUpdateStatusInput {
                task_id: id,
                status: new_status,
            } = parsed::<TaskUpdateStatusInput>(args)?;
            let current = found(initialized(state)?, &id)?;
            if new_status == current.status {
                return unchanged(to_json(&TaskUpdateView { task: current }, ERROR_CLASS)?);
            }
            let task = TaskItem {
                status: new_status,
                updated_at: now(),
                ..current.clone()
            };
            let output = changed_output(&task, listing)?;
            Ok(TodoResult {
                output,
                change: Some(StateChange::Set(task)),
            })
        }
        TodoOp::ValidateCompletion => {
            let remaining: Vec<&str> = initialized(state)?
                .ordered()?
                .into_iter()
                .filter(|t| t.status == TaskStatus::Todo)
                .map(|t| t.task_id.as_str())
                .collect();
            unchanged(to_json(
                &CompletionView {
                    ok: remaining.is_empty(),
                    remaining,
                },
                ERROR_CLASS,
            )?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn check_task_id(value: &ArgValue) -> Result<String, ToolError> {
        let ctx = ToolContext::from_value(&ArgValue::Undefined);
        task_id(Field {
            key: "task_id",
            value,
            default: None,
            ctx: &ctx,
            errors: crate::tools::input::Errors {
                class: ERROR_CLASS,
                bare: false,
            },
        })
    }

    fn call(
        op: TodoOp,
        state: Option<&TodoState>,
        input: Value,
    ) -> Result<(Value, Option<StateChange>), ToolError> {
        run(op, state, &[ArgValue::from(&input)])
            .map(|r| (serde_json::from_str(&r.output).unwrap(), r.change))
    }

    fn state_of(change: Option<StateChange>) -> TodoState {
        match change {
            Some(StateChange::Replace(tasks)) => TodoState {
                order: tasks.iter().map(|t| t.task_id.clone()).collect(),
                tasks: tasks.into_iter().map(|t| (t.task_id.clone(), t)).collect(),
            },
            other => panic!("expected a replacement, got {other:?}"),
        }
    }

    #[test]
    fn create_trims_titles_and_keeps_descriptions() {
        let (out, change) = call(
            TodoOp::CreateMany,
            None,
            json!({"tasks": [{"title": "  a  ", "description": "  d  "}, {"title": "b"}]}),
        )
        .unwrap();
        let first = &out["tasks"][0];
        assert_eq!(first["title"], "a");
        assert_eq!(first["description"], "  d  ");
        assert_eq!(first["status"], "todo");
        assert_eq!(first["created_at"], first["updated_at"]);
        let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "task_id",
                "status",
                "title",
                "created_at",
                "updated_at",
                "description"
            ]
        );
        assert!(out["tasks"][1].get("description").is_none());
        let id = first["task_id"].as_str().unwrap();
        assert!(
            check_task_id(&ArgValue::from(id)).is_ok(),
            "{id} is a UUID v4"
        );
        assert_eq!(state_of(change).order.len(), 2);
    }

    #[test]
    fn create_validation_messages() {
        let cases = [
            (
                json!({"tasks": {}}),
                "INVALID_ARGUMENT: tasks must be an array",
            ),
            (
                json!({"tasks": []}),
                "INVALID_ARGUMENT: tasks must contain 1..100 items",
            ),
            (
                json!({"tasks": vec![json!({"title": "x"}); 101]}),
                "INVALID_ARGUMENT: tasks must contain 1..100 items",
            ),
            (
                json!({"tasks": [null]}),
                "INVALID_ARGUMENT: tasks[0] must be an object",
            ),
            (
                json!({"tasks": [{"title": "ok"}, []]}),
                "INVALID_ARGUMENT: tasks[1] must be an object",
            ),
            (
                json!({"tasks": [{"title": 1}]}),
                "INVALID_ARGUMENT: title must be a string",
            ),
            (
                json!({"tasks": [{"title": "   "}]}),
                "INVALID_ARGUMENT: title must be 1..200 chars after trim",
            ),
            (
                json!({"tasks": [{"title": "x".repeat(201)}]}),
                "INVALID_ARGUMENT: title must be 1..200 chars after trim",
            ),
            (
                json!({"tasks": [{"title": "😀".repeat(101)}]}),
                "INVALID_ARGUMENT: title must be 1..200 chars after trim",
            ),
            (
                json!({"tasks": [{"title": "x", "description": null}]}),
                "INVALID_ARGUMENT: description must be a string",
            ),
            (
                json!({"tasks": [{"title": "x", "description": "d".repeat(2001)}]}),
                "INVALID_ARGUMENT: description must be 0..2000 chars",
            ),
        ];
        for (input, message) in cases {
            assert_eq!(
                call(TodoOp::CreateMany, None, input).unwrap_err().message,
                message
            );
        }
        assert!(call(
            TodoOp::CreateMany,
            None,
            json!({"tasks": [{"title": format!("  {}  ", "x".repeat(200))}]})
        )
        .is_ok());
        assert!(call(
            TodoOp::CreateMany,
            None,
            json!({"tasks": [{"title": "😀".repeat(100)}]})
        )
        .is_ok());
        assert_eq!(
            run(TodoOp::CreateMany, None, &[]).unwrap_err().message,
            "INTERNAL: undefined is not an object (evaluating 'input.tasks')"
        );
    }

    #[test]
    fn updates_and_completion() {
        let (_, change) = call(
            TodoOp::CreateMany,
            None,
            json!({"tasks": [{"title": "a"}, {"title": "b"}, {"title": "c"}]}),
        )
        .unwrap();
        let mut state = state_of(change);
        let ids = state.order.clone();
        let apply = |state: &mut TodoState, change: Option<StateChange>| {
            if let Some(StateChange::Set(task)) = change {
                let slot = state
                    .tasks
                    .iter_mut()
                    .find(|(k, _)| *k == task.task_id)
                    .unwrap();
                slot.1 = task;
            }
        };
        // same title, no description: unchanged, no state change
        let (out, change) = call(
            TodoOp::Update,
            Some(&state),
            json!({"task_id": ids[1], "title": " b "}),
        )
        .unwrap();
        assert!(change.is_none());
        assert_eq!(out["task"]["title"], "b");
        // adding an empty description is a change
        let (out, change) = call(
            TodoOp::Update,
            Some(&state),
            json!({"task_id": ids[1], "title": "b", "description": ""}),
        )
        .unwrap();
        assert_eq!(out["task"]["description"], "");
        apply(&mut state, change);
        // the id lookup is case-sensitive
        let upper = ids[1].to_uppercase();
        assert_eq!(
            call(
                TodoOp::Update,
                Some(&state),
                json!({"task_id": upper, "title": "b"})
            )
            .unwrap_err()
            .message,
            format!("NOT_FOUND: task not found: {upper}")
        );
        for (i, s) in [(0, "done"), (0, "todo"), (1, "canceled")] {
            let (_, change) = call(
                TodoOp::UpdateStatus,
                Some(&state),
                json!({"task_id": ids[i], "status": s}),
            )
            .unwrap();
            apply(&mut state, change);
        }
        let (same, change) = call(
            TodoOp::UpdateStatus,
            Some(&state),
            json!({"task_id": ids[1], "status": "canceled"}),
        )
        .unwrap();
        assert!(change.is_none());
        assert_eq!(same["task"]["status"], "canceled");
        let (out, _) = call(TodoOp::ValidateCompletion, Some(&state), json!({})).unwrap();
        assert_eq!(out, json!({"ok": false, "remaining": [ids[0], ids[2]]}));
        let (list, _) = call(TodoOp::List, Some(&state), json!({})).unwrap();
        assert_eq!(list["tasks"].as_array().unwrap().len(), 3);
        // the caller writes the list: the checks run, the text is left out
        let empty = [ArgValue::from(&json!({}))];
        let caller = run_for(TodoOp::List, Some(&state), &empty, Listing::Caller).unwrap();
        assert_eq!((caller.output.as_str(), caller.change), ("", None));
        let check = TodoOp::ValidateCompletion;
        let text = run_for(check, Some(&state), &empty, Listing::Caller).unwrap();
        let expected = format!(r#"{{"ok":false,"remaining":["{}","{}"]}}"#, ids[0], ids[2]);
        assert_eq!(text.output, expected);
        let ghost = TodoState {
            tasks: vec![],
            order: vec!["ghost".into()],
        };
        assert!(run_for(TodoOp::List, Some(&ghost), &empty, Listing::Caller).is_err());
        assert!(run_for(TodoOp::List, None, &empty, Listing::Caller).is_err());
        assert!(run_for(check, Some(&ghost), &empty, Listing::Caller).is_err());
        assert!(run_for(check, None, &empty, Listing::Caller).is_err());
        // an update that changes its task: the caller answers with the task of the change
        let rename = [ArgValue::from(
            &json!({"task_id": ids[0], "title": "renamed"}),
        )];
        let renamed = run_for(TodoOp::Update, Some(&state), &rename, Listing::Caller).unwrap();
        assert_eq!(renamed.output, "");
        assert!(matches!(renamed.change, Some(StateChange::Set(ref t)) if t.title == "renamed"));
        let finish = [ArgValue::from(
            &json!({"task_id": ids[0], "status": "done"}),
        )];
        let done = run_for(TodoOp::UpdateStatus, Some(&state), &finish, Listing::Caller).unwrap();
        assert_eq!(done.output, "");
        assert!(
            matches!(done.change, Some(StateChange::Set(ref t)) if t.status == TaskStatus::Done)
        );
        // the list follows `order` when the entries are in another order
        let mut shuffled = state.clone();
        shuffled.tasks.reverse();
        let (listed, _) = call(TodoOp::List, Some(&shuffled), json!({})).unwrap();
        let listed_ids: Vec<&str> = listed["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["task_id"].as_str().unwrap())
            .collect();
        assert_eq!(
            listed_ids,
            ids.iter().map(String::as_str).collect::<Vec<_>>()
        );
    }

    #[test]
    fn new_ids_are_distinct_uuids_v4_and_stamps_follow_the_clock() {
        let ids = new_task_ids(100);
        assert_eq!(ids.len(), 100);
        for id in &ids {
            assert!(check_task_id(&ArgValue::from(id.as_str())).is_ok(), "{id}");
            assert_eq!(*id, id.to_lowercase());
        }
        let distinct: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), 100);
        let mut clock = Clock::default();
        let first = clock.now();
        std::thread::sleep(std::time::Duration::from_millis(3));
        let later = clock.now();
        assert!(later > first, "{later} after {first}");
        assert_eq!(later.len(), "2026-01-01T00:00:00.000Z".len());
        // with the caller writing the list, a create's output is empty; its change holds the list
        let input = [ArgValue::from(&json!({"tasks": [{"title": "a"}]}))];
        let made = run_for(TodoOp::CreateMany, None, &input, Listing::Caller).unwrap();
        assert_eq!(made.output, "");
        assert!(matches!(made.change, Some(StateChange::Replace(ref t)) if t.len() == 1));
    }

    #[test]
    fn validation_precedes_the_state_check() {
        let valid_id = "123e4567-e89b-42d3-a456-426614174000";
        assert_eq!(
            call(
                TodoOp::Update,
                None,
                json!({"task_id": "nope", "title": "x"})
            )
            .unwrap_err()
            .code,
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            call(
                TodoOp::Update,
                None,
                json!({"task_id": valid_id, "title": "x"})
            )
            .unwrap_err()
            .message,
            "STATE_NOT_INITIALIZED: task state is not initialized. call task_create_many first"
        );
        assert_eq!(
            call(
                TodoOp::UpdateStatus,
                None,
                json!({"task_id": valid_id, "status": "open"})
            )
            .unwrap_err()
            .message,
            "INVALID_ARGUMENT: status must be one of \"todo\", \"done\", \"canceled\""
        );
        assert_eq!(
            call(TodoOp::List, None, json!({})).unwrap_err().code,
            "STATE_NOT_INITIALIZED"
        );
        assert_eq!(
            call(TodoOp::ValidateCompletion, None, json!({}))
                .unwrap_err()
                .code,
            "STATE_NOT_INITIALIZED"
        );
        assert!(
            check_task_id(&ArgValue::from("123E4567-E89B-42D3-A456-426614174000")).is_ok(),
            "case-insensitive check"
        );
        assert!(
            check_task_id(&ArgValue::from("123e4567-e89b-12d3-a456-426614174000")).is_err(),
            "not version 4"
        );
    }

    #[test]
    fn corrupted_state_is_internal() {
        let state = TodoState {
            tasks: vec![],
            order: vec!["ghost".into()],
        };
        assert_eq!(
            call(TodoOp::List, Some(&state), json!({}))
                .unwrap_err()
                .message,
            "INTERNAL: task not found in state: ghost"
        );
    }
}
