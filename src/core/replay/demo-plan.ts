/**
 * The demo's timing: a recorded launch replayed so the viewer's time goes where something happens. Start-up
 * plays at `speed`, with a pause at each new phase long enough to read it; serving (thousands of alike
 * decode lines) plays four times faster with its quiet stretches cut short; before the shutdown the port is
 * already closed and the replay waits for the watcher's probe to see it. Pure: text in, schedule out.
 */
import { LogAnalyzer } from '../reading/analyzer.js';
import { planReplay, type ReplayStep } from './replay.js';

export interface DemoPlan {
  steps: ReplayStep[];
  /** Seconds of log time the launch spans, and the replay's length in seconds. */
  logSeconds: number;
  seconds: number;
}

/** Pause at a new phase, in seconds at speed 10 (scaled with the speed: the test's speed 200 barely waits). */
const PHASE_PAUSE = 0.8;
/** Serving plays this much faster than start-up. */
const SERVING_FACTOR = 4;
/** Longest quiet stretch kept while serving, in seconds of log time. */
const SERVING_GAP = 3;
/** Before the shutdown line, with the port closed: more than a probe round (1 s), whatever the speed. */
export const DOWN_PAUSE = 1.3;

export function planDemo(text: string, speed: number): DemoPlan {
  // Log time of each line, the hours-long gaps already cut to 30 s.
  const log = planReplay(text, { speed: 1, maxGap: 30 });
  const analyzer = new LogAnalyzer();
  analyzer.push(Buffer.from(text, 'latin1'));
  const report = analyzer.end();
  const phaseLines = new Set<number>();
  let servingFrom = Number.POSITIVE_INFINITY;
  let downAt = Number.POSITIVE_INFINITY;
  for (const l of report.launches) {
    for (const p of l.phases) phaseLines.add(p.line);
    const serving = l.phases.find((p) => p.phase === 'serving');
    if (serving) servingFrom = Math.min(servingFrom, serving.line);
    if (l.shutdown) downAt = Math.min(downAt, l.shutdown.line);
  }
  const pause = (PHASE_PAUSE * 10) / speed;
  const steps: ReplayStep[] = [];
  let at = 0;
  for (let i = 0; i < log.length; i++) {
    const no = i + 1;
    const gap = i === 0 ? 0 : log[i]!.at - log[i - 1]!.at;
    if (no >= servingFrom && no < downAt) at += Math.min(gap, SERVING_GAP) / (speed * SERVING_FACTOR);
    else at += gap / speed;
    if (no === downAt) at += DOWN_PAUSE;
    else if (phaseLines.has(no) && no < servingFrom + 1) at += pause;
    steps.push({ at, line: log[i]!.line });
  }
  return { steps, logSeconds: log.at(-1)?.at ?? 0, seconds: at };
}
