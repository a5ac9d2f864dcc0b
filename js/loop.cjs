"use strict";
// Generated from ts/loop.cts by `npm run build:ts`: edit that file, not this one.
// The tool loop (README, "The tool loop"): send with tools → read the stop reason → run the calls →
// send the results → repeat. It lives in JavaScript because every step calls the user's JavaScript
// (the model session, the review hook, user tools); the tools themselves run natively, off the
// JavaScript thread, so read-only calls of a turn really run in parallel on the worker pool.
exports.loopAborted = exports.EventQueue = exports.isReviewed = void 0;
exports.effectClass = effectClass;
exports.normaliseStopReason = normaliseStopReason;
exports.toolUses = toolUses;
exports.textOf = textOf;
exports.bounded = bounded;
exports.makeToolLoop = makeToolLoop;
exports.parseArguments = parseArguments;
exports.reviewRequest = reviewRequest;
exports.askReview = askReview;
exports.preview = preview;
const errors_cjs_1 = require("./errors.cjs");
const native_cjs_1 = require("./native.cjs");
// ---- helpers ----------------------------------------------------------------------------------------
/**
 * Each built-in tool's effect and review fields, from the native registry (the one list); the
 * opt-in tools' too (a loop sees them only when its toolkit enabled them).
 */
const BUILT_IN = new Map([...(0, native_cjs_1.builtInCatalog)(), ...(0, native_cjs_1.optInCatalog)()].map((tool) => [tool.name, tool]));
/**
 * The effect class of a tool: `read` (parallel), `write` and `exec` (sequential, reviewed) or
 * `state` (sequential, not reviewed: the todo tools that change the session's task list). A
 * user tool is `write` when defined with `writes: true`, else `read`.
 */
function effectClass(name, userTool) {
    const builtIn = BUILT_IN.get(name);
    if (builtIn)
        return builtIn.effect;
    if (userTool)
        return userTool.writes ? "write" : "read";
    return "state";
}
/** True for the effects a review hook sees before the call runs. */
const isReviewed = (effect) => effect === "write" || effect === "exec";
exports.isReviewed = isReviewed;
const STOP_REASONS = new Set(["end_turn", "tool_use", "max_tokens"]);
/** `{ other: "..." }` for provider-specific stop reasons, the string otherwise. */
function normaliseStopReason(reason) {
    if (typeof reason === "string" && STOP_REASONS.has(reason))
        return reason;
    if (reason && typeof reason === "object" && typeof reason.other === "string")
        return reason;
    return { other: String(reason) };
}
function toolUses(response) {
    return (response.content ?? []).filter((block) => block && block.type === "tool_use");
}
function textOf(response) {
    return (response.content ?? [])
        .filter((b) => b && b.type === "text")
        .map((b) => b.text)
        .join("");
}
/** A tiny async queue: `push` events, iterate them with `for await`. */
class EventQueue {
    items = [];
    waiters = [];
    closed = false;
    push(event) {
        if (this.closed)
            return;
        const waiter = this.waiters.shift();
        if (waiter)
            waiter({ value: event, done: false });
        else
            this.items.push(event);
    }
    close() {
        this.closed = true;
        for (const waiter of this.waiters.splice(0))
            waiter({ value: undefined, done: true });
    }
    [Symbol.asyncIterator]() {
        return {
            next: () => {
                if (this.items.length)
                    return Promise.resolve({ value: this.items.shift(), done: false });
                if (this.closed)
                    return Promise.resolve({ value: undefined, done: true });
                return new Promise((resolve) => this.waiters.push(resolve));
            },
        };
    }
}
exports.EventQueue = EventQueue;
/** What the tool loop (and a toolkit call) rejects with when its signal fires. */
const loopAborted = () => (0, errors_cjs_1.abortError)("the tool loop was aborted");
exports.loopAborted = loopAborted;
/** Rejects when `signal` aborts or `ms` passes; resolves with `work` otherwise. */
function bounded(work, { signal, ms, onTimeout }) {
    return new Promise((resolve, reject) => {
        let timer;
        const cleanup = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
        };
        const onAbort = () => {
            cleanup();
            reject((0, exports.loopAborted)());
        };
        if (signal?.aborted)
            return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        if (ms !== undefined) {
            timer = setTimeout(() => {
                cleanup();
                reject(onTimeout?.());
            }, ms);
        }
        Promise.resolve(work).then((v) => {
            cleanup();
            resolve(v);
        }, (e) => {
            cleanup();
            reject(e);
        });
    });
}
// ---- the loop ---------------------------------------------------------------------------------------
/**
 * Builds `runToolLoop` / `streamToolLoop` over a toolkit accessor (`runtimeOf(toolkit)`, which
 * throws a TypeError for anything but a toolkit of createAgentToolkit).
 */
function makeToolLoop(runtimeOf) {
    async function run(options, emit) {
        const { session, toolkit, prompt, maxToolTurns = 10, review, signal, toolTimeoutMs } = (options ?? {});
        if (!session || typeof session.sendWithTools !== "function" || typeof session.sendToolResults !== "function") {
            throw new TypeError("runToolLoop: session must implement sendWithTools and sendToolResults");
        }
        if (!Number.isInteger(maxToolTurns) || maxToolTurns < 1)
            throw new TypeError("runToolLoop: maxToolTurns must be an integer >= 1");
        const rt = runtimeOf(toolkit);
        const tools = options.tools ?? rt.definitions();
        const sendOptions = { signal, emit: (event) => emit(event) };
        const messages = [{ role: "user", content: prompt }];
        const turns = [];
        const finish = (stopReason, response) => {
            const result = { text: response ? textOf(response) : "", stopReason, messages, turns };
            emit({ type: "completed", result });
            return result;
        };
        let response;
        try {
            emit({ type: "turn_start", turn: 1 });
            response = await bounded(session.sendWithTools(prompt, tools, sendOptions), { signal });
        }
        catch (error) {
            if ((0, errors_cjs_1.isAbort)(error))
                return finish("aborted");
            throw error;
        }
        for (let turn = 1;; turn++) {
            const stopReason = normaliseStopReason(response.stopReason);
            const calls = toolUses(response);
            messages.push({ role: "assistant", content: response.content ?? [] });
            emit({ type: "response", turn, stopReason, text: textOf(response), toolCalls: calls });
            // A turn cut off by the token limit never runs its (possibly truncated) calls.
            if (stopReason === "max_tokens")
                return finish("max_tokens", response);
            // Calls decide, not the label: some providers say "stop" while returning calls.
            if (calls.length === 0)
                return finish(stopReason === "tool_use" ? "end_turn" : stopReason, response);
            if (turn > maxToolTurns)
                return finish("max_tool_turns", response);
            const record = { turn, stopReason, calls: [] };
            turns.push(record);
            const results = await runTurn(rt, calls, { review, signal, toolTimeoutMs, emit, record });
            messages.push({ role: "tool", results });
            emit({ type: "turn_end", turn, results });
            if (signal?.aborted)
                return finish("aborted", response);
            if (calls.some((c) => c.name === "done") && results.some((r) => r.tool_name === "done" && !r.is_error)) {
                return { ...finish("done", response), text: results.find((r) => r.tool_name === "done").output };
            }
            try {
                emit({ type: "turn_start", turn: turn + 1 });
                response = await bounded(session.sendToolResults(results, sendOptions), { signal });
            }
            catch (error) {
                if ((0, errors_cjs_1.isAbort)(error))
                    return finish("aborted");
                throw error;
            }
        }
    }
    /** Runs one turn's calls: read-only ones in parallel, then the others one by one (reviewed). */
    async function runTurn(rt, calls, { review, signal, toolTimeoutMs, emit, record }) {
        const results = new Array(calls.length);
        const cancelled = (call) => ({
            tool_use_id: call.id,
            tool_name: call.name,
            output: "Cancelled: the tool loop was aborted before this call ran",
            is_error: true,
            is_rejected: false,
        });
        const execute = async (call, index, args, approved = false) => {
            const started = Date.now();
            emit({ type: "tool_start", id: call.id, name: call.name, args });
            let result;
            try {
                const output = await bounded(rt.output(call.name, args, { signal, approved }), {
                    signal,
                    ms: toolTimeoutMs,
                    onTimeout: () => new Error(`timed out after ${toolTimeoutMs} ms`),
                });
                result = { tool_use_id: call.id, tool_name: call.name, output, is_error: false, is_rejected: false };
            }
            catch (error) {
                result = (0, errors_cjs_1.isAbort)(error)
                    ? cancelled(call)
                    : { tool_use_id: call.id, tool_name: call.name, output: `Error executing tool: ${(0, errors_cjs_1.messageOf)(error)}`, is_error: true, is_rejected: false };
            }
            const duration_ms = Date.now() - started;
            emit({ type: "tool_finish", id: call.id, name: call.name, duration_ms, is_error: result.is_error, is_rejected: false });
            record.calls[index] = { id: call.id, name: call.name, args, started_at: started, duration_ms, is_error: result.is_error, is_rejected: false };
            results[index] = result;
        };
        const parsed = calls.map((call) => parseInput(call));
        const readIdx = [];
        const laterIdx = [];
        // Calls a permission rule asks about: reviewed whatever their effect (read ones too).
        const asks = new Set();
        calls.forEach((call, i) => {
            const { error, args } = parsed[i];
            if (error || !rt.has(call.name)) {
                const output = error ?? `Error executing tool: unknown tool: ${call.name}`;
                results[i] = { tool_use_id: call.id, tool_name: call.name, output, is_error: true, is_rejected: false };
                record.calls[i] = rejectedCall(call, null, { is_error: true, is_rejected: false });
                return;
            }
            if (review && rt.permission(call.name, args)?.decision === "ask")
                asks.add(i);
            if (effectClass(call.name, rt.userTool(call.name)) === "read" && !asks.has(i))
                readIdx.push(i);
            else
                laterIdx.push(i);
        });
        await Promise.all(readIdx.map((i) => execute(calls[i], i, parsed[i].args)));
        for (const i of laterIdx) {
            const call = calls[i];
            if (signal?.aborted) {
                results[i] = cancelled(call);
                continue;
            }
            let args = parsed[i].args;
            if (review && (asks.has(i) || (0, exports.isReviewed)(effectClass(call.name, rt.userTool(call.name))))) {
                const request = reviewRequest(rt, call.id, call.name, args);
                emit({ type: "review_request", ...request });
                const verdict = await askReview(review, request, signal);
                if ("aborted" in verdict) {
                    results[i] = cancelled(call);
                    continue;
                }
                emit({ type: "review_decision", id: call.id, name: call.name, decision: verdict.decision });
                if ("rejected" in verdict) {
                    results[i] = { tool_use_id: call.id, tool_name: call.name, output: verdict.rejected, is_error: false, is_rejected: true };
                    record.calls[i] = rejectedCall(call, args, { is_error: false, is_rejected: true });
                    continue;
                }
                args = verdict.run;
            }
            // An approval covers the call as the reviewer left it (edited or not).
            await execute(call, i, args, asks.has(i));
        }
        for (let i = 0; i < calls.length; i++)
            if (!results[i])
                results[i] = cancelled(calls[i]);
        return results;
    }
    function runToolLoop(options) {
        return run(options, (event) => options?.onEvent?.(event));
    }
    /** The loop as an async iterator of events; `.result` resolves with the loop's result. */
    function streamToolLoop(options) {
        const queue = new EventQueue();
        const result = run(options, (event) => {
            options?.onEvent?.(event);
            queue.push(event);
        }).finally(() => queue.close());
        result.catch(() => { });
        return { [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](), result };
    }
    return { runToolLoop, streamToolLoop };
}
/** `get()`, or undefined when it throws. */
function attempt(get) {
    try {
        return get();
    }
    catch {
        return undefined;
    }
}
/** The record of a call that did not run (its arguments were bad, or a review rejected it). */
function rejectedCall(call, args, flags) {
    return { id: call.id, name: call.name, args, started_at: Date.now(), duration_ms: 0, ...flags };
}
/** A call's input as an object: providers give an object or a JSON string. */
function parseInput(call) {
    const parsed = parseArguments(call.input);
    return "error" in parsed ? { error: `Error executing tool: ${parsed.error}` } : parsed;
}
/**
 * A call's arguments as an object: providers and frameworks hand over an object or JSON text;
 * none (`undefined`, `null`, `""`) is `{}`. The one parser of the loop, the adapters and the
 * tools' `executeRaw`.
 */
function parseArguments(input) {
    if (input === undefined || input === null || input === "")
        return { args: {} };
    if (typeof input !== "string")
        return { args: input };
    try {
        return { args: JSON.parse(input) };
    }
    catch (error) {
        return { error: `invalid JSON arguments: ${error.message}` };
    }
}
/** What the review hook is shown of a call: its preview, and for exec_command the OS sandbox it would run under. */
function reviewRequest(rt, id, name, args) {
    const request = { id, name, args, preview: preview(name, args) };
    if (name === "exec_command" && !rt.userTool(name)) {
        // A malformed context.exec leaves it out: the call itself then fails with INVALID_ARGUMENT.
        const sandbox = attempt(() => rt.execSandbox());
        if (sandbox !== undefined)
            request.sandbox = sandbox;
    }
    return request;
}
/**
 * Asks the review hook about a call — the one way runToolLoop and the adapters do — and says
 * what to run (the arguments as approved or edited), or the text the model reads of a rejection
 * (a hook that throws, or gives no decision, rejects). `aborted`: `signal` fired meanwhile.
 */
async function askReview(review, request, signal) {
    let decision;
    try {
        decision = await bounded(review(request), { signal });
    }
    catch (error) {
        if ((0, errors_cjs_1.isAbort)(error) || signal?.aborted)
            return { aborted: true };
        decision = { decision: "reject", reason: `review failed: ${(0, errors_cjs_1.messageOf)(error)}` };
    }
    if (decision?.decision === "reject")
        return { rejected: `Rejected by review: ${decision.reason ?? "no reason given"}`, decision };
    if (decision?.decision === "edit")
        return { run: decision.args, decision };
    if (decision?.decision === "approve")
        return { run: request.args, decision };
    return { rejected: "Rejected by review: the review hook gave no decision", decision };
}
/** What a reviewer sees of a change: the built-in's review fields, or all arguments of a user tool. */
function preview(name, args) {
    const fields = BUILT_IN.get(name)?.reviewFields ?? [];
    if (fields.length === 0)
        return { kind: "tool", args };
    const values = args;
    return { kind: name, ...Object.fromEntries(fields.map(([key, argument]) => [key, values?.[argument]])) };
}
