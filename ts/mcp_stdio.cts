// The MCP server's stdio transport (ts/cli.cts): newline-delimited JSON-RPC on stdin and stdout,
// in place of the SDK's StdioServerTransport. That transport keeps a message's bytes in one
// growing buffer and, past 10 MiB, clears it, reports an error and closes itself, so the server
// ended without an answer; and it drops, unanswered, every line that is not JSON or not a message
// of the SDK's schema. This one:
// - frames lines itself and keeps at most `maxMessageBytes` of a line: the rest of a longer one
//   is only scanned (for its top-level `id`) and thrown away, and the line is answered with an
//   Invalid Request error carrying that id; the server goes on reading;
// - answers every line it cannot deliver as JSON-RPC 2.0 says: unparseable JSON → -32700 (id
//   null); a batch (MCP 2025-06-18 removed batching), a non-object, a message without
//   `jsonrpc: "2.0"` or without a string `method` → -32600 (the id when it can be read, else
//   null); a request whose `params` is present but not an object (`null` included) → -32602
//   with its id. Invalid notifications and responses cannot be answered: they are logged to
//   stderr and dropped.

import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js" with { "resolution-mode": "import" };
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js" with { "resolution-mode": "import" };
import { requireSdk } from "./mcp_sdk.cjs";

/** Default limit of one message: the bytes of its line, newline excluded (10 MiB, as the SDK's). */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** JSON-RPC 2.0 error codes. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

type Types = typeof import("@modelcontextprotocol/sdk/types.js", { with: { "resolution-mode": "import" } });

/** What to do with one parsed line. */
type Verdict = { deliver: JSONRPCMessage } | { reply: { id: RequestId | null; code: number; message: string } } | { drop: string };

/** An id as JSON-RPC echoes it: a string or a number; anything else cannot be echoed. */
function readableId(id: unknown): RequestId | null {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** Zod issues as one line: `path: message; …` (at most three). */
function issuesText(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(message)"}: ${issue.message}`)
    .join("; ");
}

/** The verdict on one parsed line (JSON-RPC 2.0 sections 4, 5 and 6; MCP 2025-06-18). */
export function screenMessage(value: unknown, types: Types): Verdict {
  const invalid = (id: RequestId | null, message: string): Verdict => ({ reply: { id, code: INVALID_REQUEST, message: `Invalid Request: ${message}` } });
  if (Array.isArray(value)) return invalid(null, "batches are not supported (MCP 2025-06-18 removed JSON-RPC batching): send one message per line");
  if (value === null || typeof value !== "object") return invalid(null, "a message must be a JSON object");
  const message = value as Record<string, unknown>;
  const hasId = "id" in message;
  const id = readableId(message.id);
  if (!("method" in message)) {
    if ("result" in message || "error" in message) {
      // A response to one of the server's requests (roots/list): nothing to answer if it is bad.
      const parsed = types.JSONRPCResponseSchema.safeParse(message);
      return parsed.success ? { deliver: parsed.data } : { drop: `an invalid response: ${issuesText(parsed.error)}` };
    }
    return invalid(id, "a message needs a string method (a request or notification), or a result or error (a response)");
  }
  if (message.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
  if (typeof message.method !== "string") return invalid(id, "method must be a string");
  if (!hasId) {
    const parsed = types.JSONRPCNotificationSchema.safeParse(message);
    return parsed.success ? { deliver: parsed.data } : { drop: `an invalid ${message.method} notification: ${issuesText(parsed.error)}` };
  }
  if (id === null) return invalid(null, "id must be a string or an integer");
  if ("params" in message) {
    const params = message.params;
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      const got = params === null ? "null" : Array.isArray(params) ? "an array" : typeof params;
      return { reply: { id, code: INVALID_PARAMS, message: `Invalid params: params must be an object when present, got ${got}` } };
    }
  }
  const parsed = types.JSONRPCRequestSchema.safeParse(message);
  return parsed.success ? { deliver: parsed.data } : invalid(id, issuesText(parsed.error));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Bytes of a top-level key, or of the id's value, the scanner keeps at most. */
const MAX_KEY_BYTES = 16;
const MAX_ID_BYTES = 1024;

/**
 * Finds the top-level `"id"` member of a JSON object fed to it in pieces, keeping O(1) memory: it
 * tracks strings and nesting, and keeps only the current top-level key and the id's raw value.
 * `id()` is that value if it is a string or a number, else null (not an object, no id, or not
 * readable).
 */
export class TopLevelIdScanner {
  private depth = 0;
  private started = false;
  private object = false;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private key: number[] | null = null;
  private lastKey = "";
  private capture: number[] | null = null;
  private captureTooLong = false;
  private captured: string | null = null;

  feed(bytes: Uint8Array): void {
    if (this.started && !this.object) return;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i] as number;
      if (this.capture !== null) {
        if (this.capture.length <= MAX_ID_BYTES) this.capture.push(b);
        else this.captureTooLong = true;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.key !== null) {
            this.lastKey = this.key.length <= MAX_KEY_BYTES ? Buffer.from(this.key).toString("utf8") : "";
            this.key = null;
          }
          continue;
        }
        if (this.key !== null && this.key.length <= MAX_KEY_BYTES) this.key.push(b);
        continue;
      }
      if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) continue;
      if (!this.started) {
        this.started = true;
        this.object = b === 0x7b;
        if (!this.object) return;
      }
      if (b === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && this.expectKey) this.key = [];
      } else if (b === 0x7b || b === 0x5b) {
        this.depth += 1;
        if (this.depth === 1) this.expectKey = true;
      } else if (b === 0x7d || b === 0x5d) {
        if (this.depth === 1) this.endValue();
        this.depth -= 1;
      } else if (this.depth === 1 && b === 0x2c) {
        this.endValue();
        this.expectKey = true;
      } else if (this.depth === 1 && b === 0x3a) {
        this.expectKey = false;
        if (this.lastKey === "id") {
          this.capture = [];
          this.captureTooLong = false;
        }
      }
    }
  }

  /** At a `,` or `}` of the top level: the id's value, if it was being captured, is complete. */
  private endValue(): void {
    if (this.capture === null) return;
    // The separator itself was captured last.
    this.captured = this.captureTooLong ? null : Buffer.from(this.capture.slice(0, -1)).toString("utf8");
    this.capture = null;
  }

  id(): RequestId | null {
    if (this.captured === null) return null;
    try {
      return readableId(JSON.parse(this.captured));
    } catch {
      return null;
    }
  }
}

export type LineTransportOptions = {
  maxMessageBytes?: number;
  /** The SDK's types module (default: loaded through ts/mcp_sdk.cts). */
  types?: Types;
  /** Where dropped messages are reported (one line each). */
  log?: (line: string) => void;
};

/** Newline-delimited JSON-RPC over a readable and a writable stream (see the file's comment). */
export class LineTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  private readonly maxMessageBytes: number;
  private readonly log: (line: string) => void;
  private readonly types: Types;
  /** The current line's pieces while it is within the limit. */
  private pieces: Buffer[] = [];
  private size = 0;
  /** Set while the current line is over the limit: its bytes are scanned, not kept. */
  private oversize: { scanner: TopLevelIdScanner; bytes: number } | null = null;
  private started = false;
  private closed = false;
  /** The ids of the requests read and not answered yet, and who waits for none to be left. */
  private readonly unanswered = new Set<string | number>();
  private answeredWaiters: Array<() => void> = [];

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: LineTransportOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.types = options.types ?? requireSdk<Types>("types.js");
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("the transport is already started");
    this.started = true;
    this.input.on("data", this.onData);
    this.input.on("error", this.onStreamError);
    this.output.on("error", this.onStreamError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onStreamError);
    this.output.off("error", this.onStreamError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.pieces = [];
    this.oversize = null;
    // nothing more can be answered: nobody waits for it
    this.unanswered.clear();
    for (const resolve of this.answeredWaiters.splice(0)) resolve();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error("the transport is closed"));
      this.output.write(`${JSON.stringify(message)}\n`, (error) => {
        if ("id" in message && !("method" in message)) this.answered(message.id as string | number);
        if (error) reject(error);
        else resolve();
      });
    });
  }

  /** Resolves once every request read so far has been answered (its answer written). */
  whenAnswered(): Promise<void> {
    if (this.unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.answeredWaiters.push(resolve));
  }

  private answered(id: string | number): void {
    this.unanswered.delete(id);
    if (this.unanswered.size === 0) for (const resolve of this.answeredWaiters.splice(0)) resolve();
  }

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
    this.close().catch(() => {});
  };

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (start <= data.length && !this.closed) {
      const newline = data.indexOf(0x0a, start);
      const end = newline === -1 ? data.length : newline;
      this.take(data.subarray(start, end));
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
  };

  /** A piece of the current line. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversize) {
      this.oversize.scanner.feed(piece);
      this.oversize.bytes += piece.length;
    } else if (this.size + piece.length > this.maxMessageBytes) {
      // Over the limit: what was kept is scanned and let go, and so is everything up to the newline.
      const scanner = new TopLevelIdScanner();
      for (const kept of this.pieces) scanner.feed(kept);
      scanner.feed(piece);
      this.oversize = { scanner, bytes: this.size + piece.length };
      this.pieces = [];
      this.size = 0;
    } else {
      this.pieces.push(piece);
      this.size += piece.length;
    }
  }

  private endLine(): void {
    if (this.oversize) {
      const { scanner, bytes } = this.oversize;
      this.oversize = null;
      this.log(`agent-tools-native: refused a message of ${bytes} bytes (over --max-message-bytes ${this.maxMessageBytes})`);
      this.reply(scanner.id(), INVALID_REQUEST, `Invalid Request: the message has ${bytes} bytes, over this server's limit of ${this.maxMessageBytes} (--max-message-bytes)`);
      return;
    }
    const line = Buffer.concat(this.pieces, this.size).toString("utf8");
    this.pieces = [];
    this.size = 0;
    this.handle(line.endsWith("\r") ? line.slice(0, -1) : line);
  }

  private handle(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.reply(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
      return;
    }
    let verdict: Verdict;
    try {
      verdict = screenMessage(value, this.types);
    } catch (error) {
      // screenMessage does not throw on any JSON value; this is a defect, reported, not fatal.
      this.onerror?.(error as Error);
      return;
    }
    if ("deliver" in verdict) {
      const message = verdict.deliver;
      if ("method" in message && "id" in message) this.unanswered.add(message.id as string | number);
      this.onmessage?.(message);
    }
    else if ("reply" in verdict) this.reply(verdict.reply.id, verdict.reply.code, verdict.reply.message);
    else this.log(`agent-tools-native: dropped ${verdict.drop}`);
  }

  private reply(id: RequestId | null, code: number, message: string): void {
    // JSON-RPC answers with id null when the id cannot be read; the SDK's type has no null id.
    const response = { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
    this.send(response).catch((error: Error) => this.onerror?.(error));
  }
}
