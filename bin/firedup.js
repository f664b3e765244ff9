#!/usr/bin/env node
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    // A bug in firedup, not a user mistake: user mistakes are reported by main() itself.
    process.stderr.write(`firedup: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
