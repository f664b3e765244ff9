import type { EngineId } from '../base/types.js';
import { llamacpp } from './llamacpp.js';
import { sglang } from './sglang.js';
import { tgi } from './tgi.js';
import { trtllm } from './trtllm.js';
import type { EngineModule } from './types.js';
import { vllm } from './vllm.js';

/** Order matters only for ties in detection. */
export const ENGINE_MODULES: readonly EngineModule[] = [sglang, vllm, trtllm, tgi, llamacpp];

export function engineModule(id: EngineId): EngineModule {
  return ENGINE_MODULES.find((e) => e.id === id)!;
}
