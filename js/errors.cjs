"use strict";
// Generated from ts/errors.cts by `npm run build:ts`: edit that file, not this one.
// The error classes a toolkit throws (`invoke`, the raw handlers) and the ToolResult envelopes
// `toolkit.tools.*` resolve with instead of throwing.
exports.InvokeToolError = void 0;
exports.toolError = toolError;
exports.internalError = internalError;
exports.denied = denied;
exports.failure = failure;
exports.messageOf = messageOf;
// ---- errors ---------------------------------------------------------------------------------
class InvokeToolError extends Error {
    constructor(code, rawMessage, options = {}) {
        super(`${code}: ${rawMessage}`);
        this.name = "InvokeToolError";
        this.code = code;
        this.tool_name = options.tool_name;
        this.rawMessage = rawMessage;
    }
    toEnvelope() {
        return {
            code: this.code,
            message: this.rawMessage,
            retriable: this.code === "INTERNAL",
            details: this.tool_name ? { tool_name: this.tool_name } : {},
        };
    }
}
exports.InvokeToolError = InvokeToolError;
const toolErrorClasses = new Map();
/** The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`. */
function toolError(className, code, message) {
    let ToolError = toolErrorClasses.get(className);
    if (!ToolError) {
        ToolError = class extends Error {
            constructor(errorCode, errorMessage) {
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
function internalError(message) {
    return toolError("Error", "INTERNAL", `INTERNAL: ${message}`);
}
// ---- ToolResult envelopes --------------------------------------------------------------------
const DENIAL_CODES = { policy: "POLICY_DENIED", sandbox: "SANDBOX_VIOLATION" };
function denied(reason, message) {
    return {
        status: "denied",
        reason,
        message,
        error: { code: DENIAL_CODES[reason], message, retriable: false, details: {} },
    };
}
function failure(message) {
    return {
        status: "failure",
        reason: "runtime",
        message,
        error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
    };
}
function messageOf(thrown) {
    return thrown instanceof Error ? thrown.message : String(thrown);
}
