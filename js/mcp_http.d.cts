// Generated from ts/mcp_http.cts by `npm run build:ts`: edit that file, not this one.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js" with { "resolution-mode": "import" };
/** The environment variable holding the bearer token (the token is never taken from argv). */
export declare const TOKEN_ENV = "AGENT_TOOLS_NATIVE_TOKEN";
export declare const MCP_PATH = "/mcp";
export declare const DEFAULT_HTTP_HOST = "127.0.0.1";
export declare const DEFAULT_MAX_SESSIONS = 16;
export declare const DEFAULT_IDLE_TIMEOUT_S = 1800;
export declare const DEFAULT_SHUTDOWN_GRACE_S = 10;
/** The shortest token accepted (characters). */
export declare const MIN_TOKEN_CHARS = 16;
/** The help text of the HTTP options (part of `agent-tools-native --help`). */
export declare const HTTP_HELP = "  --http [HOST:]PORT    mcp: serve over Streamable HTTP at http://HOST:PORT/mcp instead of\n                        stdio (HOST default 127.0.0.1; PORT 0: any free port); needs --root.\n                        A bearer token is required: from $AGENT_TOOLS_NATIVE_TOKEN or --token-file\n  --token-file FILE     mcp --http: the bearer token, read from FILE (never from the command line)\n  --no-auth             mcp --http: no token (refused unless HOST is a loopback address)\n  --allow-host NAME[:PORT]\n                        mcp --http: also accept this Host (and Origin host), e.g. a reverse\n                        proxy's name (loopback names and the bound address are always accepted)\n  --max-sessions N      mcp --http: concurrent MCP sessions (default 16)\n  --idle-timeout SEC    mcp --http: close a session idle this long (default 1800)\n  --shutdown-grace SEC  mcp --http: on SIGTERM, running calls get SEC seconds before they are\n                        cancelled (default 10)\n";
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
export declare function newHttpFlags(): HttpFlags;
type Fail = (message: string) => never;
/** Takes one HTTP flag (`value` reads its value); false when `flag` is not one. */
export declare function parseHttpFlag(flag: string, value: () => string, flags: HttpFlags, fail: Fail): boolean;
/** `[HOST:]PORT` (an IPv6 HOST in brackets) as host and port. */
export declare function parseListen(spec: string, fail: Fail): {
    host: string;
    port: number;
};
/** Whether a host name or address is loopback: localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x). */
export declare function isLoopback(host: string): boolean;
/**
 * The HTTP flags checked together (null without --http): HOST:PORT, the token from --token-file
 * or $AGENT_TOOLS_NATIVE_TOKEN (the file wins), --no-auth only on a loopback host and without a
 * token file, a --root (a client's MCP roots name its own machine's directories).
 */
export declare function resolveHttpSettings(flags: HttpFlags, ctx: {
    command: string;
    root?: string;
    env: NodeJS.ProcessEnv;
}, fail: Fail): HttpSettings | null;
/** Whether an `Authorization` header carries the token (constant time in the token's content). */
export declare function tokenMatches(header: string | undefined, tokenDigest: Buffer): boolean;
/**
 * Whether a Host (or an Origin's host) names this server: a --allow-host entry (with its port if
 * it gives one); on the bound port, a loopback name when bound to loopback, the bound address
 * itself, or — bound to every interface — any IP address (a DNS-rebinding page always sends its
 * own DNS name, never an address).
 */
export declare function hostAllowed(value: string | undefined, settings: Pick<HttpSettings, "host" | "allowHosts">, port: number): boolean;
/** Whether an Origin header is acceptable: absent (not a browser), or http(s) on an allowed host. */
export declare function originAllowed(origin: string | undefined, settings: Pick<HttpSettings, "host" | "allowHosts">, port: number): boolean;
/** What serveMcpHttp needs from the CLI. */
export type HttpServeContext = {
    /** A new MCP server (not connected) for one session. */
    createSession: () => {
        server: {
            connect(t: Transport): Promise<void>;
            close(): Promise<void>;
        };
        tools: number;
        running: Set<AbortController>;
        close: () => Promise<void>;
    };
    maxBodyBytes: number;
    version: string;
    root: string;
    writeScope: string;
    log?: (line: string) => void;
};
/** A running HTTP server: its URL and a way to stop it (as SIGTERM does). */
export type HttpServerHandle = {
    url: string;
    port: number;
    shutdown: (why: string) => Promise<void>;
};
/**
 * Serves MCP over Streamable HTTP until SIGTERM/SIGINT (see the file's comment); resolves once it
 * listens.
 */
export declare function serveMcpHttp(settings: HttpSettings, ctx: HttpServeContext): Promise<HttpServerHandle>;
export {};
