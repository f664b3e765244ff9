/**
 * The dashboard's watched targets: the fleet's per-target reading lives in the use-case layer
 * (src/app/watched-target.ts), shared with `firedup ps`.
 */
export { type TargetSpec, WatchedTarget, type WatchOptions } from '../app/watched-target.js';
