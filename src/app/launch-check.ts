/**
 * Intended vs logged, as the launch goes: each mismatch is reported once, as soon as the log shows it, and
 * the summary once the log has said all it will say about the config.
 */

import type { EngineId } from '../core/base/types.js';
import { phaseRank } from '../core/base/types.js';
import { checkIntended, type IntendedCheck, type Mismatch } from '../core/campaign/intended-check.js';
import type { LaunchReport } from '../core/reading/report.js';

/** Whether the log has said enough that a flag still missing from its config will stay missing. */
export function conclusive(l: LaunchReport, check: IntendedCheck, exited: boolean): boolean {
  if (exited || check.fullDump || l.outcome !== 'in_progress') return true;
  // Engines print whatever config they print before they load weights.
  return l.phase !== null && phaseRank(l.phase) >= phaseRank('loading_weights');
}

export interface CheckNews {
  /** Mismatches not reported before. */
  fresh: Mismatch[];
  /** The check, the first time it is conclusive. */
  summary: IntendedCheck | null;
}

export class FlagWatch {
  /** Every mismatch known now (what the ledger keeps). */
  mismatches: Mismatch[] = [];
  private readonly reported = new Set<string>();
  private summarised = false;
  private lastKey = '';

  constructor(
    private readonly engine: EngineId | null,
    private readonly flags: Record<string, unknown>,
  ) {}

  /** Rechecks when the launch's config or state moved; null when nothing changed. */
  update(l: LaunchReport, exited: boolean): CheckNews | null {
    const key = `${l.configSources.length}|${l.phase}|${l.outcome}|${exited}`;
    if (key === this.lastKey) return null;
    this.lastKey = key;
    const c = checkIntended(l.engine ?? this.engine, this.flags, l.config, l.configSources);
    const done = conclusive(l, c, exited);
    // Until the log is conclusive an absent flag may still be printed: only differences count yet.
    this.mismatches = done ? c.mismatches : c.mismatches.filter((m) => m.reason === 'differs');
    const fresh = this.mismatches.filter((m) => {
      const k = `${m.key}=${JSON.stringify(m.observed)}`;
      if (this.reported.has(k)) return false;
      this.reported.add(k);
      return true;
    });
    let summary: IntendedCheck | null = null;
    if (done && !this.summarised && c.checks.length > 0) {
      this.summarised = true;
      summary = c;
    }
    return { fresh, summary };
  }
}
