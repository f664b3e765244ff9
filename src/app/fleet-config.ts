/**
 * firedup.toml: what `firedup serve` listens on and which logs it (and `firedup ps`) watches.
 *
 *   port = 7070
 *   host = "127.0.0.1"
 *   ledger = "/var/lib/firedup/ledger.db"
 *   ssh_config = "~/.ssh/config"
 *   ssh_options = ["ProxyJump=bastion"]
 *
 *   [[target]]
 *   name = "glm5-a"
 *   log = "root@gpu-a:/root/sglang.log"
 *   url = "http://127.0.0.1:30000"
 *   pid = 4242
 *
 *   [[target]]                      # one launch over several nodes (status/watch/wait --config F --target NAME)
 *   name = "dsv3-2node"
 *   nodes = ["root@gpu-a:/root/sglang.log", "root@gpu-b:/root/sglang.log"]
 *
 * Read with the small TOML reader of src/core/config/toml.ts (`[[target]]` tables only); anything else is an
 * error that names the file and the line.
 */

import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, type EngineId } from '../core/base/types.js';
import { type Entry, parseToml } from '../core/config/toml.js';
import { UsageError } from '../errors.js';
import { isUrl } from '../store/ledger-url.js';
import { homeDir } from '../store/paths.js';
import { readConfigFile } from './config-file.js';
import type { TargetSpec } from './watched-target.js';

export interface ServeConfig {
  host?: string;
  port?: number;
  token?: string;
  ledger?: string;
  sshConfig?: string;
  sshOptions?: string[];
  targets: Array<Partial<TargetSpec> & { log: string; line: number }>;
  /** Targets that are one launch over several nodes (`nodes = [...]`): every node's log, head or not. */
  nodeTargets: Array<{ name?: string; nodes: string[]; engine?: EngineId; line: number }>;
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homeDir(), p.slice(1)) : p;
}

/** Reads and checks firedup.toml; relative paths (logs, ledger) are relative to the file's directory. */
export function loadServeConfig(file: string): ServeConfig {
  const text = readConfigFile(file, `--config ${file}`);
  const doc = parseToml(text, file, { arrays: ['target'] });
  const top = doc.top;
  const targets = doc.arrays.get('target') ?? [];
  const dir = path.dirname(path.resolve(file));
  const at = (line: number, why: string): never => {
    throw new UsageError(`${file}:${line}: ${why}`);
  };
  const str = (e: Entry, key: string): string =>
    typeof e.value === 'string' ? e.value : at(e.line, `${key} must be a string in "quotes"`);
  const localPath = (p: string) => path.resolve(dir, expandHome(p));
  const cfg: ServeConfig = { targets: [], nodeTargets: [] };
  for (const [key, e] of top) {
    switch (key) {
      case 'host':
        cfg.host = str(e, key);
        break;
      case 'port':
        if (typeof e.value !== 'number' || !Number.isInteger(e.value) || e.value < 0 || e.value > 65535)
          at(e.line, 'port must be a number from 0 to 65535');
        cfg.port = e.value as number;
        break;
      case 'token':
        cfg.token = str(e, key);
        break;
      case 'ledger':
        // A URL (`postgres://…`, a shared ledger) is kept as written; a path is relative to this file.
        cfg.ledger = isUrl(str(e, key)) ? str(e, key) : localPath(str(e, key));
        break;
      case 'ssh_config':
        cfg.sshConfig = localPath(str(e, key));
        break;
      case 'ssh_options':
        if (!Array.isArray(e.value) || e.value.some((v) => typeof v !== 'string'))
          at(e.line, 'ssh_options must be an array of strings: ["K=V", ...]');
        cfg.sshOptions = e.value as string[];
        break;
      default:
        at(
          e.line,
          `unknown setting ${key} (known: host, port, token, ledger, ssh_config, ssh_options, [[target]])`,
        );
    }
  }
  // Remote targets stay as written; a local path is relative to this file.
  const place = (log: string) =>
    /^ssh:\/\/|^[^/]*:/.test(log) && !fs.existsSync(localPath(log)) ? log : localPath(log);
  for (const t of targets) {
    const spec: Partial<TargetSpec> & { line: number } = { line: t.line };
    let nodes: string[] | null = null;
    for (const [key, e] of t.keys) {
      switch (key) {
        case 'name':
          spec.name = str(e, key);
          if (spec.name.trim() === '') at(e.line, 'name is empty');
          break;
        case 'log': {
          const log = str(e, key);
          if (log === '' || log === '-')
            at(e.line, 'log must name a file or an ssh target (user@host:/path)');
          spec.log = place(log);
          break;
        }
        case 'nodes':
          if (
            !Array.isArray(e.value) ||
            e.value.length < 2 ||
            e.value.some((v) => typeof v !== 'string' || v === '' || v === '-')
          )
            at(
              e.line,
              'nodes must list every node\'s log, two or more: ["user@gpu-a:/path", "user@gpu-b:/path"]',
            );
          nodes = (e.value as string[]).map(place);
          break;
        case 'url': {
          const url = str(e, key);
          if (!/^https?:\/\/[^\s/]+/.test(url)) at(e.line, `url ${url}: not an http:// or https:// URL`);
          spec.url = url;
          break;
        }
        case 'pid':
          if (typeof e.value !== 'number' || !Number.isInteger(e.value) || e.value <= 0)
            at(e.line, 'pid must be a positive whole number');
          spec.pid = e.value as number;
          break;
        case 'engine':
          if (typeof e.value !== 'string' || !(ENGINES as readonly string[]).includes(e.value))
            at(e.line, `engine must be one of ${ENGINES.join(', ')}`);
          spec.engine = e.value as EngineId;
          break;
        default:
          at(e.line, `unknown target setting ${key} (known: name, log, nodes, url, pid, engine)`);
      }
    }
    if (nodes) {
      if (spec.log !== undefined)
        at(
          t.line,
          '[[target]] takes log = "…" for one server or nodes = [...] for one launch over several nodes, not both',
        );
      if (spec.url !== undefined || spec.pid !== undefined)
        at(t.line, "url and pid name one server; a nodes target finds each node's from its log");
      cfg.nodeTargets.push({ name: spec.name, nodes, engine: spec.engine, line: t.line });
      continue;
    }
    if (spec.log === undefined)
      at(t.line, '[[target]] needs log = "path or user@host:/path" (or nodes = [...])');
    cfg.targets.push(spec as ServeConfig['targets'][number]);
  }
  return cfg;
}
