// The agent part of `npm run demo`: a scripted model session (deterministic, no network) fixes a
// failing test in a temporary project through the tool loop, printing a live transcript.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAgentToolkit, createProviderSession, createToolContext, streamToolLoop } from "agent-tools-native";

const SUM_BUGGY = "export function sum(values) {\n  let total = 0;\n  for (let i = 1; i < values.length; i++) total += values[i];\n  return total;\n}\n";
const TEST = 'import { sum } from "./sum.mjs";\nconst got = sum([1, 2, 3]);\nif (got !== 6) {\n  console.error(`FAIL: sum([1, 2, 3]) = ${got}, expected 6`);\n  process.exit(1);\n}\nconsole.log("PASS: sum([1, 2, 3]) = 6");\n';
const FIX = [
  "--- a/src/sum.mjs",
  "+++ b/src/sum.mjs",
  "@@ -1,5 +1,5 @@",
  " export function sum(values) {",
  "   let total = 0;",
  "-  for (let i = 1; i < values.length; i++) total += values[i];",
  "+  for (let i = 0; i < values.length; i++) total += values[i];",
  "   return total;",
  " }",
  "",
].join("\n");

/** A model that knows the way: each response in turn (an LlmSession). */
function scriptedModel() {
  const turns = [
    {
      text: "The test fails. I'll read the implementation and find where sum is defined.",
      calls: [
        ["read_file", { path: "src/sum.mjs" }],
        ["regexp_search", { pattern: "function sum", root_path: "src" }],
      ],
    },
    { text: "The loop starts at index 1 and skips the first value. Patching it.", calls: [["apply_patch", { filePath: "src/sum.mjs", patch: FIX }]] },
    { text: "Running the test again.", calls: [["exec_command", { cwd: ".", command: [process.execPath, "src/sum.test.mjs"] }]] },
    { text: "Fixed: sum() now starts at index 0 and the test passes.", calls: [] },
  ];
  let turn = 0;
  const respond = async ({ emit }) => {
    const { text, calls } = turns[turn++];
    for (const word of text.split(/(?<= )/)) emit({ type: "text_delta", text: word });
    return {
      content: [{ type: "text", text }, ...calls.map(([name, input], i) => ({ type: "tool_use", id: `call_${turn}_${i}`, name, input }))],
      stopReason: calls.length ? "tool_use" : "end_turn",
    };
  };
  return { sendWithTools: (_prompt, _tools, options) => respond(options), sendToolResults: (_results, options) => respond(options) };
}

/**
 * `npm run demo -- --live`: the same loop against a real model when an API key is present
 * (OPENAI_API_KEY, or ANTHROPIC_API_KEY; model from AGENT_DEMO_MODEL). Without one, the scripted
 * model runs.
 */
async function liveSession() {
  if (!process.argv.includes("--live")) return null;
  const system = "You fix bugs in a small JavaScript project with the tools you are given. Read before you patch; run the test with exec_command (node src/sum.test.mjs) after patching.";
  if (process.env.OPENAI_API_KEY) {
    const { default: OpenAI } = await import("openai");
    return createProviderSession({ provider: "openai-chat", client: new OpenAI(), model: process.env.AGENT_DEMO_MODEL ?? "gpt-4.1-mini", system, stream: true });
  }
  if (process.env.ANTHROPIC_API_KEY) {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    return createProviderSession({ provider: "anthropic", client: new Anthropic(), model: process.env.AGENT_DEMO_MODEL ?? "claude-sonnet-4-5", system, stream: true });
  }
  console.log("--live needs OPENAI_API_KEY or ANTHROPIC_API_KEY; running the scripted model instead.");
  return null;
}

export async function runAgentDemo() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atn-agent-")));
  try {
    fs.mkdirSync(path.join(root, "src"));
    fs.writeFileSync(path.join(root, "src/sum.mjs"), SUM_BUGGY);
    fs.writeFileSync(path.join(root, "src/sum.test.mjs"), TEST);
    const context = createToolContext({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "allow" } });
    const toolkit = createAgentToolkit(context);
    console.log(`\n# Agent run: fix the failing test in ${root}\n`);
    const run = streamToolLoop({
      session: (await liveSession()) ?? scriptedModel(),
      toolkit,
      prompt: "npm test fails in this project; fix it.",
      review: async () => ({ decision: "approve" }), // a real agent would ask a person here
    });
    let line = "";
    for await (const event of run) {
      switch (event.type) {
        case "turn_start":
          line = `[turn ${event.turn}] model: `;
          process.stdout.write(line);
          break;
        case "text_delta":
          process.stdout.write(event.text);
          break;
        case "response":
          process.stdout.write("\n");
          break;
        case "review_request":
          console.log(`   review: ${event.name} ${JSON.stringify(event.preview.path ?? event.preview.command)}`);
          break;
        case "review_decision":
          console.log(`   review: ${event.decision.decision}`);
          break;
        case "tool_start":
          console.log(`   → ${event.name} ${JSON.stringify(event.args).slice(0, 90)}`);
          break;
        case "tool_finish":
          console.log(`   ← ${event.name} ${event.is_error ? "ERROR" : "ok"} in ${event.duration_ms} ms`);
          break;
        case "completed":
          console.log(`\nstop: ${event.result.stopReason} after ${event.result.turns.length} tool turns`);
          break;
      }
    }
    const result = await run.result;
    const exec = result.messages.filter((m) => m.role === "tool").flatMap((m) => m.results).find((r) => r.tool_name === "exec_command");
    if (exec && !exec.is_error) console.log(`test output: ${JSON.parse(exec.output).stdout.trim()}`);
    console.log(`src/sum.mjs now:\n${fs.readFileSync(path.join(root, "src/sum.mjs"), "utf8")}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
