/**
 * The server connection: GET a JSON endpoint (api), the page for a failed request, and the one EventSource
 * whose events the current page handles (viewEvents).
 */
import { h } from './dom.js';

export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET a JSON endpoint, same origin (the token cookie goes with it). */
export async function api(path) {
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
export function errorView(err) {
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

let events = null;
export let authFailed = false;
let retryTimer = null;
let retryDelay = 1000;
/** Handlers of the current view: { live(target), launch(summary) }. */
export let viewEvents = {};

/**
 * The live cards the current page wants (`targets=` of /api/events: '*' for every one); '' for none, which
 * gets the launches and the summary only. The server sends no card a page did not ask for.
 */
let wantTargets = '';
let openedWith = null;

/** A new page starts with no event handlers of its own, and asks for no live card (the router calls this). */
export function resetViewEvents() {
  viewEvents = {};
  wantTargets = '';
}

/** The page shows these live cards ('*': all): the stream is opened again for them when the page is shown. */
export function wantLiveCards(targets) {
  wantTargets = targets;
}

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
export function openEvents() {
  if (authFailed || typeof EventSource === 'undefined') return;
  if (events && openedWith === wantTargets) return;
  if (events) events.close();
  openedWith = wantTargets;
  const es = new EventSource(
    wantTargets ? `api/events?targets=${encodeURIComponent(wantTargets)}` : 'api/events',
  );
  events = es;
  es.addEventListener('open', () => {
    if (events !== es) return;
    retryDelay = 1000;
    setConn('on', 'events: live');
  });
  es.addEventListener('error', () => {
    if (events !== es) return;
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
  es.addEventListener('summary', (ev) => {
    let s;
    try {
      s = JSON.parse(ev.data);
    } catch {
      return;
    }
    const el = document.getElementById('conn');
    if (el && s && typeof s.targets === 'number')
      el.title = `event stream from the server; ${s.targets} watched: ${Object.entries(s.states ?? {})
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')}`;
  });
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
