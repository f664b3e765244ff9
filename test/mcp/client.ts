/** An MCP client (the SDK's own) on a real `firedup mcp` process: what the MCP tests talk to. */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from '../helpers.js';

/** The installed command, as an agent's settings file starts it. */
export const FIREDUP = path.join(ROOT, 'bin', 'firedup.js');

export async function stdioClient(args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIREDUP, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'firedup-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number; message?: string }) => void,
): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 180_000,
    resetTimeoutOnProgress: true,
    onprogress,
  })) as ToolResult;
}

export function text(r: ToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
}
