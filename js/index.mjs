// ESM entry: the CommonJS entry's exports, one module instance for both (one ToolCatalog, one
// bypass scope). Node finds the names statically in js/index.cjs (tsc's `exports.name = ...`).
export * from "./index.cjs";
