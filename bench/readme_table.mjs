// Puts a benchmark's table into bench/README.md between its markers `<!-- NAME:start -->` and
// `<!-- NAME:end -->` (the scripts' `--write`).
import fs from "node:fs";

export function writeReadmeTable(readmePath, name, table) {
  const text = fs.readFileSync(readmePath, "utf8");
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const at = text.indexOf(start);
  const until = text.indexOf(end);
  if (at < 0 || until < at) throw new Error(`${readmePath} has no ${start} … ${end} markers`);
  fs.writeFileSync(readmePath, `${text.slice(0, at + start.length)}\n${table}\n${text.slice(until)}`);
}
