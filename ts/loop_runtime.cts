// The tool loop of a toolkit: what `runToolLoop` / `streamToolLoop` (loop.cts) need of a toolkit
// made by `createAgentToolkit`.

import type { ExecSandbox } from "../types/tools.js";
import { catalog } from "./catalog.cjs";
import { type AnyToolkit, type LoopRuntime, makeToolLoop } from "./loop.cjs";
import { loadNative } from "./native.cjs";
import { invoke, toolkitState } from "./toolkit.cjs";
import { type ToolResult, toolInternals, toToolMessageContent, toToolResult } from "./user_tools.cjs";

const native = loadNative();

/** What the tool loop needs of a toolkit. */
export function loopRuntime(toolkit: AnyToolkit): LoopRuntime {
  const state = toolkitState.get(toolkit);
  if (!state) throw new TypeError("runToolLoop: toolkit must be made by createAgentToolkit");
  const { context, registered } = state;
  return {
    definitions: () => toolkit.getAllowedTools(),
    has: (name) => Object.hasOwn(catalog, name) || registered.optIns.has(name) || registered.byName.has(name),
    userTool: (name) => {
      const tool = registered.byName.get(name);
      return tool ? { writes: (toolInternals.get(tool) as { writes: boolean }).writes } : undefined;
    },
    execSandbox: () => {
      const preview = native.execSandboxPreview(context);
      return preview === null ? undefined : (JSON.parse(preview) as ExecSandbox);
    },
    // Without rules nothing to ask the native side (it would read the whole context for null).
    permission: (name, args) => (context.permissions === undefined ? null : native.permissionDecision(context, name, args)),
    /** The call's output as the model sees it: a user tool's message text, a built-in's JSON text. */
    output: async (name, args, ctx) => {
      const { approved, ...callContext } = ctx;
      const reg = { ...registered, runtime: { ...registered.runtime, ...callContext } };
      if (registered.byName.has(name)) return messageText(toToolResult((await invoke(context, name, args, reg)).content));
      return invoke(context, name, args, reg, true, approved);
    },
  };
}

/** A ToolResult as the loop's string output (parts: their text, images noted). */
function messageText(result: ToolResult): string {
  const content = toToolMessageContent(result);
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

const loop = makeToolLoop(loopRuntime);
/** Runs the multi-turn tool loop to its end. */
export const runToolLoop = loop.runToolLoop;
/** The same loop as an async iterator of events; `result` resolves when it ends. */
export const streamToolLoop = loop.streamToolLoop;
