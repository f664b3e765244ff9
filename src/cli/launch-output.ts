/** The lines `firedup launch` prints: live events (as `watch` prints them), config mismatches, the exit. */

import type { EngineId } from '../core/base/types.js';
import type { IntendedCheck, Mismatch } from '../core/campaign/intended-check.js';
import type { Verdict } from '../core/verdict/verdict.js';
import type { EngineInstall } from '../probes/engine-install.js';
import { whyAfterState } from './format.js';
import type { Style } from './style.js';
import { stamp, stateBadge } from './view.js';

const show = (v: unknown): string => (v === null || v === undefined ? 'None' : JSON.stringify(v));

export function mismatchLine(m: Mismatch, st: Style): string {
  return stamp(
    st.yellow(
      m.reason === 'absent'
        ? `config: --${m.key.replace(/_/g, '-')} ${show(m.intended)} was asked for but ${m.key} is not in the logged config`
        : `config: ${m.key} asked ${show(m.intended)}, logged ${show(m.observed)}`,
    ),
    st,
  );
}

/** One line once the check is conclusive: how many flags the log confirms, how many differ, which it cannot show. */
export function checkSummary(check: IntendedCheck, engine: EngineId | null, st: Style): string {
  const n = check.checks.length;
  const matched = check.checks.filter((c) => c.status === 'match').length;
  const parts =
    check.unobservable.length === n ? [] : [`${matched}/${n} intended flag${n === 1 ? '' : 's'} as logged`];
  if (check.mismatches.length) parts.push(st.yellow(`${check.mismatches.length} differ`));
  if (check.unobservable.length) {
    const why =
      engine === 'llamacpp'
        ? 'llama-server does not print its settings'
        : check.fullDump
          ? 'not in the dump'
          : 'the log prints only part of the config';
    parts.push(`${check.unobservable.join(', ')} not observable (${why})`);
  }
  return stamp(`config: ${parts.join(' · ')}`, st);
}

export function exitLine(
  status: number,
  code: number | null,
  signal: string | null,
  v: Verdict | null,
  st: Style,
): string {
  const how = signal ? `killed by ${signal} (status ${status})` : `exited with code ${code}`;
  return stamp(`server ${how}${v ? ` · ${stateBadge(v, st)}: ${whyAfterState(v)}` : ''}`, st);
}

/** `engine 0.5.1 from /src/sglang @ 1a2b3c4d5e6f, 2 modified files`. */
export function installLine(i: EngineInstall, st: Style): string {
  const n = i.git?.modified.length ?? 0;
  const from = i.git
    ? ` from ${i.git.root} @ ${i.git.head?.slice(0, 12) ?? '?'}${n ? `, ${n} modified file${n > 1 ? 's' : ''}` : ''}`
    : '';
  return stamp(`engine ${i.version ?? '(version unknown)'}${from}`, st);
}
