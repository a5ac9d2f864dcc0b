// The subpath entries' types under the older `moduleResolution: "node"` (tsconfig.node10.json),
// found through package.json's typesVersions (that resolution reads no `exports`).
import type { FrameworkAdapterOptions } from "agent-tools-native/ai";
import type { toLangChainTools } from "agent-tools-native/langchain";
import type { toMastraTools } from "agent-tools-native/mastra";
import type { toOpenAIAgentsTools } from "agent-tools-native/openai-agents";

const options: FrameworkAdapterOptions = { approval: "none" };
type Adapters = [typeof toLangChainTools, typeof toMastraTools, typeof toOpenAIAgentsTools];
export const checked: [FrameworkAdapterOptions, Adapters | undefined] = [options, undefined];
