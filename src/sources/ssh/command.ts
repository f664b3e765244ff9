/**
 * Remote command lines built from argument vectors. sshd hands the command to the remote user's login shell,
 * so every argument is single-quoted: inside `'...'` a POSIX shell expands nothing, and the only character
 * that needs care is `'` itself, written as `'\''`. User input is never concatenated into shell syntax.
 */

/** Quotes one argument for a POSIX shell. */
export function shQuote(arg: string): string {
  if (arg.includes('\0')) throw new Error('an argument cannot contain a NUL byte');
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

/** A command line from an argument vector: every word quoted. */
export function shCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error('empty command');
  return argv.map(shQuote).join(' ');
}

/**
 * A fixed script (our own text, never user input) run by `sh -c` with user values passed as positional
 * parameters `$1..$n`: the script refers to them as "$1", so they are data, not code. `sh` names $0.
 */
export function shScript(script: string, args: readonly string[]): string {
  return shCommand(['sh', '-c', script, 'sh', ...args]);
}
