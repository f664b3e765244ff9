import type { Phase } from '../../types.js';

/** A traceback frame's phase per the engine's source; `shutdown` frames run after the launch is over. */
export type FramePhase = Phase | 'shutdown';

/** [file suffix or basename, bare function name, phase]: `*` globs in both; a null phase is a relay frame. */
export type FrameRule = readonly [file: string, fn: string, phase: FramePhase | null];
