"use strict";
// Generated from ts/index.cts by `npm run build:ts`: edit that file, not this one.
// The package's entry: re-exports only. The thin JavaScript layer holds what has to live in
// JavaScript (the AsyncLocalStorage behind SecurityBypass, the mutable ToolCatalog object, the
// positional tools.* functions and the error classes); every decision (policy, checks, sandbox,
// tools) is made by the native core. Its modules and their layers: docs/architecture.md,
// "Module map" (kept true by __test__/architecture.test.mjs).
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
exports.createProviderSession = exports.streamToolLoop = exports.runToolLoop = exports.doneTool = exports.applyOutputCache = exports.outputCacheTools = exports.OutputCache = exports.toToolMessageContent = exports.asTools = exports.defineTool = exports.SecurityBypass = exports.ToolCatalog = exports.createAgentToolkit = exports.createToolContext = void 0;
const bypass = __importStar(require("./bypass.cjs"));
const catalog = __importStar(require("./catalog.cjs"));
const context = __importStar(require("./context.cjs"));
const loopRuntime = __importStar(require("./loop_runtime.cjs"));
const toolkit = __importStar(require("./toolkit.cjs"));
const user_tools_cjs_1 = require("./user_tools.cjs");
Object.defineProperty(exports, "applyOutputCache", { enumerable: true, get: function () { return user_tools_cjs_1.applyOutputCache; } });
Object.defineProperty(exports, "defineTool", { enumerable: true, get: function () { return user_tools_cjs_1.defineTool; } });
Object.defineProperty(exports, "doneTool", { enumerable: true, get: function () { return user_tools_cjs_1.doneTool; } });
Object.defineProperty(exports, "outputCacheTools", { enumerable: true, get: function () { return user_tools_cjs_1.outputCacheTools; } });
Object.defineProperty(exports, "toToolMessageContent", { enumerable: true, get: function () { return user_tools_cjs_1.toToolMessageContent; } });
// The values defined in this package's own modules are exported as plain properties of the
// module object (`exports.name = value`), as they were when this file defined them.
var createToolContext = context.createToolContext;
exports.createToolContext = createToolContext;
var createAgentToolkit = toolkit.createAgentToolkit;
exports.createAgentToolkit = createAgentToolkit;
var ToolCatalog = catalog.ToolCatalog;
exports.ToolCatalog = ToolCatalog;
var SecurityBypass = bypass.SecurityBypass;
exports.SecurityBypass = SecurityBypass;
var asTools = toolkit.asTools;
exports.asTools = asTools;
var OutputCache = toolkit.OutputCache;
exports.OutputCache = OutputCache;
var runToolLoop = loopRuntime.runToolLoop;
exports.runToolLoop = runToolLoop;
var streamToolLoop = loopRuntime.streamToolLoop;
exports.streamToolLoop = streamToolLoop;
var sessions_cjs_1 = require("./sessions.cjs");
Object.defineProperty(exports, "createProviderSession", { enumerable: true, get: function () { return sessions_cjs_1.createProviderSession; } });
__exportStar(require("./providers.cjs"), exports);
