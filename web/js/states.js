/**
 * Phases, states and their colours: the badge of an outcome or live state, the order of outcomes.
 */
import { h } from './dom.js';

import { STATE_ORDER } from './domain.js';

export { PHASES } from './domain.js';

export const PHASE_COLOR = {
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
export const LAUNCH_COLOR = ['#2563eb', '#dc2626', '#16a34a', '#9333ea'];

/** Badge colour of an outcome or live state. */
export function tone(state) {
  switch (state) {
    case 'ready':
    case 'serving':
    case 'idle':
      return 'ok';
    case 'crashed':
    case 'dead':
    case 'unreachable':
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

export function badge(state, label = state) {
  return h('span', { class: `badge ${tone(state)}` }, String(label ?? '–').replace('_', ' '));
}

/** A state's rank in the table (serving first, crashed last), from the core's order. */
export const OUTCOME_RANK = Object.fromEntries(STATE_ORDER.map((s, i) => [s, i]));

/**
 * What the CLI lists as the launch's state (`firedup runs`): the log's outcome, or the live verdict the ledger
 * kept (stalled, dead, exited) where the log leaves the launch open. Older servers send no state.
 */
export const stateOf = (l) => l.state ?? l.outcome;
