/**
 * The engines' own log templates and raise messages (test/fixtures/engine-source/*.json, read from the
 * SGLang and vLLM sources; see its README) read by the real analyzer: every startup-path template, filled
 * with sample values and framed as the engine prints it, must be read at its phase, and every raise message
 * classified as the catalog says.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { EngineId } from '../../../src/core/base/types.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { LaunchBuilder } from '../../../src/core/reading/launch.js';
import { SHARED } from '../../helpers.js';

interface LogEntry {
  file: string;
  function: string;
  level: string;
  template: string;
  phase: string;
  phase_scope?: string;
  crash?: boolean;
}
interface RaiseEntry {
  file: string;
  function: string;
  exception: string;
  template: string;
  failure_class: string;
}
interface Catalog {
  log_lines: LogEntry[];
  raises: RaiseEntry[];
}

const ENGINES = ['sglang', 'vllm'] as const;
const STARTUP_LEVELS = new Set(['info', 'warning', 'error', 'exception', 'tqdm', 'print', 'pywarning']);
/** Fewer literal characters than this and the generator skips the template (MIN_LITERAL there). */
const MIN_LITERAL = 10;

function load(engine: string): Catalog {
  return JSON.parse(fs.readFileSync(path.join(SHARED, 'engine-source', `${engine}.json`), 'utf8'));
}

const PERCENT = /%(?:\([^)]*\))?[-+#0]*(?:\d+|\*)?(?:\.(\d+))?[hlL]?([diouxXeEfFgGcrsa%])/g;

/** The template with sample values where its placeholders are: a number for numeric formats, else a word. */
function fill(template: string): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      out += c;
      i++;
    } else if (c === '{') {
      let depth = 1;
      let j = i + 1;
      for (; j < template.length && depth > 0; j++) {
        if (template[j] === '{') depth++;
        else if (template[j] === '}') depth--;
      }
      if (depth > 0) {
        out += c;
        continue;
      }
      const inner = template.slice(i + 1, j - 1);
      const spec = /:([^:'"\]]*)$/.exec(inner)?.[1] ?? '';
      if (/[df]$/.test(spec) || /e$/.test(spec)) out += /d$/.test(spec) ? '12' : '1.25';
      else if (inner.endsWith('!r')) out += "'sample'";
      else out += 'sample';
      i = j - 1;
    } else out += c;
  }
  return out.replace(PERCENT, (m, _prec, conv: string) => {
    if (conv === '%') return '%';
    if (/[diouxX]/.test(conv)) return '12';
    if (/[eEfFgG]/.test(conv)) return '1.25';
    if (conv === 'r') return "'sample'";
    return m.length > 2 && /\d/.test(m) ? '12' : 'sample';
  });
}

/** The log lines the engine prints for this template, with its logger's prefix. */
function frame(engine: EngineId, e: LogEntry, msg: string): string {
  const base = e.file.split('/').pop();
  if (e.level === 'print') return msg;
  if (e.level === 'tqdm') return `${msg}:  50%|█████     | 1/2 [00:01<00:01,  1.00it/s]`;
  if (e.level === 'pywarning')
    return `/opt/venv/lib/python3.12/site-packages/${e.file}:123: UserWarning: ${msg}`;
  if (engine === 'sglang') return `[2026-03-01 10:00:00 TP0] ${msg}`;
  const level =
    { warning: 'WARNING', error: 'ERROR', exception: 'ERROR', fatal: 'CRITICAL' }[e.level] ?? 'INFO';
  return `${level} 03-01 10:00:00 [${base}:123] ${msg}`;
}

function analyze(engine: EngineId, text: string): LaunchBuilder | null {
  const a = new LogAnalyzer({ engine });
  a.push(Buffer.from(`${text}\n`));
  a.end();
  return a.launches[0] ?? null;
}

function literalLength(template: string): number {
  const first = template.split('\n')[0]!;
  return first
    .replace(/\{[^{}]*\}/g, '')
    .replace(PERCENT, '')
    .replace(/\s+/g, '').length;
}

/**
 * Where the analyzer knowingly reads a line otherwise than the catalog, and why (the log wins).
 * Keyed `engine:template`.
 */
const KNOWN: Record<string, string> = {};
// The attention backend lines (`Using Flash Attention backend on V1 engine.`, V0 selector.py `Using XFormers
// backend.`): the catalog (2025-09) reads them while the layers are built (load_model), but V0's runner and, from
// 2025-01 to #18593 (2025-05-24), V1's GPUModelRunner.__init__ asked for the backend before Worker.load_model, and
// real V0 and 0.8-era logs show it before `Starting to load model`: the analyzer reads it as device init, which a
// later `Starting to load model` passes (engines/vllm.ts attn_backend, test/core/engines/vllm-wild.test.ts).
const ATTN_BACKEND = /^Using [\w -]+ backend(?: for (?!compilation)\S+)?(?: on V1 engine)?\.$/;

for (const engine of ENGINES) {
  test(`${engine}: startup-path log templates are read at their catalog phase`, () => {
    const cat = load(engine);
    const entries = cat.log_lines.filter(
      (e) => e.phase !== 'serving' && e.phase !== 'shutdown' && STARTUP_LEVELS.has(e.level),
    );
    let ok = 0;
    let skipped = 0;
    const misses: string[] = [];
    for (const e of entries) {
      if (engine === 'vllm' && e.phase === 'loading_weights' && ATTN_BACKEND.test(fill(e.template)))
        KNOWN[`vllm:${e.template}`] ??= 'the attention backend was chosen at runner init, before loading';
      if (literalLength(e.template) < MIN_LITERAL) skipped++;
      const launch = analyze(engine, frame(engine, e, fill(e.template)));
      // A line that tells a child died says the launch failed, in whatever phase that child was.
      const crash = e.crash === true && (launch?.candidates.length ?? 0) > 0;
      // The analyzer calls autotuning `autotune` (compile's rank, src/core/base/types.ts); the catalog `compile`.
      const same = (p: string) => p === e.phase || (e.phase === 'compile' && p === 'autotune');
      if (crash || launch?.marks.some((m) => same(m.phase))) ok++;
      else if (KNOWN[`${engine}:${e.template}`] === undefined)
        misses.push(`${e.phase} ${e.level} ${e.file}:${e.function}: ${fill(e.template).slice(0, 120)}`);
      else ok++;
    }
    const share = ok / entries.length;
    console.log(
      `${engine}: ${ok}/${entries.length} startup templates read at their phase (${(100 * share).toFixed(1)} %), ${skipped} with too little literal text`,
    );
    if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
    assert.ok(share >= 0.95, `${misses.length} misses:\n${misses.join('\n')}`);
  });

  test(`${engine}: raise messages are classified as the catalog says`, () => {
    const cat = load(engine);
    let ok = 0;
    const misses: string[] = [];
    for (const r of cat.raises) {
      const msg = fill(r.template);
      const prefix = engine === 'sglang' ? '[2026-03-01 10:00:00 TP0] ' : 'ERROR 03-01 10:00:00 [core.py:1] ';
      const text = [
        `${prefix}Traceback (most recent call last):`,
        `  File "/opt/venv/lib/python3.12/site-packages/${r.file}", line 10, in ${r.function.split('.').pop()}`,
        `    raise ${r.exception}(msg)`,
        `${r.exception}: ${msg}`,
      ].join('\n');
      const launch = analyze(engine, text);
      const got = launch?.candidates.find((c) => c.line === 4)?.cls ?? null;
      if (got === r.failure_class) ok++;
      else misses.push(`${r.failure_class} got ${got}: ${r.exception}: ${msg.slice(0, 120)}`);
    }
    const share = ok / cat.raises.length;
    console.log(
      `${engine}: ${ok}/${cat.raises.length} raises classified as the catalog says (${(100 * share).toFixed(1)} %)`,
    );
    if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
    assert.ok(share >= 0.9, `${misses.length} misses:\n${misses.join('\n')}`);
  });
}

/** Made-up lines of the shape of catalog templates (not copied from any log). */
function read(lines: string[], engine?: EngineId) {
  const a = new LogAnalyzer(engine ? { engine } : {});
  a.push(Buffer.from(`${lines.join('\n')}\n`));
  a.end();
  return a.launches;
}

test('a line only the catalog knows moves the launch to its phase (vllm kv_cache_utils)', () => {
  const [l, ...rest] = read([
    'INFO 03-01 10:00:00 [api_server.py:10] vLLM API server version 0.11.2',
    'INFO 03-01 10:00:09 [kv_cache_utils.py:20] Multiplying the GPU KV cache size by the dcp_world_size 8.',
  ]);
  assert.equal(rest.length, 0);
  assert.equal(l!.phase, 'kv_cache');
});

test('an args-phase catalog line printed after ready neither regresses the phase nor opens a launch', () => {
  const launches = read([
    '[2026-03-01 10:00:00] server_args=ServerArgs(model_path="m", tp_size=2)',
    '[2026-03-01 10:00:40 TP0] Load weight begin. avail mem=70.00 GB',
    '[2026-03-01 10:01:40] The server is fired up and ready to roll!',
    '[2026-03-01 10:02:00] Setting KV cache dtype to fp8_e4m3 for SomeNewForCausalLM.',
  ]);
  assert.equal(launches.length, 1);
  assert.equal(launches[0]!.phase, 'ready');
  assert.ok(!launches[0]!.marks.some((m) => m.line === 4));
});

test('a catalog line that can come in any phase places nothing (sglang watchdog feed)', () => {
  const [l] = read(
    [
      '[2026-03-01 10:00:00 TP0] Init torch distributed begin.',
      '[2026-03-01 10:00:01 TP0] Watchdog Scheduler start deliberately stuck for 30s',
    ],
    'sglang',
  );
  assert.equal(l!.phase, 'dist_init');
});

test('a vLLM-framed line only the catalog knows is read without the engine given', () => {
  const [l] = read(['INFO 03-01 10:00:00 [core.py:20] Waiting for init message from front-end.']);
  assert.equal(l!.phase, 'dist_init');
});

test('a raise the catalog guesses is config_error yields to what its placeholders carried', () => {
  const [l] = read([
    'ERROR 03-01 10:00:00 [core.py:1] EngineCore failed to start.',
    'Traceback (most recent call last):',
    '  File "/x/vllm/platforms/cuda.py", line 1, in get_attn_backend_cls',
    '    raise ValueError(',
    'ValueError: No valid attention backend found for cuda with Cfg(head_size=80). Reasons: {FLASH_ATTN: [head_size not supported]}.',
  ]);
  assert.equal(l!.rootFailure()?.cls, 'unsupported');
});

test('a wrapped error names the cause over the raise site class (sglang Capture cuda graph failed: {e})', () => {
  const [l] = read(
    [
      '[2026-03-01 10:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):',
      '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 1, in __init__',
      '    raise Exception(',
      'Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 GiB.',
    ],
    'sglang',
  );
  assert.equal(l!.candidates.find((c) => c.line === 4)?.cls, 'oom');
});

test("a torch.compile failure wrapped by the raise site is an exception, not the site's guess (backend='inductor' raised:)", () => {
  const [l] = read(
    [
      '[2026-03-01 10:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):',
      '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 1, in __init__',
      '    raise Exception(',
      "Exception: Capture cuda graph failed: backend='inductor' raised:",
      'CompilationError: at 3:4:',
    ],
    'sglang',
  );
  assert.equal(l!.candidates.find((c) => c.line === 4)?.cls, 'python_exception');
});
