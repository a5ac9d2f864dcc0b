"use strict";
// Generated from ts/errors.cts by `npm run build:ts`: edit that file, not this one.
// The error classes a toolkit throws (`invoke`, the raw handlers) and the ToolResult envelopes
// `toolkit.tools.*` resolve with instead of throwing.
exports.isAbort = exports.REFUSAL_CODES = exports.InvokeToolError = void 0;
exports.refused = refused;
exports.refusalOf = refusalOf;
exports.toolError = toolError;
exports.textOf = textOf;
exports.codedError = codedError;
exports.internalError = internalError;
exports.denied = denied;
exports.failure = failure;
exports.messageOf = messageOf;
exports.preciseMessageOf = preciseMessageOf;
exports.abortError = abortError;
// ---- refusals --------------------------------------------------------------------------------
/**
 * Why each refused call's error or ToolResult was refused (binding.d.ts `Refusal`: the tool
 * policy, the write scope, a path outside the workspace), as the native side said it. Kept
 * beside the object, never on it, so its own properties stay agent-tools-ts's; the command line
 * and MCP server read it (`refusalOf`) instead of the message text.
 */
const refusals = new WeakMap();
/** `value`, recorded as refused for `reason` (none: left as it is). */
function refused(value, reason) {
    if (reason)
        refusals.set(value, reason);
    return value;
}
/** Why `value` (a rejection of `invoke`, a ToolResult) was refused; undefined when it was not. */
function refusalOf(value) {
    return typeof value === "object" && value !== null ? refusals.get(value) : undefined;
}
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
/**
 * The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`, and
 * the fields of `details` (JSON text of an object, e.g. a `SYNTAX_ERROR`'s `diagnostics`) as
 * own properties.
 */
function toolError(className, code, message, details, textAt = 0) {
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
    const error = new ToolError(code, message);
    if (details)
        Object.assign(error, JSON.parse(details));
    if (textAt > 0)
        texts.set(error, message.slice(textAt));
    return error;
}
/** The text of each tool error made in the coded form, without its `"<CODE>: "` (module-private). */
const texts = new WeakMap();
/**
 * An error's message without the code in front of it: an `InvokeToolError`'s `rawMessage`, a
 * coded tool error's text (recorded where it was made), else the message as it is.
 */
function textOf(thrown) {
    if (thrown !== null && typeof thrown === "object") {
        const recorded = texts.get(thrown);
        if (recorded !== undefined)
            return recorded;
        const raw = thrown.rawMessage;
        if (typeof raw === "string")
            return raw;
    }
    return messageOf(thrown);
}
/** A tool error in the coded form, `"<CODE>: <text>"`. */
function codedError(className, code, text) {
    return toolError(className, code, `${code}: ${text}`, null, code.length + 2);
}
function internalError(message) {
    return codedError("Error", "INTERNAL", message);
}
// ---- ToolResult envelopes --------------------------------------------------------------------
/**
 * A denial's ToolResult: `reason` is upstream's (`"sandbox"` for the write scope, `"policy"`
 * for a permission rule); the code says which.
 */
function denied(refusal, message) {
    const reason = refusal === "scope" || refusal === "sandbox" ? "sandbox" : "policy";
    return refused({
        status: "denied",
        reason,
        message,
        // a write-scope refusal keeps upstream's sandbox code here, as its reason
        error: { code: exports.REFUSAL_CODES[refusal === "scope" ? "sandbox" : refusal], message, retriable: false, details: {} },
    }, refusal);
}
/** A runtime failure's envelope; `details` (JSON text of an object) fills `error.details`. */
function failure(message, details) {
    return {
        status: "failure",
        reason: "runtime",
        message,
        error: { code: "RUNTIME_ERROR", message, retriable: true, details: details ? JSON.parse(details) : {} },
    };
}
function messageOf(thrown) {
    return thrown instanceof Error ? thrown.message : String(thrown);
}
/** The precise code of each kind of refusal (the CLI, MCP and the framework adapters say it). */
exports.REFUSAL_CODES = {
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
function preciseMessageOf(thrown) {
    const refusal = refusalOf(thrown);
    const raw = thrown?.rawMessage;
    return refusal && typeof raw === "string" ? `${exports.REFUSAL_CODES[refusal]}: ${raw}` : messageOf(thrown);
}
/** An AbortError (`name` "AbortError") saying what was aborted. */
function abortError(message) {
    const error = new Error(message);
    error.name = "AbortError";
    return error;
}
/** Whether `thrown` is an AbortError (ours or a runtime's). */
const isAbort = (thrown) => thrown?.name === "AbortError";
exports.isAbort = isAbort;
