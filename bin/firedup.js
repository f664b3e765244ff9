#!/usr/bin/env node
// The installed command: the compiled entry point (src/cli/bin.ts) handles exit codes and internal errors.
import '../dist/src/cli/bin.js';
