//! The todo tools (contract: todo.md): types. The handlers are not in this build yet
//! (see `pending`).

use serde::Serialize;
use ts_rs::TS;

#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
#[ts(rename_all = "lowercase")]
pub enum TaskStatus {
    Todo,
    Done,
    Canceled,
}

#[derive(Serialize, TS, Debug, Clone)]
pub struct TaskItem {
    pub task_id: String,
    pub status: TaskStatus,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub description: Option<String>,
}

#[derive(TS)]
#[allow(dead_code)]
pub struct TaskDraft {
    pub title: String,
    #[ts(optional)]
    pub description: Option<String>,
}

#[derive(TS)]
#[allow(dead_code)]
pub struct TaskCreateManyInput {
    pub tasks: Vec<TaskDraft>,
}

#[derive(TS)]
#[allow(dead_code)]
#[ts(type = "Record<string, never>")]
pub struct TaskListInput;

#[derive(TS)]
#[allow(dead_code)]
pub struct TaskUpdateInput {
    pub task_id: String,
    pub title: String,
    #[ts(optional)]
    pub description: Option<String>,
}

#[derive(TS)]
#[allow(dead_code)]
pub struct TaskUpdateStatusInput {
    pub task_id: String,
    pub status: TaskStatus,
}

#[derive(TS)]
#[allow(dead_code)]
#[ts(type = "Record<string, never>")]
pub struct TaskValidateCompletionInput;

#[derive(Serialize, TS, Debug)]
pub struct TaskListOutput {
    pub tasks: Vec<TaskItem>,
}

#[derive(Serialize, TS, Debug)]
pub struct TaskUpdateOutput {
    pub task: TaskItem,
}

#[derive(Serialize, TS, Debug)]
pub struct TaskValidateCompletionOutput {
    pub ok: bool,
    pub remaining: Vec<String>,
}
