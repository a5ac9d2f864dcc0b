// The test API of every suite: node:test's `test`, `describe` and hooks, with skips that are
// counted one by one, under Node and under Bun.
//
// A skipped `describe` is not skipped as a whole (Node would count it as one skip, and Bun would
// neither count nor list its tests): its body still runs, every test in it is registered as a
// skipped test with the describe's reason, and its hooks are left out. So each runtime's skip
// total is the number of tests that did not run, and each is listed with its reason: Node prints
// the reason with the skip; Bun does not, so each skipped test is also written to stderr as
// `skipped: <describe > … > test> # <reason>`. A skip needs a reason (a string).
import * as nodeTest from "node:test";

const bun = Boolean(process.versions.bun);
// A bound per test for Node, as `bun test --timeout` gives Bun (scripts/test-windows.sh sets it
// under wine): a test that hangs fails by name instead of holding its file until the file's own
// bound. A test's own `timeout` option wins.
const nodeTimeout = !bun && Number(process.env.ATN_NODE_TEST_TIMEOUT_MS) > 0 ? Number(process.env.ATN_NODE_TEST_TIMEOUT_MS) : undefined;

/** The describe whose body runs now: its name path and, when skipped, the reason. */
let scope = { path: [], skip: undefined };

/** Runs `fn` (a describe's body) within `inner`. */
function within(inner, fn) {
  const outer = scope;
  scope = inner;
  try {
    return fn();
  } finally {
    scope = outer;
  }
}

/** `(name, fn)` or `(name, options, fn)`; anything else is a mistake in the suite. */
function parse(kind, args) {
  const [name, second, third] = args;
  const shaped = typeof name === "string" && (args.length === 2 ? typeof second === "function" : args.length === 3 && typeof second === "object" && second !== null && typeof third === "function");
  if (!shaped) throw new TypeError(`${kind}(${JSON.stringify(String(name))}, …): expected (name, fn) or (name, options, fn)`);
  return args.length === 2 ? { name, options: {}, fn: second } : { name, options: second, fn: third };
}

/** The reason a `skip` option gives, or undefined (false, undefined: not skipped). */
function reasonOf(name, { skip }) {
  if (skip === undefined || skip === false) return undefined;
  if (typeof skip !== "string" || skip === "") throw new TypeError(`${JSON.stringify(name)}: a skip needs its reason (a string), not ${JSON.stringify(skip)}`);
  return skip;
}

/** node:test's `test`, with a skip (its own or its describe's) reported with its reason. */
export function test(...args) {
  const { name, options, fn } = parse("test", args);
  const reason = scope.skip ?? reasonOf(name, options);
  if (reason === undefined) return nodeTest.test(name, nodeTimeout && options.timeout === undefined ? { ...options, timeout: nodeTimeout } : options, fn);
  if (bun) process.stderr.write(`skipped: ${[...scope.path, name].join(" > ")} # ${reason}\n`);
  return nodeTest.test(name, { ...options, skip: reason }, fn);
}

/** node:test's `describe`; a skipped one registers each of its tests as skipped. */
export function describe(...args) {
  const { name, options, fn } = parse("describe", args);
  const { skip, ...rest } = options;
  const inner = { path: [...scope.path, name], skip: scope.skip ?? reasonOf(name, { skip }) };
  // Bun runs describe bodies after the file's top level: the scope goes with the body.
  return nodeTest.describe(name, rest, () => within(inner, fn));
}

/** A hook, left out inside a skipped describe (none of its tests runs). */
function hook(kind) {
  return (...args) => {
    if (scope.skip === undefined) nodeTest[kind](...args);
  };
}

export const before = hook("before");
export const after = hook("after");
export const beforeEach = hook("beforeEach");
export const afterEach = hook("afterEach");
