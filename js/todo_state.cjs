"use strict";
// Generated from ts/todo_state.cts by `npm run build:ts`: edit that file, not this one.
// The todo tools' session state: a Map plus an order array on the caller's context
// (`context.todo`), handed to the native side as JSON text and updated from its answer.
exports.todoJson = todoJson;
exports.applyTodoChange = applyTodoChange;
/** `context.todo` as JSON text for the session tools (null when unset). */
function todoJson(context) {
    const state = context.todo;
    if (state == null)
        return null;
    return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
}
/** Applies a session tool's change (JSON text: `{ replace }` or `{ set }`) to `context.todo`. */
function applyTodoChange(context, json) {
    const change = JSON.parse(json);
    if (change.replace) {
        context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
    }
    else if (change.set) {
        context.todo.tasks.set(change.set.task_id, change.set);
    }
}
