// ESM entry of agent-tools-native/ai: the CommonJS module's exports (one module instance for both).
export * from "./ai.cjs";
