// Generated from ts/mcp_stdio.cts by `npm run build:ts`: edit that file, not this one.
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js" with { "resolution-mode": "import" };
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js" with { "resolution-mode": "import" };
/** Default limit of one message: the bytes of its line, newline excluded (10 MiB, as the SDK's). */
export declare const DEFAULT_MAX_MESSAGE_BYTES: number;
/** JSON-RPC 2.0 error codes. */
export declare const PARSE_ERROR = -32700;
export declare const INVALID_REQUEST = -32600;
export declare const INVALID_PARAMS = -32602;
type Types = typeof import("@modelcontextprotocol/sdk/types.js", { with: { "resolution-mode": "import" } });
/** What to do with one parsed line. */
type Verdict = {
    deliver: JSONRPCMessage;
} | {
    reply: {
        id: RequestId | null;
        code: number;
        message: string;
    };
} | {
    drop: string;
};
/** The verdict on one parsed line (JSON-RPC 2.0 sections 4, 5 and 6; MCP 2025-06-18). */
export declare function screenMessage(value: unknown, types: Types): Verdict;
/**
 * Finds the top-level `"id"` member of a JSON object fed to it in pieces, keeping O(1) memory: it
 * tracks strings and nesting, and keeps only the current top-level key and the id's raw value.
 * `id()` is that value if it is a string or a number, else null (not an object, no id, or not
 * readable).
 */
export declare class TopLevelIdScanner {
    private depth;
    private started;
    private object;
    private inString;
    private escaped;
    private expectKey;
    private key;
    private lastKey;
    private capture;
    private captureTooLong;
    private captured;
    feed(bytes: Uint8Array): void;
    /** At a `,` or `}` of the top level: the id's value, if it was being captured, is complete. */
    private endValue;
    id(): RequestId | null;
}
export type LineTransportOptions = {
    maxMessageBytes?: number;
    /** The SDK's types module (default: loaded through ts/mcp_sdk.cts). */
    types?: Types;
    /** Where dropped messages are reported (one line each). */
    log?: (line: string) => void;
};
/** Newline-delimited JSON-RPC over a readable and a writable stream (see the file's comment). */
export declare class LineTransport implements Transport {
    private readonly input;
    private readonly output;
    onclose?: Transport["onclose"];
    onerror?: Transport["onerror"];
    onmessage?: Transport["onmessage"];
    private readonly maxMessageBytes;
    private readonly log;
    private readonly types;
    /** The current line's pieces while it is within the limit. */
    private pieces;
    private size;
    /** Set while the current line is over the limit: its bytes are scanned, not kept. */
    private oversize;
    private started;
    private closed;
    /** The ids of the requests read and not answered yet, and who waits for none to be left. */
    private readonly unanswered;
    private answeredWaiters;
    constructor(input: Readable, output: Writable, options?: LineTransportOptions);
    start(): Promise<void>;
    close(): Promise<void>;
    send(message: JSONRPCMessage): Promise<void>;
    /** Resolves once every request read so far has been answered (its answer written). */
    whenAnswered(): Promise<void>;
    private answered;
    private readonly onStreamError;
    private readonly onData;
    /** A piece of the current line. */
    private take;
    private endLine;
    private handle;
    private reply;
}
export {};
