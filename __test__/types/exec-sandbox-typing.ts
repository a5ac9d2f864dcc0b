// exec_command's opt-in OS sandbox in the typings, checked by `tsc -p tsconfig.json`: the
// context option, the result's `sandbox` field and the review request's. Every
// `@ts-expect-error` line must fail to compile.
import { createAgentToolkit, createToolContext, type ExecOptions, type ExecSandbox, type ReviewRequest } from "agent-tools-native";

const ctx = createToolContext({ workspaceRoot: "/ws", exec: { sandbox: "required", network: "deny" } });
const options: ExecOptions | undefined = ctx.exec;
// @ts-expect-error: not a sandbox mode
createToolContext({ workspaceRoot: "/ws", exec: { sandbox: "on" } });
// @ts-expect-error: not a network setting
createToolContext({ workspaceRoot: "/ws", exec: { sandbox: "auto", network: "localhost" } });

export async function compiles(): Promise<string | number | undefined> {
  const out = await createAgentToolkit(ctx).invoke("exec_command", { cwd: ".", command: ["pwd"] });
  const sandbox: ExecSandbox | undefined = out.content.sandbox;
  void options;
  switch (sandbox?.kind) {
    case "landlock":
      return sandbox.abi;
    case "seatbelt":
      return sandbox.write;
    case "none":
      return sandbox.reason;
    default:
      return undefined;
  }
}

export function approve(request: ReviewRequest): boolean {
  const sandbox = request.sandbox;
  return sandbox !== undefined && sandbox.kind !== "none" && sandbox.write !== "all" && sandbox.network === "denied";
}
