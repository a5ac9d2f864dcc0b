// A scripted AI SDK model (MockLanguageModelV4 from ai/test) for the adapter tests: the AI SDK's
// own loop drives it, and so does Mastra's (it takes AI SDK models). Each step of the script
// sees the tool results of the turn before it and answers with tool calls or a final text.
import { MockLanguageModelV4 } from "ai/test";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The tool results of a prompt's last turn, as the model reads them. */
function seenIn(prompt) {
  const seen = [];
  for (let i = prompt.length - 1; i >= 0 && prompt[i].role === "tool"; i--) {
    for (const part of prompt[i].content) {
      if (part.type !== "tool-result") continue;
      const { type, value } = part.output;
      seen.unshift({ id: part.toolCallId, name: part.toolName, text: typeof value === "string" ? value : JSON.stringify(value), isError: type.startsWith("error") });
    }
  }
  return seen;
}

/** A model answering `steps[n](seen)` on its n-th request; `requests` collects what each request saw. */
export function scriptedModel(steps, requests) {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      // As a real provider's request would, an aborted signal fails the call.
      options.abortSignal?.throwIfAborted();
      const seen = seenIn(options.prompt);
      requests.push(seen);
      const step = steps[requests.length - 1](seen);
      if (step.calls) {
        return {
          content: step.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: "text", text: step.text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
}
