/**
 * Whole pastes with more than the server's log in them (test/fixtures/synthetic/mixed): a benchmark client run
 * after the server, a client script's traceback, another compose service's lines. Made-up lines of the shape
 * each program prints.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const lastOf = (text: string) => {
  const r = analyzeText(text);
  return { n: r.launches.length, ...r.launches[r.launches.length - 1]! };
};

const VLLM_UP = [
  'INFO 05-02 10:11:04 [__init__.py:239] Automatically detected platform cuda.',
  'INFO 05-02 10:11:07 [api_server.py:1043] vLLM API server version 0.8.5',
  'INFO 05-02 10:11:20 [gpu_model_runner.py:1329] Starting to load model org/m-7b...',
  'INFO 05-02 10:11:25 [gpu_model_runner.py:1347] Model loading took 14.9889 GiB and 4.42 seconds',
  'INFO 05-02 10:11:41 [kv_cache_utils.py:634] GPU KV cache size: 473,040 tokens',
  'INFO 05-02 10:11:58 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000',
  'INFO:     Started server process [501]',
  'INFO:     Waiting for application startup.',
  'INFO:     Application startup complete.',
  'INFO:     127.0.0.1:33012 - "POST /v1/completions HTTP/1.1" 200 OK',
];

describe("vLLM's platform line (platforms/__init__.py, logged by any process importing vllm)", () => {
  it('is no relaunch when a `vllm bench serve` run is pasted after the server', () => {
    const r = lastOf(
      [
        ...VLLM_UP,
        '$ vllm bench serve --model org/m-7b --dataset-name random --num-prompts 20',
        'INFO 05-02 10:12:05 [__init__.py:239] Automatically detected platform cuda.',
        "Namespace(backend='vllm', base_url=None, host='127.0.0.1', port=8000, dataset_name='random')",
        'Starting initial single prompt test run...',
        '============ Serving Benchmark Result ============',
        'Successful requests:                     20',
        'Output token throughput (tok/s):         2383.6',
        '==================================================',
      ].join('\n'),
    );
    assert.equal(r.n, 1);
    assert.equal(r.outcome, 'serving');
  });

  it('still starts a launch with the server lines after it (a real relaunch)', () => {
    const r = lastOf([...VLLM_UP, ...VLLM_UP.slice(0, 4)].join('\n'));
    assert.equal(r.n, 2);
    assert.equal(r.phase, 'weights_loaded');
  });
});

const SGL_UP = [
  "[2026-02-03 10:40:12] server_args=ServerArgs(model_path='org/m-14b', host='0.0.0.0', port=30000, tp_size=1)",
  '[2026-02-03 10:40:21 TP0] Load weight begin. avail mem=78.50 GB',
  '[2026-02-03 10:40:28 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=50.69 GB',
  '[2026-02-03 10:40:37] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
  '[2026-02-03 10:40:39] The server is fired up and ready to roll!',
];

const REQUESTS_REFUSED = [
  '$ python query.py',
  'Traceback (most recent call last):',
  '  File "/home/user/.local/lib/python3.10/site-packages/urllib3/connection.py", line 198, in _new_conn',
  '    sock = connection.create_connection(',
  'ConnectionRefusedError: [Errno 111] Connection refused',
  '',
  'The above exception was the direct cause of the following exception:',
  '',
  'Traceback (most recent call last):',
  '  File "/home/user/query.py", line 12, in <module>',
  '    r = requests.post("http://localhost:3000/v1/chat/completions", json=payload)',
  '  File "/home/user/.local/lib/python3.10/site-packages/requests/adapters.py", line 700, in send',
  '    raise ConnectionError(e, request=request)',
  "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=3000): Max retries exceeded",
];

describe("an HTTP client's traceback pasted with the server log", () => {
  it('requests/urllib3 refused: not the server crashing', () => {
    const r = lastOf([...SGL_UP, '', ...REQUESTS_REFUSED].join('\n'));
    assert.equal(r.n, 1);
    assert.equal(r.outcome, 'ready');
    assert.equal(r.failure, null);
  });

  it('openai/httpx refused while the server still loads: the launch is still going', () => {
    const r = lastOf(
      [
        ...VLLM_UP.slice(0, 3),
        '>>> client.chat.completions.create(model="m", messages=[])',
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3.11/site-packages/httpcore/_backends/sync.py", line 206, in connect_tcp',
        'ConnectionRefusedError: [Errno 111] Connection refused',
        '',
        'The above exception was the direct cause of the following exception:',
        '',
        'Traceback (most recent call last):',
        '  File "<stdin>", line 1, in <module>',
        '  File "/usr/lib/python3.11/site-packages/openai/_base_client.py", line 1002, in _request',
        '    raise APIConnectionError(request=request) from err',
        'openai.APIConnectionError: Connection error.',
      ].join('\n'),
    );
    assert.equal(r.outcome, 'in_progress');
    assert.equal(r.phase, 'loading_weights');
  });

  it("the server's own request through an engine frame is still its failure (SGLang _wait_and_warmup)", () => {
    const r = lastOf(
      [
        ...SGL_UP.slice(0, 4),
        'Traceback (most recent call last):',
        '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/entrypoints/http_server.py", line 890, in _wait_and_warmup',
        '    res = requests.post(url + request_name, json=json_data, headers=headers, timeout=600)',
        '  File "/usr/local/lib/python3.10/dist-packages/requests/adapters.py", line 700, in send',
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=30000): Max retries exceeded",
      ].join('\n'),
    );
    assert.equal(r.outcome, 'crashed');
  });

  it('a model download that cannot reach the Hub is still a failure', () => {
    const r = lastOf(
      [
        ...SGL_UP.slice(0, 1),
        'Traceback (most recent call last):',
        '  File "/usr/local/lib/python3.10/dist-packages/requests/adapters.py", line 700, in send',
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded",
      ].join('\n'),
    );
    assert.equal(r.outcome, 'crashed');
  });
});

describe("compose services (LogLine.service): another service's lines are another program's", () => {
  const vllm = (l: string) => `vllm-1        | ${l}`;
  const webui = (l: string) => `open-webui-1  | ${l}`;

  it("a web UI's uvicorn start and connection traceback do not make or break the server's launch", () => {
    const r = lastOf(
      [
        vllm(VLLM_UP[0]!),
        vllm(VLLM_UP[1]!),
        webui('INFO:     Started server process [1]'),
        webui('INFO:     Application startup complete.'),
        vllm(VLLM_UP[2]!),
        webui('Traceback (most recent call last):'),
        webui('  File "/app/backend/open_webui/routers/openai.py", line 310, in get_all_models'),
        webui("ConnectionRefusedError: [Errno 111] Connect call failed ('172.18.0.2', 8000)"),
        ...VLLM_UP.slice(3, 9).map(vllm),
      ].join('\n'),
    );
    assert.equal(r.n, 1);
    assert.equal(r.outcome, 'ready');
    assert.equal(r.failure, null);
  });

  it("the engine's own service crashing is still read", () => {
    const r = lastOf(
      [
        vllm(VLLM_UP[0]!),
        vllm(VLLM_UP[1]!),
        webui('INFO:     Started server process [1]'),
        vllm(VLLM_UP[2]!),
        vllm('Traceback (most recent call last):'),
        vllm(
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1436, in load_model',
        ),
        vllm('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB.'),
      ].join('\n'),
    );
    assert.equal(r.n, 1);
    assert.equal(r.outcome, 'crashed');
    assert.equal(r.failure?.class, 'oom');
  });
});

describe('stdout and stderr interleaved: a start line written into a traceback (analyzer.ts, TracebackTracker.awaitsCode)', () => {
  const tb = (banner: string) => [
    'Traceback (most recent call last):',
    '  File "/opt/app/run.py", line 12, in <module>',
    `${banner}    main()`,
    '  File "/opt/app/run.py", line 8, in main',
    '    runner = ModelRunnerCpp.from_dir(engine_dir)',
    '  File "/usr/lib/python3/dist-packages/tensorrt_llm/runtime/model_runner_cpp.py", line 90, in from_dir',
    '    session = GptSession(config=cfg)',
    'RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc: out of memory (/src/tllmBuffers.h:90)',
  ];

  it("a version banner where a frame's code line belongs is no relaunch: one launch, the traceback's failure", () => {
    const r = lastOf(tb('[TensorRT-LLM] TensorRT-LLM version: 0.9.0').join('\n'));
    assert.equal(r.n, 1);
    assert.equal(r.outcome, 'crashed');
    assert.equal(r.failure?.class, 'oom');
    assert.equal(r.phase, 'loading_weights');
  });

  it('the same banner after the traceback ended is a relaunch', () => {
    const lines = tb('').map((l) => l.trimEnd());
    const r = lastOf([...lines, '[TensorRT-LLM] TensorRT-LLM version: 0.9.0'].join('\n'));
    assert.equal(r.n, 2);
  });
});
