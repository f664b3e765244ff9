/**
 * Page #/ : the launches table (filter, sort, pick 2–4 to compare).
 */
import { api, viewEvents } from '../api.js';
import { h } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal, plural, shortId } from '../format.js';
import { routeSeq } from '../router.js';
import { stateOf, tone } from '../states.js';

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

/** Rows per page the table offers; the server takes at most 500. */
const PAGE_SIZES = [50, 100, 200, 500];

/**
 * Table state survives navigation to a detail page and back. The ledger filters, sorts and pages (a fleet's
 * ledger holds 100k launches): the page holds one page of them.
 */
const table = {
  launches: [],
  total: 0,
  offset: 0,
  limit: 100,
  targets: [],
  /** The filters' values (models, hosts, states), from the server; refreshed as launches come. */
  facets: null,
  facetsStale: true,
  flagKeys: [],
  filter: { model: '', host: '', outcome: '', text: '' },
  sort: { col: 'start', dir: -1 },
  selected: new Set(),
  els: null,
  /** Bumped by every request: an answer for an earlier one is dropped. */
  loadSeq: 0,
};

/** The columns; `sortable: false` where the ledger has no column to sort on (flags, targets are per row). */
const COLUMNS = [
  { key: 'pick', label: '', sortable: false },
  { key: 'id', label: 'id' },
  { key: 'start', label: 'start', unit: 'log clock' },
  { key: 'host', label: 'host' },
  { key: 'model', label: 'model' },
  { key: 'engine', label: 'engine' },
  { key: 'outcome', label: 'outcome', unit: 'phase' },
  { key: 'flags', label: 'key flags', unit: 'tp + those that vary', sortable: false },
  {
    key: 'load',
    label: 'load',
    unit: 'to ready',
    title: 'from the first line to ready',
    num: true,
  },
  { key: 'peak', label: 'peak', unit: 'tok/s', num: true },
  { key: 'median', label: 'median', unit: 'tok/s', num: true },
  { key: 'bench', label: 'bench out', unit: 'tok/s', num: true },
  {
    key: 'targets',
    label: 'target',
    title: 'performance targets: ✓ all met, ✗ one missed',
    sortable: false,
  },
];

function targetState(l) {
  const t = l.targets ?? [];
  if (!t.length) return null;
  if (t.some((x) => x.pass === false)) return false;
  if (t.every((x) => x.pass === true)) return true;
  return null;
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

/** The request for the page shown: filters, search, sort and page, all done by the ledger. */
function query() {
  const { filter: f, sort } = table;
  const q = new URLSearchParams();
  if (f.model) q.set('model', f.model);
  if (f.host) q.set('host', f.host);
  if (f.outcome) q.set('outcome', f.outcome);
  const words = searchWords(f.text);
  if (words) q.set('q', words);
  q.set('sort', sort.col);
  q.set('dir', sort.dir > 0 ? 'asc' : 'desc');
  q.set('limit', String(table.limit));
  if (table.offset) q.set('offset', String(table.offset));
  if (table.facetsStale) q.set('facets', '1');
  return `api/launches?${q}`;
}

/** The search box's words, with a flag's short name as the cells print it (`max_running=64`) made its key. */
function searchWords(text) {
  const full = Object.fromEntries(Object.entries(FLAG_KEYS).map(([k, v]) => [v, k]));
  return text
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => {
      const eq = w.indexOf('=');
      if (eq <= 0) return w;
      const k = w.slice(0, eq);
      return `${full[k] ?? k}${w.slice(eq)}`;
    })
    .join(' ');
}

function setPage(data) {
  table.launches = data.launches ?? [];
  table.total = data.total ?? table.launches.length;
  table.offset = data.offset ?? 0;
  table.targets = data.targets ?? [];
  if (data.facets) {
    table.facets = data.facets;
    table.facetsStale = false;
  }
  table.flagKeys = varyingFlags(table.launches);
}

/** Fetches the page the state names and shows it; an answer overtaken by a later request is dropped. */
async function load() {
  const seq = ++table.loadSeq;
  table.els?.count.classList.add('loading');
  let data;
  try {
    data = await api(query());
  } catch (e) {
    if (seq !== table.loadSeq || !table.els) return;
    table.els.count.classList.remove('loading');
    table.els.count.textContent = e.message;
    return;
  }
  if (seq !== table.loadSeq || !table.els?.tbody.isConnected) return;
  // Past the end (launches forgotten, a filter narrowed): the last page there is.
  if (!data.launches.length && data.total > 0 && data.offset > 0) {
    table.offset = Math.floor((data.total - 1) / table.limit) * table.limit;
    return load();
  }
  setPage(data);
  refreshFilterOptions();
  renderTable();
}

export async function tableView(seq) {
  table.facetsStale = true;
  const data = await api(query());
  performance.mark('firedup:data-ready');
  if (seq !== routeSeq) return null;
  setPage(data);
  const root = h('section', { class: 'table-page' });
  const els = buildTableChrome(root);
  table.els = els;
  renderTable();
  viewEvents.launch = (summary) => {
    const i = table.launches.findIndex((l) => l.id === summary.id);
    table.facetsStale = true;
    if (i >= 0) {
      // On this page: the row changes in place (its sort position too waits for the next load).
      table.launches[i] = summary;
      const keys = varyingFlags(table.launches);
      if (keys.join() !== table.flagKeys.join()) table.flagKeys = keys;
      scheduleRender();
    } else if (table.offset === 0) scheduleLoad();
  };
  root.afterMount = () => {
    performance.mark('firedup:table-rendered');
  };
  return root;
}

/** A launch new to the first page: the page is fetched again, at most once every LOAD_EVERY_MS. */
const LOAD_EVERY_MS = 2000;
let loadTimer = null;
let lastLoad = 0;
function scheduleLoad() {
  if (loadTimer) return;
  const wait = Math.max(0, lastLoad + LOAD_EVERY_MS - Date.now());
  loadTimer = setTimeout(() => {
    loadTimer = null;
    lastLoad = Date.now();
    if (table.els?.tbody.isConnected) load();
  }, wait);
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

/** A filter, the search or the sort changed: the first page of the new list. */
function reload() {
  table.offset = 0;
  load();
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
    reload();
  });
  host.addEventListener('change', () => {
    f.host = host.value;
    reload();
  });
  outcome.addEventListener('change', () => {
    f.outcome = outcome.value;
    reload();
  });
  let t = null;
  // Each change is a query of the ledger: after a pause in typing, not per key.
  text.addEventListener('input', () => {
    clearTimeout(t);
    t = setTimeout(() => {
      f.text = text.value;
      reload();
    }, 250);
  });
  const go = (offset) => {
    table.offset = Math.max(0, offset);
    load();
  };
  const first = h('button', { type: 'button', 'aria-label': 'first page' }, '«');
  const prev = h('button', { type: 'button', 'aria-label': 'previous page' }, '‹ prev');
  const next = h('button', { type: 'button', 'aria-label': 'next page' }, 'next ›');
  const last = h('button', { type: 'button', 'aria-label': 'last page' }, '»');
  first.addEventListener('click', () => go(0));
  prev.addEventListener('click', () => go(table.offset - table.limit));
  next.addEventListener('click', () => go(table.offset + table.limit));
  last.addEventListener('click', () => go(Math.floor((table.total - 1) / table.limit) * table.limit));
  const size = h(
    'select',
    { 'aria-label': 'rows per page' },
    PAGE_SIZES.map((n) => h('option', { value: String(n) }, String(n))),
  );
  size.value = String(table.limit);
  size.addEventListener('change', () => {
    table.limit = Number(size.value);
    reload();
  });
  const pageNote = h('span', { class: 'page-note muted' });
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
        reload();
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
    h(
      'nav',
      { class: 'pager', 'aria-label': 'pages' },
      first,
      prev,
      pageNote,
      next,
      last,
      h('label', null, 'rows ', size),
    ),
  );
  const els = {
    model,
    host,
    outcome,
    text,
    count,
    compare,
    pickNote,
    tbody,
    ths,
    first,
    prev,
    next,
    last,
    pageNote,
  };
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
  const fc = table.facets ?? { models: [], hosts: [], states: [] };
  // The value chosen stays offered even when the server's list no longer has it (it is bounded).
  const col = (values, cur) => new Set(cur ? [...values, cur] : values);
  fill(model, col(fc.models, table.filter.model), table.filter.model, 'all');
  fill(host, col(fc.hosts, table.filter.host), table.filter.host, 'all');
  fill(outcome, col(fc.states, table.filter.outcome), table.filter.outcome, 'all');
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

/** The page's rows, built anew per page (at most 500: the server pages, the browser does not). */
function renderTable() {
  const { sort, els } = table;
  const frag = document.createDocumentFragment();
  for (const l of table.launches) frag.append(rowElement(l));
  const filtered =
    table.filter.model || table.filter.host || table.filter.outcome || table.filter.text.trim();
  if (!table.launches.length) {
    frag.append(
      h(
        'tr',
        { class: 'empty' },
        h(
          'td',
          { colspan: COLUMNS.length },
          filtered
            ? 'No launch matches the filter.'
            : 'No launch recorded yet: `firedup serve --watch LOG` records the launches it watches.',
        ),
      ),
    );
  }
  els.tbody.replaceChildren(frag);
  performance.mark('firedup:table-complete');
  const n = table.launches.length;
  const from = table.offset + 1;
  const to = table.offset + n;
  const what = filtered ? 'matching launch' : 'launch';
  els.count.classList.remove('loading');
  els.count.textContent =
    n === 0
      ? filtered
        ? 'no matching launch'
        : plural(table.total, 'launch', 'launches')
      : n === table.total
        ? plural(n, what, `${what}es`)
        : `${from}–${to} of ${plural(table.total, what, `${what}es`)}`;
  const pages = Math.max(1, Math.ceil(table.total / table.limit));
  const page = Math.floor(table.offset / table.limit) + 1;
  els.pageNote.textContent = `page ${page} of ${pages}`;
  els.first.disabled = els.prev.disabled = table.offset === 0;
  els.next.disabled = els.last.disabled = to >= table.total;
  for (const [k, th] of els.ths) {
    th.classList.toggle('sorted', k === sort.col);
    if (k === sort.col) th.setAttribute('aria-sort', sort.dir > 0 ? 'ascending' : 'descending');
    else th.removeAttribute('aria-sort');
  }
  // The targets themselves: under the column's name, listed in its tooltip.
  const targets = table.targets;
  const th = els.ths.get('targets');
  th.title = targets.length
    ? `targets (✓ all met, ✗ one missed, – no data):\n${targets.map((t) => (t.model ? `${t.expr} (${t.model})` : t.expr)).join('\n')}`
    : 'no target set (firedup target add)';
  let unit = th.querySelector('.unit');
  if (!unit) {
    unit = h('span', { class: 'unit' });
    th.append(unit);
  }
  unit.textContent = targets.length ? `${targets.length} set` : 'none set';
  updateCompare();
}
