// The todo tools' session state: a Map plus an order array on the caller's context
// (`context.todo`), handed to the native side as JSON text and updated from its answer.

import type { TaskItem } from "../types/tools.js";
import type { ToolContext } from "./types.cjs";

export type TodoSessionState = { tasks: Map<string, TaskItem>; order: string[] };

/** `context.todo` as JSON text for the session tools (null when unset). */
export function todoJson(context: ToolContext): string | null {
  const state = context.todo;
  if (state == null) return null;
  return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
}

/** Applies a session tool's change (JSON text: `{ replace }` or `{ set }`) to `context.todo`. */
export function applyTodoChange(context: ToolContext, json: string): void {
  const change = JSON.parse(json) as { replace?: TaskItem[]; set?: TaskItem };
  if (change.replace) {
    context.todo = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
  } else if (change.set) {
    (context.todo as TodoSessionState).tasks.set(change.set.task_id, change.set);
  }
}
