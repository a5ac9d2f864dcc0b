// Generated from ts/loop_runtime.cts by `npm run build:ts`: edit that file, not this one.
import { type AnyToolkit, type LoopRuntime } from "./loop.cjs";
/** What the tool loop needs of a toolkit. */
export declare function loopRuntime(toolkit: AnyToolkit): LoopRuntime;
/** Runs the multi-turn tool loop to its end. */
export declare const runToolLoop: (options: import("./loop.cjs").ToolLoopOptions) => Promise<import("./loop.cjs").ToolLoopResult>;
/** The same loop as an async iterator of events; `result` resolves when it ends. */
export declare const streamToolLoop: (options: import("./loop.cjs").ToolLoopOptions) => AsyncIterable<import("./loop.cjs").LoopEvent> & {
    result: Promise<import("./loop.cjs").ToolLoopResult>;
};
