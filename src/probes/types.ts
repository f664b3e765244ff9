/** What the probes answer, as one interface: a live session runs these (local ones, or a remote host's over SSH). */

import type { EngineId } from '../core/base/types.js';
import type { ContainerObservation } from '../core/verdict/container.js';
import type { GpuObservation, HttpObservation, ProcessObservation } from '../core/verdict/observations.js';
import type { ServerClaim, ServerMatch } from './server-identity.js';

/** The probes a session runs; the defaults read this machine. */
export interface LiveProbes {
  process(pid: number): Promise<ProcessObservation>;
  /** The launch's server, by evidence only (server-identity.ts): its pid and how it was tied, or why none. */
  findPid(claim: ServerClaim): Promise<ServerMatch>;
  http(url: string, engine: EngineId | null): Promise<HttpObservation>;
  gpu(): Promise<GpuObservation>;
  /** The container the server runs in (`docker://`), probed beside the process; absent for a plain log. */
  container?(): Promise<ContainerObservation>;
}

/**
 * What the remote probes need of an SSH connection (`sources/ssh/session.ts`'s SshSession is one): run a command
 * on the host in one of its lanes, say why a command failed, forward a local port to the host's.
 */
export interface RemoteHost {
  readonly label: string;
  run(
    remote: readonly string[],
    timeoutMs?: number,
    lane?: 'log' | 'probe' | 'gpu',
  ): Promise<{ code: number | null; stdout: Buffer; stderr: string }>;
  classify(res: { code: number | null; stderr: string }, file: string): Error | null;
  forward(spec: string): Promise<boolean>;
}
