/**
 * Parts of the launch page: nodes, failure, benchmarks and targets, configuration, warnings.
 */
import { h } from '../dom.js';
import { fmtNum, fmtTs, fmtVal } from '../format.js';
import { evidenceList, kv } from '../widgets.js';

export function nodesBlock(m) {
  const rows = m.nodes.map((n) =>
    h(
      'tr',
      { class: m.culprit?.name === n.name ? 'culprit' : null },
      h('td', null, m.culprit?.name === n.name ? `${n.name} ◀` : n.name),
      h('td', null, `${n.nodeRank ?? 0}${n.head ? ' (head)' : ''}`),
      h('td', null, n.ranks ?? ''),
      h('td', null, n.outcome),
      h('td', null, n.phase ?? ''),
      h('td', null, n.progress ? `${n.progress.done}/${n.progress.total}` : ''),
      h('td', null, n.failure ? n.failure.class : ''),
      h('td', null, n.skew ? `${n.skew > 0 ? '+' : ''}${n.skew} s` : ''),
    ),
  );
  return h(
    'div',
    { class: 'nodes' },
    h('p', { class: 'verdict' }, m.verdict),
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['node', 'node rank', 'ranks', 'outcome', 'phase', 'progress', 'failure', 'clock'].map((t) =>
            h('th', null, t),
          ),
        ),
      ),
      h('tbody', null, rows),
    ),
  );
}

export function failureBlock(f) {
  return h(
    'div',
    { class: 'failure' },
    h(
      'div',
      { class: 'kvs' },
      kv('class', f.class),
      f.exceptionType ? kv('exception', f.exceptionType) : null,
      f.phase ? kv('phase', f.phase) : null,
      f.rank ? kv('rank', f.rank) : null,
      kv('line', String(f.line)),
      f.time ? kv('time', f.time.replace('T', ' ').replace('Z', '')) : null,
    ),
    h('p', { class: 'message' }, f.message),
    h('h3', null, 'Evidence'),
    evidenceList(f.evidence ?? []),
    f.hint ? h('p', { class: 'hint' }, h('strong', null, 'Check next: '), f.hint) : null,
    f.remedies?.length
      ? h(
          'div',
          null,
          h('h3', null, 'Remedies the engine printed'),
          h(
            'ul',
            { class: 'remedies' },
            f.remedies.map((r) => h('li', null, r)),
          ),
        )
      : null,
  );
}

export function benchBlock(benches, targets) {
  const wrap = h('div');
  if (!benches.length)
    wrap.append(h('p', { class: 'muted' }, 'No benchmark attached (firedup bench import).'));
  else {
    const ms = (x) => fmtNum(x, 1);
    wrap.append(
      h(
        'table',
        { class: 'data' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            [
              'finished',
              'tool',
              'concurrency',
              'completed',
              'out tok/s',
              'total tok/s',
              'req/s',
              'TTFT med ms',
              'TTFT p99 ms',
              'TPOT med ms',
              'ITL med ms',
            ].map((c, i) => h('th', { class: i > 1 ? 'num' : null }, c)),
          ),
        ),
        h(
          'tbody',
          null,
          benches.map((b) =>
            h(
              'tr',
              { title: b.source },
              h('td', { class: 'mono' }, fmtTs(b.finishedAt)),
              h('td', null, b.tool),
              h('td', { class: 'num' }, fmtNum(b.maxConcurrency)),
              h('td', { class: 'num' }, fmtNum(b.completed)),
              h('td', { class: 'num' }, fmtNum(b.outputTokS, 1)),
              h('td', { class: 'num' }, fmtNum(b.totalTokS, 1)),
              h('td', { class: 'num' }, fmtNum(b.requestTputReqS, 2)),
              h('td', { class: 'num' }, ms(b.ttft?.median)),
              h('td', { class: 'num' }, ms(b.ttft?.p99)),
              h('td', { class: 'num' }, ms(b.tpot?.median)),
              h('td', { class: 'num' }, ms(b.itl?.median)),
            ),
          ),
        ),
      ),
    );
  }
  if (targets.length)
    wrap.append(
      h(
        'ul',
        { class: 'targets' },
        targets.map((t) =>
          h(
            'li',
            { class: t.pass === true ? 'pass' : t.pass === false ? 'miss' : '' },
            t.pass === true ? '✓ ' : t.pass === false ? '✗ ' : '– ',
            h('code', null, t.expr),
            ` actual ${t.actual === null || t.actual === undefined ? 'unknown' : fmtNum(t.actual, 2)}`,
            t.from ? h('span', { class: 'muted' }, ` (from ${t.from})`) : null,
          ),
        ),
      ),
    );
  else wrap.append(h('p', { class: 'muted' }, 'No target set (firedup target add).'));
  return wrap;
}

/** Groups of config keys (by name), for the config table of one launch. */
const CONFIG_GROUPS = [
  [
    'model',
    /^(model|served_model|tokenizer|revision|trust_remote|load_format|hf_|dtype|context_length|max_model_len|is_embedding|enable_multimodal|json_model)/,
  ],
  ['quantization', /quant|kv_cache_dtype|fp8|fp4|fp32/],
  [
    'parallelism',
    /^(tp|pp|dp|ep|nnodes|node_rank|dist|tensor_parallel|pipeline_parallel|data_parallel|expert_parallel|enable_expert|enable_dp|nccl|moe_a2a|world)/,
  ],
  [
    'memory and batching',
    /mem_|memory|max_running|max_num|max_queued|max_total|max_prefill|chunked|page_size|batch|schedule|swap|block_size|max_seq/,
  ],
  ['kernels and backends', /backend|attention|moe_|flashinfer|triton|deepgemm|cutlass/],
  ['cuda graph and compile', /cuda_graph|enforce_eager|compile|torch_compile|autotune|graph/],
  ['speculative', /specul|draft|eagle|mtp/],
  ['server', /^(host|port|api_key|fastapi|grpc|ssl|uvicorn|allowed|served|root_path|warmup|skip_server)/],
  ['logging and metrics', /log|metric|trace|debug|watchdog|timeout/],
];

export function groupOf(key) {
  for (const [name, re] of CONFIG_GROUPS) if (re.test(key)) return name;
  return 'other';
}

export function configBlock(config, intended) {
  const keys = Object.keys(config).sort();
  const wrap = h('div', { class: 'config' });
  if (!keys.length) {
    wrap.append(h('p', { class: 'muted' }, 'No configuration dump in the log.'));
    return wrap;
  }
  const search = h('input', {
    type: 'search',
    placeholder: `search ${keys.length} keys and values…`,
    'aria-label': 'search config',
  });
  const byGroup = new Map();
  for (const k of keys) {
    const g = groupOf(k);
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(k);
  }
  const order = [...CONFIG_GROUPS.map((g) => g[0]), 'other'].filter((g) => byGroup.has(g));
  const tbody = h('tbody');
  const groups = [];
  const flags = intended?.flags ?? {};
  for (const g of order) {
    const head = h('tr', { class: 'group' }, h('th', { colspan: 2 }, `${g} (${byGroup.get(g).length})`));
    tbody.append(head);
    const rows = byGroup.get(g).map((k) => {
      const v = fmtVal(config[k]);
      const tr = h(
        'tr',
        null,
        h(
          'td',
          { class: 'key mono' },
          k,
          k in flags ? h('span', { class: 'asked', title: 'set on the command line' }, ' ●') : null,
        ),
        h('td', { class: 'mono val' }, v),
      );
      tbody.append(tr);
      return { tr, text: `${k} ${v}`.toLowerCase() };
    });
    groups.push({ head, rows });
  }
  search.addEventListener('input', () => {
    const q = search.value.trim().toLowerCase();
    for (const g of groups) {
      let any = false;
      for (const r of g.rows) {
        const hit = !q || r.text.includes(q);
        r.tr.hidden = !hit;
        any ||= hit;
      }
      g.head.hidden = !any;
    }
  });
  wrap.append(search, h('table', { class: 'data kvtable' }, tbody));
  return wrap;
}

export function notesBlock(rep) {
  const lines = [
    ...(rep.stallHints ?? []).map((e) => ({ ...e, what: 'stall hint' })),
    ...(rep.degraded ?? []).map((e) => ({ ...e, what: 'degraded' })),
    ...(rep.recoveredFailures ?? []).map((e) => ({
      line: e.line,
      text: e.message,
      what: `recovered ${e.class}`,
    })),
  ].sort((a, b) => a.line - b.line);
  return lines.length ? evidenceList(lines) : null;
}
