/**
 * The firedup dashboard: a single page with hash routes over the JSON API of `firedup serve`.
 *   #/                     launches table (filter, sort, pick 2–4 to compare)
 *   #/launch/ID            one launch: phase timeline, load progress, throughput, config, failure, benches
 *   #/compare/ID,ID[,…]    config diff, overlaid throughput, phase durations side by side
 *   #/live                 one card per watched target, updated from /api/events
 *   #/sweeps, #/sweep/NAME `firedup sweep` campaigns: ranked points, throughput against concurrency, Pareto
 *
 * Log lines and config values are untrusted: every piece of data goes into the page through textContent or
 * attributes of nodes built by one helper (js/dom.js: h, s), never through innerHTML. No build step: native ES
 * modules the browser loads as they are, one per page (js/pages/) and per shared part (js/: dom, format, states,
 * api, charts, router); uPlot is the global that assets/uplot.js defines, loaded only by the pages that draw
 * charts (the table starts faster).
 */

// Each page registers its routes with the router as it loads.
import './js/pages/table.js';
import './js/pages/detail.js';
import './js/pages/compare.js';
import './js/pages/live.js';
import './js/pages/sweeps.js';
import { route } from './js/router.js';

performance.mark('firedup:app-start');

// The token given once in the URL is now a cookie: drop it from the address bar (and from screenshots, history).
if (new URLSearchParams(location.search).has('token')) {
  history.replaceState(null, '', location.pathname + location.hash);
}
window.addEventListener('hashchange', route);
route();
