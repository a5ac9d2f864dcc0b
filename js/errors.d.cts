// Generated from ts/errors.cts by `npm run build:ts`: edit that file, not this one.
import type { Refusal } from "../binding.js";
import type { DenialCodeByReason } from "../types/errors.js";
import type { SecureToolResult, ToolErrorEnvelope } from "./types.cjs";
/** `value`, recorded as refused for `reason` (none: left as it is). */
export declare function refused<T extends object>(value: T, reason: Refusal | null | undefined): T;
/** Why `value` (a rejection of `invoke`, a ToolResult) was refused; undefined when it was not. */
export declare function refusalOf(value: unknown): Refusal | undefined;
export declare class InvokeToolError extends Error {
    code: string;
    tool_name: string | undefined;
    rawMessage: string;
    constructor(code: string, rawMessage: string, options?: {
        tool_name?: string;
    });
    toEnvelope(): ToolErrorEnvelope;
}
/**
 * The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`, and
 * the fields of `details` (JSON text of an object, e.g. a `SYNTAX_ERROR`'s `diagnostics`) as
 * own properties.
 */
export declare function toolError(className: string, code: string, message: string, details?: string | null, textAt?: number): Error;
/**
 * An error's message without the code in front of it: an `InvokeToolError`'s `rawMessage`, a
 * coded tool error's text (recorded where it was made), else the message as it is.
 */
export declare function textOf(thrown: unknown): string;
/** A tool error in the coded form, `"<CODE>: <text>"`. */
export declare function codedError(className: string, code: string, text: string): Error;
export declare function internalError(message: string): Error;
/**
 * A denial's ToolResult: `reason` is upstream's (`"sandbox"` for the write scope, `"policy"`
 * for a permission rule); the code says which.
 */
export declare function denied(refusal: Refusal, message: string): SecureToolResult<never>;
/** A runtime failure's envelope; `details` (JSON text of an object) fills `error.details`. */
export declare function failure(message: string, details?: string | null): SecureToolResult<never>;
export declare function messageOf(thrown: unknown): string;
/** The precise code of each kind of refusal (the CLI, MCP and the framework adapters say it). */
export declare const REFUSAL_CODES: DenialCodeByReason;
/**
 * `messageOf`, with a refusal's precise code in place of invoke's drop-in one
 * (`WRITE_SCOPE_DENIED: [Sandbox Violation] …` rather than `TOOL_NOT_ALLOWED: …`).
 */
export declare function preciseMessageOf(thrown: unknown): string;
/** An AbortError (`name` "AbortError") saying what was aborted. */
export declare function abortError(message: string): Error;
/** Whether `thrown` is an AbortError (ours or a runtime's). */
export declare const isAbort: (thrown: unknown) => boolean;
