/** A mistake of the user's (bad flag, missing file): printed as one line, never with a stack trace. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
