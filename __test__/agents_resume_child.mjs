// Child process of adapters_openai_agents.test.mjs: resumes a saved OpenAI Agents SDK run in a
// process of its own, as a server would after a restart. argv: the workspace, the file holding
// `RunState.toString()`, the call id to approve (every other interrupted call is rejected).
// Prints what the model was sent and the run's final output, as JSON.
import fs from "node:fs";
import { Agent, Runner, RunState, setTracingDisabled } from "@openai/agents";
import { createAgentToolkit, createToolContext } from "agent-tools-native";
import { toOpenAIAgentsTools } from "agent-tools-native/openai-agents";
import { scriptedAgentsModel } from "./agents_mock.mjs";

setTracingDisabled(true);
const [dir, stateFile, approveId] = process.argv.slice(2);
const tools = toOpenAIAgentsTools(createAgentToolkit(createToolContext({ workspaceRoot: dir, policy: { tools: {}, defaultPolicy: "allow" } })));
const agent = new Agent({ name: "worker", instructions: "Do the task.", tools });
const state = await RunState.fromString(agent, fs.readFileSync(stateFile, "utf8"));
for (const item of state.getInterruptions()) {
  if (item.rawItem.callId === approveId) state.approve(item);
  else state.reject(item);
}
const requests = [];
const runner = new Runner({ modelProvider: { getModel: () => scriptedAgentsModel([() => ({ text: "done" })], requests) }, tracingDisabled: true });
const result = await runner.run(agent, state, { maxTurns: 10 });
process.stdout.write(JSON.stringify({ finalOutput: result.finalOutput, seen: requests.at(-1) }));
