/**
 * `firedup completion bash|zsh`: a completion script made from the command docs and from the flag tables the
 * commands' parsers use, so it offers every flag a command accepts (the help's and the parser's cannot drift
 * apart unnoticed: test/cli/completion.test.ts holds them together), and the enum values the commands check.
 * zsh runs the bash function through bashcompinit, which every zsh ships: one script to keep right instead of two.
 */

import { CUSTOMARY, choice, type FlagSpec } from './args.js';
import { COMMAND_NAMES, COMMANDS, commandDoc, FLAG_VALUES, flagsOf } from './commands.js';
import { UsageError } from './errors.js';

const SHELLS = ['bash', 'zsh'] as const;

type Table = Record<string, FlagSpec>;

/**
 * The flag tables each command's parser reads (`bench run` and `bench import` apart: their flags differ).
 * Loaded here only: completion is printed once per shell setup, the commands stay light.
 */
export async function parserTables(): Promise<Record<string, Table[]>> {
  const [status, ledger, benchImport, benchRun, watch, launch, sweep, serve, ps, mcp, replay, demo, push] =
    await Promise.all([
      import('./status.js'),
      import('./ledger-commands.js'),
      import('./bench-import.js'),
      import('./bench-run-flags.js'),
      import('./watch.js'),
      import('./launch.js'),
      import('./sweep.js'),
      import('./serve.js'),
      import('./ps.js'),
      import('./mcp.js'),
      import('./replay.js'),
      import('./demo.js'),
      import('./ledger-push.js'),
    ]);
  // `--lines [N]` is taken before parsing (its value is optional): status and show accept it.
  const lines: Table = { lines: { type: 'string' } };
  const watchOnly = Object.fromEntries(
    Object.entries(watch.FLAGS).filter(([k]) => !WAIT_ONLY.includes(k)),
  ) as Table;
  return {
    status: [status.STATUS_FLAGS, lines],
    runs: [status.COMMON, ledger.RUNS_FLAGS],
    show: [ledger.LEDGER_FLAGS, lines],
    forget: [ledger.FORGET_FLAGS],
    note: [ledger.LEDGER_FLAGS],
    tag: [ledger.TAG_FLAGS],
    ledger: [push.FLAGS],
    diff: [ledger.DIFF_FLAGS],
    'bench run': [benchRun.RUN_FLAGS],
    'bench import': [benchImport.FLAGS],
    bench: [ledger.LEDGER_FLAGS],
    target: [ledger.TARGET_FLAGS],
    watch: [watchOnly],
    wait: [watch.FLAGS],
    launch: [launch.FLAGS],
    sweep: [sweep.FLAGS],
    serve: [serve.FLAGS],
    ps: [ps.FLAGS],
    mcp: [mcp.FLAGS],
    replay: [replay.SPEC],
    demo: [demo.FLAGS],
    completion: [],
    help: [],
  };
}

/** Flags `watch` refuses though it shares `wait`'s table. */
const WAIT_ONLY = ['for', 'next'];

/** A table's flags as typed: `--name`, its own short alias, and the customary short forms it gets (`-j`). */
function tableFlags(t: Table): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries(t)) {
    out.push(`--${name}`);
    if (spec.alias) out.push(`-${spec.alias}`);
  }
  for (const [short, long] of Object.entries(CUSTOMARY)) if (t[long]) out.push(`-${short}`);
  return out;
}

/** Every flag completion offers after `firedup CMD` (CMD may be `bench run`): the help's and the parser's. */
export async function completionFlags(): Promise<Record<string, string[]>> {
  const tables = await parserTables();
  const out: Record<string, string[]> = {};
  for (const [cmd, ts] of Object.entries(tables)) {
    const doc = commandDoc(cmd);
    const fromDoc = cmd.startsWith('bench ') ? [] : doc ? flagsOf(doc) : [];
    const all = new Set([...fromDoc, ...ts.flatMap(tableFlags), '--help']);
    // Long flags first, then the short forms: what `--<TAB>` and `-<TAB>` list.
    out[cmd] = [...all].sort(
      (a, b) => Number(!a.startsWith('--')) - Number(!b.startsWith('--')) || a.localeCompare(b),
    );
  }
  return out;
}

function bashScript(flagsBy: Record<string, string[]>): string {
  const flagCases = COMMANDS.map((c) =>
    c.name === 'bench'
      ? `    bench) case "\${COMP_WORDS[2]}" in
        run) flags="${flagsBy['bench run']!.join(' ')}" ;;
        import) flags="${flagsBy['bench import']!.join(' ')}" ;;
        *) flags="${flagsBy.bench!.join(' ')}" ;;
      esac ;;`
      : `    ${c.name}) flags="${(flagsBy[c.name] ?? flagsOf(c)).join(' ')}" ;;`,
  ).join('\n');
  const subCases = COMMANDS.filter((c) => c.subcommands)
    .map((c) => `    ${c.name}) COMPREPLY=($(compgen -W "${c.subcommands!.join(' ')}" -- "$cur")); return ;;`)
    .join('\n');
  const valueCases = Object.entries(FLAG_VALUES)
    .map(([f, vs]) => `    ${f}) COMPREPLY=($(compgen -W "${vs.join(' ')}" -- "$cur")); return ;;`)
    .join('\n');
  return `# firedup completion for bash (zsh: firedup completion zsh). Load it with:
#   source <(firedup completion bash)
_firedup() {
  local cur prev cmd flags
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd="\${COMP_WORDS[1]}"
  COMPREPLY=()
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${COMMAND_NAMES.join(' ')} --help --version" -- "$cur"))
    return
  fi
  # After \`launch --\` the words are the server's: leave them to the shell.
  local w
  for w in "\${COMP_WORDS[@]:2:COMP_CWORD-2}"; do [[ $w == -- ]] && return; done
  case "$prev" in
${valueCases}
  esac
  if [[ $cmd == help && $COMP_CWORD -eq 2 ]]; then
    COMPREPLY=($(compgen -W "${COMMAND_NAMES.join(' ')}" -- "$cur"))
    return
  fi
  if [[ $COMP_CWORD -eq 2 && $cur != -* ]]; then
    case "$cmd" in
${subCases}
    esac
  fi
  case "$cmd" in
${flagCases}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
  # Nothing offered: -o default falls back to file names (logs, --ledger PATH, --out FILE).
}
complete -o default -F _firedup firedup
`;
}

function zshScript(flagsBy: Record<string, string[]>): string {
  return `# firedup completion for zsh. Load it with:
#   source <(firedup completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(flagsBy)
  .split('\n')
  .filter((l) => !l.startsWith('#'))
  .join('\n')}`;
}

export async function completionCommand(argv: string[]): Promise<number> {
  if (argv.length !== 1) throw new UsageError('completion: name the shell: firedup completion bash (or zsh)');
  const shell = choice('completion', '', argv[0]!, SHELLS, 'a shell');
  const flagsBy = await completionFlags();
  process.stdout.write(shell === 'bash' ? bashScript(flagsBy) : zshScript(flagsBy));
  return 0;
}
