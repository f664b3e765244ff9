/**
 * A pattern tested on every line (a detection pattern, a level's words) that is skipped where the line holds none
 * of the literals its source needs (regex-literals.ts). The gated patterns share the line index (lineLiterals): one pass over a
 * line says which of them it may match, where each would scan the whole line from every position (issue 23).
 * `test` answers as the pattern's own `test` does: a text the pattern matches holds one of the literals. A
 * pattern with no literal to key on is tested as it is.
 */
import { isCandidate, lineLiterals } from './literal-index.js';
import { requiredLiterals } from './regex-literals.js';

/** Every gated pattern made, for the test that checks each one's literals against real lines. */
const made: GatedPattern[] = [];

export class GatedPattern {
  /** Its entry in the index, made at its first test (a command that never tests it pays nothing); -1 before. */
  private entry = -1;

  constructor(readonly re: RegExp) {
    made.push(this);
  }

  test(s: string): boolean {
    if (this.entry < 0) this.entry = lineLiterals.add(requiredLiterals(this.re));
    return isCandidate(lineLiterals.candidates(s), this.entry) && this.re.test(s);
  }
}

/** The gated patterns made so far (tests). */
export function gatedPatterns(): readonly GatedPattern[] {
  return made;
}
