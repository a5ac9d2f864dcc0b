// Generated from ts/todo_state.cts by `npm run build:ts`: edit that file, not this one.
import type { TaskItem } from "../types/tools.js";
import type { ToolContext } from "./types.cjs";
export type TodoSessionState = {
    tasks: Map<string, TaskItem>;
    order: string[];
};
/** `context.todo` as JSON text for the session tools (null when unset). */
export declare function todoJson(context: ToolContext): string | null;
/** Applies a session tool's change (JSON text: `{ replace }` or `{ set }`) to `context.todo`. */
export declare function applyTodoChange(context: ToolContext, json: string): void;
