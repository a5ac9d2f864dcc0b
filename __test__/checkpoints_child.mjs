// A second process on a workspace's journal (checkpoints.test.mjs): `list`, `restore ID`, or
// `write REL CONTENT...` (one write_file call each), with the journal in JOURNAL_DIR (or the
// default place when it is empty). Prints its result as JSON on stdout.
import { createAgentToolkit, createToolContext } from "agent-tools-native";

const [root, journalDir, op, ...rest] = process.argv.slice(2);
const context = createToolContext({ workspaceRoot: root, policy: { tools: {}, defaultPolicy: "allow" } });
const toolkit = createAgentToolkit(context, { checkpoints: journalDir ? { dir: journalDir } : true });
let result;
if (op === "list") result = await toolkit.checkpoints.list();
else if (op === "restore") result = await toolkit.checkpoints.restore(rest[0]);
else if (op === "write") {
  for (let i = 0; i + 1 < rest.length; i += 2) await toolkit.invoke("write_file", { path: rest[i], content: rest[i + 1] });
  result = "written";
}
process.stdout.write(JSON.stringify(result));
