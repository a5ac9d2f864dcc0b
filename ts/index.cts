// The package's entry: re-exports only. The thin JavaScript layer holds what has to live in
// JavaScript (the AsyncLocalStorage behind SecurityBypass, the mutable ToolCatalog object, the
// positional tools.* functions and the error classes); every decision (policy, checks, sandbox,
// tools) is made by the native core. Its modules and their layers: docs/architecture.md,
// "Module map" (kept true by __test__/architecture.test.mjs).

import * as bypass from "./bypass.cjs";
import * as catalog from "./catalog.cjs";
import * as context from "./context.cjs";
import * as loopRuntime from "./loop_runtime.cjs";
import * as toolkit from "./toolkit.cjs";
import { applyOutputCache, defineTool, doneTool, outputCacheTools, toToolMessageContent } from "./user_tools.cjs";

// The values defined in this package's own modules are exported as plain properties of the
// module object (`exports.name = value`), as they were when this file defined them.
import createToolContext = context.createToolContext;
import createAgentToolkit = toolkit.createAgentToolkit;
import ToolCatalog = catalog.ToolCatalog;
import SecurityBypass = bypass.SecurityBypass;
import asTools = toolkit.asTools;
import OutputCache = toolkit.OutputCache;
import runToolLoop = loopRuntime.runToolLoop;
import streamToolLoop = loopRuntime.streamToolLoop;

// ---- public types (agent-tools-ts's twelve, then the toolkit's) -------------------------------

export type {
  AllowedToolName,
  ExecSandbox,
  ToolArgsByName,
  ToolResultByName,
  OptInToolArgsByName,
  OptInToolDefinitions,
  OptInToolName,
  OptInToolResultByName,
  FileAccessMode,
  AccessLevel,
  SecurityPolicyConfig,
  ToolPolicy,
  ToolContext,
  ExecOptions,
  PermissionDecision,
  PermissionRules,
  ToolErrorEnvelope,
  InvokeToolErrorCode,
  ToolkitInvokeOutput,
  Invoke,
  AgentToolkit,
  AgentToolkitOptions,
  CheckpointsApi,
  CheckpointSummary,
  Diagnostic,
  RestoreOutcome,
} from "./types.cjs";

// ---- the module's exports -----------------------------------------------------------------------

// One list, in the order `Object.keys(require("agent-tools-native"))` shows them. The user-tool,
// loop and session types come from their modules; the provider adapters follow (`export *`).
export {
  createToolContext,
  createAgentToolkit,
  ToolCatalog,
  SecurityBypass,
  defineTool,
  asTools,
  toToolMessageContent,
  OutputCache,
  outputCacheTools,
  applyOutputCache,
  doneTool,
  runToolLoop,
  streamToolLoop,
};
export { createProviderSession } from "./sessions.cjs";
export type {
  DefineToolOptions,
  DependencyKey,
  DependencyOverrides,
  ExecuteRawContext,
  ImagePart,
  Logger,
  TextPart,
  Tool,
  ToolExecutionContext,
  ToolExecutionResult,
  ToolResult,
} from "./user_tools.cjs";
export type {
  LlmContentBlock,
  LlmResponse,
  LlmSession,
  LoopEvent,
  LoopMessage,
  LoopStopReason,
  LoopToolResult,
  ReviewDecision,
  ReviewRequest,
  SessionEvent,
  SessionSendOptions,
  StopReason,
  ToolCallDelta,
  ToolLoopOptions,
  ToolLoopResult,
  TurnRecord,
} from "./loop.cjs";
export type { ProviderSessionOptions } from "./sessions.cjs";
export * from "./providers.cjs";
