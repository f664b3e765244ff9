/**
 * The errors every layer throws, at the base of the tree (it imports nothing). Each carries a `code` a caller can
 * switch on; the faces (`cli/`, `web/`) decide how to print them and what exit code or HTTP status they mean.
 * Layer-specific errors (`LedgerError` in store, `BenchError` in bench, `SshError` in sources, `CheckpointError` in
 * core) extend `FiredupError` where they are declared.
 */
export class FiredupError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A mistake of the user's (bad flag, missing file, a config file that does not parse): printed as one line, never
 * with a stack trace. `exitCode` is the CLI's to choose (1 unless a command says otherwise).
 */
export class UsageError extends FiredupError<'usage'> {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super('usage', message);
    this.name = 'UsageError';
  }
}
