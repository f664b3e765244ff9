/**
 * A tool's answer: the summary an agent can quote, the command's JSON as structured content (and as text, for
 * clients that read only text), or one line saying what is wrong, as the CLI says it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CliRun, cliMessage, runCli } from './cli-run.js';

/** Text content past this is cut (the structured content holds the whole report). */
const MAX_TEXT = 256 * 1024;

export function toolResult(summary: string, data: Record<string, unknown>): CallToolResult {
  let json = JSON.stringify(data);
  if (json.length > MAX_TEXT)
    json = `${json.slice(0, MAX_TEXT)}… (cut: the whole report is the structured content)`;
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: json },
    ],
    structuredContent: data,
  };
}

/** A command's failure as the one line it printed, or what went wrong around it. */
export function failureMessage(cmd: string, run: CliRun, timeoutS: number): string {
  if (run.timedOut)
    return `${cmd}: no answer within ${timeoutS} s; it was stopped (give a longer timeout_s, or check the host)`;
  const said = cliMessage(run);
  if (said) return said;
  if (run.signal) return `${cmd}: stopped by ${run.signal}`;
  return `${cmd}: exited ${run.code} without saying why`;
}

/** The JSON object a command printed (the last line that parses, for an event stream), or null. */
export function parseJson(stdout: string): Record<string, unknown> | unknown[] | null {
  const whole = stdout.trim();
  if (!whole) return null;
  try {
    return JSON.parse(whole);
  } catch {}
  const lines = whole.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      return JSON.parse(lines[i]!);
    } catch {}
  }
  return null;
}

/**
 * Runs `firedup ARGS` and returns its JSON when it exited with one of `ok` (the codes that are answers, such
 * as status's 2 for crashed); anything else throws its one-line message, which the SDK returns as a tool
 * error (isError).
 */
export async function cliJson(
  args: string[],
  ok: readonly number[],
  timeoutS: number,
  signal?: AbortSignal,
): Promise<{ run: CliRun; json: Record<string, unknown> | unknown[] }> {
  const cmd = args[0] === 'bench' ? 'bench run' : args[0]!;
  const run = await runCli(args, { timeoutS, signal });
  if (run.timedOut || run.code === null || !ok.includes(run.code))
    throw new Error(failureMessage(cmd, run, timeoutS));
  const json = parseJson(run.stdout);
  if (json === null) throw new Error(failureMessage(cmd, run, timeoutS) || `${cmd}: printed no JSON`);
  return { run, json };
}

/** A path or host:path as the commands take it; what cannot be one is refused before any command runs. */
export function checkTarget(target: string, what = 'target'): string {
  if (target === '-')
    throw new Error(`${what}: standard input cannot be read over MCP; name a file or host:path`);
  if (target.startsWith('-'))
    throw new Error(`${what} ${JSON.stringify(target)}: starts with '-'; name the file as ./${target}`);
  if (target.includes('\0')) throw new Error(`${what}: contains a NUL byte`);
  return target;
}
