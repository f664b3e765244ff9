/** Why a benchmark could not start: the caller (CLI or sweep) decides how to say it; each has a code. */
export type BenchErrorCode = 'unreachable' | 'http' | 'no_model' | 'dataset';

export class BenchError extends Error {
  constructor(
    readonly code: BenchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BenchError';
  }
}
