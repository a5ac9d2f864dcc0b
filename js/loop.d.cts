// Generated from ts/loop.cts by `npm run build:ts`: edit that file, not this one.
import type { AgentToolkit, ExecSandbox } from "./types.cjs";
import { type CatalogEntry } from "./native.cjs";
/** Any toolkit of createAgentToolkit: with any user tools, and any opt-in tools enabled. */
export type AnyToolkit = AgentToolkit<any> | {
    tools: object;
    invoke: (name: any, args: any) => Promise<any>;
    getAllowedTools: () => unknown[];
};
/** Why a model response stopped (provider-specific reasons as `{ other }`). */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | {
    other: string;
};
export type LlmContentBlock = {
    type: "text";
    text: string;
}
/** `input` is an object, or JSON text as some providers send it. */
 | {
    type: "tool_use";
    id: string;
    name: string;
    input: Record<string, unknown> | string;
};
export type LlmResponse = {
    content: LlmContentBlock[];
    stopReason: StopReason | string;
    model?: string;
};
/**
 * One call's result as the loop sends it back (not named `ToolResultMessage`: that name is the
 * provider adapters' chat message `{ role: "tool", ... }`).
 */
export type LoopToolResult = {
    tool_use_id: string;
    tool_name: string;
    output: string;
    is_error: boolean;
    is_rejected: boolean;
};
/** A streamed tool-call fragment (`StreamEvent::ToolCallDelta`). */
export type ToolCallDelta = {
    type: "tool_call_delta";
    index: number;
    id?: string;
    name?: string;
    arguments_delta?: string;
};
export type SessionEvent = {
    type: "text_delta";
    text: string;
} | ToolCallDelta;
export type SessionSendOptions = {
    signal?: AbortSignal;
    emit(event: SessionEvent): void;
};
/** The model side of the loop, implemented over any provider. */
export interface LlmSession {
    sendWithTools(prompt: string, tools: ReadonlyArray<AnyToolDefinition>, options: SessionSendOptions): Promise<LlmResponse>;
    sendToolResults(results: LoopToolResult[], options: SessionSendOptions): Promise<LlmResponse>;
}
/** Any tool definition the loop offers (built-ins' readonly literals and user tools' alike). */
export type AnyToolDefinition = {
    readonly type: "function";
    readonly function: {
        readonly name: string;
        readonly description: string;
        readonly parameters: unknown;
        readonly strict?: boolean;
    };
};
export type ReviewRequest = {
    id: string;
    name: string;
    args: unknown;
    preview: {
        kind: "write_file";
        path: unknown;
        content: unknown;
    } | {
        kind: "apply_patch";
        path: unknown;
        patch: unknown;
    } | {
        kind: "exec_command";
        cwd: unknown;
        command: unknown;
    } | {
        kind: "tool";
        args: unknown;
    };
    /**
     * exec_command only, when the toolkit's `context.exec.sandbox` is on: the OS sandbox the
     * command will run under (as the result's `sandbox` field reports it), so a host can approve
     * sandboxed commands without asking, e.g. `sandbox?.kind === "landlock" && sandbox.write !==
     * "all"`.
     */
    sandbox?: ExecSandbox;
};
export type ReviewDecision = {
    decision: "approve";
} | {
    decision: "reject";
    reason?: string;
} | {
    decision: "edit";
    args: unknown;
};
export type LoopStopReason = "end_turn" | "max_tokens" | "max_tool_turns" | "aborted" | "done" | {
    other: string;
};
export type LoopMessage = {
    role: "user";
    content: string;
} | {
    role: "assistant";
    content: LlmContentBlock[];
} | {
    role: "tool";
    results: LoopToolResult[];
};
export type TurnRecord = {
    turn: number;
    stopReason: StopReason;
    calls: Array<{
        id: string;
        name: string;
        args: unknown;
        started_at: number;
        duration_ms: number;
        is_error: boolean;
        is_rejected: boolean;
    }>;
};
export type ToolLoopResult = {
    text: string;
    stopReason: LoopStopReason;
    messages: LoopMessage[];
    turns: TurnRecord[];
};
export type LoopEvent = {
    type: "turn_start";
    turn: number;
} | {
    type: "text_delta";
    text: string;
} | ToolCallDelta | {
    type: "response";
    turn: number;
    stopReason: StopReason;
    text: string;
    toolCalls: Array<Extract<LlmContentBlock, {
        type: "tool_use";
    }>>;
} | ({
    type: "review_request";
} & ReviewRequest) | {
    type: "review_decision";
    id: string;
    name: string;
    decision: ReviewDecision;
} | {
    type: "tool_start";
    id: string;
    name: string;
    args: unknown;
} | {
    type: "tool_finish";
    id: string;
    name: string;
    duration_ms: number;
    is_error: boolean;
    is_rejected: boolean;
} | {
    type: "turn_end";
    turn: number;
    results: LoopToolResult[];
} | {
    type: "completed";
    result: ToolLoopResult;
};
export type ToolLoopOptions = {
    session: LlmSession;
    toolkit: AnyToolkit;
    prompt: string;
    /** Turns with tool calls before the loop stops (default 10). */
    maxToolTurns?: number;
    /** Asked before each write-class call (write_file, apply_patch, exec_command, the opt-in edit_file and apply_patches, user tools with `writes`). */
    review?: (request: ReviewRequest) => ReviewDecision | Promise<ReviewDecision>;
    /** Aborts the whole loop; every call still gets a result ("Cancelled: ..."). */
    signal?: AbortSignal;
    /** Per-call time limit; a late call becomes an error result. */
    toolTimeoutMs?: number;
    /** The tool definitions offered (default: `toolkit.getAllowedTools()`). */
    tools?: ReadonlyArray<AnyToolDefinition>;
    onEvent?: (event: LoopEvent) => void;
};
/** What the loop needs of a toolkit (loop_runtime.cts makes it). */
export type LoopRuntime = {
    definitions(): ReadonlyArray<AnyToolDefinition>;
    has(name: string): boolean;
    userTool(name: string): {
        writes: boolean;
    } | undefined;
    /** What an exec_command call would be sandboxed with now (undefined: the option is off). */
    execSandbox(): ExecSandbox | undefined;
    /** The permission rules' decision on a call (null: none decides; the policy does). */
    permission(name: string, args: unknown): {
        decision: string;
        because: string;
    } | null;
    /** The call's output as the model sees it; `approved`: a review approved it. */
    output(name: string, args: unknown, ctx: {
        signal?: AbortSignal;
        approved?: boolean;
    }): Promise<string>;
};
type ToolUse = Extract<LlmContentBlock, {
    type: "tool_use";
}>;
/**
 * The effect class of a tool: `read` (parallel), `write` and `exec` (sequential, reviewed) or
 * `state` (sequential, not reviewed: the todo tools that change the session's task list). A
 * user tool is `write` when defined with `writes: true`, else `read`.
 */
export declare function effectClass(name: string, userTool: {
    writes: boolean;
} | undefined): CatalogEntry["effect"];
/** True for the effects a review hook sees before the call runs. */
export declare const isReviewed: (effect: CatalogEntry["effect"]) => effect is "write" | "exec";
/** `{ other: "..." }` for provider-specific stop reasons, the string otherwise. */
export declare function normaliseStopReason(reason: unknown): StopReason;
export declare function toolUses(response: LlmResponse): ToolUse[];
export declare function textOf(response: LlmResponse): string;
/** A tiny async queue: `push` events, iterate them with `for await`. */
export declare class EventQueue<T> {
    items: T[];
    waiters: Array<(result: IteratorResult<T>) => void>;
    closed: boolean;
    push(event: T): void;
    close(): void;
    [Symbol.asyncIterator](): AsyncIterator<T>;
}
/** What the tool loop (and a toolkit call) rejects with when its signal fires. */
export declare const loopAborted: () => Error;
/** Rejects when `signal` aborts or `ms` passes; resolves with `work` otherwise. */
export declare function bounded<T>(work: T | PromiseLike<T>, { signal, ms, onTimeout }: {
    signal?: AbortSignal;
    ms?: number;
    onTimeout?: () => unknown;
}): Promise<T>;
/**
 * Builds `runToolLoop` / `streamToolLoop` over a toolkit accessor (`runtimeOf(toolkit)`, which
 * throws a TypeError for anything but a toolkit of createAgentToolkit).
 */
export declare function makeToolLoop(runtimeOf: (toolkit: AnyToolkit) => LoopRuntime): {
    runToolLoop: (options: ToolLoopOptions) => Promise<ToolLoopResult>;
    streamToolLoop: (options: ToolLoopOptions) => AsyncIterable<LoopEvent> & {
        result: Promise<ToolLoopResult>;
    };
};
/**
 * A call's arguments as an object: providers and frameworks hand over an object or JSON text;
 * none (`undefined`, `null`, `""`) is `{}`. The one parser of the loop, the adapters and the
 * tools' `executeRaw`.
 */
export declare function parseArguments(input: unknown): {
    args: unknown;
} | {
    error: string;
};
/** What the review hook is shown of a call: its preview, and for exec_command the OS sandbox it would run under. */
export declare function reviewRequest(rt: Pick<LoopRuntime, "userTool" | "execSandbox">, id: string, name: string, args: unknown): ReviewRequest;
/**
 * Asks the review hook about a call — the one way runToolLoop and the adapters do — and says
 * what to run (the arguments as approved or edited), or the text the model reads of a rejection
 * (a hook that throws, or gives no decision, rejects). `aborted`: `signal` fired meanwhile.
 */
export declare function askReview(review: NonNullable<ToolLoopOptions["review"]>, request: ReviewRequest, signal: AbortSignal | undefined): Promise<{
    run: unknown;
    decision: ReviewDecision;
} | {
    rejected: string;
    decision: ReviewDecision;
} | {
    aborted: true;
}>;
/** What a reviewer sees of a change: the built-in's review fields, or all arguments of a user tool. */
export declare function preview(name: string, args: unknown): ReviewRequest["preview"];
export {};
