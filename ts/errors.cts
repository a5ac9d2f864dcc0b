// The error classes a toolkit throws (`invoke`, the raw handlers) and the ToolResult envelopes
// `toolkit.tools.*` resolve with instead of throwing.

import type { SecureToolResult, ToolErrorEnvelope } from "./types.cjs";

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

/** The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`. */
export function toolError(className: string, code: string, message: string): Error {
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
  return new ToolError(code, message);
}

export function internalError(message: string): Error {
  return toolError("Error", "INTERNAL", `INTERNAL: ${message}`);
}

// ---- ToolResult envelopes --------------------------------------------------------------------

const DENIAL_CODES = { policy: "POLICY_DENIED", sandbox: "SANDBOX_VIOLATION" };

export function denied(reason: "policy" | "sandbox", message: string): SecureToolResult<never> {
  return {
    status: "denied",
    reason,
    message,
    error: { code: DENIAL_CODES[reason], message, retriable: false, details: {} },
  };
}

export function failure(message: string): SecureToolResult<never> {
  return {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
  };
}

export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
