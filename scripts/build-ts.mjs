#!/usr/bin/env node
// `npm run build:ts`: compiles the JavaScript layer's sources, ts/*.cts (ts/tsconfig.json), to the
// shipped js/*.cjs and their declarations js/*.d.cts, and writes index.d.ts, the package's typings
// entry: each public name of js/index.d.cts re-exported in the form the typings tests read.
// `--out DIR` writes DIR/js/ and DIR/index.d.ts instead (__test__/js_build.test.mjs compares them
// with the checked-in files).
//
// It also writes js/output_schemas.json: the JSON Schema of each built-in and opt-in tool's output,
// derived from its TypeScript type (ToolResultByName and OptInToolResultByName in types/tools.d.ts,
// themselves generated from the Rust types), for the MCP server's `outputSchema` (ts/cli.cts).
//
// One step after tsc: the `__esModule` marker tsc puts on every CommonJS module is left out. The
// package never had it: with it, Node's ESM view of the package would list `__esModule` as an
// export (js/index.mjs is `export * from "./index.cjs"`), and a default import would no longer be
// the exports object.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outFlag = process.argv.indexOf("--out");
const out = outFlag === -1 ? root : path.resolve(process.argv[outFlag + 1]);

const MARKER = 'Object.defineProperty(exports, "__esModule", { value: true });\n';

const configPath = path.join(root, "ts", "tsconfig.json");
const config = ts.readConfigFile(configPath, ts.sys.readFile);
if (config.error) fail([config.error]);
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath));
if (parsed.errors.length) fail(parsed.errors);
const program = ts.createProgram(parsed.fileNames, { ...parsed.options, outDir: path.join(out, "js") });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length) fail(diagnostics);

const emitted = program.emit(undefined, (fileName, text) => {
  const source = `ts/${path.basename(fileName).replace(/\.d\.cts$|\.cjs$/, ".cts")}`;
  const header = `// Generated from ${source} by \`npm run build:ts\`: edit that file, not this one.\n`;
  let body = text;
  // A shebang (the bin, ts/cli.cts) stays the first line.
  const shebang = body.startsWith("#!") ? body.slice(0, body.indexOf("\n") + 1) : "";
  body = body.slice(shebang.length);
  if (fileName.endsWith(".cjs")) {
    if (!body.includes(MARKER)) throw new Error(`${fileName}: tsc's __esModule marker not found`);
    body = body.replace(MARKER, "").replace(/^"use strict";\n/, `"use strict";\n${header}`);
  } else {
    body = header + body;
  }
  body = shebang + body;
  fs.mkdirSync(path.dirname(fileName), { recursive: true });
  fs.writeFileSync(fileName, body);
});
if (emitted.emitSkipped || emitted.diagnostics.length) fail(emitted.diagnostics);

fs.writeFileSync(path.join(out, "index.d.ts"), typingsEntry());
fs.writeFileSync(path.join(out, "js", "output_schemas.json"), `${JSON.stringify(outputSchemas(), null, 2)}\n`);

/**
 * `{ [tool]: JSON Schema }` of each built-in tool's output (ToolResultByName), then of each opt-in
 * tool's (OptInToolResultByName). Named types of
 * types/tools.d.ts referenced inside an output go to `$defs` (the tree's nodes are recursive);
 * objects stay open (no `additionalProperties: false`), optional properties are not `required`.
 */
function outputSchemas() {
  const checker = program.getTypeChecker();
  const typesFile = program.getSourceFile(path.join(root, "types", "tools.d.ts"));
  if (!typesFile) throw new Error("types/tools.d.ts is not part of the program");
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(typesFile));
  const maps = ["ToolResultByName", "OptInToolResultByName"].map((name) => {
    const symbol = exports.find((s) => s.name === name);
    if (!symbol) throw new Error(`types/tools.d.ts exports no ${name}`);
    return checker.getDeclaredTypeOfSymbol(symbol);
  });
  const result = {};
  for (const prop of maps.flatMap((map) => checker.getPropertiesOfType(map))) {
    const defs = {};
    const named = (type) => {
      const alias = type.aliasSymbol;
      if (!alias || alias.declarations?.[0]?.getSourceFile() !== typesFile) return null;
      return alias.name;
    };
    const convert = (type, top = false) => {
      const name = top ? null : named(type);
      if (name && (type.flags & ts.TypeFlags.Object || type.flags & ts.TypeFlags.Union) && !(type.flags & ts.TypeFlags.Boolean)) {
        if (!(name in defs)) {
          defs[name] = {};
          defs[name] = shape(type);
        }
        return { $ref: `#/$defs/${name}` };
      }
      return shape(type);
    };
    const shape = (type) => {
      const f = type.flags;
      if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
      if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
      if (f & ts.TypeFlags.String) return { type: "string" };
      if (f & ts.TypeFlags.Number) return { type: "number" };
      if (f & ts.TypeFlags.Null) return { type: "null" };
      if (f & ts.TypeFlags.StringLiteral || f & ts.TypeFlags.NumberLiteral) return { const: type.value };
      if (f & ts.TypeFlags.BooleanLiteral) return { const: checker.typeToString(type) === "true" };
      if (type.isUnion()) {
        const members = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
        if (members.every((t) => t.flags & ts.TypeFlags.StringLiteral)) return { type: "string", enum: members.map((t) => t.value) };
        const bools = members.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
        const rest = members.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
        const parts = [...(bools.length === 2 ? [{ type: "boolean" }] : bools.map(convert)), ...rest.map((t) => convert(t))];
        return parts.length === 1 ? parts[0] : { anyOf: parts };
      }
      if (checker.isArrayType(type)) return { type: "array", items: convert(checker.getTypeArguments(type)[0]) };
      if (f & ts.TypeFlags.Object) {
        const schema = { type: "object" };
        const properties = {};
        const required = [];
        for (const p of checker.getPropertiesOfType(type)) {
          properties[p.name] = convert(checker.getTypeOfSymbol(p));
          if (!(p.flags & ts.SymbolFlags.Optional)) required.push(p.name);
        }
        if (Object.keys(properties).length) schema.properties = properties;
        if (required.length) schema.required = required;
        const index = checker.getIndexTypeOfType(type, ts.IndexKind.String);
        if (index && !(index.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) schema.additionalProperties = convert(index);
        return schema;
      }
      throw new Error(`output schema of ${prop.name}: no JSON Schema for the type ${checker.typeToString(type)}`);
    };
    const schema = convert(checker.getTypeOfSymbol(prop), true);
    if (schema.type !== "object") throw new Error(`output schema of ${prop.name}: not an object type`);
    result[prop.name] = Object.keys(defs).length ? { ...schema, $defs: defs } : schema;
  }
  return result;
}

/**
 * index.d.ts: the public names of ts/index.cts, each re-exported from js/index.d.cts — types in one
 * `export type { ... }`, values as `export declare const X: typeof api.X` (a class as a class
 * extending it, so its name stays a type too) with their documentation — then the `export *`s.
 */
function typingsEntry() {
  const checker = program.getTypeChecker();
  const index = program.getSourceFile(path.join(root, "ts", "index.cts"));
  const types = [];
  const values = [];
  for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(index))) {
    // Names that come through `export *` are re-exported by the same `export *` below.
    if (!symbol.declarations?.some((d) => d.getSourceFile() === index)) continue;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const name = symbol.name;
    if (!(target.flags & ts.SymbolFlags.Value)) {
      types.push(name);
      continue;
    }
    const isClass = checker.getTypeOfSymbol(target).getConstructSignatures().length > 0;
    const declaration = isClass
      ? `export declare class ${name} extends api.${name} {}`
      : `export declare const ${name}: typeof api.${name};`;
    values.push(docComment(ts.displayPartsToString(target.getDocumentationComment(checker))) + declaration);
  }
  const stars = index.statements
    .filter((s) => ts.isExportDeclaration(s) && !s.exportClause && s.moduleSpecifier)
    .map((s) => `export * from "./js/${s.moduleSpecifier.text.replace(/^\.\//, "")}";`);
  return [
    "// Public typings of agent-tools-native: the same surface as agent-tools-ts v0.6.0 (four runtime",
    "// exports, twelve type exports) plus this package's own. Generated by `npm run build:ts`",
    "// (scripts/build-ts.mjs) from the declarations tsc emits for ts/index.cts (js/index.d.cts).",
    "// Tool input/output types come from the Rust types (types/tools.d.ts).",
    "",
    'import type * as api from "./js/index.cjs";',
    "",
    `export type {\n${types.map((t) => `  ${t},\n`).join("")}} from "./js/index.cjs";`,
    "",
    ...values,
    "",
    ...stars,
    "",
  ].join("\n");
}

function docComment(text) {
  if (!text) return "";
  const lines = text.split("\n");
  if (lines.length === 1) return `/** ${lines[0]} */\n`;
  return `/**\n${lines.map((l) => (l ? ` * ${l}` : " *")).join("\n")}\n */\n`;
}

function fail(list) {
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(list, host));
  process.exit(1);
}
