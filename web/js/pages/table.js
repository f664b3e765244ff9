/**
 * Page #/ : the launches table (filter, sort, pick 2–4 to compare).
 */
import { api, viewEvents } from '../api.js';
import { h } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal, plural, shortId } from '../format.js';
import { routeSeq } from '../router.js';
import { OUTCOME_RANK, stateOf, tone } from '../states.js';

/**
 * Key flags shown when they vary among the listed launches (tp always), with the short names the table
 * prints (the cell's tooltip and the free-text filter know the full names too).
 */
const FLAG_KEYS = {
  tp: 'tp',
  dp: 'dp',
  pp: 'pp',
  ep: 'ep',
  nnodes: 'nnodes',
  moe_runner_backend: 'moe',
  attention_backend: 'attn',
  max_running_requests: 'max_running',
  disable_cuda_graph: 'disable_cuda_graph',
  cuda_graph_max_bs: 'cuda_graph_bs',
  quantization: 'quant',
  kv_cache_dtype: 'kv',
  mem_fraction_static: 'mem_frac',
  gpu_memory_utilization: 'gpu_mem_util',
  chunked_prefill_size: 'chunked_prefill',
  max_model_len: 'max_len',
  enable_dp_attention: 'dp_attn',
  speculative_algorithm: 'spec',
  dtype: 'dtype',
};

function flagChip(k, v) {
  const short = FLAG_KEYS[k] ?? k;
  // A boolean `disable_*` reads best as the thing it turns off.
  if (k === 'disable_cuda_graph' && typeof v === 'boolean') return `cuda_graph=${v ? 'off' : 'on'}`;
  return `${short}=${fmtVal(v)}`;
}

/** Table state survives navigation to a detail page and back. */
const table = {
  launches: [],
  byId: new Map(),
  /** id → { tr, text } : rows are built once and reordered, never rebuilt on sort or filter. */
  rows: new Map(),
  flagKeys: [],
  filter: { model: '', host: '', outcome: '', text: '' },
  sort: { col: 'start', dir: -1 },
  selected: new Set(),
  els: null,
  rendered: false,
  /** Bumped by every renderTable: rows still being appended for an earlier one are dropped. */
  renderSeq: 0,
};

const COLUMNS = [
  { key: 'pick', label: '', sortable: false },
  { key: 'id', label: 'id', value: (l) => l.id },
  { key: 'start', label: 'start', unit: 'log clock', value: (l) => l.startTs ?? l.firstSeen ?? null },
  { key: 'host', label: 'host', value: (l) => l.host },
  { key: 'model', label: 'model', value: (l) => l.model },
  { key: 'engine', label: 'engine', value: (l) => l.engine },
  { key: 'outcome', label: 'outcome', unit: 'phase', value: (l) => OUTCOME_RANK[stateOf(l)] ?? 9 },
  { key: 'flags', label: 'key flags', unit: 'tp + those that vary', value: (l) => flagText(l) },
  {
    key: 'load',
    label: 'load',
    unit: 'to ready',
    title: 'from the first line to ready',
    num: true,
    value: (l) => l.loadSeconds,
  },
  { key: 'peak', label: 'peak', unit: 'tok/s', num: true, value: (l) => l.peakTokS },
  { key: 'median', label: 'median', unit: 'tok/s', num: true, value: (l) => l.medianTokS },
  { key: 'bench', label: 'bench out', unit: 'tok/s', num: true, value: (l) => l.bench?.outputTokS ?? null },
  {
    key: 'targets',
    label: 'target',
    title: 'performance targets: ✓ all met, ✗ one missed',
    value: targetRank,
  },
];

function targetState(l) {
  const t = l.targets ?? [];
  if (!t.length) return null;
  if (t.some((x) => x.pass === false)) return false;
  if (t.every((x) => x.pass === true)) return true;
  return null;
}

function targetRank(l) {
  const st = targetState(l);
  return st === true ? 2 : st === false ? 0 : (l.targets ?? []).length ? 1 : null;
}

function flagText(l) {
  const f = l.keyFlags ?? {};
  return table.flagKeys
    .filter((k) => f[k] !== undefined)
    .map((k) => flagChip(k, f[k]))
    .join(' ');
}

/** tp, and every other key flag whose value is not the same in all launches. */
function varyingFlags(launches) {
  const keys = [];
  for (const k of Object.keys(FLAG_KEYS)) {
    const seen = new Set();
    let present = false;
    for (const l of launches) {
      const v = l.keyFlags?.[k];
      if (v !== undefined) present = true;
      seen.add(JSON.stringify(v ?? null));
      if (seen.size > 1) break;
    }
    if (present && (k === 'tp' || seen.size > 1)) keys.push(k);
  }
  return keys;
}

function setLaunches(list) {
  table.launches = list;
  table.byId = new Map(list.map((l) => [l.id, l]));
  table.flagKeys = varyingFlags(list);
  table.rows.clear();
}

export async function tableView(seq) {
  const data = await api('api/launches?limit=100000');
  performance.mark('firedup:data-ready');
  if (seq !== routeSeq) return null;
  setLaunches(data.launches ?? []);
  const root = h('section', { class: 'table-page' });
  const els = buildTableChrome(root);
  // The targets themselves: under the column's name, listed in its tooltip.
  const targets = data.targets ?? [];
  const th = els.ths.get('targets');
  th.title = targets.length
    ? `targets (✓ all met, ✗ one missed, – no data):\n${targets.map((t) => (t.model ? `${t.expr} (${t.model})` : t.expr)).join('\n')}`
    : 'no target set (firedup target add)';
  th.querySelector('button').append(
    h('span', { class: 'unit' }, targets.length ? `${targets.length} set` : 'none set'),
  );
  table.els = els;
  renderTable();
  viewEvents.launch = (summary) => {
    const i = table.launches.findIndex((l) => l.id === summary.id);
    if (i >= 0) table.launches[i] = summary;
    else table.launches.unshift(summary);
    table.byId.set(summary.id, summary);
    const keys = varyingFlags(table.launches);
    if (keys.join() !== table.flagKeys.join()) {
      table.flagKeys = keys;
      table.rows.clear();
    } else table.rows.delete(summary.id);
    refreshFilterOptions();
    scheduleRender();
  };
  root.afterMount = () => {
    performance.mark('firedup:table-rendered');
  };
  return root;
}

let renderQueued = false;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    if (table.els?.tbody.isConnected) renderTable();
  });
}

function buildTableChrome(root) {
  const f = table.filter;
  const model = h('select', { 'aria-label': 'model' });
  const host = h('select', { 'aria-label': 'host' });
  const outcome = h('select', { 'aria-label': 'outcome' });
  const text = h('input', {
    type: 'search',
    placeholder: 'filter: id, path, flags (tp=8 flashinfer)…',
    'aria-label': 'free-text filter',
    value: f.text,
  });
  const count = h('span', { class: 'count muted' });
  const compare = h('button', { type: 'button', class: 'primary', disabled: true }, 'Compare');
  const pickNote = h('span', { class: 'muted' }, 'pick 2–4 to compare');
  model.addEventListener('change', () => {
    f.model = model.value;
    renderTable();
  });
  host.addEventListener('change', () => {
    f.host = host.value;
    renderTable();
  });
  outcome.addEventListener('change', () => {
    f.outcome = outcome.value;
    renderTable();
  });
  let t = null;
  text.addEventListener('input', () => {
    clearTimeout(t);
    t = setTimeout(() => {
      f.text = text.value;
      renderTable();
    }, 80);
  });
  compare.addEventListener('click', () => {
    location.hash = `#/compare/${[...table.selected].join(',')}`;
  });

  const headRow = h('tr');
  const ths = new Map();
  for (const c of COLUMNS) {
    const th = h('th', { class: c.num ? 'num' : null, title: c.title, scope: 'col' });
    if (c.sortable === false) th.append(h('span', { class: 'sr' }, 'compare'));
    else {
      const btn = h(
        'button',
        { type: 'button', class: 'sort' },
        h('span', { class: 'lbl' }, c.label),
        c.unit ? h('span', { class: 'unit' }, c.unit) : null,
      );
      btn.addEventListener('click', () => {
        if (table.sort.col === c.key) table.sort.dir = -table.sort.dir;
        else table.sort = { col: c.key, dir: c.num || c.key === 'start' ? -1 : 1 };
        renderTable();
      });
      th.append(btn);
    }
    ths.set(c.key, th);
    headRow.append(th);
  }
  const tbody = h('tbody');
  tbody.addEventListener('change', (ev) => {
    const cb = ev.target;
    if (!(cb instanceof HTMLInputElement) || !cb.dataset.id) return;
    if (cb.checked) table.selected.add(cb.dataset.id);
    else table.selected.delete(cb.dataset.id);
    updateCompare();
  });
  root.append(
    h(
      'div',
      { class: 'toolbar' },
      h('label', null, 'model ', model),
      h('label', null, 'host ', host),
      h('label', null, 'outcome ', outcome),
      text,
      count,
      h('span', { class: 'spacer' }),
      pickNote,
      compare,
    ),
    h('div', { class: 'table-wrap' }, h('table', { class: 'launches' }, h('thead', null, headRow), tbody)),
  );
  const els = { model, host, outcome, text, count, compare, pickNote, tbody, ths };
  table.els = els;
  refreshFilterOptions();
  return els;
}

function refreshFilterOptions() {
  const { model, host, outcome } = table.els;
  const fill = (sel, values, cur, all) => {
    const opts = [h('option', { value: '' }, all)];
    for (const v of [...values].sort()) opts.push(h('option', { value: v }, v));
    sel.replaceChildren(...opts);
    sel.value = values.has(cur) ? cur : '';
  };
  const col = (k) => new Set(table.launches.map((l) => l[k]).filter((v) => v !== null && v !== undefined));
  fill(model, col('model'), table.filter.model, 'all');
  fill(host, col('host'), table.filter.host, 'all');
  fill(outcome, col('outcome'), table.filter.outcome, 'all');
  table.filter.model = model.value;
  table.filter.host = host.value;
  table.filter.outcome = outcome.value;
}

function updateCompare() {
  const n = table.selected.size;
  const { compare, pickNote } = table.els;
  compare.disabled = n < 2 || n > 4;
  compare.textContent = n ? `Compare ${n}` : 'Compare';
  pickNote.textContent = n > 4 ? 'at most 4' : n === 1 ? 'pick 1–3 more' : 'pick 2–4 to compare';
}

/** The row's fixed structure, built once and cloned per launch (much cheaper than building each row). */
let rowTemplate = null;
function templateRow() {
  rowTemplate ??= h(
    'tr',
    null,
    h('td', { class: 'pick' }, h('input', { type: 'checkbox' })),
    h('td', { class: 'id mono' }, h('a')),
    h('td', { class: 'mono nowrap' }),
    h('td'),
    h('td', { class: 'model' }),
    h('td'),
    h('td', { class: 'outcome' }, h('span', { class: 'badge' })),
    h('td', { class: 'flags' }),
    h('td', { class: 'num' }),
    h('td', { class: 'num' }),
    h('td', { class: 'num' }),
    h('td', { class: 'num' }),
    h('td', { class: 'target' }),
  );
  return rowTemplate.cloneNode(true);
}

/**
 * A launch's row: its `tr`, built when the row is first shown (sorting or filtering 1,000 launches builds
 * none), and its text for the free-text filter, built on the first such filter.
 */
function rowFor(l) {
  let row = table.rows.get(l.id);
  if (row) return row;
  row = {
    _tr: null,
    _text: null,
    get tr() {
      this._tr ??= rowElement(l);
      return this._tr;
    },
    get text() {
      this._text ??= [
        l.id,
        l.host,
        l.path,
        l.model,
        l.engine,
        stateOf(l),
        l.phase,
        l.failure?.class,
        flagText(l),
        allFlags(l.keyFlags ?? {}),
      ]
        .join(' ')
        .toLowerCase();
      return this._text;
    },
  };
  table.rows.set(l.id, row);
  return row;
}

function rowElement(l) {
  const f = l.failure;
  const tr = templateRow();
  tr.dataset.id = l.id;
  const c = tr.children;
  const cb = c[0].firstChild;
  cb.dataset.id = l.id;
  cb.setAttribute('aria-label', `select ${shortId(l.id)}`);
  cb.checked = table.selected.has(l.id);
  const a = c[1].firstChild;
  a.href = `#/launch/${l.id}`;
  a.title = `${l.host}:${l.path} line ${l.startLine}`;
  a.textContent = shortId(l.id);
  const start = fmtTs(l.startTs ?? l.firstSeen);
  c[2].title = start;
  c[2].textContent = start.slice(0, 16);
  // A multi-node launch is one row: the head's host and how many nodes it spans.
  c[3].textContent = l.nodes ? `${l.host} ×${l.nodes.length}` : l.host;
  c[3].title = l.nodes
    ? l.nodes.map((n) => `node ${n.nodeRank ?? 0}: ${n.name} ${n.outcome}`).join('\n')
    : '';
  c[4].title = l.path;
  c[4].textContent = l.model ?? '–';
  c[5].textContent = l.engine ?? '–';
  const oc = c[6];
  if (f) oc.title = `${f.class}: ${f.message}`;
  const state = stateOf(l);
  oc.firstChild.className = `badge ${tone(state)}`;
  oc.firstChild.textContent = state === 'ended' ? 'ended (no exit line)' : String(state).replace('_', ' ');
  if (state !== 'serving' && state !== 'shutdown' && l.phase && l.phase !== state)
    oc.append(h('span', { class: 'phase' }, l.phase));
  if (f) oc.append(h('span', { class: 'fail' }, f.class));
  const kf = l.keyFlags ?? {};
  for (const k of table.flagKeys)
    if (kf[k] !== undefined)
      c[7].append(h('span', { class: 'flag', title: `${k}=${fmtVal(kf[k])}` }, flagChip(k, kf[k])), ' ');
  c[8].textContent = fmtDur(l.loadSeconds);
  c[9].textContent = fmtNum(l.peakTokS, 1);
  c[10].textContent = fmtNum(l.medianTokS, 1);
  c[11].textContent = fmtNum(l.bench?.outputTokS ?? null, 1);
  const st = targetState(l);
  const t = c[12];
  if (st !== null) t.classList.add(st ? 'pass' : 'miss');
  t.title =
    (l.targets ?? [])
      .map((x) => `${x.expr}: ${x.actual ?? '?'} ${x.pass === true ? '✓' : x.pass === false ? '✗' : '–'}`)
      .join('\n') || 'no target';
  t.textContent = st === true ? '✓' : st === false ? '✗' : '–';
  return tr;
}

function allFlags(kf) {
  return Object.entries(kf)
    .map(([k, v]) => `${k}=${fmtVal(v)}`)
    .join(' ');
}

/**
 * Rows to build before the table shows (a few screens); the others are built in a task of their own, so
 * 1,000 launches show their first rows without waiting for the last (and the browser lays out 100 rows
 * first, not 1,000). Rows built before (a sort, a filter, an update) cost nothing and are never deferred.
 */
const FIRST_ROWS = 100;

/** Appends the rows of `list` from `from` on to `frag` until `budget` rows had to be built; returns where it stopped. */
function appendSome(frag, list, from, budget) {
  let i = from;
  for (; i < list.length && (budget > 0 || list[i].row._tr); i++) {
    if (!list[i].row._tr) budget--;
    frag.append(list[i].row.tr);
  }
  return i;
}

/** The rows of `list` from `from` on, in the next task; dropped when the table is rendered again by then. */
function appendRows(list, from, seq) {
  if (from >= list.length) {
    performance.mark('firedup:table-complete');
    return;
  }
  setTimeout(() => {
    if (seq !== table.renderSeq) return;
    const frag = document.createDocumentFragment();
    appendSome(frag, list, from, Number.POSITIVE_INFINITY);
    table.els.tbody.append(frag);
    performance.mark('firedup:table-complete');
  }, 0);
}

function renderTable() {
  const { filter, sort, els } = table;
  const terms = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  const col = COLUMNS.find((c) => c.key === sort.col) ?? COLUMNS[2];
  const list = [];
  for (const l of table.launches) {
    if (filter.model && l.model !== filter.model) continue;
    if (filter.host && l.host !== filter.host) continue;
    if (filter.outcome && stateOf(l) !== filter.outcome) continue;
    const row = rowFor(l);
    if (terms.length && !terms.every((t) => row.text.includes(t))) continue;
    list.push({ l, v: col.value(l), row });
  }
  list.sort((a, b) => {
    // Unknown values sort last whichever the direction.
    if (a.v === null || a.v === undefined) return b.v === null || b.v === undefined ? 0 : 1;
    if (b.v === null || b.v === undefined) return -1;
    return (a.v < b.v ? -1 : a.v > b.v ? 1 : 0) * sort.dir;
  });
  const seq = ++table.renderSeq;
  const frag = document.createDocumentFragment();
  const shown = appendSome(frag, list, 0, FIRST_ROWS);
  if (!list.length) {
    frag.append(
      h(
        'tr',
        { class: 'empty' },
        h(
          'td',
          { colspan: COLUMNS.length },
          table.launches.length
            ? 'No launch matches the filter.'
            : 'No launch recorded yet: `firedup serve --watch LOG` records the launches it watches.',
        ),
      ),
    );
  }
  els.tbody.replaceChildren(frag);
  appendRows(list, shown, seq);
  els.count.textContent =
    list.length === table.launches.length
      ? plural(list.length, 'launch', 'launches')
      : `${list.length} of ${plural(table.launches.length, 'launch', 'launches')}`;
  for (const [k, th] of els.ths) {
    th.classList.toggle('sorted', k === sort.col);
    if (k === sort.col) th.setAttribute('aria-sort', sort.dir > 0 ? 'ascending' : 'descending');
    else th.removeAttribute('aria-sort');
  }
  updateCompare();
}
