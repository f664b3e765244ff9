/**
 * The targets a fleet command watches (`serve`, `ps`): firedup.toml's [[target]] tables and `--watch` logs,
 * each with a unique name, each log checked before anything starts.
 */
import path from 'node:path';
import type { ServeConfig } from '../app/fleet-config.js';
import { checkNodeTargets } from '../app/multinode.js';
import { isContainer, isRemote } from '../app/read-log.js';
import type { TargetSpec } from '../app/watched-target.js';
import { parseTarget } from '../sources/target.js';
import { UsageError } from './errors.js';
import { checkFollowable } from './watch.js';

function nameOf(log: string): string {
  try {
    const t = parseTarget(log);
    if (t.kind === 'docker') return t.name;
    return t.kind === 'ssh' ? `${t.host}:${path.basename(t.path)}` : path.basename(t.path);
  } catch {
    return log;
  }
}

/** --watch logs and the config file's targets, each with a unique name. */
export function targetSpecs(
  watch: string[],
  cfg: ServeConfig | null,
  engine: TargetSpec['engine'],
): TargetSpec[] {
  const specs: TargetSpec[] = [];
  const used = new Set<string>();
  const unique = (want: string): string => {
    let name = want;
    for (let i = 2; used.has(name); i++) name = `${want}-${i}`;
    used.add(name);
    return name;
  };
  // Names given in the file are kept as written; generated ones step around them.
  for (const t of cfg?.targets ?? []) if (t.name) used.add(t.name);
  for (const t of cfg?.targets ?? []) {
    specs.push({ ...t, name: t.name ?? unique(nameOf(t.log)), engine: t.engine ?? engine });
  }
  // A multi-node target is one target: its nodes are watched each on its own host and joined (watched-nodes.ts).
  for (const t of cfg?.nodeTargets ?? []) {
    checkNodeTargets(t.nodes, 'serve');
    const name = t.name ?? unique(nameOf(t.nodes[0]!));
    specs.push({ name, log: t.nodes[0]!, nodes: t.nodes, engine: t.engine ?? engine });
  }
  for (const log of watch) {
    if (log === '-')
      throw new UsageError('serve: --watch needs a log file or an ssh target, not standard input');
    specs.push({ name: unique(nameOf(log)), log, engine });
  }
  const logs = specs.flatMap((s) => s.nodes ?? [s.log]);
  // A local FIFO or device would freeze the dashboard (a blocking open): refused here, as watch does.
  for (const log of logs) if (parseTarget(log).kind === 'local') checkFollowable(log);
  const names = new Set<string>();
  for (const s of specs) {
    if (names.has(s.name))
      throw new UsageError(`serve: two targets are named ${s.name}: give each its own name`);
    names.add(s.name);
  }
  for (const log of logs) {
    if (isRemote(log) || isContainer(log)) {
      try {
        parseTarget(log);
      } catch (e) {
        throw new UsageError(`serve: ${(e as Error).message}`);
      }
    } else checkFollowable(log);
  }
  return specs;
}
