/**
 * `firedup completion bash|zsh`: a completion script made from the command docs, so it offers exactly the
 * commands, flags and enum values the help shows. zsh runs the bash function through bashcompinit, which
 * every zsh ships: one script to keep right instead of two.
 */

import { choice } from './args.js';
import { COMMAND_NAMES, COMMANDS, FLAG_VALUES, flagsOf } from './commands.js';
import { UsageError } from './errors.js';

const SHELLS = ['bash', 'zsh'] as const;

function bashScript(): string {
  const flagCases = COMMANDS.map((c) => `    ${c.name}) flags="${flagsOf(c).join(' ')}" ;;`).join('\n');
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

function zshScript(): string {
  return `# firedup completion for zsh. Load it with:
#   source <(firedup completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript()
  .split('\n')
  .filter((l) => !l.startsWith('#'))
  .join('\n')}`;
}

export function completionCommand(argv: string[]): number {
  if (argv.length !== 1) throw new UsageError('completion: name the shell: firedup completion bash (or zsh)');
  const shell = choice('completion', '', argv[0]!, SHELLS, 'a shell');
  process.stdout.write(shell === 'bash' ? bashScript() : zshScript());
  return 0;
}
