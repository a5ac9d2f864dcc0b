// Preloaded into bun.exe by scripts/test-windows.sh (`bun test --preload`), under wine only.
// bun.exe's recursive removal (fs.rmSync / fs.rm / fs.promises.rm / fs.rmdirSync with
// `recursive`) fails under wine 8 with EFAULT ("bad address in system call argument") on any
// directory, while removing one file or one empty directory works. The suites' cleanups remove
// temporary trees that way, so here a recursive removal that fails with EFAULT walks the tree
// itself (unlink each file, rmdir each directory, deepest first). Nothing else changes; on
// Windows itself this file is not loaded.
import fs from "node:fs";
import path from "node:path";

function removeTree(target) {
  let st;
  try {
    st = fs.lstatSync(target);
  } catch (error) {
    if (error.code === "ENOENT") return;
    throw error;
  }
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(target)) removeTree(path.join(target, name));
    fs.rmdirSync(target);
  } else {
    fs.unlinkSync(target);
  }
}

function withFallback(original, recursiveOf) {
  return function (target, options, ...rest) {
    try {
      return original.call(this, target, options, ...rest);
    } catch (error) {
      if (error?.code !== "EFAULT" || !recursiveOf(options)) throw error;
      removeTree(String(target));
    }
  };
}

const recursive = (options) => options?.recursive === true;
fs.rmSync = withFallback(fs.rmSync, recursive);
fs.rmdirSync = withFallback(fs.rmdirSync, recursive);
const promiseRm = fs.promises.rm;
fs.promises.rm = async function (target, options) {
  try {
    return await promiseRm.call(this, target, options);
  } catch (error) {
    if (error?.code !== "EFAULT" || !recursive(options)) throw error;
    removeTree(String(target));
  }
};
const callbackRm = fs.rm;
fs.rm = function (target, options, callback) {
  if (typeof options === "function") return callbackRm.call(this, target, options);
  return callbackRm.call(this, target, options, (error) => {
    if (error?.code !== "EFAULT" || !recursive(options)) return callback(error);
    try {
      removeTree(String(target));
      callback(null);
    } catch (again) {
      callback(again);
    }
  });
};
