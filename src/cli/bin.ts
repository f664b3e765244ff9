/**
 * The command's entry point inside a compiled tree. `bin/firedup.js` is the installed command; tests run this
 * file so that a tree built elsewhere (`tsc --outDir dist-x`) tests its own code, not dist/'s.
 */
import { main } from './main.js';
import { sourceMappedStack } from './stack.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    // A bug in firedup, not a user mistake: user mistakes are reported by main() itself.
    process.stderr.write(`firedup: internal error: ${err?.stack ? sourceMappedStack(err.stack) : err}\n`);
    process.exitCode = 70;
  },
);
