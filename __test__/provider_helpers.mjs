// Helpers of the provider adapter tests: a local stand-in for a provider's HTTP API, and a
// toolkit whose tool calls the tests run with `invoke` as a user would.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { createAgentToolkit, createToolContext, defineTool } from "agent-tools-native";
import { ALLOW_ALL, tempDir } from "./helpers.mjs";

/**
 * An HTTP server on 127.0.0.1 (ephemeral port) answering each request with `replies[i]` in turn:
 * `{ json }`, `{ sse: [{ event?, data }] }` (server-sent events), `{ ndjson: [...] }` or
 * `{ status, json }`. Records every request (`method`, `url`, parsed `body`). Requests time out
 * after 5 s; `close()` ends every connection.
 */
export async function mockProvider(replies) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
      const reply = replies[Math.min(requests.length - 1, replies.length - 1)];
      if (reply.sse) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        for (const { event, data } of reply.sse) {
          res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
        }
        res.end();
      } else if (reply.ndjson) {
        res.writeHead(200, { "content-type": "application/x-ndjson" });
        for (const line of reply.ndjson) res.write(`${JSON.stringify(line)}\n`);
        res.end();
      } else {
        res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
        res.end(JSON.stringify(reply.json));
      }
    });
  });
  server.requestTimeout = 5000;
  server.headersTimeout = 5000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** Runs `fn(server)` with a mock provider, closed afterwards. */
export async function withProvider(replies, fn) {
  const server = await mockProvider(replies);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** `get_weather`: a user tool next to the built-ins. */
export const weatherTool = defineTool({
  name: "get_weather",
  description: "Current weather of a city",
  input: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, celsius: 21 }),
});

/** A workspace holding `notes.txt`, and a toolkit with every built-in and `get_weather` allowed. */
export function toolWorkspace() {
  const { dir, cleanup } = tempDir();
  fs.writeFileSync(path.join(dir, "notes.txt"), "alpha\nbeta\n");
  const context = createToolContext({ workspaceRoot: dir, policy: ALLOW_ALL });
  const toolkit = createAgentToolkit(context, { tools: [weatherTool] });
  return { root: dir, toolkit, cleanup };
}

/** Runs each call with `toolkit.invoke` and answers with tool result messages (errors included). */
export async function runCalls(toolkit, toolCalls) {
  return Promise.all(
    toolCalls.map(async (call) => {
      try {
        const out = await toolkit.invoke(call.function.name, JSON.parse(call.function.arguments));
        return { role: "tool", toolCallId: call.id, name: call.function.name, content: JSON.stringify(out.content) };
      } catch (error) {
        return { role: "tool", toolCallId: call.id, name: call.function.name, content: String(error.message), isError: true };
      }
    }),
  );
}

/** Collects the text deltas of an accumulator fed with an SDK stream. */
export async function drain(accumulator, stream) {
  let text = "";
  for await (const delta of accumulator.textStream(stream)) text += delta;
  return text;
}

/** Replaces ids we invented (`call_` + 24 hex digits) so results can be compared. */
export function withoutSyntheticIds(value) {
  return JSON.parse(JSON.stringify(value).replace(/"call_[0-9a-f]{24}"/g, '"<synthetic>"'));
}
