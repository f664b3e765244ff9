/** The shape of the generated engine catalogs (src/core/engines/catalog/*.ts, from the engines' sources). */
import type { FailureClass } from '../base/types.js';

/** A catalog phase: the launch phases, plus `shutdown`, which the catalog also names. */
export type CatalogPhase =
  | 'args'
  | 'dist_init'
  | 'loading_weights'
  | 'weights_loaded'
  | 'kv_cache'
  | 'compile'
  | 'cuda_graph'
  | 'warmup'
  | 'ready'
  | 'serving'
  | 'shutdown';

/** `any`: the line can come in any phase, so it does not place the launch; `startup`: only before ready. */
export type CatalogScope = '' | 'any' | 'startup';

/** [regex source, index key, literal weight, phase, phase_scope, level, crash (0/1), "file:function"] */
export type CatalogLog = [string, string, number, CatalogPhase, CatalogScope, string, number, string];

/** [regex source, index key, literal weight, exception (last dotted part), failure_class, key (1: checked by hand)] */
export type CatalogRaise = [string, string, number, string, FailureClass, number];

export interface CatalogData {
  logs: CatalogLog[];
  raises: CatalogRaise[];
}
