"use strict";
// Generated from ts/bypass.cts by `npm run build:ts`: edit that file, not this one.
// SecurityBypass: the AsyncLocalStorage scope in which a toolkit's calls skip the policy check.
exports.SecurityBypass = void 0;
const node_async_hooks_1 = require("node:async_hooks");
const bypassScope = new node_async_hooks_1.AsyncLocalStorage();
/**
 * Runs work with the policy check skipped for its whole async call tree (docs/compat.md,
 * "Module surface"); nothing else is skipped.
 */
exports.SecurityBypass = {
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
