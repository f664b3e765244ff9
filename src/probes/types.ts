/** What the probes answer, as one interface: a live session runs these (local ones, or a remote host's over SSH). */
import type { GpuObservation, HttpObservation, ProcessObservation } from '../core/observations.js';
import type { EngineId } from '../core/types.js';

/** The probes a session runs; the defaults read this machine. */
export interface LiveProbes {
  process(pid: number): Promise<ProcessObservation>;
  findPid(opts: { port?: number; engine: EngineId | null }): Promise<number | null>;
  http(url: string, engine: EngineId | null): Promise<HttpObservation>;
  gpu(): Promise<GpuObservation>;
}
