// The search cache's budget in the typings, checked by `tsc -p tsconfig.json`. Every
// `@ts-expect-error` line must fail to compile.
import { createToolContext, type ToolContext } from "agent-tools-native";

const ctx: ToolContext = createToolContext({ workspaceRoot: "/ws", searchCacheBytes: 64 * 1024 * 1024 });
export const budget: number | undefined = ctx.searchCacheBytes;
// @ts-expect-error: a byte count, not a string
createToolContext({ workspaceRoot: "/ws", searchCacheBytes: "64MiB" });
