// Compile-time checks of the provider adapters (README, "Provider adapters") against the
// official SDK types: our
// outputs are assignable to each SDK's request types, each SDK's response / chunk types are
// accepted by our parsers, and `getAllowedTools()` output feeds straight into every mapping.
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type {
  FunctionTool,
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseInput,
  ResponseStreamEvent,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from "openai/resources/responses/responses";
import type Anthropic from "@anthropic-ai/sdk";
import type { Content, GenerateContentParameters, GenerateContentResponse, Tool as GeminiTool, ToolConfig } from "@google/genai";
import type { ChatRequest, ChatResponse, Message as OllamaMessage, Tool as OllamaTool } from "ollama";
import {
  checkToolHistory,
  createAgentToolkit,
  createAnthropicStream,
  createGeminiStream,
  createOllamaStream,
  createOpenAIChatStream,
  createOpenAIResponsesStream,
  createToolContext,
  defineTool,
  fromAnthropicResponse,
  fromGeminiResponse,
  fromOllamaResponse,
  fromOpenAIChatResponse,
  fromOpenAIResponsesResponse,
  hasToolCalls,
  isToolResult,
  toAnthropicRequest,
  toAnthropicToolChoice,
  toAnthropicTools,
  toGeminiRequest,
  toGeminiToolChoice,
  toGeminiTools,
  toOllamaRequest,
  toOllamaTools,
  toOpenAIChatRequest,
  toOpenAIChatToolChoice,
  toOpenAIChatTools,
  toOpenAIResponsesRequest,
  toOpenAIResponsesToolChoice,
  toOpenAIResponsesTools,
  toolCallIdMap,
  type ChatMessage,
  type QueryResult,
  type ToolCall,
  type ToolChoice,
  type ToolResultMessage,
} from "agent-tools-native";
import { z } from "zod";

const weather = defineTool({
  name: "get_weather",
  description: "Weather of a city",
  input: z.object({ city: z.string() }),
  strict: true,
  execute: ({ city }) => ({ city, celsius: 21 }),
});
const toolkit = createAgentToolkit(createToolContext<"get_weather">({ workspaceRoot: "/ws" }), { tools: [weather] });
// Readonly literal definitions of the built-ins, plus the user tool's definition.
const tools = toolkit.getAllowedTools();
const builtInsOnly = createAgentToolkit(createToolContext({ workspaceRoot: "/ws" })).getAllowedTools();

const messages: ChatMessage[] = [
  { role: "system", content: "terse" },
  { role: "user", content: "weather?" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
  { role: "tool", content: "21", toolCallId: "c1", name: "get_weather" },
];
const choices: ToolChoice[] = ["auto", "none", "required", { type: "function", function: { name: "get_weather" } }];

// ---- OpenAI Chat Completions ----------------------------------------------------------------------
export const chatParams: ChatCompletionCreateParamsNonStreaming = {
  model: "gpt-test",
  ...toOpenAIChatRequest({ messages, tools, toolChoice: "required", parallelToolCalls: false }),
};
export const chatTools: ChatCompletionTool[] = toOpenAIChatTools(builtInsOnly);
export const chatChoices: ChatCompletionToolChoiceOption[] = choices.map(toOpenAIChatToolChoice);
export const chatMessages: ChatCompletionMessageParam[] = toOpenAIChatRequest({ messages }).messages;
declare const completion: ChatCompletion;
declare const chatChunks: AsyncIterable<ChatCompletionChunk>;
export const chatResult: QueryResult = fromOpenAIChatResponse(completion);
export const chatText: AsyncGenerator<string> = createOpenAIChatStream().textStream(chatChunks);

// ---- OpenAI Responses ------------------------------------------------------------------------------
export const responsesParams: ResponseCreateParamsNonStreaming = {
  model: "gpt-test",
  ...toOpenAIResponsesRequest({ messages, tools, toolChoice: "auto" }),
};
export const responsesTools: FunctionTool[] = toOpenAIResponsesTools(tools);
export const responsesChoices: Array<ToolChoiceOptions | ToolChoiceFunction> = choices.map(toOpenAIResponsesToolChoice);
export const responsesInput: ResponseInput = toOpenAIResponsesRequest({ messages }).input;
declare const response: Response;
declare const responseEvent: ResponseStreamEvent;
export const responsesResult: QueryResult = fromOpenAIResponsesResponse(response);
export const responsesDelta: string = createOpenAIResponsesStream().push(responseEvent);

// ---- Anthropic ----------------------------------------------------------------------------------------
export const anthropicParams: Anthropic.MessageCreateParamsNonStreaming = {
  model: "claude-test",
  max_tokens: 1024,
  ...toAnthropicRequest({ messages, tools, toolChoice: "required", thinking: false }),
};
export const anthropicTools: Anthropic.Tool[] = toAnthropicTools(builtInsOnly);
export const anthropicChoices: Anthropic.ToolChoice[] = choices.map((c) => toAnthropicToolChoice(c, { parallelToolCalls: false }));
export const anthropicMessages: Anthropic.MessageParam[] = toAnthropicRequest({ messages }).messages;
declare const message: Anthropic.Message;
declare const anthropicEvents: AsyncIterable<Anthropic.RawMessageStreamEvent>;
export const anthropicResult: QueryResult = fromAnthropicResponse(message);
export const anthropicText: AsyncGenerator<string> = createAnthropicStream().textStream(anthropicEvents);

// ---- Gemini / Vertex (@google/genai) ---------------------------------------------------------------
export const geminiParams: GenerateContentParameters = {
  model: "gemini-test",
  ...toGeminiRequest({ messages, tools, toolChoice: { type: "function", function: { name: "get_weather" } } }),
};
export const geminiTools: GeminiTool[] = toGeminiTools(tools);
export const geminiJsonSchemaTools: GeminiTool[] = toGeminiTools(tools, { schema: "jsonSchema" });
export const geminiConfigs: ToolConfig[] = choices.map(toGeminiToolChoice);
export const geminiContents: Content[] = toGeminiRequest({ messages }).contents;
declare const geminiResponse: GenerateContentResponse;
declare const geminiChunks: AsyncGenerator<GenerateContentResponse>;
export const geminiResult: QueryResult = fromGeminiResponse(geminiResponse);
export const geminiText: AsyncGenerator<string> = createGeminiStream().textStream(geminiChunks);

// ---- Ollama -------------------------------------------------------------------------------------------
export const ollamaParams: ChatRequest = { model: "llama-test", ...toOllamaRequest({ messages, tools, toolChoice: "auto" }) };
export const ollamaTools: OllamaTool[] = toOllamaTools(tools);
export const ollamaMessages: OllamaMessage[] = toOllamaRequest({ messages }).messages;
declare const chatResponse: ChatResponse;
declare const ollamaChunks: AsyncIterable<ChatResponse>;
export const ollamaResult: QueryResult = fromOllamaResponse(chatResponse);
export const ollamaText: AsyncGenerator<string> = createOllamaStream().textStream(ollamaChunks);

// ---- common types ----------------------------------------------------------------------------------
export function guards(history: ChatMessage[]): string[] {
  const ids: string[] = [];
  for (const m of history) {
    if (hasToolCalls(m)) {
      const calls: ToolCall[] = m.toolCalls;
      ids.push(...calls.map((c) => c.id));
    } else if (isToolResult(m)) {
      const result: ToolResultMessage = m;
      ids.push(result.toolCallId);
    }
  }
  return ids;
}
export const problems: string[] = checkToolHistory(messages, "anthropic").map((p) => `${p.kind}@${p.messageIndex}`);
export const aliases: Record<string, string> = toolCallIdMap(messages, "openai-chat");
export function replay(result: QueryResult): ChatMessage[] {
  return [...messages, result.message];
}

// ---- the checks bite ----------------------------------------------------------------------------------
// @ts-expect-error an OpenAI completion is not an Anthropic message
fromAnthropicResponse(completion);
// @ts-expect-error a Gemini response is not an Ollama response
fromOllamaResponse(geminiResponse);
// @ts-expect-error an Anthropic request is not an OpenAI request
export const wrongRequest: ChatCompletionCreateParamsNonStreaming = { model: "m", ...toAnthropicRequest({ messages }) };
// @ts-expect-error the Gemini tool choice is a ToolConfig of enum modes, not a string
export const wrongConfig: ToolConfig = { functionCallingConfig: { mode: "ANY" } };
// @ts-expect-error "any" is Anthropic's word; our ToolChoice says "required"
toOpenAIChatToolChoice("any");
// @ts-expect-error unknown provider name
checkToolHistory(messages, "openai");
