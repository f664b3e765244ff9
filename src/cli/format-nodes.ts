/** The nodes of a multi-node launch, as `status`, `runs` and `show` print them under the launch. */
import type { MultiNodeReport, NodeSummary } from '../core/multinode/combine.js';
import type { NodeVerdict } from '../core/multinode/live.js';
import type { Verdict } from '../core/verdict/verdict.js';
import type { Style } from './style.js';
import { type Row, renderTable } from './table.js';

function progress(n: NodeSummary): string {
  return n.progress ? `${n.progress.done}/${n.progress.total}` : '';
}

function skew(s: number): string {
  if (s === 0) return '';
  return `clock ${s > 0 ? '+' : '−'}${Math.abs(s)}s`;
}

/** The per-node states of a verdict that has them (`--node`, or one log with Ray's nodes). */
export function liveNodes(v: Verdict | null): NodeVerdict[] | null {
  return (v as (Verdict & { nodes?: NodeVerdict[] }) | null)?.nodes ?? null;
}

/** `node0.log + 1 node`: the head, and how many more. */
export function nodesLabel(m: MultiNodeReport): string {
  const more = m.nodes.length - 1;
  return `${m.head} + ${more} node${more === 1 ? '' : 's'}`;
}

export function formatNodes(m: MultiNodeReport, st: Style, live: NodeVerdict[] | null = null): string {
  const rows: Row[] = m.nodes.map((n) => {
    const v = live?.find((x) => x.name === n.name);
    const mark = m.culprit?.name === n.name ? { text: '◀', paint: st.red } : '';
    return [
      n.name,
      m.layout === 'ray' ? (n.head ? 'head' : '') : `rank ${n.nodeRank ?? 0}${n.head ? ' head' : ''}`,
      n.ranks ?? '',
      v ? v.state : n.outcome,
      n.phase ?? '',
      progress(n),
      n.failure ? n.failure.class : '',
      skew(n.skew),
      mark,
    ];
  });
  const given = m.nnodes !== null ? `${m.nodes.length} of ${m.nnodes}` : String(m.nodes.length);
  const lines = [
    m.layout === 'ray'
      ? `  nodes (${m.nodes.length}, from Ray's ip= on each line; head: the driver's node):`
      : `  nodes (${given}; head ${m.head}):`,
  ];
  for (const r of renderTable(null, rows, { st, indent: '    ' })) lines.push(r.trimEnd());
  lines.push(`  across nodes: ${m.verdict}`);
  // The failure printed above is the root cause's: its line numbers are that node's log's (with Ray, all
  // nodes' lines are in the one log).
  if (m.outcome === 'crashed' && m.culprit && m.culprit.name !== m.head && m.layout !== 'ray')
    lines.push(`  the failure's line numbers above are ${m.culprit.name}'s`);
  for (const n of m.notes) lines.push(`  note: ${n}`);
  return `${lines.join('\n')}\n`;
}
