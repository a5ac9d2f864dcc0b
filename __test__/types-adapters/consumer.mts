// Compile-time checks of the framework adapters (README, "Frameworks"): each adapter's tools go
// where its framework takes tools, with the options runToolLoop's review hook uses.
import { Agent as OpenAIAgent, run } from "@openai/agents";
import type { FunctionTool } from "@openai/agents";
import { tool as langChainTool } from "@langchain/core/tools";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Agent as MastraAgent } from "@mastra/core/agent";
import { generateText, stepCountIs, type ToolSet } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createAgentToolkit, createToolContext, OutputCache, type ReviewDecision, type ReviewRequest } from "agent-tools-native";
import { toAISDKTools, type FrameworkAdapterOptions } from "agent-tools-native/ai";
import { toLangChainTools } from "agent-tools-native/langchain";
import { toMastraTools } from "agent-tools-native/mastra";
import { toOpenAIAgentsTools } from "agent-tools-native/openai-agents";

const context = createToolContext({ workspaceRoot: "/tmp/ws", policy: { tools: {}, defaultPolicy: "allow" } });
const toolkit = createAgentToolkit(context, { extraTools: ["edit_file"] });
const review = async (request: ReviewRequest): Promise<ReviewDecision> =>
  request.preview.kind === "write_file" ? { decision: "approve" } : { decision: "reject", reason: "ask first" };
const options: FrameworkAdapterOptions = { review, outputCache: new OutputCache(50_000), maxOutputChars: 10_000 };

// AI SDK: a ToolSet for generateText.
const aiTools: ToolSet = toAISDKTools(toolkit, options);
export const aiRun = () => generateText({ model: new MockLanguageModelV4(), tools: aiTools, prompt: "go", stopWhen: stepCountIs(5), abortSignal: AbortSignal.timeout(1000) });

// LangChain: structured tools, invoked with a tool call.
const lcTools: StructuredToolInterface[] = toLangChainTools(toolkit, { review });
export const lcCall = () => lcTools[0]?.invoke({ id: "1", name: "read_file", args: { path: "a" }, type: "tool_call" });
void langChainTool;

// OpenAI Agents: function tools of an Agent.
const agentTools: FunctionTool[] = toOpenAIAgentsTools(toolkit, options);
const agent = new OpenAIAgent({ name: "worker", instructions: "Work.", tools: agentTools });
export const agentRun = () => run(agent, "go", { signal: AbortSignal.timeout(1000) });

// Mastra: the tools record of an Agent.
export const mastraAgent = new MastraAgent({ id: "worker", name: "worker", instructions: "Work.", model: "openai/gpt-4.1", tools: toMastraTools(toolkit, options) });

// @ts-expect-error: the options are checked (review is a function)
toAISDKTools(toolkit, { review: "yes" });
// @ts-expect-error: a toolkit is required
toOpenAIAgentsTools();
