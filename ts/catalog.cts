// ToolCatalog (the 13 built-in tools: metadata and raw handler, replaceable by the caller), the
// built-in definitions, and the opt-in tools of the native registry.

import { loadNative, builtInCatalog, type CatalogEntry, optInCatalog } from "./native.cjs";
import { callNative, DOOR_HANDLER, packCall, resultValue } from "./native_call.cjs";
import type { AllowedToolName, ToolDefinitions } from "../types/tools.js";
import type { ToolCatalogType, ToolContext } from "./types.cjs";

const native = loadNative();

export type Handler = (context: ToolContext, ...args: unknown[]) => Promise<unknown>;
export type CatalogItem = { metadata: { name: string; isWriteOp: boolean; description: string }; handler: Handler };
export type Definition = ToolDefinitions[AllowedToolName];

export const definitions = JSON.parse(native.toolDefinitionsJson()) as Definition[];
export const definitionByName = new Map<string, Definition>(definitions.map((d) => [d.function.name, d]));

export const builtInHandlers: Record<string, Handler> = Object.create(null);
export const catalog: Record<string, CatalogItem> = {};
for (const { name, isWriteOp, description } of builtInCatalog()) {
  const request = packCall(name, DOOR_HANDLER) as number;
  const handler: Handler = async (context, ...args) => {
    const outcome = await callNative(request, name, context, args, undefined);
    return resultValue(outcome);
  };
  builtInHandlers[name] = handler;
  catalog[name] = { metadata: { name, isWriteOp, description }, handler };
}

/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
export const ToolCatalog = catalog as unknown as ToolCatalogType;

/** The opt-in tools by name (`extraTools`); not in `ToolCatalog`, which stays the 13. */
export const optInTools = new Map<string, CatalogEntry>(optInCatalog().map((entry) => [entry.name, entry]));

