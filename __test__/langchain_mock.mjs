// A scripted LangChain chat model for the tests (a BaseChatModel of @langchain/core): each
// request is answered with `respond(messages)`; it records the tools bound to it and fails on an
// aborted signal, as a real one does.
import { BaseChatModel } from "@langchain/core/language_models/chat_models";

export class ScriptedChatModel extends BaseChatModel {
  constructor(respond) {
    super({});
    this.respond = respond;
  }
  _llmType() {
    return "scripted";
  }
  bindTools(tools) {
    this.boundTools = tools.map((t) => t.name);
    return this;
  }
  async _generate(messages, options) {
    options?.signal?.throwIfAborted();
    const message = this.respond(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}
