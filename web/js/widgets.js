/**
 * Blocks several pages share: a titled card (section), a label and value (kv), a progress bar and a list of
 * log lines (evidenceList).
 */
import { h } from './dom.js';

export function section(title, ...body) {
  return h('section', { class: 'card' }, h('h2', null, title), ...body);
}

export function kv(label, value, cls) {
  // The space keeps label and value apart in copied text too.
  return h(
    'div',
    { class: 'kv' },
    h('span', { class: 'k' }, label),
    ' ',
    h('span', { class: `v ${cls ?? ''}` }, value),
  );
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

export function evidenceList(lines) {
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
