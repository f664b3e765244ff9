import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rateConfidence } from '../../../src/core/reading/confidence.js';
import { analyzeText } from '../../helpers.js';

const T = (s: number) => `[2026-03-01 10:00:${String(s).padStart(2, '0')}`;

/** A whole SGLang launch, made up in the engine's own line shapes. */
const SGLANG_START = [
  `${T(0)}] server_args=ServerArgs(model_path='org/Model-7B', tp_size=2, port=30000)`,
  `${T(2)} TP0] Init torch distributed begin.`,
  `${T(3)} TP0] Init torch distributed ends. elapsed=1.00 s, mem usage=0.50 GB`,
  `${T(4)} TP0] Load weight begin. avail mem=70.00 GB`,
  `${T(9)} TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.00 GB, mem usage=10.00 GB.`,
  `${T(10)} TP0] Memory pool end. avail mem=10.00 GB`,
  `${T(11)} TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=9.00 GB`,
];

function last(text: string) {
  const r = analyzeText(`${text}\n`);
  const l = r.launches[r.launches.length - 1];
  assert.ok(l, 'no launch');
  return l;
}

describe('confidence', () => {
  it('a whole SGLang launch that came up is high', () => {
    const l = last(
      [
        ...SGLANG_START,
        `${T(20)} TP0] Capture cuda graph end. Time elapsed: 9.00 s. mem usage=1.00 GB. avail mem=8.00 GB.`,
        `${T(21)}] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)`,
        `${T(22)}] The server is fired up and ready to roll!`,
      ].join('\n'),
    );
    assert.equal(l.outcome, 'ready');
    assert.equal(l.confidence, 'high');
    assert.deepEqual(l.confidenceReasons, []);
  });

  it('a crash with its exception line and a specific class is high', () => {
    const l = last(
      [
        ...SGLANG_START,
        `${T(12)} TP0] Scheduler hit an exception: Traceback (most recent call last):`,
        '  File "/usr/lib/python3/site-packages/sglang/srt/managers/scheduler.py", line 100, in run_scheduler_process',
        '    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.00 GiB',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.confidence, 'high', l.confidenceReasons.join('; '));
  });

  it('a bare traceback cut before its exception is low, and says why', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        '  File "/opt/app/main.py", line 12, in <module>',
        '    main()',
        '  File "/opt/app/main.py", line 8, in main',
        '    run(config)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.confidence, 'low');
    assert.ok(
      l.confidenceReasons.includes('a fragment with no launch start'),
      l.confidenceReasons.join('; '),
    );
    assert.ok(l.confidenceReasons.includes('no engine-specific line recognised'));
    assert.ok(l.confidenceReasons.includes('crash read from a traceback cut before its exception'));
  });

  it('a fragment with milestones and nothing else wrong is medium', () => {
    const l = last(SGLANG_START.slice(1).join('\n'));
    assert.equal(l.startSeen, false);
    assert.equal(l.confidence, 'medium');
    assert.deepEqual(l.confidenceReasons, ['a fragment with no launch start']);
  });

  describe('the rule', () => {
    const base = {
      startSeen: true,
      engineLines: 40,
      ruleMarks: 5,
      frameMarks: 0,
      engineScore: 100,
      failure: null,
    };
    it('high with nothing missing', () => assert.equal(rateConfidence(base).confidence, 'high'));
    it('one weak point of the second kind is medium, two are low', () => {
      assert.equal(rateConfidence({ ...base, startSeen: false }).confidence, 'medium');
      assert.equal(rateConfidence({ ...base, startSeen: false, engineLines: 2 }).confidence, 'low');
    });
    it('a consequence line alone, or frames alone, is low', () => {
      assert.equal(
        rateConfidence({ ...base, failure: { source: 'consequence', cls: 'killed' } }).confidence,
        'low',
      );
      assert.deepEqual(rateConfidence({ ...base, ruleMarks: 0, frameMarks: 1 }).confidenceReasons, [
        'phase inferred only from traceback frames',
      ]);
    });
    it('a generic exception is medium; a specific one is high', () => {
      const f = (cls: 'python_exception' | 'oom') => ({
        ...base,
        failure: { source: 'exception' as const, cls },
      });
      assert.equal(rateConfidence(f('python_exception')).confidence, 'medium');
      assert.equal(rateConfidence(f('oom')).confidence, 'high');
    });
    it('a named engine is not weak evidence', () =>
      assert.equal(rateConfidence({ ...base, engineScore: Number.POSITIVE_INFINITY }).confidence, 'high'));
  });
});
