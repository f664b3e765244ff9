/**
 * The launches table's rows: one per launch, cloned from a template; the key flags that vary among them.
 */
import { h } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal, middleCut, shortId } from '../format.js';
import { stateOf, tone } from '../states.js';

/**
 * Key flags shown when they vary among the listed launches (tp always), with the short names the table
 * prints (the cell's tooltip and the free-text filter know the full names too).
 */
export const FLAG_KEYS = {
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

/** The columns; `sortable: false` where the ledger has no column to sort on (flags, targets are per row). */
export const COLUMNS = [
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
/** The search box's words, with a flag's short name as the cells print it (`max_running=64`) made its key. */
export function searchWords(text) {
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

export function varyingFlags(launches) {
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

export function rowElement(l, selected, flagKeys) {
  const f = l.failure;
  const tr = templateRow();
  tr.dataset.id = l.id;
  const c = tr.children;
  const cb = c[0].firstChild;
  cb.dataset.id = l.id;
  cb.setAttribute('aria-label', `select ${shortId(l.id)}`);
  cb.checked = selected.has(l.id);
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
  c[4].title = `${l.model ?? 'unknown model'}\n${l.path}`;
  c[4].textContent = l.model ? middleCut(l.model) : '–';
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
  c[7].title = flagKeys
    .filter((k) => kf[k] !== undefined)
    .map((k) => `${k}=${fmtVal(kf[k])}`)
    .join('\n');
  for (const k of flagKeys)
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
