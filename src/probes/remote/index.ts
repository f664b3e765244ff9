/** The probes of a live session whose log is on another machine: all of them run there, over one SSH session. */

import type { LiveProbes, RemoteHost } from '../types.js';
import { RemoteHttp } from './forward.js';
import { probeRemoteGpu } from './remote-gpu.js';
import { findRemoteServerPid, probeRemoteProcess } from './remote-process.js';

export function remoteProbes(session: RemoteHost): LiveProbes {
  const http = new RemoteHttp(session);
  return {
    process: (pid) => probeRemoteProcess(session, pid),
    findPid: (opts) => findRemoteServerPid(session, opts),
    http: (url, engine) => http.probe(url, engine),
    gpu: () => probeRemoteGpu(session),
  };
}
