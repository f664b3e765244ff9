/**
 * Page #/live : one card per watched target, updated from /api/events.
 */
import { api, viewEvents, wantLiveCards } from '../api.js';
import { h } from '../dom.js';
import { fmtDur, fmtGiB, fmtNum } from '../format.js';
import { onCleanup, registerPage, routeSeq } from '../router.js';
import { badge, tone } from '../states.js';
import { sparkline } from '../spark.js';
import { progressBar } from '../widgets.js';
import { forget, remember } from './live-history.js';

export async function liveView(seq) {
  const data = await api('api/live');
  if (seq !== routeSeq) return null;
  const root = h('section', { class: 'live' });
  const grid = h('div', { class: 'cards' });
  const cards = new Map();
  const put = (t) => {
    const card = liveCard(t, remember(t));
    const old = cards.get(t.name);
    if (old) old.el.replaceWith(card);
    else grid.append(card);
    cards.set(t.name, { el: card, t });
    empty.hidden = cards.size > 0;
  };
  const empty = h(
    'p',
    { class: 'muted' },
    'No watched target: start ',
    h('code', null, 'firedup serve --watch LOG'),
    ' (or list targets in firedup.toml).',
  );
  root.append(h('h1', null, 'Live'), empty, grid);
  forget(new Set((data.targets ?? []).map((t) => t.name)));
  for (const t of data.targets ?? []) put(t);
  viewEvents.live = put;
  // Every card is on this page: the stream sends each one's changes (other pages get none).
  wantLiveCards('*');
  // "updated N s ago" ticks without a server event.
  const timer = setInterval(() => {
    for (const c of cards.values()) {
      const el = c.el.querySelector('.ago');
      if (el) el.textContent = agoText(c.t.updatedAt);
    }
  }, 1000);
  onCleanup(() => clearInterval(timer));
  return root;
}

function agoText(ts) {
  if (!ts) return '';
  const d = Math.max(0, Date.now() / 1000 - ts);
  return `updated ${d < 1 ? 'just now' : `${fmtDur(Math.round(d))} ago`}`;
}

/** A multi-node target's nodes: each one's state and phase, the head and the node holding the launch back. */
function nodeList(nodes) {
  return h(
    'ul',
    { class: 'nodes', 'aria-label': 'nodes' },
    nodes.map((n) =>
      h(
        'li',
        { class: `node ${n.culprit ? 'culprit' : ''}`, 'data-node': n.node, title: n.why },
        h('span', { class: 'mono' }, n.node),
        h('span', { class: 'state', 'data-state': n.state }, badge(n.state)),
        n.phase ? h('span', { class: 'phase-name' }, n.phase) : null,
        n.progress ? h('span', { class: 'small' }, `${n.progress.done}/${n.progress.total}`) : null,
        n.head ? h('span', { class: 'muted small' }, 'head') : null,
        n.culprit ? h('strong', { class: 'small' }, 'holds the launch back') : null,
        h('span', { class: 'mono muted small' }, n.target),
      ),
    ),
  );
}

function liveCard(t, hist) {
  const v = t.verdict;
  const l = t.launch;
  // A host that does not answer has no verdict to show: its card says so, and why (ssh's reason).
  const state = t.unreachable ? 'unreachable' : (v?.state ?? 'waiting');
  const phase = v?.phase ?? l?.phase ?? null;
  const card = h('article', { class: `card live-card ${tone(state)}`, 'data-target': t.name });
  card.append(
    h(
      'header',
      null,
      h('h2', null, t.name),
      h('span', { class: 'state', 'data-state': state }, badge(state)),
      h('span', { class: 'spacer' }),
      h('span', { class: 'ago muted' }, agoText(t.updatedAt)),
    ),
    h('div', { class: 'target mono muted' }, t.target),
    h(
      'div',
      { class: 'meta' },
      phase
        ? h('span', null, 'phase ', h('strong', { class: 'phase-name' }, phase))
        : h('span', { class: 'muted' }, 'no phase yet'),
      v?.launch ? h('span', null, `launch ${v.launch} of ${v.launches}`) : null,
      v?.engine || l?.engine ? h('span', null, v?.engine ?? l?.engine) : null,
      l?.model ? h('span', { class: 'model' }, l.model) : null,
      v?.throughput !== null && v?.throughput !== undefined
        ? h('span', null, `${fmtNum(v.throughput, 1)} tok/s`)
        : null,
    ),
  );
  const p = v?.progress ?? l?.progress ?? null;
  if (p) {
    // The verdict's progress is the graph capture's while in cuda_graph, the weights' otherwise.
    const bar = l?.phase === 'cuda_graph' && l?.graphProgress ? l.graphProgress : l?.progress;
    card.append(
      progressBar(p.ratio, `${bar?.what ? `${bar.what}: ` : ''}${p.done}/${p.total}`),
      h(
        'div',
        { class: 'muted small' },
        [
          p.rate ? `${p.rate}/s` : null,
          !v?.final && v?.state !== 'stalled' && p.eta !== null && p.eta !== undefined && p.ratio < 1
            ? `ETA ${fmtDur(p.eta)}`
            : null,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    );
  }
  card.append(verdictBlock(t, state));
  card.append(chartsBlock(hist));
  if (t.nodes?.length) card.append(nodeList(t.nodes));
  if (t.gpus?.length) card.append(gpuBlock(t.gpus, hist));
  const ev = (v?.evidence ?? []).slice(0, 4);
  if (ev.length)
    card.append(
      h(
        'ol',
        { class: 'evidence compact' },
        ev.map((e) =>
          h(
            'li',
            null,
            h('span', { class: 'what' }, e.source),
            e.line ? h('span', { class: 'ln' }, `line ${e.line}`) : null,
            h('code', { class: 'text' }, e.text),
          ),
        ),
      ),
    );
  return card;
}

registerPage(['live'], (_arg, seq) => liveView(seq));

/** The verdict with its reason, the next step and how long the log has been quiet (as `show` and `status` say). */
function verdictBlock(t, state) {
  const v = t.verdict;
  const quiet =
    !v?.final && v?.quietFor !== null && v?.quietFor !== undefined
      ? `quiet ${fmtDur(v.quietFor)}${v.budget ? ` of ${fmtDur(v.budget)} allowed` : ''}`
      : null;
  return h(
    'div',
    { class: `verdict ${tone(state)}` },
    t.unreachable ? h('p', { class: 'why' }, t.unreachable) : v?.why ? h('p', { class: 'why' }, v.why) : null,
    v?.next ? h('p', { class: 'next' }, h('strong', null, 'next: '), v.next) : null,
    quiet ? h('p', { class: 'quiet muted small' }, quiet) : null,
  );
}

/** The load curve (items done over time) and the throughput sparkline, from the page's history. */
function chartsBlock(hist) {
  const wrap = h('div', { class: 'live-charts' });
  const load = hist.load;
  const total = hist.loadTotal;
  const span = load.length > 1 ? load.xs[load.length - 1] - load.xs[0] : 0;
  wrap.append(
    h(
      'figure',
      { class: 'mini load-curve', 'data-chart': 'load' },
      h(
        'figcaption',
        null,
        h('span', { title: hist.loadWhat ?? '' }, 'load progress'),
        h(
          'span',
          { class: 'mono' },
          load.length ? `${load.last()}/${total}${span ? ` in ${fmtDur(span)}` : ''}` : '–',
        ),
      ),
      sparkline(load.xs, load.ys, {
        yMax: total ?? undefined,
        label: `${hist.loadWhat ?? 'load'} done over time`,
        cls: 'load',
      }),
    ),
  );
  const tok = hist.tok;
  const peak = tok.length ? Math.max(...tok.ys) : null;
  wrap.append(
    h(
      'figure',
      { class: 'mini tok-spark', 'data-chart': 'throughput' },
      h(
        'figcaption',
        null,
        h('span', null, 'generation tok/s'),
        h(
          'span',
          { class: 'mono' },
          tok.length ? `${fmtNum(tok.last(), 1)} · peak ${fmtNum(peak, 1)}` : 'not serving yet',
        ),
      ),
      sparkline(tok.xs, tok.ys, { label: 'generation tok/s over time', cls: 'tok' }),
    ),
  );
  return wrap;
}

/** Each GPU: memory and utilisation now (bars) and the last minutes of both (a strip). */
function gpuBlock(gpus, hist) {
  return h(
    'div',
    { class: 'gpus', 'aria-label': 'GPU memory' },
    h('div', { class: 'muted small' }, 'GPU memory used · utilisation (bars: now; line: recent memory)'),
    gpus.map((g) => {
      const ratio = g.memTotalBytes ? g.memUsedBytes / g.memTotalBytes : 0;
      // util is a fraction (0–1), null when nvidia-smi did not say.
      const util = g.util === null || g.util === undefined ? null : g.util;
      const utilText = util === null ? 'n/a' : `${Math.round(util * 100)}%`;
      const gh = hist.gpus.get(g.index);
      return h(
        'div',
        {
          class: 'gpu',
          'data-gpu': g.index,
          title: `GPU ${g.index}: ${fmtGiB(g.memUsedBytes)} of ${fmtGiB(g.memTotalBytes)} GiB used, utilisation ${utilText}`,
        },
        h('span', { class: 'gi mono' }, `GPU${g.index}`),
        h(
          'span',
          { class: 'membar' },
          h('span', { class: 'fill', style: { width: `${(ratio * 100).toFixed(1)}%` } }),
        ),
        h(
          'span',
          { class: 'utilbar' },
          h('span', { class: 'fill', style: { width: `${((util ?? 0) * 100).toFixed(1)}%` } }),
        ),
        h(
          'span',
          { class: 'mono small' },
          `${fmtGiB(g.memUsedBytes)}/${fmtGiB(g.memTotalBytes)} GiB · ${utilText}`,
        ),
        gh
          ? sparkline(gh.mem.xs, gh.mem.ys, {
              width: 80,
              height: 16,
              yMax: 1,
              label: `GPU ${g.index} memory, recent`,
              cls: 'gpu-hist',
            })
          : null,
      );
    }),
  );
}
