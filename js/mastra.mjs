// ESM entry of agent-tools-native/mastra: the CommonJS module's exports (one module instance for both).
export * from "./mastra.cjs";
