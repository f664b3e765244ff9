/**
 * The failure class a traceback cut before its exception line still shows (issue 22): the innermost frame of
 * the engine's own code, or the step its code line calls, when every raise the source has there is of one kind.
 * The class the cut traceback otherwise gets is `python_exception` (no type, no message); these rows name
 * what the engine's source raises at that step.
 */
import type { FailureClass } from '../../base/types.js';
import type { FrameEngine } from './index.js';

/** [file suffix (basename or `dir/file.py`), bare function name or `*`, class]. */
export type CutClassRule = readonly [file: string, fn: string, cls: FailureClass];

const SGLANG: readonly CutClassRule[] = [
  // server_args.py (prepare_server_args → ServerArgs.__post_init__ → check_server_args, _handle_*): argument
  // parsing and validation; of its raises in the engine-source catalog two thirds are config_error (a bad flag
  // or flag combination), the rest unsupported combinations named by a flag too
  ['server_args.py', '*', 'config_error'],
  ['arg_groups/overrides.py', '*', 'config_error'],
  // v0.1.x managers/router/model_runner.py get_model_cls_by_arch_name: `raise ValueError(f"Unsupported
  // architectures: {arch}. Supported list: …")` when the config's architecture has no model class; its heir
  // model_loader/utils.py get_model_architecture → models/registry.py ModelRegistry.resolve_model_cls raises
  // `Model architectures {architectures} are not supported for now.`
  ['model_runner.py', 'get_model_cls_by_arch_name', 'unsupported'],
  ['model_loader/utils.py', 'get_model_architecture', 'unsupported'],
  ['registry.py', 'resolve_model_cls', 'unsupported'],
  ['registry.py', '_raise_for_unsupported', 'unsupported'],
];

const TGI: readonly CutClassRule[] = [
  // server/text_generation_server/utils/weights.py Weights.get_sharded: its one raise is `assert size % world_size
  // == 0, f"The choosen size {size} is not compatible with sharding on {world_size} shards"`: the model's tensor
  // does not split over --num-shard shards (a shard count the model does not take, as `num_heads must be divisible
  // by num_shards` is; the engine-source catalog calls it unsupported, the model side of the same mismatch)
  ['utils/weights.py', 'get_sharded', 'config_error'],
];

const VLLM: readonly CutClassRule[] = [
  // v1/core/kv_cache_utils.py check_enough_kv_cache_memory (2025) and _check_enough_kv_cache_memory (newest): its
  // raises are `No available memory for the cache blocks…` and `To serve at least one request with the model's
  // max seq len (…), (… GiB KV cache is needed, which is larger than the available KV cache memory…`, both oom in
  // the engine-source catalog (the house class of a KV cache too small: no_cache_memory, max_len_kv in vllm.ts)
  ['kv_cache_utils.py', 'check_enough_kv_cache_memory', 'oom'],
  ['kv_cache_utils.py', '_check_enough_kv_cache_memory', 'oom'],
];

const RULES: Partial<Record<FrameEngine, readonly CutClassRule[]>> = { sglang: SGLANG, tgi: TGI, vllm: VLLM };

const suffix = (path: string, file: string): boolean => {
  const p = path.replace(/\\/g, '/');
  return p === file || p.endsWith(`/${file}`);
};

/** The class the frame `File "<path>", line N, in <fn>` of `engine`'s code shows when the traceback is cut there. */
export function cutFrameClass(engine: FrameEngine, path: string, fn: string): FailureClass | null {
  for (const [file, f, cls] of RULES[engine] ?? [])
    if ((f === '*' || f === fn) && suffix(path, file)) return cls;
  return null;
}

/**
 * The class of a call on the innermost frame's code line (`model_class = get_model_cls_by_arch_name(archs)`)
 * when the file cuts the callee's own frame off: only a row naming that function (not a whole module) tells.
 */
export function cutCallClass(engine: FrameEngine, fn: string): FailureClass | null {
  for (const [, f, cls] of RULES[engine] ?? []) if (f === fn) return cls;
  return null;
}
