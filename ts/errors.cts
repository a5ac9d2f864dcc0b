// The error classes a toolkit throws (`invoke`, the raw handlers) and the ToolResult envelopes
// `toolkit.tools.*` resolve with instead of throwing.

import type { Refusal } from "../binding.js";
import type { DenialCodeByReason } from "../types/errors.js";
import type { SecureToolResult, ToolErrorEnvelope } from "./types.cjs";

// ---- refusals --------------------------------------------------------------------------------

/**
 * Why each refused call's error or ToolResult was refused (binding.d.ts `Refusal`: the tool
 * policy, the write scope, a path outside the workspace), as the native side said it. Kept
 * beside the object, never on it, so its own properties stay agent-tools-ts's; the command line
 * and MCP server read it (`refusalOf`) instead of the message text.
 */
const refusals = new WeakMap<object, Refusal>();

/** `value`, recorded as refused for `reason` (none: left as it is). */
export function refused<T extends object>(value: T, reason: Refusal | null | undefined): T {
  if (reason) refusals.set(value, reason);
  return value;
}

/** Why `value` (a rejection of `invoke`, a ToolResult) was refused; undefined when it was not. */
export function refusalOf(value: unknown): Refusal | undefined {
  return typeof value === "object" && value !== null ? refusals.get(value) : undefined;
}

// ---- errors ---------------------------------------------------------------------------------

export class InvokeToolError extends Error {
  declare code: string;
  declare tool_name: string | undefined;
  declare rawMessage: string;

  constructor(code: string, rawMessage: string, options: { tool_name?: string } = {}) {
    super(`${code}: ${rawMessage}`);
    this.name = "InvokeToolError";
    this.code = code;
    this.tool_name = options.tool_name;
    this.rawMessage = rawMessage;
  }

  toEnvelope(): ToolErrorEnvelope {
    return {
      code: this.code,
      message: this.rawMessage,
      retriable: this.code === "INTERNAL",
      details: this.tool_name ? { tool_name: this.tool_name } : {},
    };
  }
}

type ToolErrorClass = new (code: string, message: string) => Error & { code: string };
const toolErrorClasses = new Map<string, ToolErrorClass>();

/**
 * The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`, and
 * the fields of `details` (JSON text of an object, e.g. a `SYNTAX_ERROR`'s `diagnostics`) as
 * own properties.
 */
export function toolError(className: string, code: string, message: string, details?: string | null, textAt = 0): Error {
  let ToolError = toolErrorClasses.get(className);
  if (!ToolError) {
    ToolError = class extends Error {
      declare code: string;
      constructor(errorCode: string, errorMessage: string) {
        super(errorMessage);
        this.name = className;
        this.code = errorCode;
      }
    };
    Object.defineProperty(ToolError, "name", { value: className });
    toolErrorClasses.set(className, ToolError);
  }
  const error = new ToolError(code, message);
  if (details) Object.assign(error, JSON.parse(details));
  if (textAt > 0) texts.set(error, message.slice(textAt));
  return error;
}

/** The text of each tool error made in the coded form, without its `"<CODE>: "` (module-private). */
const texts = new WeakMap<object, string>();

/**
 * An error's message without the code in front of it: an `InvokeToolError`'s `rawMessage`, a
 * coded tool error's text (recorded where it was made), else the message as it is.
 */
export function textOf(thrown: unknown): string {
  if (thrown !== null && typeof thrown === "object") {
    const recorded = texts.get(thrown);
    if (recorded !== undefined) return recorded;
    const raw = (thrown as { rawMessage?: unknown }).rawMessage;
    if (typeof raw === "string") return raw;
  }
  return messageOf(thrown);
}

/** A tool error in the coded form, `"<CODE>: <text>"`. */
export function codedError(className: string, code: string, text: string): Error {
  return toolError(className, code, `${code}: ${text}`, null, code.length + 2);
}

export function internalError(message: string): Error {
  return codedError("Error", "INTERNAL", message);
}

// ---- ToolResult envelopes --------------------------------------------------------------------

/**
 * A denial's ToolResult: `reason` is upstream's (`"sandbox"` for the write scope, `"policy"`
 * for a permission rule); the code says which.
 */
export function denied(refusal: Refusal, message: string): SecureToolResult<never> {
  const reason = refusal === "scope" || refusal === "sandbox" ? "sandbox" : "policy";
  return refused(
    {
      status: "denied",
      reason,
      message,
      // a write-scope refusal keeps upstream's sandbox code here, as its reason
      error: { code: REFUSAL_CODES[refusal === "scope" ? "sandbox" : refusal], message, retriable: false, details: {} },
    },
    refusal,
  );
}

/** A runtime failure's envelope; `details` (JSON text of an object) fills `error.details`. */
export function failure(message: string, details?: string | null): SecureToolResult<never> {
  return {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: details ? JSON.parse(details) : {} },
  };
}

export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** The precise code of each kind of refusal (the CLI, MCP and the framework adapters say it). */
export const REFUSAL_CODES: DenialCodeByReason = {
  policy: "POLICY_DENIED",
  scope: "WRITE_SCOPE_DENIED",
  sandbox: "SANDBOX_VIOLATION",
  permission: "PERMISSION_DENIED",
  approval: "APPROVAL_REQUIRED",
};

/**
 * `messageOf`, with a refusal's precise code in place of invoke's drop-in one
 * (`WRITE_SCOPE_DENIED: [Sandbox Violation] …` rather than `TOOL_NOT_ALLOWED: …`).
 */
export function preciseMessageOf(thrown: unknown): string {
  const refusal = refusalOf(thrown);
  const raw = (thrown as { rawMessage?: unknown } | null)?.rawMessage;
  return refusal && typeof raw === "string" ? `${REFUSAL_CODES[refusal]}: ${raw}` : messageOf(thrown);
}

/** An AbortError (`name` "AbortError") saying what was aborted. */
export function abortError(message: string): Error {
  const error = new Error(message);
  error.name = "AbortError";
  return error;
}

/** Whether `thrown` is an AbortError (ours or a runtime's). */
export const isAbort = (thrown: unknown) => (thrown as { name?: unknown } | null | undefined)?.name === "AbortError";
