import type { Phase } from '../../base/types.js';

/** A traceback frame's phase per the engine's source; `shutdown` frames run after the launch is over. */
export type FramePhase = Phase | 'shutdown';

/**
 * [file suffix or basename, bare function name, phase, callers?]: `*` globs in both; a null phase is a relay
 * frame. `callers` is for a helper that more than one startup step calls (vLLM's `_dummy_sampler_run` warms
 * the sampler after graph capture and also runs inside `profile_run` while the KV cache is sized): bare
 * function names of its callers, each with the phase the helper runs in when called from there. The nearest
 * outer frame of the same traceback whose function is listed decides; with none listed, `phase` holds.
 */
export type FrameRule = readonly [
  file: string,
  fn: string,
  phase: FramePhase | null,
  callers?: Readonly<Record<string, FramePhase>>,
];
