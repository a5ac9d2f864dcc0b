// Generated from ts/todo_state.cts by `npm run build:ts`: edit that file, not this one.
import type { Outcome } from "../binding.js";
import type { ToolContext } from "./types.cjs";
declare const native: typeof import("../binding.js");
export type { TodoSessionState } from "./types.cjs";
type TodoStore = ReturnType<typeof native.todoStoreNew>;
/** The store of `context`, in step with `context.todo` (loaded again when it is not). */
export declare function todoStore(context: ToolContext): TodoStore;
/**
 * A session tool's result after a successful native call (`answer`: its output as JSON text,
 * or `ok` with the change to apply): the change applied to `context.todo`, and the output as
 * agent-tools-ts makes it, copies of the state's task objects.
 */
export declare function sessionResult(context: ToolContext, name: string, answer: string | Extract<Outcome, {
    kind: "ok";
}>): unknown;
