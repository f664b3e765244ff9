/**
 * Hash routes to pages: each page is built off-screen and replaces the old one when ready; a page registers
 * its cleanups (onCleanup) and checks routeSeq to drop a response that came after the user moved on.
 * The router knows no page: each page module registers its routes (registerPage) when app.js loads it, so
 * pages import the router and never the reverse.
 */
import { authFailed, errorView, HttpError, openEvents, resetViewEvents } from './api.js';

/** Route name (the hash's first part) → `view(arg, seq)`, a promise of the page's root (null: dropped). */
const pages = new Map();

/** `registerPage(['launch'], (id, seq) => …)`: the pages shown at `#/launch/ID`. */
export function registerPage(names, view) {
  for (const n of names) pages.set(n, view);
}

export const main = document.getElementById('main');
/** Cleanups of the shown view (resize listeners, timers, charts), and of views replaced but not yet cleaned. */
let cleanups = [];
const retired = [];
export let routeSeq = 0;

export function onCleanup(fn) {
  cleanups.push(fn);
}

export async function route() {
  const seq = ++routeSeq;
  // The old page stays usable (charts too) until the new one is ready to replace it.
  retired.push(...cleanups);
  cleanups = [];
  resetViewEvents();
  document.body.classList.add('busy');
  const hash = location.hash.replace(/^#\/?/, '');
  const [name, arg = ''] = splitOnce(hash, '/');
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle(
      'active',
      a.dataset.nav ===
        (name === 'live' ? 'live' : name === 'sweeps' || name === 'sweep' ? 'sweeps' : name ? '' : 'table'),
    );
  let view;
  try {
    const page = pages.get(name);
    if (page) view = await page(decodeURIComponent(arg), seq);
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
