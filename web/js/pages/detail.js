/**
 * Page #/launch/ID : one launch: phase timeline, load progress, throughput, config, failure, benches.
 */
import { api } from '../api.js';
import { loadCurveChart, loadUplot, throughputChart } from '../charts.js';
import { h } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal } from '../format.js';
import { registerPage, routeSeq } from '../router.js';
import { badge, stateOf } from '../states.js';
import { kv, section } from '../widgets.js';
import { benchBlock, configBlock, failureBlock, nodesBlock, notesBlock } from './detail-blocks.js';
import { loadProgress, timeline } from './detail-timeline.js';

export async function detailView(id, seq) {
  // The chart library loads while the data is on its way.
  const uplotReady = loadUplot();
  const data = await api(`api/launches/${encodeURIComponent(id)}`);
  performance.mark('firedup:data-ready');
  if (seq !== routeSeq) return null;
  const rec = data.launch;
  const rep = rec.report ?? {};
  const root = h('section', { class: 'detail' });
  root.append(detailHeader(rec, rep));
  // Stalled or dead when last looked at: why, what to do next, how long the log had been quiet (as `show`).
  const look = data.lastLook ?? lastLookOf(rec);
  if (look) root.append(lastLookBlock(look));
  // A multi-node launch: one row per node, the one that died first or holds the others back marked.
  if (rep.nodes) root.append(section('Nodes', nodesBlock(rep.nodes)));
  root.append(section('Phases', timeline(rep, stateOf(rec))));
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

/** An older server sends no lastLook: the record's kept verdict still gives the reason. */
function lastLookOf(rec) {
  const live = rec.live;
  if (!live || live.state !== stateOf(rec) || live.state === 'exited') return null;
  return { state: live.state, at: live.at, why: live.why, phase: live.phase, next: null, quietFor: null };
}

function lastLookBlock(look) {
  const tone = look.state === 'stalled' ? 'warn' : 'bad';
  return h(
    'section',
    { class: `card last-look ${tone}`, 'data-state': look.state, 'aria-label': 'why' },
    h(
      'h2',
      null,
      `${look.state === 'stalled' ? 'Stalled' : 'Dead'}${look.phase ? ` in ${look.phase}` : ''}`,
      h('span', { class: 'muted small' }, ` · when last looked at, ${fmtTs(look.at)} UTC`),
    ),
    h('p', { class: 'why' }, h('strong', null, 'why: '), look.why),
    look.next ? h('p', { class: 'next' }, h('strong', null, 'next: '), look.next) : null,
    h(
      'p',
      { class: 'quiet muted' },
      look.quietFor !== null && look.quietFor !== undefined
        ? `quiet ${fmtDur(look.quietFor)} (log silent since its last line${look.lastLineTime ? `, ${look.lastLineTime.replace('T', ' ').replace('Z', '')}` : ''})`
        : `quiet: ${look.lastLineTime ? `log silent since ${look.lastLineTime.replace('T', ' ').replace('Z', '')}` : 'unknown'}`,
    ),
  );
}

registerPage(['launch'], detailView);
