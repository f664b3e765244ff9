/**
 * The firedup dashboard: a single page with hash routes over the JSON API of `firedup serve`.
 *   #/                     launches table (filter, sort, pick 2–4 to compare)
 *   #/launch/ID            one launch: phase timeline, load progress, throughput, config, failure, benches
 *   #/compare/ID,ID[,…]    config diff, overlaid throughput, phase durations side by side
 *   #/live                 one card per watched target, updated from /api/events
 *   #/sweeps, #/sweep/NAME `firedup sweep` campaigns: ranked points, throughput against concurrency, Pareto
 *
 * Log lines and config values are untrusted: every piece of data goes into the page through textContent or
 * attributes of nodes built here, never through innerHTML. No build step: plain ES module; uPlot is the
 * global that assets/uplot.js defines, loaded only by the pages that draw charts (the table starts faster).
 */

performance.mark('firedup:app-start');

// ---------------------------------------------------------------- DOM helpers

/** `h('td', { class: 'num', title: 'x' }, 'text', node, null)`: an element; strings become text nodes. */
function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  if (props) setProps(el, props);
  append(el, kids);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function s(tag, props, ...kids) {
  const el = document.createElementNS(SVG_NS, tag);
  if (props) setProps(el, props);
  append(el, kids);
  return el;
}

function setProps(el, props) {
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el, kids) {
  for (const k of kids) {
    if (k === null || k === undefined || k === false) continue;
    if (Array.isArray(k)) append(el, k);
    else el.append(k instanceof Node ? k : String(k));
  }
}

// ---------------------------------------------------------------- formatting

const NBSP = '\u00a0';

/** Epoch seconds → `2026-02-19 13:02:53` (UTC: the log's own clock, as the CLI prints it). */
function fmtTs(ts) {
  if (ts === null || ts === undefined) return '–';
  return new Date(ts * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

function fmtClock(ts) {
  return ts === null || ts === undefined ? '–' : new Date(ts * 1000).toISOString().slice(11, 19);
}

function fmtDur(sec) {
  if (sec === null || sec === undefined || !Number.isFinite(sec)) return '–';
  if (sec < 10 && sec % 1 !== 0) return `${sec.toFixed(1)}${NBSP}s`;
  if (sec < 60) return `${Math.round(sec)}${NBSP}s`;
  const r = Math.round(sec);
  if (r < 3600) return `${Math.floor(r / 60)}m${String(r % 60).padStart(2, '0')}s`;
  return `${Math.floor(r / 3600)}h${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m`;
}

/** `1993.22` → `1,993.2`: fixed decimals, thousands separated (Intl is several times slower per call). */
function fmtNum(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const [int, frac] = x.toFixed(digits).split('.');
  return frac
    ? `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`
    : int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function fmtGiB(bytes) {
  return bytes === null || bytes === undefined ? '–' : (bytes / 2 ** 30).toFixed(1);
}

/** Config values as the CLI prints them (Python's spelling: the configs come from Python servers). */
function fmtVal(v) {
  if (v === undefined) return '(absent)';
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function shortId(id) {
  return String(id).slice(0, 8);
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// ---------------------------------------------------------------- states, phases, colours

const PHASES = [
  'args',
  'dist_init',
  'loading_weights',
  'weights_loaded',
  'kv_cache',
  'compile',
  'autotune',
  'cuda_graph',
  'warmup',
  'ready',
  'serving',
];

const PHASE_COLOR = {
  args: '#94a3b8',
  dist_init: '#a78bfa',
  loading_weights: '#3b82f6',
  weights_loaded: '#60a5fa',
  kv_cache: '#14b8a6',
  compile: '#f59e0b',
  autotune: '#f97316',
  cuda_graph: '#ec4899',
  warmup: '#eab308',
  ready: '#22c55e',
  serving: '#15803d',
};

/** Colours of the 2–4 launches on the compare page (also their legend swatches). */
const LAUNCH_COLOR = ['#2563eb', '#dc2626', '#16a34a', '#9333ea'];

/** Badge colour of an outcome or live state. */
function tone(state) {
  switch (state) {
    case 'ready':
    case 'serving':
    case 'idle':
      return 'ok';
    case 'crashed':
    case 'dead':
      return 'bad';
    case 'stalled':
      return 'warn';
    case 'shutdown':
    case 'exited':
    case 'waiting':
      return 'off';
    default:
      return 'run';
  }
}

function badge(state, label = state) {
  return h('span', { class: `badge ${tone(state)}` }, String(label ?? '–').replace('_', ' '));
}

const OUTCOME_RANK = {
  serving: 0,
  ready: 1,
  in_progress: 2,
  stalled: 3,
  shutdown: 4,
  exited: 5,
  ended: 6,
  dead: 7,
  crashed: 8,
};

/**
 * What the CLI lists as the launch's state (`firedup runs`): the log's outcome, or the live verdict the ledger
 * kept (stalled, dead, exited) where the log leaves the launch open. Older servers send no state.
 */
const stateOf = (l) => l.state ?? l.outcome;

// ---------------------------------------------------------------- API

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET a JSON endpoint, same origin (the token cookie goes with it). */
async function api(path) {
  let res;
  try {
    res = await fetch(path, { headers: { accept: 'application/json' } });
  } catch (e) {
    throw new HttpError(0, `cannot reach the firedup server (${e.message})`);
  }
  if (!res.ok) {
    let msg = `HTTP ${res.status}`;
    try {
      const body = await res.json();
      if (body && typeof body.error === 'string') msg = body.error;
    } catch {}
    throw new HttpError(res.status, msg);
  }
  return res.json();
}

/** The page for a failed request: 401 says how to get in, the rest say what failed. */
function errorView(err) {
  if (err.status === 401 || err.status === 403) {
    authFailed = true;
    closeEvents();
    return h(
      'section',
      { class: 'auth-error', role: 'alert' },
      h('h1', null, `${err.status} — not authorised`),
      h(
        'p',
        null,
        'This dashboard needs its access token. Open the URL that ',
        h('code', null, 'firedup serve'),
        ' printed when it started (it ends in ',
        h('code', null, '?token=…'),
        '); the browser then keeps the token in a cookie.',
      ),
      err.message && !/^HTTP /.test(err.message)
        ? h('p', { class: 'muted' }, `Server: ${err.message}`)
        : null,
    );
  }
  return h(
    'section',
    { class: 'error', role: 'alert' },
    h('h1', null, err.status === 404 ? 'Not found' : 'Error'),
    h('p', null, err.message || String(err)),
    h('p', null, h('a', { href: '#/' }, '← all launches')),
  );
}

// ---------------------------------------------------------------- events (SSE)

let events = null;
let authFailed = false;
let retryTimer = null;
let retryDelay = 1000;
/** Handlers of the current view: { live(target), launch(summary) }. */
let viewEvents = {};

function setConn(state, text) {
  const el = document.getElementById('conn');
  if (!el) return;
  el.className = `conn ${state}`;
  el.textContent = text;
}

/**
 * One EventSource for the whole page. The browser reconnects by itself after a dropped connection; when it
 * gives up (the server answered an error, or restarted slowly), a new one is opened with backoff.
 */
function openEvents() {
  if (events || authFailed || typeof EventSource === 'undefined') return;
  const es = new EventSource('api/events');
  events = es;
  es.addEventListener('open', () => {
    retryDelay = 1000;
    setConn('on', 'events: live');
  });
  es.addEventListener('error', () => {
    if (es.readyState === EventSource.CLOSED) {
      events = null;
      setConn('off', 'events: disconnected, retrying');
      clearTimeout(retryTimer);
      retryTimer = setTimeout(openEvents, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 30_000);
    } else setConn('off', 'events: reconnecting');
  });
  es.addEventListener('live', (ev) => dispatch('live', ev.data));
  es.addEventListener('launch', (ev) => dispatch('launch', ev.data));
}

function closeEvents() {
  clearTimeout(retryTimer);
  if (events) events.close();
  events = null;
  setConn('off', 'events: off');
}

function dispatch(kind, data) {
  const fn = viewEvents[kind];
  if (!fn) return;
  let obj;
  try {
    obj = JSON.parse(data);
  } catch {
    return;
  }
  fn(obj);
}

// ---------------------------------------------------------------- router

const main = document.getElementById('main');
/** Cleanups of the shown view (resize listeners, timers, charts), and of views replaced but not yet cleaned. */
let cleanups = [];
const retired = [];
let routeSeq = 0;

function onCleanup(fn) {
  cleanups.push(fn);
}

async function route() {
  const seq = ++routeSeq;
  // The old page stays usable (charts too) until the new one is ready to replace it.
  retired.push(...cleanups);
  cleanups = [];
  viewEvents = {};
  document.body.classList.add('busy');
  const hash = location.hash.replace(/^#\/?/, '');
  const [name, arg = ''] = splitOnce(hash, '/');
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle(
      'active',
      a.dataset.nav === (name === 'live' ? 'live' : name === 'sweeps' || name === 'sweep' ? 'sweeps' : name ? '' : 'table'),
    );
  let view;
  try {
    if (name === '' || name === 'launches') view = await tableView(seq);
    else if (name === 'launch') view = await detailView(decodeURIComponent(arg), seq);
    else if (name === 'compare') view = await compareView(decodeURIComponent(arg), seq);
    else if (name === 'live') view = await liveView(seq);
    else if (name === 'sweeps') view = await sweepsView(seq);
    else if (name === 'sweep') view = await sweepView(decodeURIComponent(arg), seq);
    else view = errorView(new HttpError(404, `no page ${location.hash}`));
  } catch (e) {
    if (seq !== routeSeq) return;
    view = errorView(e);
  }
  if (seq !== routeSeq || !view) return;
  for (const fn of retired.splice(0)) fn();
  document.body.classList.remove('busy');
  main.replaceChildren(view);
  // A new page starts at its top (the browser keeps the scroll position across hash changes).
  window.scrollTo(0, 0);
  if (view.afterMount) view.afterMount();
  if (!authFailed) openEvents();
}

function splitOnce(str, sep) {
  const i = str.indexOf(sep);
  return i < 0 ? [str] : [str.slice(0, i), str.slice(i + 1)];
}

// ---------------------------------------------------------------- launches table

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

async function tableView(seq) {
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
  c[3].textContent = l.host;
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

// ---------------------------------------------------------------- charts

let uplotLoading = null;

/** Loads assets/uplot.js (and its CSS) once; resolves when the global uPlot is there (or the load failed: charts say so). */
function loadUplot() {
  if (typeof uPlot !== 'undefined') return Promise.resolve();
  uplotLoading ??= new Promise((resolve) => {
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = 'assets/uplot.css';
    document.head.append(css);
    const el = document.createElement('script');
    el.src = 'assets/uplot.js';
    el.addEventListener('load', () => resolve());
    el.addEventListener('error', () => resolve());
    document.head.append(el);
  });
  return uplotLoading;
}

/** A uPlot chart that follows its container's width. Null (with a note) when uPlot did not load. */
function lineChart(container, opts, data) {
  if (typeof uPlot === 'undefined') {
    container.append(h('p', { class: 'muted' }, 'chart library (assets/uplot.js) did not load'));
    return null;
  }
  const width = () => Math.max(300, container.clientWidth || 800);
  const chart = new uPlot({ width: width(), height: opts.height ?? 240, ...opts }, data, container);
  let pending = false;
  const onResize = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      chart.setSize({ width: width(), height: opts.height ?? 240 });
    });
  };
  window.addEventListener('resize', onResize);
  onCleanup(() => {
    window.removeEventListener('resize', onResize);
    chart.destroy();
  });
  return chart;
}

/** The log's clock is UTC (or local time written as UTC): axes show it as written. */
const utcDate = (ts) =>
  typeof uPlot !== 'undefined' ? uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') : new Date(ts * 1000);

/** `cols`: the API's series columns, `{ ts: [...], tokS: [...] }`, plotted as they come (no copy). */
function throughputChart(container, cols) {
  const n = cols.ts.length;
  return lineChart(
    container,
    {
      tzDate: utcDate,
      scales: { x: { time: true } },
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: 'time (log clock, UTC as written)', value: (_u, v) => (v === null ? '–' : fmtTs(v)) },
        {
          label: 'generation tok/s',
          stroke: '#2563eb',
          fill: 'rgba(37,99,235,0.08)',
          width: 1,
          points: { show: n < 200 },
          value: (_u, v) => (v === null ? '–' : `${fmtNum(v, 1)} tok/s`),
        },
      ],
      axes: [{ values: (_u, splits) => splits.map(fmtClock) }, { label: 'tok/s', size: 60 }],
    },
    [cols.ts, cols.tokS],
  );
}

/** The weight-loading curve: items done over the log's time, from the report's `progress.series`. */
function loadCurveChart(container, p) {
  const ts = p.series.map((x) => x[0]);
  const done = p.series.map((x) => x[1]);
  return lineChart(
    container,
    {
      height: 200,
      tzDate: utcDate,
      scales: { x: { time: true }, y: { range: [0, p.total] } },
      legend: { live: true },
      series: [
        { label: 'time (log clock, UTC as written)', value: (_u, v) => (v === null ? '–' : fmtTs(v)) },
        {
          label: `${p.what} done (of ${p.total})`,
          stroke: '#0d9488',
          fill: 'rgba(13,148,136,0.08)',
          width: 1.5,
          points: { show: ts.length < 200 },
          value: (_u, v) => (v === null ? '–' : `${v}/${p.total}`),
        },
      ],
      axes: [{ values: (_u, splits) => splits.map(fmtClock) }, { label: 'done', size: 50 }],
    },
    [ts, done],
  );
}

// ---------------------------------------------------------------- detail

async function detailView(id, seq) {
  // The chart library loads while the data is on its way.
  const uplotReady = loadUplot();
  const data = await api(`api/launches/${encodeURIComponent(id)}`);
  performance.mark('firedup:data-ready');
  if (seq !== routeSeq) return null;
  const rec = data.launch;
  const rep = rec.report ?? {};
  const root = h('section', { class: 'detail' });
  root.append(detailHeader(rec, rep));
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

function section(title, ...body) {
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

function progressBar(ratio, label) {
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

function groupOf(key) {
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

// ---------------------------------------------------------------- compare

async function compareView(arg, seq) {
  const ids = arg
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (ids.length < 2 || ids.length > 4)
    throw new HttpError(400, 'compare takes 2 to 4 launch ids: #/compare/ID,ID[,ID,ID]');
  const uplotReady = loadUplot();
  const data = await api(`api/compare?ids=${ids.map(encodeURIComponent).join(',')}`);
  if (seq !== routeSeq) return null;
  const launches = data.launches ?? [];
  const root = h('section', { class: 'compare' });
  root.append(
    h(
      'header',
      { class: 'card compare-head' },
      h('a', { href: '#/', class: 'back' }, '← launches'),
      h('h1', null, `Comparing ${launches.length} launches`),
      h(
        'div',
        { class: 'legend' },
        launches.map((l, i) =>
          h(
            'a',
            { href: `#/launch/${l.id}`, class: 'chip' },
            h('span', { class: 'swatch', style: { background: LAUNCH_COLOR[i] } }),
            h('span', { class: 'mono' }, shortId(l.id)),
            ` ${fmtTs(l.startTs)} · ${l.model ?? '–'} · `,
            badge(stateOf(l)),
          ),
        ),
      ),
    ),
  );
  root.append(
    section('Configuration differences', configDiff(launches, data.changes ?? [], data.groups ?? {})),
  );
  const chart = h('div', { class: 'chart' });
  const overlay = overlaySeries(launches, data.series ?? []);
  root.append(
    section(
      'Throughput since ready',
      overlay
        ? h(
            'p',
            { class: 'muted' },
            'x: seconds since each launch’s ready line; y: generation tok/s.',
            overlay.note ?? '',
          )
        : h('p', { class: 'muted' }, 'None of these launches served.'),
      chart,
    ),
  );
  root.append(section('Phase durations', phaseCompare(launches)));
  root.afterMount = () =>
    uplotReady.then(() => {
      if (seq !== routeSeq) return;
      if (overlay) drawOverlay(chart, launches, overlay);
      performance.mark('firedup:chart-rendered');
    });
  return root;
}

function drawOverlay(chart, launches, overlay) {
  if (typeof uPlot === 'undefined') return lineChart(chart, {}, []);
  // uPlot wants one shared x: join merges the x values and fills the gaps with null.
  const data = uPlot.join(overlay.per.map((p) => (p[0].length ? p : [[0], [null]])));
  return lineChart(
    chart,
    {
      scales: { x: { time: false } },
      series: [
        { label: 's since ready', value: (_u, v) => (v === null ? '–' : `${fmtNum(v)} s`) },
        ...launches.map((l, i) => ({
          label: shortId(l.id),
          stroke: LAUNCH_COLOR[i],
          width: 1.25,
          spanGaps: true,
          points: { show: false },
          value: (_u, v) => (v === null ? '–' : `${fmtNum(v, 1)} tok/s`),
        })),
      ],
      axes: [{ label: 's since ready' }, { label: 'tok/s', size: 60 }],
    },
    data,
  );
}

function readyTs(l) {
  const rep = l.report ?? {};
  const ready = (rep.phases ?? []).find((p) => p.phase === 'ready');
  if (ready && ready.at !== null && rep.startTs !== null && rep.startTs !== undefined)
    return rep.startTs + ready.at;
  if (rep.ready?.time) return Date.parse(rep.ready.time) / 1000;
  return null;
}

/** `series`: the API's columns per launch (`{ ts, tokS }` or null), in the order of `launches`. */
function overlaySeries(launches, series) {
  const per = [];
  let any = false;
  let fallback = false;
  for (const [i, l] of launches.entries()) {
    const cols = series[i];
    if (!cols?.ts?.length) {
      per.push([[], []]);
      continue;
    }
    any = true;
    let t0 = readyTs(l);
    if (t0 === null) {
      t0 = cols.ts[0];
      fallback = true;
    }
    per.push([cols.ts.map((t) => t - t0), cols.tokS]);
  }
  if (!any) return null;
  return { per, note: fallback ? ' (A launch without a ready time is aligned on its first sample.)' : '' };
}

function configDiff(launches, changes, groups) {
  if (!changes.length)
    return h('p', { class: 'muted' }, 'Same configuration (volatile keys like random_seed aside).');
  const groupOf = new Map();
  for (const [g, keys] of Object.entries(groups)) for (const k of keys) groupOf.set(k, g);
  const byGroup = new Map();
  for (const c of changes) {
    const g = groupOf.get(c.key) ?? 'other';
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(c);
  }
  const order = [
    ...Object.keys(groups).filter((g) => byGroup.has(g)),
    ...(byGroup.has('other') && !('other' in groups) ? ['other'] : []),
  ];
  const tbody = h('tbody');
  for (const g of order) {
    tbody.append(h('tr', { class: 'group' }, h('th', { colspan: launches.length + 1 }, g)));
    for (const c of byGroup.get(g)) {
      const first = fmtVal(c.values[0]);
      tbody.append(
        h(
          'tr',
          null,
          h('td', { class: 'key mono' }, c.key),
          c.values.map((v, i) =>
            h('td', { class: `mono val ${i > 0 && fmtVal(v) !== first ? 'changed' : ''}` }, fmtVal(v)),
          ),
        ),
      );
    }
  }
  return h(
    'table',
    { class: 'data diff' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, `${plural(changes.length, 'key')} differ`),
        launches.map((l, i) =>
          h(
            'th',
            null,
            h('span', { class: 'swatch', style: { background: LAUNCH_COLOR[i] } }),
            shortId(l.id),
          ),
        ),
      ),
    ),
    tbody,
  );
}

const OPEN_STATES = new Set(['in_progress', 'crashed', 'ended']);

function phaseCompare(launches) {
  const dur = launches.map((l) => {
    const m = new Map();
    for (const p of l.report?.phases ?? [])
      if (p.duration !== null) m.set(p.phase, (m.get(p.phase) ?? 0) + p.duration);
    return m;
  });
  const phases = PHASES.filter((p) => p !== 'serving' && dur.some((m) => m.has(p)));
  if (!phases.length) return h('p', { class: 'muted' }, 'No timed phase in these launches.');
  // One scale for every row, the load total included, so that bar lengths compare across rows too.
  const max = Math.max(
    ...dur.flatMap((m) => phases.map((p) => m.get(p) ?? 0)),
    ...launches.map((l) => l.loadSeconds ?? 0),
    1,
  );
  // The last phase of a launch that never finished it (in progress, stalled, crashed, ended) lasted "so
  // far": a lower bound, never a delta (the same rule as `firedup diff`, src/core/launch-diff.ts).
  const openPhase = launches.map((l) => {
    const ph = l.report?.phases ?? [];
    return OPEN_STATES.has(l.outcome) ? (ph[ph.length - 1]?.phase ?? null) : null;
  });
  const rows = phases.map((p) => ({
    label: p,
    vals: dur.map((m) => m.get(p) ?? null),
    open: openPhase.map((o) => o === p),
    dot: PHASE_COLOR[p],
  }));
  rows.push({ label: 'load (to ready)', vals: launches.map((l) => l.loadSeconds), open: [], total: true });
  const cell = (v, i, first, open) => {
    const td = h('td', { class: 'num' });
    if (v === null || v === undefined) {
      td.append(
        h(
          'div',
          { class: 'cmpcell' },
          h('span', { class: 'hbar-wrap none' }),
          h('span', { class: 'v' }, '–'),
          h('span', { class: 'dcol' }),
        ),
      );
      return td;
    }
    const bar = h('span', {
      class: 'hbar',
      style: { width: `${Math.min(100, (v / max) * 100)}%`, background: LAUNCH_COLOR[i] },
    });
    let delta = null;
    if (i > 0 && first !== null && first !== undefined && !open[i] && !open[0]) {
      const d = v - first;
      if (Math.abs(d) >= 0.5)
        delta = h(
          'span',
          { class: `delta ${d > 0 ? 'slower' : 'faster'}` },
          `${d > 0 ? '+' : '−'}${fmtDur(Math.abs(d))}`,
        );
    }
    td.append(
      h(
        'div',
        { class: 'cmpcell' },
        h('span', { class: 'hbar-wrap' }, bar),
        h('span', { class: 'v' }, `${fmtDur(v)}${open[i] ? ' so far' : ''}`),
        h('span', { class: 'dcol' }, delta),
      ),
    );
    return td;
  };
  return h(
    'table',
    { class: 'data phasecmp' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'phase'),
        launches.map((l, i) =>
          h(
            'th',
            { class: 'num' },
            h('span', { class: 'swatch', style: { background: LAUNCH_COLOR[i] } }),
            shortId(l.id),
            i > 0 ? h('span', { class: 'muted' }, ` (Δ vs ${shortId(launches[0].id)})`) : null,
          ),
        ),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((r) =>
        h(
          'tr',
          { class: r.total ? 'total' : null },
          h('td', null, r.dot ? h('span', { class: 'swatch', style: { background: r.dot } }) : null, r.label),
          r.vals.map((v, i) => cell(v, i, r.vals[0], r.open)),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- sweeps

async function sweepsView(seq) {
  const data = await api('api/sweeps');
  if (seq !== routeSeq) return null;
  const root = h('section', { class: 'sweeps' }, h('h1', null, 'Sweeps'));
  if (!data.sweeps.length) {
    root.append(h('p', { class: 'muted' }, 'No sweep recorded: ', h('code', null, 'firedup sweep FILE'), ' runs one.'));
    return root;
  }
  root.append(
    h(
      'table',
      { class: 'launches' },
      h('thead', null, h('tr', null, ['sweep', 'points', 'runs', 'started', 'ended'].map((x) => h('th', null, x)))),
      h(
        'tbody',
        null,
        data.sweeps.map((w) =>
          h(
            'tr',
            null,
            h('td', null, h('a', { href: `#/sweep/${encodeURIComponent(w.name)}` }, w.name)),
            h('td', { class: 'num' }, String(w.points)),
            h('td', { class: 'num' }, String(w.runs)),
            h('td', null, fmtTs(w.startedAt)),
            h('td', null, fmtTs(w.endedAt)),
          ),
        ),
      ),
    ),
  );
  return root;
}

const SWEEP_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

function pointName(p, keys) {
  return `#${p.index} ${keys.map((k) => `${k}=${fmtVal(p.values[k])}`).join(' ')}`;
}

/** A small SVG chart: axes with min/max ticks, one series per entry (`line` joins its points). */
function svgChart({ series, xLabel, yLabel, logX = false, line = true, frontier = null }) {
  const W = 560;
  const H = 300;
  const M = { l: 64, r: 16, t: 12, b: 40 };
  const pts = series.flatMap((x) => x.points);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart sweep-chart', role: 'img' });
  if (!pts.length) return h('p', { class: 'muted' }, 'no benchmarked point yet');
  const fx = (v) => (logX ? Math.log2(Math.max(v, 1e-9)) : v);
  const xs = pts.map((p) => fx(p[0]));
  const ys = pts.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [0, Math.max(...ys) * 1.08 || 1];
  const X = (v) => M.l + ((fx(v) - x0) / (x1 - x0 || 1)) * (W - M.l - M.r);
  const Y = (v) => H - M.b - ((v - y0) / (y1 - y0 || 1)) * (H - M.t - M.b);
  svg.append(
    s('line', { x1: M.l, y1: H - M.b, x2: W - M.r, y2: H - M.b, class: 'axis' }),
    s('line', { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b, class: 'axis' }),
    s('text', { x: (W + M.l) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' }, xLabel),
    s('text', { x: 12, y: (H - M.b + M.t) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(H - M.b + M.t) / 2})`, class: 'axis-label' }, yLabel),
    s('text', { x: M.l - 6, y: Y(y1) + 4, 'text-anchor': 'end', class: 'tick' }, fmtNum(y1)),
    s('text', { x: M.l - 6, y: Y(0) + 4, 'text-anchor': 'end', class: 'tick' }, '0'),
  );
  const xticks = [...new Set(pts.map((p) => p[0]))].sort((a, b) => a - b);
  for (const t of xticks.length <= 8 ? xticks : [xticks[0], xticks[xticks.length - 1]])
    svg.append(s('text', { x: X(t), y: H - M.b + 16, 'text-anchor': 'middle', class: 'tick' }, fmtNum(t, t % 1 ? 2 : 0)));
  if (frontier && frontier.length > 1)
    svg.append(s('polyline', { points: frontier.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '), class: 'frontier', fill: 'none' }));
  series.forEach((x, i) => {
    const color = SWEEP_COLORS[i % SWEEP_COLORS.length];
    if (line && x.points.length > 1)
      svg.append(s('polyline', { points: x.points.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }));
    for (const p of x.points)
      svg.append(s('circle', { cx: X(p[0]), cy: Y(p[1]), r: 4, fill: color }, s('title', null, `${x.name}: ${fmtNum(p[0], 2)}, ${fmtNum(p[1], 1)}`)));
  });
  const legend = h(
    'div',
    { class: 'legend' },
    series.map((x, i) => h('span', null, h('span', { class: 'swatch', style: { background: SWEEP_COLORS[i % SWEEP_COLORS.length] } }), x.name)),
  );
  return h('figure', { class: 'sweep-figure' }, svg, legend);
}

/** Points no other beats on both output tok/s (higher) and TPOT (lower), in TPOT order. */
function paretoFront(points) {
  const sorted = points.slice().sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const front = [];
  let best = -Infinity;
  for (const p of sorted) if (p[1] > best) {
    front.push(p);
    best = p[1];
  }
  return front;
}

async function sweepView(name, seq) {
  const r = await api(`api/sweeps/${encodeURIComponent(name)}`);
  if (seq !== routeSeq) return null;
  const keys = r.keys;
  const done = r.ranked.filter((p) => p.status === 'done');
  const root = h('section', { class: 'sweep' });
  root.append(
    h('h1', null, `Sweep ${r.name}`),
    h(
      'p',
      { class: 'muted' },
      `${plural(r.ranked.length, 'point')}, ${plural(r.runs.length, 'run')}`,
      r.targets.length ? ` · targets ${r.targets.join(' · ')}` : '',
    ),
  );
  if (r.best)
    root.append(
      h(
        'p',
        { class: 'best' },
        'best: ',
        h('strong', null, pointName(r.best, keys)),
        ` — ${fmtNum(r.best.outputTokS, 1)} output tok/s at concurrency ${r.best.atConcurrency ?? '?'}`,
      ),
    );
  const header = ['rank', 'point', ...keys, 'status', 'runs', 'load', 'out tok/s', '@c', 'c=1 tok/s', 'TPOT ms', 'targets', 'launch'];
  root.append(
    h(
      'table',
      { class: 'launches sweep-table' },
      h('thead', null, h('tr', null, header.map((x) => h('th', null, x)))),
      h(
        'tbody',
        null,
        r.ranked.map((p, i) =>
          h(
            'tr',
            { 'data-status': p.status, title: p.cause ?? '' },
            h('td', { class: 'num' }, p.status === 'done' ? String(i + 1) : '–'),
            h('td', null, `#${p.index}`),
            keys.map((k) => h('td', null, fmtVal(p.values[k]))),
            h('td', null, badge(p.status === 'done' ? 'ready' : p.status === 'interrupted' ? 'stalled' : 'crashed', p.status)),
            h('td', { class: 'num' }, p.runs > 1 ? `${p.doneRuns}/${p.runs}` : String(p.runs)),
            h('td', { class: 'num' }, fmtDur(p.loadS)),
            h('td', { class: 'num' }, fmtNum(p.outputTokS, 1)),
            h('td', { class: 'num' }, p.atConcurrency ?? '–'),
            h('td', { class: 'num' }, fmtNum(p.singleStreamTokS, 1)),
            h('td', { class: 'num' }, fmtNum(p.tpotMs, 2)),
            h('td', null, p.pass === null ? '–' : p.pass ? 'pass' : 'fail'),
            h('td', null, p.launchId ? h('a', { href: `#/launch/${p.launchId}` }, shortId(p.launchId)) : '–'),
          ),
        ),
      ),
    ),
  );
  const curves = done.map((p) => ({
    name: pointName(p, keys),
    points: p.levels.filter((l) => l.concurrency !== null && l.outputTokS !== null).map((l) => [l.concurrency, l.outputTokS]),
  }));
  const pareto = done.map((p) => ({
    name: pointName(p, keys),
    points: p.levels.filter((l) => l.tpotMs !== null && l.outputTokS !== null).map((l) => [l.tpotMs, l.outputTokS]),
  }));
  root.append(
    h('h2', null, 'Output tok/s against concurrency'),
    svgChart({ series: curves, xLabel: 'concurrency', yLabel: 'output tok/s', logX: true }),
    h('h2', null, 'Pareto: output tok/s against median TPOT'),
    h('p', { class: 'muted' }, 'Every level of every point; the dashed line joins those no other beats on both.'),
    svgChart({
      series: pareto,
      xLabel: 'median TPOT (ms)',
      yLabel: 'output tok/s',
      line: false,
      frontier: paretoFront(pareto.flatMap((x) => x.points)),
    }),
  );
  return root;
}

// ---------------------------------------------------------------- live

async function liveView(seq) {
  const data = await api('api/live');
  if (seq !== routeSeq) return null;
  const root = h('section', { class: 'live' });
  const grid = h('div', { class: 'cards' });
  const cards = new Map();
  const put = (t) => {
    const card = liveCard(t);
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
  for (const t of data.targets ?? []) put(t);
  viewEvents.live = put;
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

function liveCard(t) {
  const v = t.verdict;
  const l = t.launch;
  const state = v?.state ?? 'waiting';
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
          !v?.final && p.eta !== null && p.eta !== undefined && p.ratio < 1 ? `ETA ${fmtDur(p.eta)}` : null,
          !v?.final && v?.quietFor !== null && v?.quietFor !== undefined
            ? `quiet ${fmtDur(v.quietFor)}${v.budget ? ` of ${fmtDur(v.budget)} allowed` : ''}`
            : null,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    );
  }
  if (v?.why) card.append(h('p', { class: 'why' }, v.why));
  if (v?.next) card.append(h('p', { class: 'next' }, h('strong', null, 'next: '), v.next));
  if (t.gpus?.length) {
    card.append(
      h(
        'div',
        { class: 'gpus', 'aria-label': 'GPU memory' },
        h('div', { class: 'muted small' }, 'GPU memory used · utilisation'),
        t.gpus.map((g) => {
          const ratio = g.memTotalBytes ? g.memUsedBytes / g.memTotalBytes : 0;
          // util is a fraction (0–1), null when nvidia-smi did not say.
          const util = g.util === null || g.util === undefined ? '–' : `${Math.round(g.util * 100)}%`;
          return h(
            'div',
            {
              class: 'gpu',
              title: `GPU ${g.index}: ${fmtGiB(g.memUsedBytes)} of ${fmtGiB(g.memTotalBytes)} GiB used, utilisation ${util}`,
            },
            h('span', { class: 'gi mono' }, `GPU${g.index}`),
            h(
              'span',
              { class: 'membar' },
              h('span', { class: 'fill', style: { width: `${(ratio * 100).toFixed(1)}%` } }),
            ),
            h(
              'span',
              { class: 'mono small' },
              `${fmtGiB(g.memUsedBytes)}/${fmtGiB(g.memTotalBytes)} GiB · ${util}`,
            ),
          );
        }),
      ),
    );
  }
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

// ---------------------------------------------------------------- start

// The token given once in the URL is now a cookie: drop it from the address bar (and from screenshots, history).
if (new URLSearchParams(location.search).has('token')) {
  history.replaceState(null, '', location.pathname + location.hash);
}
window.addEventListener('hashchange', route);
route();
