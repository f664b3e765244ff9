import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  parseSglangServerArgs,
  parseTgiArgs,
  parseTgiArgsField,
  parseTrtllmPyTorchConfig,
  parseVllmEngineConfig,
  parseVllmNamespace,
  parseVllmNonDefaultArgs,
} from '../../../src/core/config/engine-config.js';
import { REDACTED, redactText } from '../../../src/core/config/redact.js';

interface Field {
  name: string;
  src: string;
  value: unknown;
}

const TRICKY: Field[] = [
  {
    name: 'model_path',
    src: "'meta-llama/Llama-3.1-8B-Instruct'",
    value: 'meta-llama/Llama-3.1-8B-Instruct',
  },
  { name: 'api_key', src: "'sk-live-123'", value: REDACTED },
  { name: 'admin_api_key', src: 'None', value: null },
  { name: 'json_model_override_args', src: `'{"a": "b, c=d"}'`, value: '{"a": "b, c=d"}' },
  {
    name: 'cuda_graph_config',
    src: "CudaGraphConfig(decode=PhaseConfig(backend='full', max_bs=256, bs=[1, 2, 4]), prefill=None)",
    value: { decode: { backend: 'full', max_bs: 256, bs: [1, 2, 4] }, prefill: null },
  },
  { name: 'lora_paths', src: 'None', value: null },
  { name: 'chat_template', src: `"it's"`, value: "it's" },
  { name: 'model_loader_extra_config', src: "'{}'", value: '{}' },
  { name: 'custom_sigquit_handler', src: '<function foo at 0x7f00>', value: '<function foo at 0x7f00>' },
  { name: 'ssl_keyfile_password', src: "'hunter2'", value: REDACTED },
  { name: 'ssl_keyfile', src: "'/etc/ssl/key.pem'", value: '/etc/ssl/key.pem' },
  { name: 'tool_call_parser', src: String.raw`'a\'b), c=('`, value: "a'b), c=(" },
  { name: 'mem_fraction_static', src: '0.907', value: 0.907 },
  { name: 'max_total_tokens', src: 'None', value: null },
  { name: 'hf_token', src: `'hf_${'Q'.repeat(34)}'`, value: REDACTED },
];

// SGLang's dump has 300-500 fields in a changing order; generated fields fill it out.
function generated(i: number): Field {
  const name = `generated_option_number_${i}`;
  switch (i % 8) {
    case 0:
      return { name, src: String(i * 7), value: i * 7 };
    case 1:
      return { name, src: `${i}.5`, value: i + 0.5 };
    case 2:
      return { name, src: i % 3 ? 'True' : 'False', value: i % 3 !== 0 };
    case 3:
      return { name, src: 'None', value: null };
    case 4:
      return { name, src: `'value-${i}'`, value: `value-${i}` };
    case 5:
      return { name, src: `[${i}, ${i + 1}]`, value: [i, i + 1] };
    case 6:
      return { name, src: `{'k${i}': 'v'}`, value: { [`k${i}`]: 'v' } };
    default:
      return { name, src: '1e-06', value: 1e-6 };
  }
}

function buildServerArgs(count: number): { line: string; fields: Field[]; ends: number[] } {
  const fields: Field[] = [];
  for (let i = 0; i < count; i++) {
    fields.push(generated(i));
    if (i % 20 === 0 && i / 20 < TRICKY.length) fields.push(TRICKY[i / 20]!);
  }
  let line = '[2026-02-19 04:10:03] server_args=ServerArgs(';
  const ends: number[] = [];
  fields.forEach((f, k) => {
    line += `${k ? ', ' : ''}${f.name}=${f.src}`;
    ends.push(line.length);
  });
  return { line: `${line})`, fields, ends };
}

const BIG = buildServerArgs(300);

const CORPUS_SGLANG =
  "[2026-02-19 04:10:03] server_args=ServerArgs(model_path='lukealonso/GLM-5-NVFP4', tokenizer_path='lukealonso/GLM-5-NVFP4', tokenizer_mode='auto', tokenizer_worker_num=1, skip_tokenizer_init=False, load_format='auto', model_loader_extra_config='{}', trust_remote_code=True, context_length=None, is_embedding=False, enable_multimodal=None, revision=None, model_impl='auto', host='0.0.0.0', port=8000, fastapi_root_path='', grpc_mode=False, skip_server_warmup=False, warmups=None, nccl_port=None, dtype='auto', quantization='modelopt_fp4', kv_cache_dtype='fp8_e4m3', mem_fraction_static=0.88, max_running_requests=64, max_total_tokens=None, chunked_prefill_size=8192, max_prefill_tokens=16384, schedule_policy='fcfs', schedule_conservativeness=1.0, page_size=64, device='cuda', tp_size=8, pp_size=1, dp_size=1, ep_size=1, random_seed=785475576, watchdog_timeout=300, dist_timeout=None, log_level='info', api_key=None, served_model_name='lukealonso/GLM-5-NVFP4', attention_backend='flashinfer', disable_cuda_graph=False, cuda_graph_max_bs=64, cuda_graph_bs=None, json_model_override_args='{}', lora_paths=None, speculative_algorithm=None)";

describe('parseSglangServerArgs', () => {
  it('reads a real dump', () => {
    const got = parseSglangServerArgs(CORPUS_SGLANG)!;
    assert.equal(got.model_path, 'lukealonso/GLM-5-NVFP4');
    assert.equal(got.tp_size, 8);
    assert.equal(got.mem_fraction_static, 0.88);
    assert.equal(got.quantization, 'modelopt_fp4');
    assert.equal(got.max_total_tokens, null);
    assert.equal(got.api_key, null);
    assert.equal(got.fastapi_root_path, '');
    assert.equal(got.speculative_algorithm, null);
    assert.equal(Object.keys(got).length, 49);
  });
  it('reads a 10 KB dump with tricky fields and redacts its secrets', () => {
    assert.ok(BIG.line.length >= 10_000, `line is ${BIG.line.length} chars`);
    const got = parseSglangServerArgs(BIG.line)!;
    assert.equal(Object.keys(got).length, BIG.fields.length);
    for (const f of BIG.fields) assert.deepEqual(got[f.name], f.value, f.name);
    const json = JSON.stringify(got);
    assert.ok(!json.includes('sk-live') && !json.includes('hunter2') && !json.includes('hf_Q'));
    const evidence = redactText(BIG.line);
    assert.ok(!evidence.includes('sk-live') && !evidence.includes('hunter2') && !evidence.includes('hf_Q'));
    assert.ok(evidence.includes(`api_key='${REDACTED}'`) && evidence.includes('admin_api_key=None'));
  });
  it('reads a dump missing its final paren or cut mid-field', () => {
    assert.deepEqual(parseSglangServerArgs("server_args=ServerArgs(tp_size=2, model_path='m'"), {
      tp_size: 2,
      model_path: 'm',
    });
    assert.deepEqual(parseSglangServerArgs("server_args=ServerArgs(tp_size=2, model_path='meta-ll"), {
      tp_size: 2,
      model_path: "'meta-ll",
    });
    assert.deepEqual(parseSglangServerArgs("server_args=ServerArgs(tp_size=2, api_key='sk-li"), {
      tp_size: 2,
      api_key: REDACTED,
    });
  });
  it('returns null without the marker', () => {
    assert.equal(parseSglangServerArgs('Load weight begin. avail mem=78.5 GB'), null);
  });
  it('keeps completed fields at every cut point and never leaks the key', () => {
    const full = parseSglangServerArgs(BIG.line)!;
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const trickyEnd = BIG.ends[BIG.fields.indexOf(TRICKY[4]!)]!;
    const cuts = Array.from({ length: 300 }, () => rand(BIG.line.length + 1));
    for (let c = 0; c <= trickyEnd; c += 3) cuts.push(c);
    for (const cut of cuts) {
      const got = parseSglangServerArgs(BIG.line.slice(0, cut));
      if (got === null) continue;
      const json = JSON.stringify(got);
      assert.ok(!json.includes('sk-li') && !json.includes('hunter'), `leak at ${cut}`);
      for (const key of Object.keys(got)) assert.ok(key in full, `unexpected ${key} at ${cut}`);
      BIG.fields.forEach((f, k) => {
        if (BIG.ends[k]! < cut) assert.deepEqual(got[f.name], full[f.name], `${f.name} at ${cut}`);
      });
    }
  });
  it('parses a 20 KB line 200 times', () => {
    const { line } = buildServerArgs(560);
    assert.ok(line.length >= 20_000);
    for (let i = 0; i < 200; i++) assert.ok(parseSglangServerArgs(line));
  });
});

describe('vLLM', () => {
  it('reads non-default args and redacts the key', () => {
    const msg =
      "non-default args: {'model_tag': 'Qwen/Qwen3-32B', 'model': 'Qwen/Qwen3-32B', 'tensor_parallel_size': 2, 'api_key': ['secret']}";
    assert.deepEqual(parseVllmNonDefaultArgs(msg), {
      model_tag: 'Qwen/Qwen3-32B',
      model: 'Qwen/Qwen3-32B',
      tensor_parallel_size: 2,
      api_key: REDACTED,
    });
  });
  it('reads non-default args from a full log line, even cut', () => {
    const line =
      "(APIServer pid=536) INFO 06-20 19:17:46 [api_utils.py:273] non-default args: {'model_tag': 'Qwen/Qwen3.6-35B-A3B-FP8', 'enable_auto_tool_choice': True, 'served_model_name': ['user'], 'gpu_memory_utilization': 0.5, 'speculative_config': {'method': 'dflash', 'num_speculative_tokens': 15}, 'compilation_config': {'cudagraph_mode': 'FULL'";
    assert.deepEqual(parseVllmNonDefaultArgs(line), {
      model_tag: 'Qwen/Qwen3.6-35B-A3B-FP8',
      enable_auto_tool_choice: true,
      served_model_name: ['user'],
      gpu_memory_utilization: 0.5,
      speculative_config: { method: 'dflash', num_speculative_tokens: 15 },
      compilation_config: "{'cudagraph_mode': 'FULL'",
    });
    assert.equal(parseVllmNonDefaultArgs('Resolved architecture: Qwen3ForCausalLM'), null);
  });
  it('reads an args Namespace', () => {
    const msg =
      "args: Namespace(subparser='serve', model_tag='meta-llama/Llama-3.1-8B', host=None, port=8000, uvicorn_log_level='info', allowed_origins=['*'], api_key='token-abc123', lora_modules=None, ssl_keyfile=None, middleware=[], max_model_len=8192, gpu_memory_utilization=0.9, dispatch_function=<function serve at 0x7f3c2a1b9d80>)";
    assert.deepEqual(parseVllmNamespace(msg), {
      subparser: 'serve',
      model_tag: 'meta-llama/Llama-3.1-8B',
      host: null,
      port: 8000,
      uvicorn_log_level: 'info',
      allowed_origins: ['*'],
      api_key: REDACTED,
      lora_modules: null,
      ssl_keyfile: null,
      middleware: [],
      max_model_len: 8192,
      gpu_memory_utilization: 0.9,
      dispatch_function: '<function serve at 0x7f3c2a1b9d80>',
    });
  });
  it('reads the V1 engine config line', () => {
    const msg =
      'Initializing a V1 LLM engine (v0.10.2) with config: model=\'Qwen/Qwen3-32B\', speculative_config=None, tokenizer=\'Qwen/Qwen3-32B\', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, structured_outputs_config=StructuredOutputsConfig(backend=\'auto\', disable_fallback=False, disable_any_whitespace=False, disable_additional_properties=False, reasoning_parser=\'\'), observability_config=ObservabilityConfig(show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None), seed=0, served_model_name=Qwen/Qwen3-32B, enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None, compilation_config={"level":3,"debug_dump_path":"","cache_dir":"","backend":"","custom_ops":[],"splitting_ops":["vllm.unified_attention","vllm.unified_attention_with_output"],"use_inductor":true,"compile_sizes":[],"inductor_compile_config":{"enable_auto_functionalized_v2":false},"cudagraph_mode":[2,1],"cudagraph_capture_sizes":[512,504,8],"max_capture_size":512,"local_cache_dir":null}';
    const got = parseVllmEngineConfig(msg)!;
    assert.equal(got.model, 'Qwen/Qwen3-32B');
    assert.equal(got.tokenizer_mode, 'auto');
    assert.equal(got.dtype, 'torch.bfloat16');
    assert.equal(got.max_seq_len, 32768);
    assert.equal(got.tensor_parallel_size, 2);
    assert.equal(got.kv_cache_dtype, 'auto');
    assert.equal(got.device_config, 'cuda');
    assert.equal(got.served_model_name, 'Qwen/Qwen3-32B');
    assert.equal(got.enable_prefix_caching, true);
    assert.equal(got.seed, 0);
    assert.deepEqual(got.observability_config, {
      show_hidden_metrics_for_version: null,
      otlp_traces_endpoint: null,
      collect_detailed_traces: null,
    });
    const cc = got.compilation_config as Record<string, unknown>;
    assert.equal(cc.level, 3);
    assert.equal(cc.use_inductor, true);
    assert.equal(cc.local_cache_dir, null);
    assert.deepEqual(cc.cudagraph_mode, [2, 1]);
    assert.deepEqual(cc.cudagraph_capture_sizes, [512, 504, 8]);
    assert.equal(Object.keys(got).length, 28);
  });
  it('reads the V0 line with its trailing use_cached_outputs', () => {
    const msg =
      'Initializing a V0 LLM engine (v0.8.5) with config: model=\'m\', tokenizer_mode=auto, decoding_config=DecodingConfig(guided_decoding_backend=\'xgrammar\', reasoning_backend=None), override_neuron_config=None, compilation_config={"splitting_ops":[],"cudagraph_mode":<CUDAGraphMode.FULL: 2>}, use_cached_outputs=False, ';
    assert.deepEqual(parseVllmEngineConfig(msg), {
      model: 'm',
      tokenizer_mode: 'auto',
      decoding_config: { guided_decoding_backend: 'xgrammar', reasoning_backend: null },
      override_neuron_config: null,
      compilation_config: { splitting_ops: [], cudagraph_mode: '<CUDAGraphMode.FULL: 2>' },
      use_cached_outputs: false,
    });
    assert.equal(parseVllmEngineConfig('Initializing a V1 LLM engine'), null);
  });
});

describe('parseTrtllmPyTorchConfig', () => {
  it('reads the dataclass repr', () => {
    const msg =
      "[TensorRT-LLM][INFO] PyTorchConfig(extra_resource_managers={}, use_cuda_graph=True, cuda_graph_batch_sizes=[1, 2, 4, 8], cuda_graph_max_batch_size=8, cuda_graph_padding_enabled=False, moe_max_num_tokens=None, attn_backend='TRTLLM', moe_backend='CUTLASS', kv_cache_dtype='auto', print_iter_log=False, torch_compile_enabled=False, load_format=<LoadFormat.AUTO: 0>)";
    assert.deepEqual(parseTrtllmPyTorchConfig(msg), {
      extra_resource_managers: {},
      use_cuda_graph: true,
      cuda_graph_batch_sizes: [1, 2, 4, 8],
      cuda_graph_max_batch_size: 8,
      cuda_graph_padding_enabled: false,
      moe_max_num_tokens: null,
      attn_backend: 'TRTLLM',
      moe_backend: 'CUTLASS',
      kv_cache_dtype: 'auto',
      print_iter_log: false,
      torch_compile_enabled: false,
      load_format: '<LoadFormat.AUTO: 0>',
    });
    assert.equal(parseTrtllmPyTorchConfig('Use 15.50 GB for model weights.'), null);
  });
});

describe('TGI', () => {
  it('reads single Args lines', () => {
    const cases: [string, [string, unknown] | null][] = [
      ['    model_id: "meta-llama/Llama-3.1-8B",', ['model_id', 'meta-llama/Llama-3.1-8B']],
      ['    max_batch_prefill_tokens: Some(4096),', ['max_batch_prefill_tokens', 4096]],
      ['    sharded: None,', ['sharded', null]],
      ['    trust_remote_code: false,', ['trust_remote_code', false]],
      ['    cuda_memory_fraction: 1.0,', ['cuda_memory_fraction', 1]],
      ['    quantize: Some(BitsandbytesNf4),', ['quantize', 'BitsandbytesNf4']],
      ['    cors_allow_origin: [],', ['cors_allow_origin', []]],
      ['    hostname: "r-abc \\"x\\"",', ['hostname', 'r-abc "x"']],
      ['    huggingface_hub_cache: Some("/data"),', ['huggingface_hub_cache', '/data']],
      ['    api_key: Some("tgi-secret"),', ['api_key', REDACTED]],
      ['    api_key: None,', ['api_key', null]],
      ['    payload_limit: 2000000', ['payload_limit', 2000000]],
      ['    max_batch_prefill_tokens: Some(', null],
      ['Args {', null],
      ['}', null],
      ['2024-10-01T12:00:00.000Z  INFO text_generation_launcher: Args {', null],
    ];
    for (const [line, want] of cases) assert.deepEqual(parseTgiArgsField(line), want, line);
  });
  it('reads a whole one-line or pretty-printed Args dump', () => {
    const oneLine =
      'INFO text_generation_launcher: Args { model_id: "bigscience/bloom-560m", revision: None, validation_workers: 2, sharded: None, num_shard: Some(2), quantize: None, max_input_tokens: Some(4095), api_key: Some("k"), cuda_graphs: Some([1, 2, 4]), usage_stats: On }';
    const pretty = [
      'Args {',
      '    model_id: "bigscience/bloom-560m",',
      '    num_shard: Some(',
      '        2,',
      '    ),',
      '    cuda_graphs: Some(',
      '        [',
      '            1,',
      '            2,',
      '            4,',
      '        ],',
      '    ),',
      '    usage_stats: On,',
      '}',
    ].join('\n');
    assert.deepEqual(parseTgiArgs(oneLine), {
      model_id: 'bigscience/bloom-560m',
      revision: null,
      validation_workers: 2,
      sharded: null,
      num_shard: 2,
      quantize: null,
      max_input_tokens: 4095,
      api_key: REDACTED,
      cuda_graphs: [1, 2, 4],
      usage_stats: 'On',
    });
    assert.deepEqual(parseTgiArgs(pretty), {
      model_id: 'bigscience/bloom-560m',
      num_shard: 2,
      cuda_graphs: [1, 2, 4],
      usage_stats: 'On',
    });
    assert.equal(parseTgiArgs('Connected'), null);
  });
});

describe('never throws', () => {
  it('on arbitrary input', () => {
    const alphabet = fc.constantFrom(
      ...'aS_=,\'"\\()[]{}<>: 0.-N\nServerArgs(Namespace(Args {with config:'.split(''),
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(alphabet, { maxLength: 80 }).map((cs) => cs.join('')),
    );
    fc.assert(
      fc.property(text, (s) => {
        parseSglangServerArgs(`ServerArgs(${s}`);
        parseVllmNonDefaultArgs(`non-default args: {${s}`);
        parseVllmNamespace(`Namespace(${s}`);
        parseVllmEngineConfig(`with config: ${s}`);
        parseTrtllmPyTorchConfig(`PyTorchConfig(${s}`);
        parseTgiArgsField(s);
        parseTgiArgs(`Args {${s}`);
      }),
      { numRuns: 400 },
    );
  });
});
