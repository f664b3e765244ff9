import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commonGutter } from '../../../src/core/lines/gutter.js';
import { startsReadable } from '../../../src/core/lines/prefix.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { AnalysisReport } from '../../../src/core/reading/report.js';

const readable = (t: string) => startsReadable(t, 2026);

/** A vLLM launch that dies of OOM in its KV-cache profiling, as a fragment pasted from inside its traceback. */
const VLLM_OOM = [
  'Traceback (most recent call last):',
  '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 88, in __init__',
  '    self._initialize_kv_caches(vllm_config)',
  '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 210, in determine_available_memory',
  '    self.model_runner.profile_run()',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB',
];

/** An SGLang launch that reaches serving. */
const SGLANG_UP = [
  '[2026-02-03 04:05:06 TP0] Load weight begin. avail mem=78.50 GB',
  '[2026-02-03 04:05:40 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB',
  '[2026-02-03 04:05:41 TP0] KV Cache is allocated. #tokens: 400000, K size: 6.00 GB, V size: 6.00 GB',
  '[2026-02-03 04:05:58 TP0] Capture cuda graph end. Time elapsed: 16.20 s. mem usage=1.10 GB. avail mem=55.00 GB.',
  '[2026-02-03 04:06:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
  '[2026-02-03 04:06:03] The server is fired up and ready to roll!',
];

function analyze(lines: string[], cuts: number[] = []): AnalysisReport {
  const text = `${lines.join('\n')}\n`;
  let a = new LogAnalyzer();
  let pos = 0;
  for (const cut of cuts) {
    const at = nthLineEnd(text, cut);
    a.push(Buffer.from(text.slice(pos, at)));
    pos = at;
    a = LogAnalyzer.restore(a.checkpoint());
  }
  a.push(Buffer.from(text.slice(pos)));
  return a.end();
}

function nthLineEnd(text: string, n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) at = text.indexOf('\n', at) + 1;
  return at;
}

const reading = (r: AnalysisReport) => {
  const l = r.launches.at(-1);
  return {
    engine: r.engine,
    launches: r.launches.length,
    outcome: l?.outcome,
    phase: l?.phase,
    failure: l?.failure?.class ?? null,
  };
};

describe('gutters no rule names, learned from the head of the file', () => {
  it('pdsh over two hosts (`host: `, words that change): the shape, and the traceback read under it', () => {
    const wrapped = VLLM_OOM.map((l, i) => `gpu-node-${i % 2 ? 7 : 12}: ${l}`);
    assert.equal(commonGutter(wrapped, readable), 'w-w-w: ');
    assert.deepEqual(reading(analyze(wrapped)), reading(analyze(VLLM_OOM)));
    assert.equal(reading(analyze(wrapped)).failure, 'oom');
  });

  it('one host or one pod (a constant gutter) is kept as printed, and the lines keep their own indentation', () => {
    const wrapped = VLLM_OOM.map((l) => `llm-0 engine ${l}`);
    assert.equal(commonGutter(wrapped, readable), '=llm-0 engine ');
    const r = analyze(wrapped);
    assert.deepEqual(reading(r), reading(analyze(VLLM_OOM)));
  });

  it('a gutter followed by more blanks than its own: the one blank first (`::   File` keeps two)', () => {
    // Only frames and code: every line has at least three blanks after `::`, the gutter is `::` and one.
    const frames = VLLM_OOM.slice(1, 5).map((l) => `svc :: ${l}`);
    assert.equal(commonGutter(frames, readable), '=svc :: ');
    // When every line has three, the three are the gutter's (the header and the exception show it).
    assert.equal(
      commonGutter(
        VLLM_OOM.map((l) => `svc ::   ${l}`),
        readable,
      ),
      '=svc ::   ',
    );
  });

  it("a log viewer's time column and tab, and a Markdown code block's indentation", () => {
    const column = SGLANG_UP.map((l, i) => `2026-02-03 04:05:0${i}.123\t${l}`);
    assert.deepEqual(reading(analyze(column)), reading(analyze(SGLANG_UP)));
    const indented = VLLM_OOM.map((l) => `    ${l}`);
    assert.equal(commonGutter(indented, readable), '=    ');
    assert.deepEqual(reading(analyze(indented)), reading(analyze(VLLM_OOM)));
  });

  it('an engine message that starts with no frame (llama.cpp) is enough to show the gutter', () => {
    const llama = [
      'llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /models/m.gguf (version GGUF V3 (latest))',
      'load_tensors: loading model tensors, this can take a while... (mmap = true)',
      'llama_context: constructing llama_context',
      'llama_context: n_ctx         = 4096',
    ];
    const wrapped = llama.map((l, i) => `${i % 2}: node-${i % 2} | ${l}`);
    assert.deepEqual(reading(analyze(wrapped)), reading(analyze(llama)));
  });

  it("a Markdown quote (`> ` on every line) needs only one line it reveals; loguru's single `>` frame is no gutter", () => {
    const quoted = [
      '> main: binding port with default address family',
      "> main: couldn't bind HTTP server socket, hostname: 0.0.0.0, port: 9000",
      '> srv   operator (): operator (): cleaning up before exit...',
    ];
    const r = analyze(quoted);
    assert.equal(r.engine, 'llamacpp');
    assert.equal(r.launches[r.launches.length - 1]?.failure?.class, 'port_in_use');
    const loguru = [
      'Traceback (most recent call last):',
      '> File "/x/server.py", line 3, in serve',
      'RuntimeError: boom',
    ];
    assert.equal(commonGutter(loguru, readable), null);
  });

  it('a line-number column: `cat -n`, and `grep -n` with its context lines (`N-`)', () => {
    const catN = VLLM_OOM.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`);
    assert.equal(commonGutter(catN, readable), '#cat -n');
    assert.deepEqual(reading(analyze(catN)), reading(analyze(VLLM_OOM)));
    const grepN = VLLM_OOM.map((l, i) => `${i + 120}${i === 5 ? ':' : '-'}${l}`);
    assert.equal(commonGutter(grepN, readable), '#grep -n');
    assert.deepEqual(reading(analyze(grepN)), reading(analyze(VLLM_OOM)));
  });

  it("SGLang's own stamp before uvicorn's lines stays the line's behind a wrapper", () => {
    const access = (i: number) =>
      `[2026-02-03 04:06:1${i}] INFO:     10.0.0.7:4122${i} - "POST /generate HTTP/1.1" 200 OK`;
    const lines = [0, 1, 2, 3].map((i) => `${i + 1}:${access(i)}`);
    const a = new LogAnalyzer();
    a.push(Buffer.from(`${lines.join('\n')}\n`));
    assert.equal((a as unknown as { ctx: { wrap: string | null } }).ctx.wrap, 'w:');
  });

  it('a description every line shares is not a gutter: taking it off reveals nothing', () => {
    const bars = [10, 40, 70, 100].map(
      (p) =>
        `Loading safetensors checkpoint shards:  ${p}% Completed | ${p / 10}/10 [00:0${p / 25}<00:10,  1.00s/it]`,
    );
    assert.equal(commonGutter(bars, readable), null);
    const prompt = ['$ python -m vllm.entrypoints.openai.api_server', '$ echo done', '$ ls'];
    assert.equal(commonGutter(prompt, readable), null);
  });

  it('no gutter once a line reads as an engine line from its first character', () => {
    // The first line is SGLang's own: the head is settled, later lines with a common prefix change nothing.
    const a = new LogAnalyzer();
    const lines = [SGLANG_UP[0]!, ...VLLM_OOM.map((l) => `x | ${l}`)];
    a.push(Buffer.from(`${lines.join('\n')}\n`));
    assert.equal((a as unknown as { ctx: { wrap: string | null } }).ctx.wrap, null);
  });

  it('two lines are too few to say what they share; three are enough', () => {
    assert.equal(commonGutter(['h: Traceback (most recent call last):', 'h: ValueError: x'], readable), null);
    assert.equal(
      commonGutter(
        ['h: Traceback (most recent call last):', 'h:   File "a.py", line 1, in f', 'h: ValueError: x'],
        readable,
      ),
      '=h: ',
    );
  });

  it("a traceback's last lines under a gutter: Python's carets count among the lines it reveals", () => {
    const tail = [
      '    return self.quant_method.apply(self, x, bias)',
      '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
      'RuntimeError: CUDA error: an illegal memory access was encountered',
      'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
    ];
    const wrapped = tail.map((l) => `2026-01-02 03:04:05.678 | ${l}`);
    assert.equal(commonGutter(wrapped, readable), '=2026-01-02 03:04:05.678 | ');
    const l = analyze(wrapped).launches.at(-1)!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
    // carets alone reveal one line, not two
    assert.equal(commonGutter(['x | a = f(b)', 'x |     ^^^^', 'x | done'], readable), null);
  });

  it('the same reading whatever the checkpoints taken in the head, and after it', () => {
    const wrapped = [...VLLM_OOM, ...SGLANG_UP].map((l, i) => `gpu-node-${i % 3}: ${l}`);
    const straight = JSON.stringify(
      analyze(wrapped).launches.map((l) => [l.outcome, l.phase, l.failure?.class]),
    );
    for (let cut = 1; cut < wrapped.length; cut++) {
      const got = JSON.stringify(
        analyze(wrapped, [cut]).launches.map((l) => [l.outcome, l.phase, l.failure?.class]),
      );
      assert.equal(got, straight, `checkpoint after line ${cut}`);
    }
    assert.equal(
      JSON.stringify(
        analyze(wrapped, [1, 2, 3, 4, 5, 6, 7]).launches.map((l) => [l.outcome, l.phase, l.failure?.class]),
      ),
      straight,
    );
  });
});
