/**
 * Parts of the launch page: the phase timeline (Gantt bars with their evidence) and the weight-loading block.
 */
import { h, s } from '../dom.js';
import { fmtDur } from '../format.js';
import { main } from '../router.js';
import { PHASE_COLOR } from '../states.js';
import { evidenceList, progressBar } from '../widgets.js';

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

/** The Gantt chart: one bar per phase on the launch's time axis; a click shows the phase's evidence. */
export function timeline(rep, state = rep.outcome) {
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
  // The last bar is open ("so far") only while the launch may still move: not once a live look called it stalled or dead.
  const live = state === 'in_progress';
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
export function loadProgress(rep, curve, state = rep.outcome) {
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
