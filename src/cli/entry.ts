/** What both entries of the command (bin.ts, bin-status.ts) do: run main, turn its result into the exit code. */
import { type Dispatch, main } from './main.js';
import { sourceMappedStack } from './stack.js';

export function runProcess(dispatch: Dispatch): void {
  main(process.argv.slice(2), dispatch).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      // A bug in firedup, not a user mistake: user mistakes are reported by main() itself.
      process.stderr.write(`firedup: internal error: ${err?.stack ? sourceMappedStack(err.stack) : err}\n`);
      process.exitCode = 70;
    },
  );
}
