/**
 * Sorts engine config keys (SGLang's ServerArgs, vLLM's args, TRT-LLM's, TGI's) into the groups an engineer
 * thinks in when comparing two launches: how the model is split, how memory is sized, how requests are
 * scheduled, which kernels run, what model and quantization, speculative decoding, and the rest.
 */
export const CONFIG_GROUPS = [
  'model',
  'parallelism',
  'memory',
  'scheduling',
  'kernels',
  'speculative',
  'other',
] as const;
export type ConfigGroup = (typeof CONFIG_GROUPS)[number];

export const GROUP_TITLES: Record<ConfigGroup, string> = {
  model: 'model / quantization',
  parallelism: 'parallelism',
  memory: 'memory',
  scheduling: 'scheduling',
  kernels: 'kernels / backends',
  speculative: 'speculative decoding',
  other: 'other',
};

const EXACT: Record<string, ConfigGroup> = {};
const put = (group: ConfigGroup, keys: string[]) => {
  for (const k of keys) EXACT[k] = group;
};

put('parallelism', [
  'tp_size',
  'pp_size',
  'dp_size',
  'ep_size',
  'nnodes',
  'node_rank',
  'dist_init_addr',
  'tensor_parallel_size',
  'pipeline_parallel_size',
  'data_parallel_size',
  'data_parallel_size_local',
  'data_parallel_address',
  'expert_parallel_size',
  'enable_expert_parallel',
  'enable_dp_attention',
  'enable_dp_lm_head',
  'moe_dense_tp_size',
  'moe_a2a_backend',
  'deepep_mode',
  'enable_eplb',
  'ep_num_redundant_experts',
  'num_shard',
  'sharded',
  'disable_custom_all_reduce',
  'distributed_executor_backend',
  'moe_tensor_parallel_size',
  'moe_expert_parallel_size',
]);
put('memory', [
  'mem_fraction_static',
  'gpu_memory_utilization',
  'kv_cache_dtype',
  'max_total_tokens',
  'page_size',
  'block_size',
  'swap_space',
  'cpu_offload_gb',
  'context_length',
  'max_model_len',
  'max_seq_len',
  'max_input_tokens',
  'max_batch_total_tokens',
  'kv_cache_memory_bytes',
  'kv_cache_free_gpu_memory_fraction',
  'enable_prefix_caching',
  'disable_radix_cache',
  'enable_hierarchical_cache',
  'num_gpu_blocks_override',
  'cuda_graph_memory',
]);
put('scheduling', [
  'max_running_requests',
  'max_queued_requests',
  'max_num_seqs',
  'max_batch_size',
  'max_num_tokens',
  'chunked_prefill_size',
  'enable_chunked_prefill',
  'max_prefill_tokens',
  'max_num_batched_tokens',
  'max_batch_prefill_tokens',
  'schedule_policy',
  'scheduling_policy',
  'schedule_conservativeness',
  'num_continuous_decode_steps',
  'stream_interval',
  'max_concurrent_requests',
  'waiting_served_ratio',
  'async_scheduling',
]);
put('kernels', [
  'disable_cuda_graph',
  'enforce_eager',
  'enable_torch_compile',
  'compilation_config',
  'disable_flashinfer_autotune',
  'enable_fp32_lm_head',
  'disable_overlap_schedule',
  'triton_attention_num_kv_splits',
  'use_cuda_graph',
]);
put('model', [
  'model_path',
  'model',
  'model_id',
  'model_tag',
  'served_model_name',
  'tokenizer_path',
  'tokenizer',
  'tokenizer_mode',
  'revision',
  'dtype',
  'quantization',
  'quantize',
  'quantization_param_path',
  'load_format',
  'trust_remote_code',
  'model_impl',
  'json_model_override_args',
  'hf_overrides',
  'lora_paths',
  'enable_lora',
  'is_embedding',
]);

const PATTERNS: Array<[RegExp, ConfigGroup]> = [
  [/^speculative|^num_speculative|^spec_|draft/, 'speculative'],
  [/_backend$|^cuda_graph|cudagraph|torch_compile|autotune|^enable_.*kernel|^attention_/, 'kernels'],
  [/^(tp|pp|dp|ep)_|_parallel_|^enable_dp_|^moe_(dense|a2a)/, 'parallelism'],
  [/^quantiz|^model_|^tokenizer_/, 'model'],
  [/^mem_|memory|^kv_cache|^hicache|^max_total_tokens|offload/, 'memory'],
  [/^max_(running|queued|prefill)|chunked_prefill|^schedul|^max_num_/, 'scheduling'],
];

export function configGroup(key: string): ConfigGroup {
  const exact = EXACT[key];
  if (exact) return exact;
  for (const [re, g] of PATTERNS) if (re.test(key)) return g;
  return 'other';
}

/** Items grouped by their key's group, in CONFIG_GROUPS order; empty groups are left out. */
export function groupByConfig<T extends { key: string }>(
  items: T[],
): Array<{ group: ConfigGroup; items: T[] }> {
  const by = new Map<ConfigGroup, T[]>();
  for (const it of items) {
    const g = configGroup(it.key);
    by.set(g, [...(by.get(g) ?? []), it]);
  }
  return CONFIG_GROUPS.filter((g) => by.has(g)).map((group) => ({ group, items: by.get(group)! }));
}
