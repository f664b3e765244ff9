/**
 * One state per launch, as every list shows it (runs, the dashboard, `--outcome`): the log's outcome, unless
 * the log leaves the launch open (in progress, ready, serving) and the last live look said it is over or
 * stuck (stalled, dead, exited). The log wins where it is final: a crash line is better evidence than a probe.
 */
import { OUTCOMES, type Outcome } from '../base/types.js';

/** The live verdicts a record keeps: the ones that say more than a log left open. */
export const KEPT_LIVE_STATES = ['stalled', 'dead', 'exited'] as const;
export type KeptLiveState = (typeof KEPT_LIVE_STATES)[number];

export type LaunchState = Outcome | KeptLiveState;
export const LAUNCH_STATES: readonly LaunchState[] = [...OUTCOMES, ...KEPT_LIVE_STATES];

const OPEN: ReadonlySet<Outcome> = new Set(['in_progress', 'ready', 'serving']);

export function isKeptLiveState(s: string): s is KeptLiveState {
  return (KEPT_LIVE_STATES as readonly string[]).includes(s);
}

export function launchState(outcome: Outcome, live: { state: string } | null | undefined): LaunchState {
  if (live && OPEN.has(outcome) && isKeptLiveState(live.state)) return live.state;
  return outcome;
}
