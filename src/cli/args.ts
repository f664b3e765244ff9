/**
 * A small argv parser: `--flag`, `--key value`, `--key=value`, repeatable keys, `--` ends options, and a
 * lone `-` is a positional (stdin). Unknown flags are errors that name the flag and the closest real one.
 */
import { UsageError } from './errors.js';
import { didYouMean } from './suggest.js';

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

/**
 * Short forms every command gets for the long flag it has: `-j` wherever there is `--json`, `-q` for
 * `--quiet`, `-n` for `--limit`, `-h` for `--help`. Kept here rather than in each spec so that a command
 * gaining `--quiet` gets `-q` with it.
 */
export const CUSTOMARY: Record<string, string> = { h: 'help', j: 'json', q: 'quiet', n: 'limit' };

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>, command: string): Parsed {
  const flags: Parsed['flags'] = {};
  const positionals: string[] = [];
  const full: Record<string, FlagSpec> = { help: { type: 'boolean' }, ...spec };
  const aliases = new Map<string, string>();
  for (const [short, long] of Object.entries(CUSTOMARY)) if (full[long]) aliases.set(short, long);
  for (const [name, s] of Object.entries(full)) if (s.alias) aliases.set(s.alias, name);
  const unknown = (typed: string): UsageError => {
    const known = Object.keys(full).map((n) => `--${n}`);
    const hint = didYouMean(typed.startsWith('--') ? typed : `-${typed}`, known);
    return new UsageError(`${command}: unknown option ${typed}${hint} (see firedup ${command} --help)`);
  };
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
      if (!name) throw unknown(a);
    }
    const s = full[name];
    if (!s) throw unknown(`--${name}`);
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

/**
 * An enum value, checked: `--outcome crash` is refused with the values it takes and the one meant.
 * `flag` is the flag as typed (`--outcome`; empty for a positional); `what` names a value ("an outcome").
 */
export function choice<T extends string>(
  command: string,
  flag: string,
  value: string,
  choices: readonly T[],
  what = 'a value',
): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `${command ? `${command}: ` : ''}${flag ? `${flag} ` : ''}${value}: not ${what}${didYouMean(value, choices)} (one of ${choices.join(', ')})`,
  );
}
