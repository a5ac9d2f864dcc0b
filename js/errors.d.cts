// Generated from ts/errors.cts by `npm run build:ts`: edit that file, not this one.
import type { SecureToolResult, ToolErrorEnvelope } from "./types.cjs";
export declare class InvokeToolError extends Error {
    code: string;
    tool_name: string | undefined;
    rawMessage: string;
    constructor(code: string, rawMessage: string, options?: {
        tool_name?: string;
    });
    toEnvelope(): ToolErrorEnvelope;
}
/** The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`. */
export declare function toolError(className: string, code: string, message: string): Error;
export declare function internalError(message: string): Error;
export declare function denied(reason: "policy" | "sandbox", message: string): SecureToolResult<never>;
export declare function failure(message: string): SecureToolResult<never>;
export declare function messageOf(thrown: unknown): string;
