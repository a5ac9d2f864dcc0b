"use strict";
// Generated from ts/catalog.cts by `npm run build:ts`: edit that file, not this one.
// ToolCatalog (the 13 built-in tools: metadata and raw handler, replaceable by the caller), the
// built-in definitions, and the opt-in tools of the native registry.
exports.optInTools = exports.ToolCatalog = exports.catalog = exports.builtInHandlers = exports.definitionByName = exports.definitions = void 0;
const native_cjs_1 = require("./native.cjs");
const native_call_cjs_1 = require("./native_call.cjs");
const native = (0, native_cjs_1.loadNative)();
exports.definitions = JSON.parse(native.toolDefinitionsJson());
exports.definitionByName = new Map(exports.definitions.map((d) => [d.function.name, d]));
exports.builtInHandlers = Object.create(null);
exports.catalog = {};
for (const { name, isWriteOp, description } of (0, native_cjs_1.builtInCatalog)()) {
    const request = (0, native_call_cjs_1.packCall)(name, native_call_cjs_1.DOOR_HANDLER);
    const handler = async (context, ...args) => {
        const outcome = await (0, native_call_cjs_1.callNative)(request, name, context, args, undefined);
        return (0, native_call_cjs_1.resultValue)(outcome);
    };
    exports.builtInHandlers[name] = handler;
    exports.catalog[name] = { metadata: { name, isWriteOp, description }, handler };
}
/** The built-in tools by name: each one's metadata and raw handler (no policy or sandbox checks). */
exports.ToolCatalog = exports.catalog;
/** The opt-in tools by name (`extraTools`); not in `ToolCatalog`, which stays the 13. */
exports.optInTools = new Map((0, native_cjs_1.optInCatalog)().map((entry) => [entry.name, entry]));
