/**
 * The command's entry point inside a compiled tree. `bin/firedup.js` is the installed command; tests run this
 * file so that a tree built elsewhere (`tsc --outDir dist-x`) tests its own code, not dist/'s.
 */
import { dispatchAll } from './dispatch.js';
import { runProcess } from './entry.js';

runProcess(dispatchAll);
