// User tools for the MCP server's `--tools` option (__test__/mcp.test.mjs): a default export
// array and a named export, one tool failing on purpose (and declared as writing).
import { defineTool } from "agent-tools-native";
import { z } from "zod";

export const shout = defineTool({
  name: "shout",
  description: "Upper-cases a text.",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => ({ loud: text.toUpperCase(), length: text.length }),
});

const fails = defineTool({
  name: "always_fails",
  description: "Throws.",
  input: z.object({}),
  writes: true,
  execute: () => {
    throw Object.assign(new Error("this tool always fails"), { code: "BROKEN" });
  },
});

export default [shout, fails];
