/** The CLI's errors: they live at the base of the tree (`src/errors.ts`); re-exported for the commands. */
export { FiredupError, UsageError } from '../errors.js';
