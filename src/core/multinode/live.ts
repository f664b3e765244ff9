/**
 * The live verdict of a multi-node launch from its nodes' live verdicts (each judged from its own log,
 * process, port and GPUs) and the reading across their logs (combineNodes). Pure.
 *
 * - Any node crashed or dead: the launch is, and the node named is the one that died first (from the logs;
 *   a node whose process vanished without a word is named when no log says more).
 * - Any node stalled: the launch is stalled, named after the node that holds the others back — a node
 *   waiting at a collective for a stuck peer looks stalled too, and is not the cause.
 * - Ready, serving, idle, exited: the head's word, since only the head serves (SGLang's `fired up`, vLLM's API
 *   server); workers are done when their own startup ends.
 * - Otherwise: the slowest node's state and phase.
 */
import type { Phase } from '../base/types.js';
import type { Verdict } from '../base/verdict-types.js';
import type { MultiNodeReport } from './combine.js';

export interface LiveNode {
  name: string;
  head: boolean;
  verdict: Verdict | null;
}

export interface NodeVerdict {
  name: string;
  head: boolean;
  state: Verdict['state'] | 'unknown';
  phase: Verdict['phase'];
  progress: Verdict['progress'];
  why: string;
}

/**
 * A worker whose startup is over (worker.ts) and whose process the probes have not found gone: ready, however
 * long it has been silent — a headless vLLM node logs nothing after its engine is up.
 */
function workerSettled(n: LiveNode, across: MultiNodeReport | null): LiveNode {
  const v = n.verdict;
  const done = across?.nodes.find((x) => x.name === n.name)?.done ?? false;
  if (n.head || !done || !v || ['crashed', 'dead', 'exited', 'ready', 'serving', 'idle'].includes(v.state))
    return n;
  return {
    ...n,
    verdict: { ...v, state: 'ready', stalledIn: null, why: 'its own startup is over; it waits for the head' },
  };
}

function tagged(n: LiveNode): Verdict['evidence'] {
  return (n.verdict?.evidence ?? []).map((e) => ({ ...e, text: `[${n.name}] ${e.text}` }));
}

export function combineVerdicts(
  given: LiveNode[],
  across: MultiNodeReport | null,
): Verdict & { nodes: NodeVerdict[] } {
  const nodes = given.map((n) => workerSettled(n, across));
  const head = nodes.find((n) => n.head) ?? nodes[0]!;
  const per: NodeVerdict[] = nodes.map((n) => ({
    name: n.name,
    head: n.head,
    state: n.verdict?.state ?? 'unknown',
    phase: n.verdict?.phase ?? null,
    progress: n.verdict?.progress ?? null,
    why: n.verdict?.why ?? 'no verdict yet',
  }));
  const byName = (name: string | undefined) => nodes.find((n) => n.name === name);
  const evidence = nodes.flatMap(tagged);
  const skew = across?.skewNote ? ` (${across.skewNote})` : '';
  const base = (n: LiveNode, over: Partial<Verdict>): Verdict & { nodes: NodeVerdict[] } => ({
    ...(n.verdict ?? head.verdict!),
    evidence,
    ...over,
    nodes: per,
  });
  if (!head.verdict) {
    const any = nodes.find((n) => n.verdict);
    if (!any) throw new Error('combineVerdicts: no node has a verdict');
    return base(any, { state: 'waiting', why: `waiting for ${head.name}: ${any.name} ${any.verdict!.why}` });
  }

  const down = nodes.filter((n) => n.verdict?.state === 'crashed' || n.verdict?.state === 'dead');
  if (down.length) {
    const fromLog = across?.outcome === 'crashed' ? byName(across.culprit?.name) : undefined;
    const first = fromLog ?? down[0]!;
    return base(first, {
      state: down.some((n) => n.verdict!.state === 'crashed') ? 'crashed' : 'dead',
      final: true,
      failure: first.verdict!.failure,
      why: fromLog && across ? across.verdict : `${first.name}: ${first.verdict!.why}${skew}`,
    });
  }

  const stalled = nodes.filter((n) => n.verdict?.state === 'stalled');
  if (stalled.length) {
    const holder = byName(across?.culprit?.name) ?? stalled[0]!;
    const waiting = nodes.filter((n) => n !== holder && n.verdict?.state === 'stalled').map((n) => n.name);
    const why = `${holder.name} holds the launch back${across?.culprit ? ` (${across.culprit.why})` : ''}: ${holder.verdict?.why ?? 'no verdict'}${waiting.length ? `; ${waiting.join(', ')} ${waiting.length === 1 ? 'waits' : 'wait'} for it` : ''}${skew}`;
    return base(holder, {
      state: 'stalled',
      stalledIn: holder.verdict?.stalledIn ?? holder.verdict?.phase ?? null,
      phase: holder.verdict?.phase ?? null,
      why,
    });
  }

  const hv = head.verdict;
  if (hv.state === 'ready' || hv.state === 'serving' || hv.state === 'idle' || hv.state === 'exited') {
    const workers = per.filter((p) => !p.head).map((p) => `${p.name} ${p.state}`);
    return base(head, {
      why: `${hv.why}${workers.length ? ` (head ${head.name}; ${workers.join(', ')})` : ''}${skew}`,
    });
  }

  const slow = byName(across?.culprit?.name);
  if (slow?.verdict) return base(slow, { why: `${across!.verdict}; ${slow.name}: ${slow.verdict.why}` });
  return base(head, { why: `${across?.verdict ?? hv.why}` });
}

/** The live state a node in `phase` is in, as the verdict names phases. */
function phaseState(phase: Phase | null): NodeVerdict['state'] {
  if (phase === null || phase === 'args') return 'starting';
  return phase === 'loading_weights' ? 'loading' : phase;
}

/**
 * The verdict of a launch whose nodes' lines are in one log (Ray): `v` is the log's verdict as a whole (its
 * silence, its probes), `m` the reading across its nodes. Each node gets a state from its own reading; the
 * launch's `why` names the node that died first or holds the others back, as combineVerdicts does for `--node`.
 */
export function rayVerdict(v: Verdict, m: MultiNodeReport): Verdict & { nodes: NodeVerdict[] } {
  const up = v.state === 'ready' || v.state === 'serving' || v.state === 'idle';
  const culprit = m.culprit?.name ?? null;
  const nodes: NodeVerdict[] = m.nodes.map((n) => {
    let state: NodeVerdict['state'];
    let why: string;
    if (n.outcome === 'crashed') {
      state = 'crashed';
      why = n.failure ? `${n.failure.class}: ${n.failure.message}` : 'crashed';
    } else if (n.head && (up || v.state === 'exited' || v.state === 'dead')) {
      state = v.state;
      why = v.why;
    } else if (!n.head && (n.done || up)) {
      state = 'ready';
      why = 'its own startup is over; it waits for the head';
    } else if (v.state === 'stalled' && (culprit === n.name || (culprit === null && n.head))) {
      state = 'stalled';
      why = v.why;
    } else {
      state = phaseState(n.phase);
      why =
        culprit && culprit !== n.name
          ? `in ${n.phase ?? 'its start'}, waiting for ${culprit}`
          : `in ${n.phase ?? 'its start'}`;
    }
    const progress = n.progress
      ? {
          done: n.progress.done,
          total: n.progress.total,
          ratio: Math.round((n.progress.done / n.progress.total) * 100) / 100,
          rate: null,
          eta: null,
        }
      : null;
    return { name: n.name, head: n.head, state, phase: n.phase, progress, why };
  });
  const others = nodes.filter((n) => !n.head).map((n) => `${n.name} ${n.state}`);
  let why = v.why;
  if (v.state === 'crashed' && m.outcome === 'crashed') why = m.verdict;
  else if (v.state === 'stalled' && m.culprit)
    why = `${m.culprit.name} holds the launch back (${m.culprit.why}): ${v.why}`;
  else if (up || v.state === 'exited') why = `${v.why} (head ${m.head}; ${others.join(', ')})`;
  else if (m.culprit && !v.final) why = `${m.verdict}; ${v.why}`;
  return { ...v, why, nodes };
}
