/** Hugging Face text-generation-inference (`text-generation-launcher`): research/vllm-and-peers.md §3. */

import { parseTgiArgs } from '../config/engine-config.js';
import { clapSignatures } from './cli-errors.js';
import { tgiEvidence } from './evidence.js';
import type { EngineModule, Signature } from './types.js';

const signatures: Signature[] = [
  {
    id: 'args',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Args {',
    re: /(?:text_generation_launcher: )?Args \{/,
    config: parseTgiArgs,
  },
  {
    id: 'config',
    kind: 'phase',
    phase: 'args',
    lit: 'e',
    re: /Using attention \S+ - Prefix caching|Default `max_batch_prefill_tokens` to|Using default cuda graphs|Sharding model on \d+ processes|Model supports up to \d+|Using prefill chunking/,
  },
  {
    id: 'download',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'ownload',
    re: /Starting check and download process|Files are already present on the host|Download file:|Download: \[\d+\/\d+\]|Successfully downloaded weights/,
  },
  {
    id: 'shard_start',
    kind: 'phase',
    phase: 'loading_weights',

    re: /Starting shard rank=\d+|Waiting for shard to be ready|Server started at unix:\/\/|Shard ready in/,
  },
  {
    id: 'webserver',
    kind: 'phase',
    phase: 'warmup',
    lit: 'e',
    re: /Starting Webserver|Warming up model|KV-cache blocks: \d+|Cuda Graphs are (?:enabled|disabled)|Setting max batch total tokens to|Using backend V3/,
  },
  {
    // The router's `warmup` function is traced as a span (backends/*/src/client: `#[instrument] warmup`):
    // its lines, errors included, are printed inside `warmup{max_input_length=…}:warmup:`.
    id: 'warmup_span',
    kind: 'phase',
    phase: 'warmup',
    lit: 'warmup{',
    re: /^warmup\{[^}]*\}:warmup/,
  },
  { id: 'ready', kind: 'ready', phase: 'ready', lit: 'Connected', re: /(?:^|: )Connected$/ },
  {
    id: 'request_debug',
    kind: 'serving',
    phase: 'serving',
    lit: '{',
    re: /^(?:generate|generate_stream|chat_completions|completions|vertex_compatibility)\{/,
  },
  {
    id: 'request',
    kind: 'serving',
    phase: 'serving',
    lit: 'Success',
    re: /(?:generate|generate_stream|chat_completions|completions)\{.*\}.*: Success$/,
  },
  {
    id: 'warmup_oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'Not enough memory',
    re: /Not enough memory to handle/,
  },
  { id: 'bind', kind: 'failure', failure: 'port_in_use', lit: 'Failed to bind', re: /Failed to bind to \S+/ },
  {
    id: 'shard_failed',
    kind: 'consequence',

    re: /Shard \d+ (?:failed to start|crashed)|Shard complete standard error output|Shard process was signaled to shutdown with signal \d+|^Error: (?:ShardCannotStart|ShardFailed|ShardDisconnected|WebserverFailed|WebserverCannotStart|DownloadError)|Method Warmup encountered an error|Webserver Crashed/,
  },
  {
    id: 'arg_error',
    kind: 'failure',
    failure: 'config_error',
    lit: 'error:',
    re: /^error: (?:invalid value '[^']*' for '--|unexpected argument|the following required arguments|a value is required for)/,
  },
  {
    id: 'shutdown',
    kind: 'shutdown',

    re: /signal received, starting graceful shutdown|Terminating webserver|webserver terminated|Shutting down shards|shard terminated/,
  },
  ...clapSignatures('text-generation-(?:launcher|router)'),
];

export const tgi: EngineModule = {
  id: 'tgi',
  detect: tgiEvidence,
  signatures,
  hints: {
    oom: 'lower --max-batch-prefill-tokens / --max-total-tokens, or quantize, or use more shards',
    config_error: 'fix the launcher argument named in the error (`text-generation-launcher --help`)',
    nccl: 'check NCCL between shards (NCCL_DEBUG=INFO, shared memory size of the container: --shm-size)',
  },
  silentBudget: { args: 120, loading_weights: 600, warmup: 600 },
};
