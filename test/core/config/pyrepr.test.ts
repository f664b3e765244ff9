import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCallRepr, parseDictRepr, parseKwargs, parsePyValue } from '../../../src/core/config/pyrepr.js';

describe('parsePyValue scalars', () => {
  const cases: [string, unknown][] = [
    ['None', null],
    ['True', true],
    ['False', false],
    ['null', null],
    ['true', true],
    ['false', false],
    ['0', 0],
    ['8192', 8192],
    ['-3', -3],
    ['0.907', 0.907],
    ['1.0', 1],
    ['1e-06', 1e-6],
    ['-2.5E+3', -2500],
    ['inf', 'inf'],
    ['-inf', '-inf'],
    ['nan', 'nan'],
    ['  42  ', 42],
    // Beyond 2^53 a number would silently change digits.
    ['123456789012345678901', '123456789012345678901'],
  ];
  for (const [text, want] of cases) {
    it(`reads ${JSON.stringify(text)}`, () => assert.deepEqual(parsePyValue(text), want));
  }
});

describe('parsePyValue strings', () => {
  it('reads single and double quotes', () => {
    assert.equal(parsePyValue("'auto'"), 'auto');
    assert.equal(parsePyValue('"it\'s"'), "it's");
    assert.equal(parsePyValue("''"), '');
  });
  it('decodes Python escapes', () => {
    assert.equal(parsePyValue(String.raw`'a\'b\\c\nd\te'`), "a'b\\c\nd\te");
    assert.equal(parsePyValue(String.raw`'\x41\u00e9\U0001F600\0'`), 'Aé😀\0');
    assert.equal(parsePyValue(String.raw`"say \"hi\""`), 'say "hi"');
  });
  it('keeps unknown escapes like Python does', () => {
    assert.equal(parsePyValue(String.raw`'\d+\s'`), String.raw`\d+\s`);
    assert.equal(parsePyValue(String.raw`'\xZZ'`), String.raw`\xZZ`);
  });
  it('handles r and b prefixes', () => {
    assert.equal(parsePyValue(String.raw`r'C:\new\d'`), String.raw`C:\new\d`);
    assert.equal(parsePyValue(String.raw`b'ab\n'`), 'ab\n');
    assert.equal(parsePyValue(String.raw`rb'\x'`), String.raw`\x`);
  });
  it('keeps JSON inside quotes as a string', () => {
    assert.equal(parsePyValue(`'{"a": 1, "b": [true]}'`), '{"a": 1, "b": [true]}');
  });
});

describe('parsePyValue containers', () => {
  it('reads lists, tuples and sets as arrays', () => {
    assert.deepEqual(parsePyValue('[1, 2, 4, 8]'), [1, 2, 4, 8]);
    assert.deepEqual(parsePyValue("('*.safetensors',)"), ['*.safetensors']);
    assert.deepEqual(parsePyValue('(1, (2, 3))'), [1, [2, 3]]);
    assert.deepEqual(parsePyValue('{1, 2}'), [1, 2]);
    assert.deepEqual(parsePyValue('[]'), []);
    assert.deepEqual(parsePyValue('()'), []);
    assert.deepEqual(parsePyValue('[1, 2, ]'), [1, 2]);
  });
  it('reads dicts with string keys', () => {
    assert.deepEqual(parsePyValue("{'k': 1, 'nested': {'a': [None, True]}}"), {
      k: 1,
      nested: { a: [null, true] },
    });
    assert.deepEqual(parsePyValue('{}'), {});
  });
  it('converts non-string keys to their source text', () => {
    assert.deepEqual(parsePyValue("{1: 'a', None: 2, 1.0: 3, True: 4}"), {
      '1': 'a',
      None: 2,
      '1.0': 3,
      True: 4,
    });
  });
  it('reads JSON objects', () => {
    assert.deepEqual(parsePyValue('{"level":3,"use_inductor":true,"dir":"","x":null,"s":[512,504]}'), {
      level: 3,
      use_inductor: true,
      dir: '',
      x: null,
      s: [512, 504],
    });
  });
  it('keeps multi-line (pretty printed) values', () => {
    assert.deepEqual(parsePyValue('[\n  1,\n  2,\n]'), [1, 2]);
  });
  it('does not let a __proto__ key change the prototype', () => {
    const v = parsePyValue("{'__proto__': {'polluted': 1}}") as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('parsePyValue calls and raw fallbacks', () => {
  it('turns nested dataclasses into plain objects', () => {
    assert.deepEqual(
      parsePyValue(
        "CudaGraphConfig(decode=PhaseConfig(backend='full', max_bs=256, bs=[1, 2, 4]), prefill=None)",
      ),
      { decode: { backend: 'full', max_bs: 256, bs: [1, 2, 4] }, prefill: null },
    );
  });
  it('puts positional args in _args', () => {
    assert.deepEqual(parsePyValue("LoRARef(7, 'a', lora_name='x')"), { lora_name: 'x', _args: [7, 'a'] });
    assert.deepEqual(parsePyValue('torch.Size([1, 2])'), { _args: [[1, 2]] });
    assert.deepEqual(parsePyValue('Empty()'), {});
  });
  it('returns identifiers and reprs it cannot read as text', () => {
    assert.equal(parsePyValue('torch.bfloat16'), 'torch.bfloat16');
    assert.equal(parsePyValue('auto'), 'auto');
    assert.equal(parsePyValue('Qwen/Qwen3-32B'), 'Qwen/Qwen3-32B');
    assert.equal(parsePyValue(' <function foo at 0x7f8a2c1d3e20> '), '<function foo at 0x7f8a2c1d3e20>');
    assert.equal(parsePyValue('<LoadFormat.AUTO: 0>'), '<LoadFormat.AUTO: 0>');
    assert.equal(parsePyValue('0x7f00'), '0x7f00');
  });
  it('keeps angle reprs whole inside containers', () => {
    assert.deepEqual(parsePyValue("[<Mode.FULL: (2, 1)>, <function f at 0x1>, 'x']"), [
      '<Mode.FULL: (2, 1)>',
      '<function f at 0x1>',
      'x',
    ]);
    assert.deepEqual(parsePyValue("{'mode': <Mode.A: 'a, b'>}"), { mode: "<Mode.A: 'a, b'>" });
  });
  it('returns malformed or cut values as trimmed text', () => {
    assert.equal(parsePyValue('[1, 2'), '[1, 2');
    assert.equal(parsePyValue(" 'abc "), "'abc");
    assert.equal(parsePyValue('[1, 2)'), '[1, 2)');
    assert.equal(parsePyValue("'a' 'b'"), "'a' 'b'");
    assert.equal(parsePyValue('Foo(a=1'), 'Foo(a=1');
    assert.equal(parsePyValue(''), '');
  });
  it('survives very deep nesting', () => {
    const deep = '['.repeat(100_000);
    assert.equal(parsePyValue(deep), deep);
    const closed = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    assert.equal(parsePyValue(closed), closed);
  });
});

describe('parseKwargs', () => {
  it('splits only at top-level name= boundaries', () => {
    const body = String.raw`a='x, b=1', c="it's", d='{"a": "b, c=d"}', e='esc \' q, f=2', g=')', h=Foo(i=[1, (2, 3)], j={'k': 'v=w'}), z=1`;
    assert.deepEqual(parseKwargs(body), {
      a: 'x, b=1',
      c: "it's",
      d: '{"a": "b, c=d"}',
      e: "esc ' q, f=2",
      g: ')',
      h: { i: [1, [2, 3]], j: { k: 'v=w' } },
      z: 1,
    });
  });
  it('reads vLLM unquoted values', () => {
    const line =
      "model='Qwen/Qwen3-32B', speculative_config=None, tokenizer='Qwen/Qwen3-32B', skip_tokenizer_init=False, " +
      'tokenizer_mode=auto, revision=None, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, ' +
      'tensor_parallel_size=2, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, ' +
      "structured_outputs_config=StructuredOutputsConfig(backend='auto', disable_fallback=False), seed=0, " +
      'served_model_name=Qwen/Qwen3-32B, enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None, ' +
      'compilation_config={"level":3,"debug_dump_path":"","cache_dir":"","backend":"","custom_ops":[],' +
      '"splitting_ops":["vllm.unified_attention"],"use_inductor":true,"compile_sizes":[],' +
      '"cudagraph_capture_sizes":[512,504,8],"max_capture_size":512}';
    const got = parseKwargs(line);
    assert.equal(got.model, 'Qwen/Qwen3-32B');
    assert.equal(got.tokenizer_mode, 'auto');
    assert.equal(got.dtype, 'torch.bfloat16');
    assert.equal(got.max_seq_len, 32768);
    assert.equal(got.tensor_parallel_size, 2);
    assert.equal(got.device_config, 'cuda');
    assert.equal(got.served_model_name, 'Qwen/Qwen3-32B');
    assert.equal(got.enable_prefix_caching, true);
    assert.equal(got.skip_tokenizer_init, false);
    assert.equal(got.pooler_config, null);
    assert.deepEqual(got.structured_outputs_config, { backend: 'auto', disable_fallback: false });
    assert.deepEqual(got.compilation_config, {
      level: 3,
      debug_dump_path: '',
      cache_dir: '',
      backend: '',
      custom_ops: [],
      splitting_ops: ['vllm.unified_attention'],
      use_inductor: true,
      compile_sizes: [],
      cudagraph_capture_sizes: [512, 504, 8],
      max_capture_size: 512,
    });
  });
  it('keeps commas and apostrophes inside bare values', () => {
    assert.deepEqual(parseKwargs("served_model_name=a, b, c=1, who=Bob's model, x=2, "), {
      served_model_name: 'a, b',
      c: 1,
      who: "Bob's model",
      x: 2,
    });
  });
  it('does not mistake == for a field', () => {
    assert.deepEqual(parseKwargs('cond=a, b==c, d=1'), { cond: 'a, b==c', d: 1 });
  });
  it('returns completed fields and the partial last one as text when cut', () => {
    assert.deepEqual(parseKwargs("a=1, b='cut here"), { a: 1, b: "'cut here" });
    assert.deepEqual(parseKwargs('a=1, b=Foo(c=[1, 2'), { a: 1, b: 'Foo(c=[1, 2' });
    assert.deepEqual(parseKwargs('a=1, tokeni'), { a: 1 });
    assert.deepEqual(parseKwargs('a=1, '), { a: 1 });
    assert.deepEqual(parseKwargs('a=1, b='), { a: 1, b: '' });
  });
  it('stops at an unmatched closer and skips leading junk', () => {
    assert.deepEqual(parseKwargs('a=1, b=2) trailing, c=3'), { a: 1, b: 2 });
    assert.deepEqual(parseKwargs('junk, a=1'), { a: 1 });
    assert.deepEqual(parseKwargs(''), {});
  });
});

describe('parseCallRepr', () => {
  it('reads the name and fields', () => {
    assert.deepEqual(parseCallRepr("ServerArgs(model_path='m', tp_size=2)"), {
      name: 'ServerArgs',
      fields: { model_path: 'm', tp_size: 2 },
    });
    assert.deepEqual(parseCallRepr('Namespace()'), { name: 'Namespace', fields: {} });
  });
  it('tolerates a missing final paren and ignores text after the call', () => {
    assert.deepEqual(parseCallRepr("ServerArgs(a=1, b='x'")?.fields, { a: 1, b: 'x' });
    assert.deepEqual(parseCallRepr('Foo(a=1) and more')?.fields, { a: 1 });
  });
  it('returns null when the text is not a call', () => {
    assert.equal(parseCallRepr('server_args=ServerArgs(a=1)'), null);
    assert.equal(parseCallRepr('hello'), null);
  });
});

describe('parseDictRepr', () => {
  it('reads a whole dict', () => {
    assert.deepEqual(parseDictRepr("{'a': 1, 'b': ['x']}"), { a: 1, b: ['x'] });
  });
  it('keeps the complete entries of a cut dict', () => {
    assert.deepEqual(parseDictRepr("{'a': 1, 'b': [1, 2"), { a: 1, b: '[1, 2' });
    assert.deepEqual(parseDictRepr("{'a': 1, 'b"), { a: 1 });
  });
  it('returns null for non-dicts', () => {
    assert.equal(parseDictRepr('[1]'), null);
    assert.equal(parseDictRepr('{1, 2}'), null);
  });
});

describe('never throws', () => {
  const alphabet = fc.constantFrom(...'abc_=,\'"\\()[]{}<>: 0123.-eNoneTrue\n'.split(''));
  const reprish = fc.array(alphabet, { maxLength: 60 }).map((cs) => cs.join(''));
  for (const input of [fc.string(), reprish]) {
    it('on arbitrary input', () => {
      fc.assert(
        fc.property(input, (s) => {
          parsePyValue(s);
          parseKwargs(s);
          parseCallRepr(`X(${s}`);
          parseDictRepr(`{${s}`);
        }),
        { numRuns: 500 },
      );
    });
  }
});
