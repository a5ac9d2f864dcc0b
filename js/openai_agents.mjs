// ESM entry of agent-tools-native/openai-agents: the CommonJS module's exports (one module instance for both).
export * from "./openai_agents.cjs";
