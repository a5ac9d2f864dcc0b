// ESM entry of agent-tools-native/langchain: the CommonJS module's exports (one module instance for both).
export * from "./langchain.cjs";
