/** What both entries of the command (bin.ts, bin-status.ts) do: run main, turn its result into the exit code. */
import { type Dispatch, main } from './main.js';
import { sourceMappedStack } from './stack.js';

/**
 * `exitWhenIdle`: once main is done and nothing is left to wait for (no handle, timer, child or request
 * active), exit at once rather than by the end of the event loop: the same exit ('exit' listeners run, every
 * write was synchronous), without Node tearing the heap, the wasm memories and the buffers down one by one
 * (a millisecond or two of a `firedup status`; the kernel frees the process at once).
 */
export function runProcess(dispatch: Dispatch, { exitWhenIdle = false } = {}): void {
  main(process.argv.slice(2), dispatch).then(
    (code) => {
      process.exitCode = code;
      if (exitWhenIdle && process.getActiveResourcesInfo().length === 0) process.exit(code);
    },
    (err) => {
      // A bug in firedup, not a user mistake: user mistakes are reported by main() itself.
      process.stderr.write(`firedup: internal error: ${err?.stack ? sourceMappedStack(err.stack) : err}\n`);
      process.exitCode = 70;
    },
  );
}
