"use strict";
// The thin JavaScript layer: what has to live in JavaScript (the AsyncLocalStorage behind
// SecurityBypass, the mutable ToolCatalog object, the positional tools.* functions and the error
// classes). Every decision (policy, checks, sandbox, tools) is made by the native core.

const os = require("node:os");
const { AsyncLocalStorage } = require("node:async_hooks");
const native = require("../binding.js");

// ---- SecurityBypass -------------------------------------------------------------------------

const bypassScope = new AsyncLocalStorage();

const SecurityBypass = {
  /** Runs `task` with the policy check bypassed for its whole async call tree. */
  run(task) {
    return bypassScope.run(true, async () => task());
  },
  isEnabled() {
    return bypassScope.getStore() === true;
  },
  /** Runs `task` with the bypass switched off, even inside `run` (quirks #4). */
  enforce(task) {
    return bypassScope.run(false, async () => task());
  },
};

// ---- errors ---------------------------------------------------------------------------------

class InvokeToolError extends Error {
  constructor(code, rawMessage, options = {}) {
    super(`${code}: ${rawMessage}`);
    this.name = "InvokeToolError";
    this.code = code;
    this.tool_name = options.tool_name;
    this.rawMessage = rawMessage;
  }

  toEnvelope() {
    return {
      code: this.code,
      message: this.rawMessage,
      retriable: this.code === "INTERNAL",
      details: this.tool_name ? { tool_name: this.tool_name } : {},
    };
  }
}

const toolErrorClasses = new Map();

/** The tool's own error class (`ReadFileError`, ...): an Error with own `name` and `code`. */
function toolError(className, code, message) {
  let ToolErrorClass = toolErrorClasses.get(className);
  if (!ToolErrorClass) {
    ToolErrorClass = class extends Error {
      constructor(errorCode, errorMessage) {
        super(errorMessage);
        this.name = className;
        this.code = errorCode;
      }
    };
    Object.defineProperty(ToolErrorClass, "name", { value: className });
    toolErrorClasses.set(className, ToolErrorClass);
  }
  return new ToolErrorClass(code, message);
}

function internalError(message) {
  return toolError("Error", "INTERNAL", `INTERNAL: ${message}`);
}

// ---- ToolResult envelopes --------------------------------------------------------------------

const DENIAL_CODES = { policy: "POLICY_DENIED", sandbox: "SANDBOX_VIOLATION" };

function denied(reason, message) {
  return {
    status: "denied",
    reason,
    message,
    error: { code: DENIAL_CODES[reason], message, retriable: false, details: {} },
  };
}

function failure(message) {
  return {
    status: "failure",
    reason: "runtime",
    message,
    error: { code: "RUNTIME_ERROR", message, retriable: true, details: {} },
  };
}

function messageOf(thrown) {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

// ---- ToolCatalog --------------------------------------------------------------------------------

const definitions = JSON.parse(native.toolDefinitionsJson());
const definitionByName = new Map(definitions.map((d) => [d.function.name, d]));

// Every native call also gets `process.env`: tools that start processes build the child's
// environment from it (Bun does not mirror run-time changes of `process.env` into the C
// environment, so inheriting would miss them); other tools ignore it.
const builtInHandlers = Object.create(null);
const ToolCatalog = {};
for (const { name, isWriteOp, description } of JSON.parse(native.catalogJson())) {
  const handler = async (context, ...args) =>
    valueOf(await native.runHandler(name, context, args, process.env));
  builtInHandlers[name] = handler;
  ToolCatalog[name] = { metadata: { name, isWriteOp, description }, handler };
}

/** The result of a raw handler call: the value, or the tool's error thrown. */
function valueOf(outcome) {
  switch (outcome.kind) {
    case "ok":
      return JSON.parse(outcome.json);
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw internalError(outcome.message);
  }
}

function callSite(name) {
  const entry = Object.prototype.hasOwnProperty.call(ToolCatalog, name) ? ToolCatalog[name] : undefined;
  return {
    entry,
    call: {
      name,
      registered: entry !== undefined,
      isWriteOp: entry?.metadata?.isWriteOp === true,
      bypass: SecurityBypass.isEnabled(),
    },
  };
}

// ---- createToolContext / createAgentToolkit -----------------------------------------------------

function createToolContext(params) {
  return {
    workspaceRoot: params.workspaceRoot,
    writeScope: params.writeScope ?? "workspace-write",
    policy: params.policy ?? { tools: {}, defaultPolicy: "deny" },
    env: { platform: os.platform(), osRelease: os.release() },
  };
}

/** `toolkit.tools.<name>(...args)`: never rejects, resolves with a ToolResult. */
async function secureCall(context, name, handler, args) {
  try {
    const { call } = callSite(name);
    const builtIn = handler === builtInHandlers[name];
    const outcome = await native.secureCall(context, call, args, builtIn, process.env);
    switch (outcome.kind) {
      case "ok":
        return { status: "success", data: JSON.parse(outcome.json) };
      case "prepared":
        return { status: "success", data: await handler(context, ...outcome.args) };
      case "denied":
        return denied(outcome.reason, outcome.message);
      case "internal":
        return failure(`INTERNAL: ${outcome.message}`);
      default:
        return failure(outcome.message);
    }
  } catch (thrown) {
    return failure(messageOf(thrown));
  }
}

/** `toolkit.invoke(name, args)`: resolves with `{ role, name, content }`, rejects on any error. */
async function invoke(context, name, args) {
  const toolName = String(name);
  const { entry, call } = callSite(toolName);
  const builtIn = entry !== undefined && entry.handler === builtInHandlers[toolName];
  const outcome = await native.invoke(context, call, args, builtIn, process.env);
  switch (outcome.kind) {
    case "ok":
      return { role: "function", name, content: JSON.parse(outcome.json) };
    case "prepared":
      return { role: "function", name, content: await ToolCatalog[toolName].handler(context, ...outcome.args) };
    case "invoke_error":
      throw new InvokeToolError(outcome.code, outcome.message, { tool_name: toolName });
    case "plain_error":
      throw new Error(outcome.message);
    case "tool_error":
      throw toolError(outcome.name, outcome.code, outcome.message);
    default:
      throw new InvokeToolError("INTERNAL", outcome.message, { tool_name: toolName });
  }
}

function createAgentToolkit(context) {
  const tools = {};
  for (const name of Object.keys(builtInHandlers)) {
    const handler = ToolCatalog[name].handler;
    tools[name] = (...args) => secureCall(context, name, handler, args);
  }
  return {
    tools,
    invoke: (name, args) => invoke(context, name, args),
    getAllowedTools: () => native.allowedToolNames(context).map((name) => definitionByName.get(name)),
  };
}

module.exports = { createToolContext, createAgentToolkit, ToolCatalog, SecurityBypass };
