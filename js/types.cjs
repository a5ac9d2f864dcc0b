"use strict";
// Generated from ts/types.cts by `npm run build:ts`: edit that file, not this one.
// The package's public types (agent-tools-ts's twelve, then the toolkit's) and the types the
// toolkit's modules share. Types only: this module has no run-time code.
