/**
 * Page #/ : the launches table (filter, sort, pick 2–4 to compare).
 */
import { api, viewEvents } from '../api.js';
import { h } from '../dom.js';
import { plural } from '../format.js';
import { registerPage, routeSeq } from '../router.js';
import { OUTCOME_RANK } from '../states.js';
import { COLUMNS, rowElement, searchWords, varyingFlags } from './table-rows.js';

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
  const fill = (sel, values, cur, all, order, label = (v) => v) => {
    const opts = [h('option', { value: '' }, all)];
    for (const v of [...values].sort(order)) opts.push(h('option', { value: v }, label(v)));
    sel.replaceChildren(...opts);
    sel.value = values.has(cur) ? cur : '';
  };
  const fc = table.facets ?? { models: [], hosts: [], states: [] };
  // The value chosen stays offered even when the server's list no longer has it (it is bounded).
  const col = (values, cur) => new Set(cur ? [...values, cur] : values);
  fill(model, col(fc.models, table.filter.model), table.filter.model, 'all');
  fill(host, col(fc.hosts, table.filter.host), table.filter.host, 'all');
  // Every state a row can carry (stalled, dead…), whether or not the ledger holds one yet, in the table's order.
  const states = col([...Object.keys(OUTCOME_RANK), ...fc.states], table.filter.outcome);
  const rank = (a, b) => (OUTCOME_RANK[a] ?? 99) - (OUTCOME_RANK[b] ?? 99);
  fill(outcome, states, table.filter.outcome, 'all', rank, (v) => v.replace('_', ' '));
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

/** The page's rows, built anew per page (at most 500: the server pages, the browser does not). */
function renderTable() {
  const { sort, els } = table;
  const frag = document.createDocumentFragment();
  for (const l of table.launches) frag.append(rowElement(l, table.selected, table.flagKeys));
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

registerPage(['', 'launches'], (_arg, seq) => tableView(seq));
