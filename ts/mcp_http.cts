// The MCP server over Streamable HTTP (`agent-tools-native mcp --http HOST:PORT`, ts/cli.cts): a
// node:http server whose path /mcp is served by the official SDK's StreamableHTTPServerTransport,
// one transport and one MCP server (its own tool context: todo state, read ledger, output cache)
// per MCP session. In front of the SDK, every request is checked here, in this order:
// - Host: a name this server answers to (DNS-rebinding protection; `hostAllowed`), else 403;
// - Origin, when present (browsers send it): the same rule on its host, else 403;
// - `Authorization: Bearer <token>`, compared in constant time (SHA-256 digests of both through
//   timingSafeEqual), unless --no-auth on a loopback host, else 401;
// - the body: at most --max-message-bytes (413), one JSON-RPC message screened as on stdio
//   (ts/mcp_stdio.cts: 400 with the same JSON-RPC errors, batches refused);
// - the session: an initialize opens one (503 past --max-sessions), anything else names a live
//   one in Mcp-Session-Id (404 when unknown, 400 when absent).
// A session no request has reached for --idle-timeout seconds, with no call running, is closed;
// SIGTERM/SIGINT stop new work, give running calls --shutdown-grace seconds, cancel the rest (an
// exec_command's process group is killed) and exit 0. TLS is not built in (README).
// The SDK transport's own DNS-rebinding option compares Host and Origin with fixed strings; the
// checks here know the port only once the server listens, accept loopback names by rule and
// --allow-host names on any port, so they are done here and that option stays off.

import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type * as Http from "node:http";
import net from "node:net";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js" with { "resolution-mode": "import" };
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js" with { "resolution-mode": "import" };
import { requireSdk } from "./mcp_sdk.cjs";
import { INVALID_REQUEST, PARSE_ERROR, screenMessage } from "./mcp_stdio.cjs";

type Types = typeof import("@modelcontextprotocol/sdk/types.js", { with: { "resolution-mode": "import" } });
type HttpTransportModule = typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js", { with: { "resolution-mode": "import" } });
type HttpTransport = InstanceType<HttpTransportModule["StreamableHTTPServerTransport"]>;

/** The environment variable holding the bearer token (the token is never taken from argv). */
export const TOKEN_ENV = "AGENT_TOOLS_NATIVE_TOKEN";
export const MCP_PATH = "/mcp";
export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_MAX_SESSIONS = 16;
export const DEFAULT_IDLE_TIMEOUT_S = 1800;
export const DEFAULT_SHUTDOWN_GRACE_S = 10;
/** The shortest token accepted (characters). */
export const MIN_TOKEN_CHARS = 16;
/** How long a request may take to send its headers, and its whole body (slow clients). */
const HEADERS_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 120_000;

/** The help text of the HTTP options (part of `agent-tools-native --help`). */
export const HTTP_HELP = `  --http [HOST:]PORT    mcp: serve over Streamable HTTP at http://HOST:PORT${MCP_PATH} instead of
                        stdio (HOST default ${DEFAULT_HTTP_HOST}; PORT 0: any free port); needs --root.
                        A bearer token is required: from $${TOKEN_ENV} or --token-file
  --token-file FILE     mcp --http: the bearer token, read from FILE (never from the command line)
  --no-auth             mcp --http: no token (refused unless HOST is a loopback address)
  --allow-host NAME[:PORT]
                        mcp --http: also accept this Host (and Origin host), e.g. a reverse
                        proxy's name (loopback names and the bound address are always accepted)
  --max-sessions N      mcp --http: concurrent MCP sessions (default ${DEFAULT_MAX_SESSIONS})
  --idle-timeout SEC    mcp --http: close a session idle this long (default ${DEFAULT_IDLE_TIMEOUT_S})
  --shutdown-grace SEC  mcp --http: on SIGTERM, running calls get SEC seconds before they are
                        cancelled (default ${DEFAULT_SHUTDOWN_GRACE_S})
`;

/** The HTTP flags as given, before they are checked together. */
export type HttpFlags = {
  listen?: string;
  tokenFile?: string;
  noAuth: boolean;
  allowHosts: string[];
  maxSessions: number;
  idleTimeoutS: number;
  shutdownGraceS: number;
  /** The HTTP flags seen other than --http (an error without --http). */
  seen: string[];
};

/** The HTTP server's settings. */
export type HttpSettings = {
  host: string;
  port: number;
  /** SHA-256 of the token; null with --no-auth. */
  tokenDigest: Buffer | null;
  allowHosts: string[];
  maxSessions: number;
  idleTimeoutMs: number;
  shutdownGraceMs: number;
};

export function newHttpFlags(): HttpFlags {
  return {
    noAuth: false,
    allowHosts: [],
    maxSessions: DEFAULT_MAX_SESSIONS,
    idleTimeoutS: DEFAULT_IDLE_TIMEOUT_S,
    shutdownGraceS: DEFAULT_SHUTDOWN_GRACE_S,
    seen: [],
  };
}

type Fail = (message: string) => never;

function wholeNumber(flag: string, value: string, min: number, fail: Fail): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) fail(`${flag} must be a whole number >= ${min}`);
  return n;
}

/** Takes one HTTP flag (`value` reads its value); false when `flag` is not one. */
export function parseHttpFlag(flag: string, value: () => string, flags: HttpFlags, fail: Fail): boolean {
  switch (flag) {
    case "--http":
      flags.listen = value();
      return true;
    case "--token":
      return fail(`the token is never taken from the command line (other users can read it there): set ${TOKEN_ENV} or use --token-file FILE`);
    case "--token-file":
      flags.tokenFile = value();
      break;
    case "--no-auth":
      flags.noAuth = true;
      break;
    case "--allow-host":
      flags.allowHosts.push(
        ...value()
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      );
      break;
    case "--max-sessions":
      flags.maxSessions = wholeNumber(flag, value(), 1, fail);
      break;
    case "--idle-timeout":
      flags.idleTimeoutS = wholeNumber(flag, value(), 1, fail);
      break;
    case "--shutdown-grace":
      flags.shutdownGraceS = wholeNumber(flag, value(), 0, fail);
      break;
    default:
      return false;
  }
  flags.seen.push(flag);
  return true;
}

/** `[HOST:]PORT` (an IPv6 HOST in brackets) as host and port. */
export function parseListen(spec: string, fail: Fail): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]*):)?(\d+)$/.exec(spec.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || !Number.isInteger(port) || port > 65535) fail(`--http ${spec}: expected [HOST:]PORT, e.g. 127.0.0.1:8765 or [::1]:8765`);
  const raw = match?.[1] ?? "";
  const host = raw.startsWith("[") ? raw.slice(1, -1) : raw || DEFAULT_HTTP_HOST;
  if (raw.startsWith("[") && net.isIPv6(host) === false) fail(`--http ${spec}: ${host} is not an IPv6 address`);
  return { host, port };
}

/** Whether a host name or address is loopback: localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  if (net.isIPv6(h)) return h === "::1" || h === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(h);
  return false;
}

/**
 * The HTTP flags checked together (null without --http): HOST:PORT, the token from --token-file
 * or $AGENT_TOOLS_NATIVE_TOKEN (the file wins), --no-auth only on a loopback host and without a
 * token file, a --root (a client's MCP roots name its own machine's directories).
 */
export function resolveHttpSettings(flags: HttpFlags, ctx: { command: string; root?: string; env: NodeJS.ProcessEnv }, fail: Fail): HttpSettings | null {
  if (flags.listen === undefined) {
    if (flags.seen.length > 0) fail(`${flags.seen[0]} needs --http`);
    return null;
  }
  if (ctx.command !== "mcp") fail("--http is an option of the mcp command");
  if (ctx.root === undefined) {
    fail("--http needs --root DIR: over HTTP the workspace is the server's choice, never a directory a client names");
  }
  const { host, port } = parseListen(flags.listen, fail);
  let token: string | null = null;
  if (flags.noAuth) {
    if (!isLoopback(host)) fail(`--no-auth is refused on ${host}: without a token the server only listens on a loopback address`);
    if (flags.tokenFile !== undefined) fail("--no-auth and --token-file contradict each other");
  } else {
    if (flags.tokenFile !== undefined) {
      let text: string | null;
      let mode = 0;
      try {
        const stat = statSync(flags.tokenFile);
        mode = stat.mode;
        text = stat.isFile() ? readFileSync(flags.tokenFile, "utf8") : null;
      } catch (error) {
        return fail(`--token-file ${flags.tokenFile}: ${(error as Error).message}`);
      }
      if (text === null) fail(`--token-file ${flags.tokenFile}: not a file`);
      // As for --token: a secret other users can read is refused (POSIX modes; Windows has ACLs).
      if (process.platform !== "win32" && (mode & 0o077) !== 0) {
        fail(`--token-file ${flags.tokenFile}: readable by other users (mode ${(mode & 0o777).toString(8).padStart(3, "0")}); make it private with chmod 600`);
      }
      token = text.trim();
    } else {
      token = ctx.env[TOKEN_ENV]?.trim() || null;
    }
    if (token === null || token === "") {
      fail(
        isLoopback(host)
          ? `--http needs a bearer token: set ${TOKEN_ENV} or use --token-file FILE (or --no-auth, loopback only)`
          : `--http ${host}: refusing to listen on a non-loopback address without a token: set ${TOKEN_ENV} or use --token-file FILE`,
      );
    }
    if (token.length < MIN_TOKEN_CHARS) fail(`the bearer token is too short: at least ${MIN_TOKEN_CHARS} characters`);
    if (/\s/.test(token)) fail("the bearer token must not contain whitespace");
  }
  return {
    host,
    port,
    tokenDigest: token === null ? null : digest(token),
    allowHosts: flags.allowHosts,
    maxSessions: flags.maxSessions,
    idleTimeoutMs: flags.idleTimeoutS * 1000,
    shutdownGraceMs: flags.shutdownGraceS * 1000,
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Whether an `Authorization` header carries the token (constant time in the token's content). */
export function tokenMatches(header: string | undefined, tokenDigest: Buffer): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  // The comparison runs also without a token given, on a digest that cannot match.
  const given = digest(match ? (match[1] as string) : "\0no token");
  return timingSafeEqual(given, tokenDigest) && match !== null;
}

/** `host[:port]` of a Host header or a URL's host, lowercase, brackets of IPv6 removed. */
function splitHost(value: string): { name: string; port: string | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/@\s]+)(?::(\d+))?$/i.exec(value.trim());
  if (!match) return null;
  return { name: (match[1] as string).toLowerCase().replace(/^\[|\]$/g, ""), port: match[2] ?? null };
}

/**
 * Whether a Host (or an Origin's host) names this server: a --allow-host entry (with its port if
 * it gives one); on the bound port, a loopback name when bound to loopback, the bound address
 * itself, or — bound to every interface — any IP address (a DNS-rebinding page always sends its
 * own DNS name, never an address).
 */
export function hostAllowed(value: string | undefined, settings: Pick<HttpSettings, "host" | "allowHosts">, port: number): boolean {
  if (!value) return false;
  const host = splitHost(value);
  if (!host) return false;
  for (const entry of settings.allowHosts) {
    const allowed = splitHost(entry);
    if (allowed && allowed.name === host.name && (allowed.port === null || allowed.port === (host.port ?? ""))) return true;
  }
  if (host.port !== String(port)) return false;
  const bound = settings.host.toLowerCase();
  if (host.name === bound) return true;
  if (isLoopback(bound)) return isLoopback(host.name) && (net.isIP(host.name) !== 0 || host.name === "localhost");
  if (bound === "0.0.0.0" || bound === "::") return net.isIP(host.name) !== 0;
  return false;
}

/** Whether an Origin header is acceptable: absent (not a browser), or http(s) on an allowed host. */
export function originAllowed(origin: string | undefined, settings: Pick<HttpSettings, "host" | "allowHosts">, port: number): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // URL drops a scheme's default port: the allow list may name the host without one.
  return hostAllowed(url.host, settings, port);
}

/** What serveMcpHttp needs from the CLI. */
export type HttpServeContext = {
  /** A new MCP server (not connected) for one session. */
  createSession: () => { server: { connect(t: Transport): Promise<void>; close(): Promise<void> }; tools: number; running: Set<AbortController>; close: () => Promise<void> };
  maxBodyBytes: number;
  version: string;
  root: string;
  writeScope: string;
  log?: (line: string) => void;
};

type Session = {
  id: string | undefined;
  transport: HttpTransport;
  close: () => Promise<void>;
  running: Set<AbortController>;
  /** POST/DELETE requests being answered (an open GET stream does not count). */
  busy: number;
  lastActive: number;
};

/** A JSON-RPC error answered with an HTTP status (the shape the SDK's transport uses). */
/**
 * An error answer. A refusal that comes before the body was read (401, 403, 404, 405, 413, 503)
 * closes the connection: Node would otherwise read the whole unread body to keep the connection
 * alive, which lets anyone without the token stream gigabytes at the server.
 */
function sendError(res: Http.ServerResponse, status: number, code: number, message: string, id: unknown = null, headers: Record<string, string> = {}) {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
  const req = res.req as Http.IncomingMessage | undefined;
  const unread = req?.readableEnded !== true;
  const socket = res.socket;
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...(unread ? { connection: "close" } : {}), ...headers });
  res.end(body);
  if (unread) res.once("finish", () => socket?.destroy());
}

/** The body, at most `max` bytes; `null` when it is longer (the rest is not read). */
function readBody(req: Http.IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > max) return resolve(null);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off("data", onData);
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

/** A running HTTP server: its URL and a way to stop it (as SIGTERM does). */
export type HttpServerHandle = { url: string; port: number; shutdown: (why: string) => Promise<void> };

/**
 * Serves MCP over Streamable HTTP until SIGTERM/SIGINT (see the file's comment); resolves once it
 * listens.
 */
export async function serveMcpHttp(settings: HttpSettings, ctx: HttpServeContext): Promise<HttpServerHandle> {
  const log = ctx.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The token is the server's secret: the commands it runs (exec_command takes process.env at
  // call time) never see it.
  delete process.env[TOKEN_ENV];
  const { StreamableHTTPServerTransport } = requireSdk<HttpTransportModule>("server/streamableHttp.js");
  const types = requireSdk<Types>("types.js");
  // A first session checks the options a session is built from (unknown tool names are a usage
  // error at start-up, not on a client's first request) and counts the tools.
  const probe = ctx.createSession();
  await probe.server.close();
  await probe.close();

  const sessions = new Map<string, Session>();
  /** Sessions opened and not closed yet, initialized or not (the --max-sessions count). */
  let open = 0;
  let closing: Promise<void> | null = null;
  let port = settings.port;

  const openSession = async (): Promise<Session> => {
    open += 1;
    const { server, running, close: endProcesses } = ctx.createSession();
    let closed = false;
    const session: Session = {
      id: undefined,
      running,
      busy: 0,
      lastActive: Date.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session.id = id;
          sessions.set(id, session);
          log(`agent-tools-native: MCP session ${id} opened (${sessions.size} open)`);
        },
        maxRequestBodySize: ctx.maxBodyBytes,
      }),
      close: async () => {
        if (closed) return;
        closed = true;
        for (const controller of running) controller.abort(new Error("the MCP session was closed"));
        await Promise.allSettled([server.close(), endProcesses()]);
      },
    };
    session.transport.onclose = () => {
      closed = true;
      open -= 1;
      for (const controller of running) controller.abort(new Error("the MCP session was closed"));
      // The session's processes end with it (DELETE, the idle timeout, the server's shutdown).
      endProcesses().catch(() => {});
      if (session.id !== undefined && sessions.get(session.id) === session) {
        sessions.delete(session.id);
        log(`agent-tools-native: MCP session ${session.id} closed (${sessions.size} open)`);
      }
    };
    await server.connect(session.transport);
    return session;
  };

  const handle = async (req: Http.IncomingMessage, res: Http.ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host, settings, port)) {
      return sendError(res, 403, -32000, `Forbidden: Host ${JSON.stringify(req.headers.host ?? "")} is not one this server answers to (--allow-host)`);
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, settings, port)) {
      return sendError(res, 403, -32000, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed`);
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    // No OAuth here: a client that looks for its metadata (after a 401) learns so at once and
    // reports the missing token, instead of starting an authorization flow.
    if (url.pathname.startsWith("/.well-known/")) {
      return sendError(res, 404, -32000, "Not Found: this server has no OAuth; send its bearer token (--token-file)");
    }
    if (settings.tokenDigest !== null && !tokenMatches(req.headers.authorization, settings.tokenDigest)) {
      return sendError(res, 401, -32001, "Unauthorized: a valid bearer token is required", null, { "www-authenticate": 'Bearer realm="agent-tools-native"' });
    }
    if (url.pathname !== MCP_PATH) return sendError(res, 404, -32000, `Not Found: the MCP endpoint is ${MCP_PATH}`);
    const method = req.method ?? "";
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      return sendError(res, 405, -32000, "Method Not Allowed", null, { allow: "GET, POST, DELETE" });
    }
    let body: JSONRPCMessage | undefined;
    if (method === "POST") {
      const bytes = await readBody(req, ctx.maxBodyBytes);
      if (bytes === null) {
        return sendError(res, 413, INVALID_REQUEST, `Payload Too Large: the body is over this server's limit of ${ctx.maxBodyBytes} bytes (--max-message-bytes)`);
      }
      let value: unknown;
      try {
        value = JSON.parse(bytes.toString("utf8"));
      } catch (error) {
        return sendError(res, 400, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
      }
      const verdict = screenMessage(value, types);
      if ("reply" in verdict) return sendError(res, 400, verdict.reply.code, verdict.reply.message, verdict.reply.id);
      if ("drop" in verdict) return sendError(res, 400, INVALID_REQUEST, `Invalid Request: ${verdict.drop}`);
      body = verdict.deliver;
    }
    // Draining: only notifications (a cancellation among them) still reach their session.
    if (closing && (method !== "POST" || (body !== undefined && "id" in body))) {
      return sendError(res, 503, -32000, "Service Unavailable: the server is shutting down", null, { connection: "close" });
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    let session: Session | undefined;
    if (sessionId !== undefined) {
      session = sessions.get(sessionId);
      if (!session) return sendError(res, 404, -32001, "Session not found");
    } else if (body !== undefined && types.isInitializeRequest(body)) {
      if (open >= settings.maxSessions) {
        return sendError(res, 503, -32000, `Service Unavailable: ${open} MCP sessions are open, this server's limit (--max-sessions)`, null, { "retry-after": "5" });
      }
      session = await openSession();
    } else {
      return sendError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required (or an initialize request to open a session)");
    }
    const counts = method !== "GET";
    if (counts) session.busy += 1;
    session.lastActive = Date.now();
    try {
      await session.transport.handleRequest(req, res, body);
    } finally {
      if (counts) session.busy -= 1;
      session.lastActive = Date.now();
      // An initialize the transport refused opened no session: let it go.
      if (session.id === undefined) await session.close();
    }
  };

  // node:http is loaded only here: the other commands never need it.
  const http = require("node:http") as typeof Http;
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`agent-tools-native: HTTP request failed: ${(error as Error)?.stack ?? String(error)}`);
      sendError(res, 500, -32603, "Internal error");
    });
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${settings.host}:${settings.port}: ${error.message}`)));
    server.listen(settings.port, settings.host, () => resolve());
  });
  server.on("error", (error) => log(`agent-tools-native: HTTP server error: ${error.message}`));
  port = (server.address() as net.AddressInfo).port;
  const url = `http://${net.isIPv6(settings.host) ? `[${settings.host}]` : settings.host}:${port}${MCP_PATH}`;

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.busy === 0 && session.running.size === 0 && now - session.lastActive >= settings.idleTimeoutMs) {
          log(`agent-tools-native: MCP session ${session.id} idle for ${Math.round((now - session.lastActive) / 1000)}s: closing it`);
          session.close().catch(() => {});
        }
      }
    },
    Math.min(settings.idleTimeoutMs / 4, 30_000),
  );
  sweep.unref();

  const running = () => [...sessions.values()].reduce((n, s) => n + s.running.size, 0);
  const answering = () => [...sessions.values()].reduce((n, s) => n + s.busy, 0);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const shutdown = (why: string): Promise<void> => {
    if (closing) return closing;
    closing = (async () => {
      clearInterval(sweep);
      server.close();
      server.closeIdleConnections?.();
      const calls = running();
      log(`agent-tools-native: ${why}: shutting down (${sessions.size} sessions, ${calls} calls running; grace ${settings.shutdownGraceMs / 1000}s)`);
      const deadline = Date.now() + settings.shutdownGraceMs;
      while (running() > 0 && Date.now() < deadline) await sleep(50);
      const left = running();
      if (left > 0) log(`agent-tools-native: cancelling ${left} running calls`);
      for (const session of sessions.values()) for (const controller of session.running) controller.abort(new Error("the server is shutting down"));
      // A cancelled call answers its client once its work has stopped; its response is written
      // out before the connections are closed.
      const settled = Date.now() + 5_000;
      while ((running() > 0 || answering() > 0) && Date.now() < settled) await sleep(25);
      await Promise.all([...sessions.values()].map((s) => s.close()));
      server.closeAllConnections?.();
    })();
    return closing;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      log(`agent-tools-native: ${signal} again: cancelling every call now`);
      for (const session of sessions.values()) for (const controller of session.running) controller.abort(new Error("the server is shutting down"));
      return;
    }
    shutdown(signal).finally(() => process.exit(0));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  log(
    `agent-tools-native ${ctx.version}: MCP server on ${url} (root ${ctx.root}, write scope ${ctx.writeScope}, ${probe.tools} tools, ` +
      `${settings.tokenDigest === null ? "no authentication (--no-auth, loopback only)" : "bearer token required"})`,
  );
  return { url, port, shutdown };
}
