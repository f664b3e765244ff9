/** `firedup mcp` over standard input and output, the way agents start local MCP servers. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpContext } from './context.js';
import { createMcpServer } from './server.js';

/** Serves until the client closes standard input (or SIGINT/SIGTERM); resolves then. */
export async function serveStdio(ctx: McpContext, version: string): Promise<void> {
  const server = createMcpServer(ctx, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}
