/**
 * A small argv parser: `--flag`, `--key value`, `--key=value`, repeatable keys, `--` ends options, and a
 * lone `-` is a positional (stdin). Unknown flags are errors that name the flag.
 */
import { UsageError } from './errors.js';

export interface FlagSpec {
  /** `boolean` flags take no value; `string` flags take one; `multi` may repeat. */
  type: 'boolean' | 'string';
  multi?: boolean;
  alias?: string;
}

export interface Parsed {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  rest: string[];
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>, command: string): Parsed {
  const flags: Parsed['flags'] = {};
  const positionals: string[] = [];
  const aliases = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.alias) aliases.set(s.alias, name);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return { flags, positionals, rest: argv.slice(i + 1) };
    if (a === '-' || !a.startsWith('-')) {
      positionals.push(a);
      continue;
    }
    let name: string;
    let value: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      value = eq > 0 ? a.slice(eq + 1) : undefined;
    } else {
      name = aliases.get(a.slice(1)) ?? '';
      if (!name) throw new UsageError(`${command}: unknown option ${a} (see firedup ${command} --help)`);
    }
    const s = spec[name];
    if (!s) throw new UsageError(`${command}: unknown option --${name} (see firedup ${command} --help)`);
    if (s.type === 'boolean') {
      if (value !== undefined) throw new UsageError(`${command}: --${name} takes no value`);
      flags[name] = true;
      continue;
    }
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new UsageError(`${command}: --${name} needs a value`);
    }
    if (s.multi) {
      const prev = flags[name];
      flags[name] = [...(Array.isArray(prev) ? prev : []), value];
    } else flags[name] = value;
  }
  return { flags, positionals, rest: [] };
}
