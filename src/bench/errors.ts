import { FiredupError } from '../errors.js';

/** Why a benchmark could not start: the caller (CLI or sweep) decides how to say it; each has a code. */
export type BenchErrorCode = 'unreachable' | 'http' | 'no_model' | 'dataset';

export class BenchError extends FiredupError<BenchErrorCode> {
  constructor(code: BenchErrorCode, message: string) {
    super(code, message);
    this.name = 'BenchError';
  }
}
