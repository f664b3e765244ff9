/**
 * Whether a worker node (not the head) has finished its own startup. Workers never print their engine's ready
 * line, which belongs to the head's HTTP server; each engine has a line that ends a worker's startup instead:
 *
 * - SGLang, `--node-rank >= 1`: `Dummy health check server started …` (srt/utils/common.py
 *   launch_dummy_health_check_server), read as the launch's ready line (signature `worker_ready`).
 * - vLLM, `--headless`: the engine core's `init engine (profile, create kv cache, warmup model) took …`
 *   (v1/engine/core.py EngineCore._initialize_kv_caches; signature `engine_ready`): after it a headless node runs
 *   its engine cores with no API server and logs nothing more until requests come through the head.
 *
 * A worker done is no worker stalled: its silence afterwards is the head's business.
 */
import type { LaunchReport } from '../base/report-types.js';
import type { EngineId } from '../base/types.js';

export function workerDone(l: LaunchReport, engine: EngineId | null): boolean {
  if (l.outcome === 'ready' || l.outcome === 'serving') return true;
  if (l.outcome !== 'in_progress') return false;
  if ((l.engine ?? engine) === 'vllm') return l.phases.some((p) => p.rule === 'engine_ready');
  return false;
}
