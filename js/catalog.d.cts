// Generated from ts/catalog.cts by `npm run build:ts`: edit that file, not this one.
import type { AllowedToolName, ToolDefinitions } from "../types/tools.js";
import type { ToolCatalogType, ToolContext } from "./types.cjs";
export type Handler = (context: ToolContext, ...args: unknown[]) => Promise<unknown>;
export type CatalogItem = {
    metadata: {
        name: string;
        isWriteOp: boolean;
        description: string;
    };
    handler: Handler;
};
export type Definition = ToolDefinitions[AllowedToolName];
export declare const definitions: Definition[];
export declare const definitionByName: Map<string, Definition>;
export declare const builtInHandlers: Record<string, Handler>;
export declare const catalog: Record<string, CatalogItem>;
/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
export declare const ToolCatalog: ToolCatalogType;
/** The opt-in tools by name (`extraTools`); not in `ToolCatalog`, which stays the 13. */
export declare const optInTools: Map<string, import("../binding.js").CatalogEntry>;
