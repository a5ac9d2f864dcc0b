// A scripted OpenAI Agents SDK Model for the tests: request n is answered with `steps[n](seen)`
// (`seen`: the function call results at the end of its input, as the model reads them), and
// `requests` collects what each request saw. It fails on an aborted signal, as a real one does.
import { Usage } from "@openai/agents";

/** The function call results at the end of a request's input, as the model reads them. */
function seenIn(input) {
  const seen = [];
  if (!Array.isArray(input)) return seen;
  for (let i = input.length - 1; i >= 0 && input[i].type === "function_call_result"; i--) {
    const { callId, name, output } = input[i];
    seen.unshift({ id: callId, name, text: typeof output === "string" ? output : output.text });
  }
  return seen;
}

export function scriptedAgentsModel(steps, requests = []) {
  return {
    async getResponse(request) {
      request.signal?.throwIfAborted();
      const seen = seenIn(request.input);
      requests.push(seen);
      const step = steps[requests.length - 1](seen);
      const output = step.calls
        ? step.calls.map((c) => ({ type: "function_call", callId: c.id, name: c.name, arguments: JSON.stringify(c.args), status: "completed" }))
        : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text }] }];
      return { usage: new Usage(), output, responseId: `r${requests.length}` };
    },
    // biome-ignore lint/correctness/useYield: the runs here do not stream
    async *getStreamedResponse() {
      throw new Error("not used");
    },
  };
}
