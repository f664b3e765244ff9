import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSecretKey, REDACTED, redactConfig, redactText } from '../../../src/core/config/redact.js';

// Real field names from SGLang ServerArgs, vLLM args/config, TGI Args, TRT-LLM and env vars.
const SECRET = [
  'api_key',
  'admin_api_key',
  'ssl_keyfile_password',
  'hf_token',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'auth_token',
  'access_token',
  'access_key',
  'aws_secret_access_key',
  'AWS_ACCESS_KEY_ID',
  'secret',
  'secret_key',
  'client_secret',
  'password',
  'passwd',
  'db_password',
  'credentials',
  'private_key',
  'openai_api_key',
  'OPENAI_API_KEY',
  'WANDB_API_KEY',
  'VLLM_API_KEY',
  'token',
  'apiKey',
  'hfToken',
  '--api-key',
  'x-api-key',
  'Authorization',
  'basic_auth',
];

const NOT_SECRET = [
  'max_total_tokens',
  'max_num_batched_tokens',
  'chunked_prefill_size',
  'num_tokens',
  'tokenizer',
  'tokenizer_path',
  'tokenizer_mode',
  'skip_tokenizer_init',
  'key_size',
  'kv_cache_dtype',
  'ssl_keyfile',
  'ssl_certfile',
  'ssl_ca_certs',
  'page_size',
  'max_prefill_tokens',
  'tokenizer_worker_num',
  'max_tokens',
  'token_usage',
  'enable_tokenizer_batch_encode',
  'sampling_defaults',
  'max_total_num_tokens',
  'speculative_num_draft_tokens',
  'speculative_token_map',
  'num_tokens_per_bs',
  'swa_full_tokens_ratio',
  'tokenizer_revision',
  'tokenizer_metrics_custom_labels_header',
  'max_batch_prefill_tokens',
  'max_batch_total_tokens',
  'max_input_tokens',
  'max_top_n_tokens',
  'bos_token',
  'eos_token',
  'pad_token_id',
  'hotkeys',
  'cache_key',
  'password_file',
  'hf_token_path',
  'api_key_env',
  'model_path',
  'served_model_name',
  'pass_config',
  'piecewise_cuda_graph_max_tokens',
  'max_num_tokens',
  'disable_radix_cache',
  'maxTokens',
  'enable_cache_report',
  'author',
  'keep_alive',
  '',
];

describe('isSecretKey', () => {
  for (const key of SECRET) it(`flags ${key}`, () => assert.equal(isSecretKey(key), true));
  for (const key of NOT_SECRET) it(`leaves ${key || '(empty)'}`, () => assert.equal(isSecretKey(key), false));
});

describe('redactConfig', () => {
  it('replaces set secrets and keeps unset ones visible', () => {
    const input = {
      api_key: 'sk-live-123',
      admin_api_key: null,
      ssl_keyfile_password: '',
      hf_token: false,
      vllm_api_key: [],
      password: 1234,
      model_path: 'meta-llama/Llama-3.1-8B-Instruct',
      max_total_tokens: 4096,
    };
    assert.deepEqual(redactConfig(input), {
      api_key: REDACTED,
      admin_api_key: null,
      ssl_keyfile_password: '',
      hf_token: false,
      vllm_api_key: [],
      password: REDACTED,
      model_path: 'meta-llama/Llama-3.1-8B-Instruct',
      max_total_tokens: 4096,
    });
  });
  it('recurses into nested objects and arrays without mutating the input', () => {
    const input = { a: { api_key: ['secret'], keep: [1, { token: 'abc' }] } };
    const out = redactConfig(input);
    assert.deepEqual(out, { a: { api_key: REDACTED, keep: [1, { token: REDACTED }] } });
    assert.deepEqual(input, { a: { api_key: ['secret'], keep: [1, { token: 'abc' }] } });
  });
  it('masks token shapes inside ordinary strings', () => {
    const hf = `hf_${'a1B2'.repeat(9)}`;
    const out = redactConfig({ model_loader_extra_config: `{"token": "${hf}"}`, note: `use ${hf}` });
    assert.deepEqual(out, {
      model_loader_extra_config: `{"token": "${REDACTED}"}`,
      note: `use ${REDACTED}`,
    });
  });
  it('keeps a __proto__ key as a plain field', () => {
    const input = JSON.parse('{"__proto__": {"api_key": "x"}}');
    const out = redactConfig(input) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { api_key: REDACTED });
  });
  it('passes scalars through', () => {
    assert.equal(redactConfig(3), 3);
    assert.equal(redactConfig(null), null);
    assert.equal(redactConfig('plain'), 'plain');
  });
});

describe('redactText', () => {
  const cases: [string, string][] = [
    ["api_key='sk-abc123', port=30000", `api_key='${REDACTED}', port=30000`],
    ['--api-key sk-abc --port 8000', `--api-key ${REDACTED} --port 8000`],
    ['--api-key=sk-abc', `--api-key=${REDACTED}`],
    ['{"api_key": "x", "model": "m"}', `{"api_key": "${REDACTED}", "model": "m"}`],
    ["{'api_key': ['secret'], 'port': 8000}", `{'api_key': ['${REDACTED}'], 'port': 8000}`],
    ['Authorization: Bearer xyz', `Authorization: Bearer ${REDACTED}`],
    ['headers={"Authorization": "Bearer abc.def"}', `headers={"Authorization": "Bearer ${REDACTED}"}`],
    ['curl -H "Bearer eyJhbGciOi.payload"', `curl -H "Bearer ${REDACTED}"`],
    [`token hf_${'X'.repeat(32)} used`, `token ${REDACTED} used`],
    [`key is sk-proj-${'a'.repeat(24)}.`, `key is ${REDACTED}.`],
    ['HF_TOKEN=hf_short ./run.sh', `HF_TOKEN=${REDACTED} ./run.sh`],
    [
      "admin_api_key='adm', ssl_keyfile_password=\"p'w\"",
      `admin_api_key='${REDACTED}', ssl_keyfile_password="${REDACTED}"`,
    ],
    ['    api_key: Some("abc"),', `    api_key: Some("${REDACTED}"),`],
    ['https://user:pa55@example.com/x', `https://user:${REDACTED}@example.com/x`],
    [`push ghp_${'A'.repeat(36)}`, `push ${REDACTED}`],
    [`clone with github_pat_${'b'.repeat(40)} now`, `clone with ${REDACTED} now`],
    [`aws AKIA${'Q'.repeat(16)} key`, `aws ${REDACTED} key`],
    ["api_key='unterminated", `api_key='${REDACTED}`],
  ];
  for (const [input, want] of cases) {
    it(`redacts ${input.slice(0, 40)}`, () => assert.equal(redactText(input), want));
  }
  const untouched = [
    'api_key=None, admin_api_key=None',
    "api_key='', hf_token=False",
    "{'api_key': None}",
    '--api-key --port 8000',
    "server_args=ServerArgs(model_path='m', max_total_tokens=None, chunked_prefill_size=8192, ssl_keyfile='/k.pem')",
    'Engine 000: Avg prompt throughput: 0.0 tokens/s, Running: 0 reqs, GPU KV cache usage: 0.0%',
    '{"bos_token": "<s>", "max_tokens": 100, "token_usage": 0.5}',
    '[2026-02-19 04:10:03 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=70.1 GB',
    'task-1234567890abcdefghijk is not a key',
    `api_key='${REDACTED}'`,
  ];
  for (const line of untouched) {
    it(`leaves ${line.slice(0, 40)}`, () => assert.equal(redactText(line), line));
  }
  it('is idempotent', () => {
    const once = redactText("api_key='sk-abc', Authorization: Bearer abcdefgh12");
    assert.equal(redactText(once), once);
  });
  it('stays fast on pathological 20 KB lines', () => {
    for (const unit of ['a-', '--a', 'api_key=', "api_key='", 'hf_', 'x:', '[']) {
      const line = unit.repeat(Math.ceil(20_000 / unit.length));
      assert.equal(typeof redactText(line), 'string');
    }
  });
});

describe('redactText: the shapes hardening round 3 found missed (issue 25, item 5)', () => {
  const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s'.repeat(30)}`;
  const cases: [string, string][] = [
    [`token=${jwt}`, `token=${REDACTED}`],
    [`sent ${jwt} to the proxy`, `sent ${REDACTED} to the proxy`],
    ['redis://:hunter2@cache:6379/0', `redis://:${REDACTED}@cache:6379/0`],
    ['postgres://app:pa/ss@db/x', `postgres://app:${REDACTED}@db/x`],
    ['--api-key k1secret,k2secret --port 8080', `--api-key ${REDACTED} --port 8080`],
    [`NIM key nvapi-${'Ab3'.repeat(10)}`, `NIM key ${REDACTED}`],
    [`GROQ gsk_${'Q1w'.repeat(10)}`, `GROQ ${REDACTED}`],
    ['DEEPSEEK_KEY=ds-abc123 python serve.py', `DEEPSEEK_KEY=${REDACTED} python serve.py`],
    ['Cookie: session=abc123; theme=dark', `Cookie: ${REDACTED}`],
    ['Set-Cookie: sid=xyz789; HttpOnly', `Set-Cookie: ${REDACTED}`],
    ['password hunter2 was used', `password ${REDACTED} was used`],
    ['api-key Zq8SECRETkey then', `api-key ${REDACTED} then`],
  ];
  for (const [input, want] of cases)
    it(`redacts ${input.slice(0, 40)}`, () => assert.equal(redactText(input), want));
  for (const line of [
    'password authentication failed for user "postgres"',
    'token usage: 0.25, #token: 268459',
    'SORT_KEY is not set',
    'the secret of good batching is chunked prefill',
  ])
    it(`leaves ${line.slice(0, 40)}`, () =>
      assert.equal(redactText(line), line.replace('SORT_KEY is', 'SORT_KEY is')));
});
