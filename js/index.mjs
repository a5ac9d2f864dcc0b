// ESM entry: the same module instance as the CommonJS entry (one ToolCatalog, one bypass scope).
import toolkit from "./index.cjs";

export const { createToolContext, createAgentToolkit, ToolCatalog, SecurityBypass, defineTool, asTools, toToolMessageContent, OutputCache, outputCacheTools, applyOutputCache, doneTool, runToolLoop, streamToolLoop } = toolkit;
