// Generated from ts/sessions.cts by `npm run build:ts`: edit that file, not this one.
import type { LlmSession } from "./loop.cjs";
import { type ChatMessage } from "./providers.cjs";
/** Options of `createProviderSession`. */
export type ProviderSessionOptions = {
    provider: "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "ollama";
    /** The official SDK client (`new OpenAI()`, `new Anthropic()`, `new GoogleGenAI()`, `new Ollama()`). */
    client: unknown;
    model: string;
    /** A system prompt, first in the history. */
    system?: string;
    /** Stream answers; text deltas reach the loop's `text_delta` events. */
    stream?: boolean;
    /** Extra fields merged into every request (e.g. `{ temperature: 0 }`, `{ max_tokens: 8192 }`). */
    request?: Record<string, unknown>;
    /** Extra adapter options (e.g. `{ parallelToolCalls: false }`). */
    requestOptions?: Record<string, unknown>;
};
/**
 * A ready-made `LlmSession` over an official SDK client, built on the provider adapters.
 * `stream` passes text deltas and tool-call fragments to the loop's events; `request` fields
 * are merged into every request; `requestOptions` are extra adapter options.
 */
export declare function createProviderSession({ provider, client, model, system, stream, request, requestOptions, }: ProviderSessionOptions): LlmSession & {
    /** The conversation so far, in the common `ChatMessage` shape. */
    readonly messages: ChatMessage[];
};
