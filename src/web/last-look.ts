/**
 * What the launch page says of a launch a live look left stalled or dead, as `firedup show` and `status` do:
 * the reason the verdict gave, the next step for that state and phase, and how long the log had been quiet
 * when it was judged. The ledger keeps the reason (LiveMark); the next step is the live verdict's own (its
 * sentences for a dead launch, core/verdict/verdict.ts, and the same engine hints), the quiet time from the
 * mark's clock and the log's last line.
 */

import type { EngineId, Phase } from '../core/base/types.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import { engineModule } from '../core/engines/index.js';
import { NEXT_WHEN_KILLED, NEXT_WHEN_PORT_GONE } from '../core/verdict/verdict.js';
import type { LastLook } from './api-types.js';

/** A quiet time past this is two clocks that disagree (a log in local time written as UTC), not a silence. */
const MAX_QUIET = 30 * 86_400;

export function lastLook(r: LaunchRecord): LastLook | null {
  const live = r.live;
  if (!live || live.state !== r.state || live.state === 'exited') return null;
  const phase = (live.phase ?? r.phase ?? null) as Phase | null;
  const pid = r.pid ? String(r.pid) : '<server pid>';
  let next: string;
  if (live.state === 'stalled') {
    next = stallHint(r.engine, phase) ?? `py-spy dump --pid ${pid}`;
  } else if (/^the log says .* but /.test(live.why)) {
    next = NEXT_WHEN_PORT_GONE;
  } else {
    next = NEXT_WHEN_KILLED;
  }
  const end = r.endTs ?? r.report?.endTs ?? null;
  const quiet = end === null ? null : Math.round(live.at - end);
  return {
    state: live.state,
    at: live.at,
    why: live.why,
    phase,
    next,
    quietFor: quiet !== null && quiet >= 0 && quiet <= MAX_QUIET ? quiet : null,
    lastLineTime: r.report?.endTime ?? null,
  };
}

/** The engine's own advice for a launch stalled in `phase`, as the live verdict gives it. */
function stallHint(engine: string | null, phase: Phase | null): string | null {
  if (!engine) return null;
  try {
    const hints = engineModule(engine as EngineId).hints;
    return hints[`stalled:${phase ?? 'args'}` as keyof typeof hints] ?? null;
  } catch {
    return null;
  }
}
