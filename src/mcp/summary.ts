/**
 * The few lines an agent can quote from a tool's result: the verdict, the phase and how far, the failure, the
 * evidence lines with their numbers, the next step. The whole report is in the result's structured content.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A log line or a message, cut for quoting (the line number says where the rest is). */
export function cut(s: string, max = 240): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

function progressText(p: unknown): string | null {
  if (!isObj(p)) return null;
  const done = num(p.done);
  const total = num(p.total);
  if (done === null) return null;
  const what = str(p.what) ?? 'progress';
  const pct = total ? ` (${Math.round((100 * done) / total)} %)` : '';
  return `${cut(what, 60)} ${done}${total ? `/${total}` : ''}${pct}`;
}

function evidenceLines(ev: unknown, max = 3): string[] {
  if (!Array.isArray(ev)) return [];
  return ev
    .filter(isObj)
    .slice(0, max)
    .map((e) => {
      const where = num(e.line) !== null ? `line ${e.line}` : (str(e.source) ?? 'probe');
      return `  ${where}: ${cut(String(e.text ?? ''))}`;
    });
}

/** `status --json` (a launch with `live`), and the launch a `wait`/`watch` exit event carries. */
export function statusSummary(j: Obj): string {
  const live = isObj(j.live) ? j.live : null;
  const state = str(live?.state) ?? str(j.outcome) ?? 'unknown';
  const engine = str(j.engine);
  const model = str(j.model) ?? (isObj(j.configSummary) ? str(j.configSummary.model) : null);
  const count = num(j.launchCount);
  const head = [
    state,
    engine && model ? `${engine} serving ${model}` : (engine ?? model),
    count && count > 1 ? `launch ${count} of ${count} in the log` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const out = [head];
  const phase = str(j.phase);
  const prog = progressText(j.progress) ?? progressText(j.graphProgress);
  if (phase) out.push(`phase: ${phase}${prog ? `, ${prog}` : ''}`);
  const f = isObj(j.failure) ? j.failure : null;
  if (f)
    out.push(
      `failure: ${str(f.class) ?? 'unknown'}${num(f.line) !== null ? ` at line ${f.line}` : ''}: ${cut(String(f.text ?? f.message ?? ''))}`,
    );
  const why = str(live?.why);
  if (why) out.push(`why: ${cut(why, 400)}`);
  const ev = evidenceLines(live?.evidence);
  if (ev.length) out.push('evidence:', ...ev);
  else if (f === null && isObj(j.ready))
    out.push(`evidence:\n  line ${j.ready.line}: ${cut(String(j.ready.text ?? ''))}`);
  const tp = isObj(j.throughput) ? num(j.throughput.last) : null;
  if (tp !== null) out.push(`throughput: ${tp} tok/s (last)`);
  const conf = str(j.confidence);
  if (conf && conf !== 'high' && Array.isArray(j.confidenceReasons))
    out.push(`confidence ${conf}: ${j.confidenceReasons.map(String).join('; ')}`);
  const next = str(live?.next);
  if (next) out.push(`next: ${cut(next, 400)}`);
  return out.join('\n');
}

/** One line per launch, as `runs` prints them: id, state, phase, model, failure. */
export function launchesSummary(launches: unknown[], total?: number): string {
  if (launches.length === 0) return 'no launches';
  const rows = launches.filter(isObj).map((l, i) => {
    const id = str(l.id)?.slice(0, 8) ?? `#${num(l.index) ?? i + 1}`;
    const state = str(l.state) ?? str(l.outcome) ?? '?';
    const fail = str(l.failureClass) ?? (isObj(l.failure) ? str(l.failure.class) : null);
    const start =
      str(l.startTime) ?? (num(l.startTs) !== null ? new Date(num(l.startTs)! * 1000).toISOString() : null);
    return [id, state, str(l.phase), str(l.model), fail ? `failure ${fail}` : null, start]
      .filter(Boolean)
      .join('  ');
  });
  const more = total !== undefined && total > rows.length ? [`… ${total - rows.length} more`] : [];
  return [...rows.slice(0, 50), ...(rows.length > 50 ? [`… ${rows.length - 50} more`] : []), ...more].join(
    '\n',
  );
}
