// The todo tools' session state. Users see it on the context, as agent-tools-ts keeps it:
// `context.todo = { tasks: Map<task_id, TaskItem>, order: task_id[] }`. The native side keeps a
// copy per context object (a `TodoStore`, binding.d.ts), which a call reads and changes there, so
// the task list does not cross the boundary on every call.
//
// The store is in step with `context.todo` while nobody has changed it since the last call: the
// same state object, the same Map holding the same task objects (keys, identities and the fields
// the tools read) and the same order. That is checked before every session-tool call (a walk
// over the list, no copy); when anything differs (the user assigned, deleted or mutated
// `context.todo`), it is loaded into the store again as JSON text, as every call did before.
// A call's change is applied to `context.todo` as agent-tools-ts applies it (a new state object
// on task_create_many, `Map.set` of a new task object on an update), right after the native call,
// on the same tick; results are built from those objects as copies, as agent-tools-ts builds them.

import type { Outcome } from "../binding.js";
import type { TaskItem } from "../types/tools.js";
import { loadNative } from "./native.cjs";
import type { TodoSessionState, ToolContext } from "./types.cjs";

const native = loadNative();

export type { TodoSessionState } from "./types.cjs";
type TodoStore = ReturnType<typeof native.todoStoreNew>;

/** A context's store and what `context.todo` was when the store last matched it. */
type Synced = {
  store: TodoStore;
  /** `context.todo` then (`undefined`: never set; `NEVER`: a shape the check does not follow). */
  todo: unknown;
  tasks: Map<unknown, unknown> | undefined;
  order: unknown[] | undefined;
  /** The Map's keys and values, the six fields the tools read of each value, the order. */
  keys: unknown[];
  values: unknown[];
  fields: unknown[];
  ids: unknown[];
};

/** A state the check cannot follow (not a Map plus an array): loaded again at every call. */
const NEVER = Symbol("todo state not followed");
const synced = new WeakMap<object, Synced>();

/** `context.todo` as JSON text, the form `todoStoreLoad` reads (null when unset). */
function todoJson(state: TodoSessionState | null | undefined): string | null {
  if (state == null) return null;
  return JSON.stringify({ tasks: state.tasks instanceof Map ? [...state.tasks] : [], order: state.order });
}

const isObject = (value: unknown): value is Partial<TaskItem> => value !== null && typeof value === "object";

/** Records the six fields of `value` at `at` (named reads: they stay fast). */
function recordFields(fields: unknown[], at: number, value: unknown): void {
  const task = isObject(value) ? value : {};
  fields[at] = task.task_id;
  fields[at + 1] = task.status;
  fields[at + 2] = task.title;
  fields[at + 3] = task.created_at;
  fields[at + 4] = task.updated_at;
  fields[at + 5] = task.description;
}

/** Records `state` as what the store now holds. */
function remember(record: Synced, state: unknown): void {
  record.keys = [];
  record.values = [];
  record.fields = [];
  record.ids = [];
  record.todo = state;
  record.tasks = undefined;
  record.order = undefined;
  if (state === undefined || state === null) return;
  const { tasks, order } = state as Partial<TodoSessionState>;
  if (!(tasks instanceof Map) || !Array.isArray(order)) {
    record.todo = NEVER;
    return;
  }
  record.tasks = tasks;
  record.order = order;
  for (const [key, value] of tasks as Map<unknown, unknown>) {
    recordFields(record.fields, record.keys.length * 6, value);
    record.keys.push(key);
    record.values.push(value);
  }
  for (const id of order) record.ids.push(id);
}

/** Records that the Map entry `key` now holds `value` (an update: the keys are unchanged). */
function rememberEntry(record: Synced, key: unknown, value: unknown): void {
  const i = record.keys.indexOf(key);
  if (i < 0) {
    remember(record, record.todo);
    return;
  }
  record.values[i] = value;
  recordFields(record.fields, i * 6, value);
}

/** True when `context.todo` is what the store was made from (see the module comment). */
function inStep(record: Synced, state: unknown): boolean {
  if (state !== record.todo) return false;
  if (state === undefined || state === null) return true;
  const { tasks, order } = state as TodoSessionState;
  if (tasks !== record.tasks || order !== record.order) return false;
  const { keys, values, fields, ids } = record;
  const map = tasks as Map<unknown, unknown>;
  // the same number of entries, each key still there with the same value: the same entries
  if (map.size !== keys.length || order.length !== ids.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const value = map.get(key);
    if (value !== values[i] || (value === undefined && !map.has(key))) return false;
    if (isObject(value)) {
      const at = i * 6;
      if (
        value.task_id !== fields[at] ||
        value.status !== fields[at + 1] ||
        value.title !== fields[at + 2] ||
        value.created_at !== fields[at + 3] ||
        value.updated_at !== fields[at + 4] ||
        value.description !== fields[at + 5]
      ) {
        return false;
      }
    }
  }
  for (let j = 0; j < ids.length; j++) if (order[j] !== ids[j]) return false;
  return true;
}

/** The store of `context`, in step with `context.todo` (loaded again when it is not). */
export function todoStore(context: ToolContext): TodoStore {
  let record = synced.get(context);
  if (record === undefined) {
    record = { store: native.todoStoreNew(), todo: undefined, tasks: undefined, order: undefined, keys: [], values: [], fields: [], ids: [] };
    synced.set(context, record);
  }
  const state = context.todo;
  if (!inStep(record, state)) {
    native.todoStoreLoad(record.store, todoJson(state));
    remember(record, state);
  }
  return record.store;
}

const copy = (task: unknown) => ({ ...(task as TaskItem) });

/**
 * A session tool's result after a successful native call (`answer`: its output as JSON text,
 * or `ok` with the change to apply): the change applied to `context.todo`, and the output as
 * agent-tools-ts makes it, copies of the state's task objects.
 */
export function sessionResult(context: ToolContext, name: string, answer: string | Extract<Outcome, { kind: "ok" }>): unknown {
  const record = synced.get(context) as Synced;
  if (typeof answer !== "string" && answer.change !== undefined) {
    const change = JSON.parse(answer.change) as { replace?: TaskItem[]; set?: TaskItem };
    // Until the change is applied, the next call loads `context.todo` again (if applying it
    // throws, a frozen context, the store is ahead of it).
    record.todo = NEVER;
    if (change.replace) {
      // task_create_many: the new list is the output (the native side wrote no text for it).
      const state: TodoSessionState = { tasks: new Map(change.replace.map((t) => [t.task_id, t])), order: change.replace.map((t) => t.task_id) };
      context.todo = state;
      remember(record, state);
      return { tasks: change.replace.map(copy) };
    }
    const task = change.set as TaskItem;
    const state = context.todo as TodoSessionState;
    // A new object with the current one's fields, the changed ones replaced (a new field last).
    const next = Object.assign({ ...state.tasks.get(task.task_id) }, task);
    state.tasks.set(task.task_id, next);
    record.todo = state;
    rememberEntry(record, task.task_id, next);
    return { task: copy(next) };
  }
  const json = typeof answer === "string" ? answer : answer.json;
  // task_list's output is the list itself: the native side checked it and left it to us (empty text).
  if (name === "task_list") {
    const { tasks, order } = context.todo as TodoSessionState;
    return { tasks: order.map((id) => copy(tasks.get(id))) };
  }
  const output = JSON.parse(json) as { task?: TaskItem };
  if (output.task === undefined) return output;
  // An unchanged task: a copy of the state's object, as agent-tools-ts returns it.
  const current = (context.todo as TodoSessionState).tasks.get(output.task.task_id);
  return current === undefined ? output : { task: copy(current) };
}
