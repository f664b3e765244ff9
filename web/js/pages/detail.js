/**
 * Page #/launch/ID : one launch: phase timeline, load progress, throughput, config, failure, benches.
 */
import { api } from '../api.js';
import { loadCurveChart, loadUplot, throughputChart } from '../charts.js';
import { h, s } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal } from '../format.js';
import { main, routeSeq } from '../router.js';
import { badge, PHASE_COLOR, stateOf } from '../states.js';

export async function detailView(id, seq) {
  // The chart library loads while the data is on its way.
  const uplotReady = loadUplot();
  const data = await api(`api/launches/${encodeURIComponent(id)}`);
  performance.mark('firedup:data-ready');
  if (seq !== routeSeq) return null;
  const rec = data.launch;
  const rep = rec.report ?? {};
  const root = h('section', { class: 'detail' });
  root.append(detailHeader(rec, rep));
  // A multi-node launch: one row per node, the one that died first or holds the others back marked.
  if (rep.nodes) root.append(section('Nodes', nodesBlock(rep.nodes)));
  root.append(section('Phases', timeline(rep)));
  const curve = h('div', { class: 'chart' });
  root.append(section('Weight loading', loadProgress(rep, curve, stateOf(rec))));
  const thr = h('div', { class: 'chart' });
  const series = data.series ?? null;
  root.append(section('Throughput', throughputBlock(rep, series, thr)));
  if (rep.failure) root.append(section('Failure', failureBlock(rep.failure)));
  root.append(section('Benchmarks and targets', benchBlock(data.benches ?? [], data.targets ?? [])));
  root.append(section('Configuration', configBlock(rep.config ?? {}, rec.intended)));
  const notes = notesBlock(rep);
  if (notes) root.append(section('Warnings', notes));
  root.afterMount = () => {
    performance.mark('firedup:detail-rendered');
    uplotReady.then(() => {
      if (seq !== routeSeq) return;
      if (rep.progress?.series?.length > 1) loadCurveChart(curve, rep.progress);
      if (series?.ts?.length) throughputChart(thr, series);
      performance.mark('firedup:chart-rendered');
    });
  };
  return root;
}

export function section(title, ...body) {
  return h('section', { class: 'card' }, h('h2', null, title), ...body);
}

function kv(label, value, cls) {
  // The space keeps label and value apart in copied text too.
  return h(
    'div',
    { class: 'kv' },
    h('span', { class: 'k' }, label),
    ' ',
    h('span', { class: `v ${cls ?? ''}` }, value),
  );
}

function detailHeader(rec, rep) {
  const f = rep.failure;
  const loc = `${rec.host === 'localhost' ? '' : `${rec.host}:`}${rec.path}`;
  const head = h(
    'header',
    { class: 'detail-head card' },
    h(
      'div',
      { class: 'title' },
      h('a', { href: '#/', class: 'back' }, '← launches'),
      h('h1', null, rec.model ?? 'unknown model'),
      badge(stateOf(rec), stateOf(rec) === 'ended' ? 'ended (no exit line)' : stateOf(rec)),
      rec.phase && rec.phase !== stateOf(rec)
        ? h(
            'span',
            { class: 'phase' },
            rec.outcome === 'crashed'
              ? `in ${rec.phase}`
              : rec.outcome === 'shutdown'
                ? `after ${rec.phase}`
                : `phase ${rec.phase}`,
          )
        : null,
    ),
    h(
      'div',
      { class: 'kvs' },
      kv('launch', rec.id, 'mono'),
      kv('log', `${loc} · lines ${rec.startLine}–${rep.endLine ?? '?'}`, 'mono'),
      kv('engine', [rec.engine ?? '–', rec.version ? ` ${rec.version}` : ''].join('')),
      kv('started', `${fmtTs(rec.startTs)}${rep.startSeen === false ? ' (file begins mid-launch)' : ''}`),
      kv('log span', fmtDur(rep.duration)),
      kv('load time', fmtDur(rec.loadSeconds)),
      rec.peakTokS === null && rec.medianTokS === null
        ? null
        : kv('peak · median', `${fmtNum(rec.peakTokS, 1)} · ${fmtNum(rec.medianTokS, 1)} tok/s`),
      rec.pid ? kv('pid', String(rec.pid)) : null,
      rep.ranks?.length ? kv('ranks', rep.ranks.join(' ')) : null,
    ),
  );
  if (f) {
    head.append(
      h(
        'p',
        { class: 'failure-summary' },
        h('span', { class: 'badge bad' }, f.class),
        ` ${f.message} `,
        h(
          'span',
          { class: 'muted' },
          `(line ${f.line}${f.phase ? `, in ${f.phase}` : ''}${f.rank ? `, ${f.rank}` : ''})`,
        ),
      ),
    );
  }
  const mism = rec.intended?.mismatches ?? [];
  if (mism.length)
    head.append(
      h(
        'p',
        { class: 'warn-text' },
        `asked for but not observed: ${mism.map((m) => `${m.key} ${fmtVal(m.intended)} → ${fmtVal(m.observed)}`).join(', ')}`,
      ),
    );
  return head;
}

/** Lines of the log that prove a phase: its first line, and what else the report ties to it. */
function phaseEvidence(rep, i) {
  const p = rep.phases[i];
  const next = rep.phases[i + 1];
  const inPhase = (line) => line >= p.line && (!next || line < next.line);
  const lines = [{ line: p.line, text: p.text, what: 'entered' }];
  const prog = (g, label) => {
    if (g && inPhase(g.line))
      lines.push({
        line: g.line,
        text: `${g.what}: ${g.done}/${g.total} (${Math.round(g.ratio * 100)}%)${g.rate ? `, ${g.rate}/s` : ''}`,
        what: label,
      });
  };
  prog(rep.progress, 'last progress');
  prog(rep.graphProgress, 'graph capture');
  if (rep.ready && inPhase(rep.ready.line) && rep.ready.line !== p.line)
    lines.push({ line: rep.ready.line, text: rep.ready.text, what: 'ready' });
  const thr = rep.throughput;
  if (thr?.peakLine && inPhase(thr.peakLine))
    lines.push({ line: thr.peakLine, text: thr.peakText ?? '', what: 'peak throughput' });
  for (const e of [...(rep.stallHints ?? []), ...(rep.degraded ?? [])])
    if (inPhase(e.line)) lines.push({ line: e.line, text: e.text, what: 'warning' });
  const f = rep.failure;
  if (f && (f.phase === p.phase || (!next && f.evidence?.length)))
    for (const e of f.evidence ?? [])
      if (!lines.some((x) => x.line === e.line)) lines.push({ ...e, what: f.class });
  if (rep.shutdown && inPhase(rep.shutdown.line))
    lines.push({ line: rep.shutdown.line, text: rep.shutdown.text, what: 'shutdown' });
  return lines.sort((a, b) => a.line - b.line);
}

function evidenceList(lines) {
  return h(
    'ol',
    { class: 'evidence' },
    lines.map((e) =>
      h(
        'li',
        null,
        h('span', { class: 'ln' }, `line ${e.line}`),
        e.what ? h('span', { class: 'what' }, e.what) : null,
        h('code', { class: 'text' }, e.text),
      ),
    ),
  );
}

/** The Gantt chart: one bar per phase on the launch's time axis; a click shows the phase's evidence. */
function timeline(rep) {
  const phases = rep.phases ?? [];
  const wrap = h('div', { class: 'timeline' });
  if (!phases.length) {
    wrap.append(h('p', { class: 'muted' }, 'No phase reached in the log.'));
    return wrap;
  }
  const timed = phases.every((p) => p.at !== null && p.duration !== null);
  const end = timed ? Math.max(...phases.map((p) => p.at + p.duration), 1) : phases.length;
  // Drawn at the page's width so that text is at its real size (a fixed viewBox would scale it).
  const W = Math.max(640, Math.round(main.clientWidth - 32));
  const LABEL = 120;
  const RIGHT = 70;
  const ROW = 24;
  const TOP = 24;
  const plotW = W - LABEL - RIGHT;
  const H = TOP + ROW * phases.length + 6;
  const x = (t) => LABEL + (t / end) * plotW;
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'gantt',
    role: 'img',
    'aria-label': 'phase timeline',
    preserveAspectRatio: 'xMinYMin meet',
  });
  if (timed) {
    for (const t of ticks(end, 8)) {
      svg.append(
        s('line', { x1: x(t), x2: x(t), y1: TOP - 4, y2: H, class: 'grid' }),
        s('text', { x: x(t), y: TOP - 8, class: 'tick', 'text-anchor': 'middle' }, fmtDur(t)),
      );
    }
  }
  const evidence = h(
    'div',
    { class: 'phase-evidence' },
    h('p', { class: 'muted' }, 'Click a bar to see the log lines behind that phase.'),
  );
  const bars = [];
  const live = rep.outcome === 'in_progress';
  phases.forEach((p, i) => {
    const y = TOP + i * ROW;
    const x0 = timed ? x(p.at) : x(i);
    const w = Math.max(3, timed ? x(p.at + p.duration) - x0 : x(i + 1) - x0 - 2);
    const last = i === phases.length - 1;
    const g = s('g', {
      class: 'bar',
      tabindex: 0,
      role: 'button',
      'data-phase': p.phase,
      'aria-label': `${p.phase} ${timed ? fmtDur(p.duration) : ''}`,
    });
    g.append(
      // The whole row is the click target, not only the (possibly 3 px wide) bar.
      s('rect', { x: 0, y, width: W, height: ROW, class: 'hit' }),
      s('text', { x: LABEL - 8, y: y + ROW / 2 + 4, class: 'pname', 'text-anchor': 'end' }, p.phase),
      s('rect', {
        x: x0,
        y: y + 4,
        width: w,
        height: ROW - 8,
        rx: 2,
        fill: PHASE_COLOR[p.phase] ?? '#64748b',
        class: last && live ? 'open' : null,
      }),
      s(
        'text',
        { x: Math.min(x0 + w + 6, W - RIGHT + 4), y: y + ROW / 2 + 4, class: 'dur' },
        timed ? `${fmtDur(p.duration)}${last && live ? ' so far' : ''}` : '',
      ),
      s(
        'title',
        null,
        `${p.phase}: line ${p.line}${p.start ? `, ${p.start}` : ''}${timed ? `, ${fmtDur(p.duration)}` : ''}`,
      ),
    );
    const show = () => {
      for (const b of bars) b.classList.toggle('selected', b === g);
      evidence.replaceChildren(
        h(
          'h3',
          null,
          `${p.phase}`,
          h(
            'span',
            { class: 'muted' },
            ` · ${timed ? `at ${fmtDur(p.at)}, ${fmtDur(p.duration)}` : 'no timestamps'}${p.start ? ` · ${p.start.replace('T', ' ').replace('Z', '')}` : ''}`,
          ),
        ),
        evidenceList(phaseEvidence(rep, i)),
      );
    };
    g.addEventListener('click', show);
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        show();
      }
    });
    bars.push(g);
    svg.append(g);
  });
  const f = rep.failure;
  if (f && timed && f.time && rep.startTime) {
    const at = (Date.parse(f.time) - Date.parse(rep.startTime)) / 1000;
    if (at >= 0 && at <= end)
      svg.append(
        s('line', { x1: x(at), x2: x(at), y1: TOP - 4, y2: H, class: 'fail-mark' }),
        s('title', null, `${f.class} at line ${f.line}`),
      );
  }
  wrap.append(svg);
  if (!timed)
    wrap.append(h('p', { class: 'muted' }, 'The log has no timestamps: bars show the order of phases only.'));
  wrap.append(evidence);
  return wrap;
}

/** About `n` round tick values in [0, end]. */
function ticks(end, n) {
  const raw = end / n;
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
  const step = steps.find((x) => x >= raw) ?? Math.ceil(raw / 3600) * 3600;
  const out = [];
  for (let t = 0; t <= end + 1e-9; t += step) out.push(t);
  return out;
}

/**
 * Weight-loading progress. A report keeps the last progress point only (not the bar's history), so
 * there is no curve to draw: the bar shows where it got to, and the phase bars show where the time went.
 */
function loadProgress(rep, curve, state = rep.outcome) {
  const open = state === 'in_progress';
  const wrap = h('div', { class: 'load' });
  const p = rep.progress;
  const hasCurve = (p?.series?.length ?? 0) > 1;
  if (hasCurve) wrap.append(curve);
  if (p) {
    wrap.append(
      progressBar(p.ratio, `${p.what}: ${p.done}/${p.total}`),
      h(
        'p',
        { class: 'muted' },
        [
          p.rate ? `${p.rate}/s` : null,
          // An ETA only while the launch may still be loading: not once it is stalled, dead or over.
          open && p.eta !== null && p.eta !== undefined && p.ratio < 1
            ? `ETA ${fmtDur(p.eta)} (from the bar)`
            : null,
          `line ${p.line}`,
          p.time ? p.time.replace('T', ' ').replace('Z', '') : null,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    );
  } else wrap.append(h('p', { class: 'muted' }, 'No progress bar in this launch’s log.'));
  if (rep.graphProgress) {
    const g = rep.graphProgress;
    wrap.append(progressBar(g.ratio, `${g.what}: ${g.done}/${g.total}`));
  }
  // Up to ready (the load time) when the launch got there; else everything so far.
  const readyAt = (rep.phases ?? []).findIndex((x) => x.phase === 'ready');
  const phases = (rep.phases ?? [])
    .slice(0, readyAt >= 0 ? readyAt : undefined)
    .filter((x) => x.duration !== null);
  const total = phases.reduce((a, x) => a + x.duration, 0);
  if (total > 0) {
    const strip = h('div', { class: 'stack', role: 'img', 'aria-label': 'time to ready by phase' });
    for (const x of phases) {
      const pct = (x.duration / total) * 100;
      strip.append(
        h(
          'span',
          {
            style: { width: `${pct}%`, background: PHASE_COLOR[x.phase] ?? '#64748b' },
            title: `${x.phase} ${fmtDur(x.duration)} (${pct.toFixed(0)}%)`,
          },
          pct > 7 ? `${x.phase} ${fmtDur(x.duration)}` : '',
        ),
      );
    }
    wrap.append(
      h(
        'p',
        { class: 'note' },
        `${hasCurve ? '' : 'No load curve in this launch’s log (no timed progress bar). '}Where the ${fmtDur(total)} ${readyAt >= 0 ? 'to ready' : 'so far'} went, by phase:`,
      ),
      strip,
    );
  }
  return wrap;
}

export function progressBar(ratio, label) {
  const pct = Math.max(0, Math.min(1, ratio ?? 0)) * 100;
  return h(
    'div',
    {
      class: 'progress',
      role: 'progressbar',
      'aria-valuenow': pct.toFixed(0),
      'aria-valuemin': 0,
      'aria-valuemax': 100,
    },
    h('span', { class: 'fill', style: { width: `${pct}%` } }),
    h('span', { class: 'label' }, `${label} · ${pct.toFixed(0)}%`),
  );
}

function throughputBlock(rep, series, chartEl) {
  const t = rep.throughput;
  if (!t || !series?.ts?.length)
    return h('p', { class: 'muted' }, 'No generation throughput in the log (never served).');
  const sv = rep.serving;
  return h(
    'div',
    null,
    h(
      'div',
      { class: 'kvs' },
      kv('peak', `${fmtNum(t.peak, 2)} tok/s`),
      kv('median', `${fmtNum(t.median, 2)} tok/s`),
      kv('last', `${fmtNum(t.last, 2)} tok/s`),
      kv('samples', `${fmtNum(t.samples)} (${fmtNum(series.ts.length)} plotted)`),
      t.peakLine ? kv('peak at', `line ${t.peakLine}`) : null,
      sv ? kv('running · queued peak', `${fmtNum(sv.running.peak)} · ${fmtNum(sv.queued.peak)}`) : null,
      sv?.kvUsage?.peak !== null && sv?.kvUsage?.peak !== undefined
        ? kv('KV cache peak', `${(sv.kvUsage.peak * 100).toFixed(0)}%`)
        : null,
      sv ? kv('requests', fmtNum(sv.requests)) : null,
    ),
    chartEl,
  );
}

function nodesBlock(m) {
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

function failureBlock(f) {
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

function benchBlock(benches, targets) {
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

function configBlock(config, intended) {
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

function notesBlock(rep) {
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
