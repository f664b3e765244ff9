/**
 * The one prompt: diagnose a launch the way firedup was built to — the verdict and its evidence read before
 * anything is done, never a grep of the log, never a benchmark credited to a launch that did not run it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function diagnoseText(target: string): string {
  return [
    `Diagnose the LLM inference server launch whose log is ${target}.`,
    '',
    `1. Call the firedup \`status\` tool on ${target} first (add url or pid if you know the server's address or process). If its confidence is not high, call \`explain\` too.`,
    '2. Before doing anything else, state: which launch in the log this is, its phase and progress, and whether it is ready, serving, stalled, crashed or dead — quoting the evidence lines with their line numbers as firedup gives them.',
    '3. Do not grep or tail the log yourself: a log appended to by several launches holds lines of earlier ones, and a case-sensitive pattern misses errors. Do not read an idle GPU or a clean shutdown as "it ran".',
    '4. If it crashed, name the failure class and the root-cause line firedup cites, not the lines that followed it. If it stalled, say for how long and in which phase.',
    '5. Credit a throughput or benchmark figure to a configuration only if firedup attached it to this launch (`show`), and compare launches with `diff`, not from memory.',
    '6. Then give the next step firedup suggests, and only then act on it.',
  ].join('\n');
}

export function registerPrompt(server: McpServer): void {
  server.registerPrompt(
    'diagnose_launch',
    {
      title: 'Diagnose this launch',
      description: 'Read the verdict and the evidence of a server launch before acting on it.',
      argsSchema: { target: z.string().min(1).max(4096).describe('the server log: a path or host:path') },
    },
    ({ target }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: diagnoseText(target) } }],
    }),
  );
}
