"use strict";
// Generated from ts/internal.cts by `npm run build:ts`: edit that file, not this one.
// What the toolkit (index.cts) lends the command line and MCP server (cli.cts) beyond the public
// API. Not part of the package's API: nothing here is exported from the package's entry.
exports.hooks = void 0;
/** Filled in by index.cts when it loads. */
exports.hooks = {};
