/**
 * The entry of the `status` bundle (dist/bundle/cli/status.cjs, scripts/build-bundle.mjs), which bin/firedup.js
 * runs for `firedup status`: the same main as bin.ts with that one command, so that the bundle holds no other
 * command's code (about half the CLI's), which each `status` would otherwise read and load from the code cache.
 */
import { runProcess } from './entry.js';

runProcess(
  async (cmd, rest) => {
    // bin/firedup.js runs this bundle for `firedup status …` only (main answers --help and the like itself).
    if (cmd !== 'status') throw new Error(`the status bundle was run for ${cmd}`);
    return (await import('./status.js')).status(rest);
  },
  { exitWhenIdle: true },
);
