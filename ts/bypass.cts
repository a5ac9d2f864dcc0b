// SecurityBypass: the AsyncLocalStorage scope in which a toolkit's calls skip the policy check.

import { AsyncLocalStorage } from "node:async_hooks";

const bypassScope = new AsyncLocalStorage<boolean>();

/**
 * Runs work with the policy check skipped for its whole async call tree (docs/compat.md,
 * "Module surface"); nothing else is skipped.
 */
export const SecurityBypass: {
  run<T>(task: () => Promise<T> | T): Promise<T>;
  isEnabled(): boolean;
  enforce<T>(task: () => Promise<T> | T): Promise<T>;
} = {
  /** Runs `task` with the policy check bypassed for its whole async call tree. */
  run(task) {
    return bypassScope.run(true, async () => task());
  },
  isEnabled() {
    return bypassScope.getStore() === true;
  },
  /**
   * Runs `task` with the bypass switched off, even inside `run`
   * (docs/compat.md, "SecurityBypass.enforce switches the bypass off").
   */
  enforce(task) {
    return bypassScope.run(false, async () => task());
  },
};
