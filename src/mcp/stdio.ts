/** `firedup mcp` over standard input and output, the way agents start local MCP servers. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpContext } from './context.js';
import { type FrontHandoff, takeFrontHandoff } from './front.js';
import { createMcpServer } from './server.js';

/**
 * The stdio transport after the front (front.ts) answered `initialize`: the server answers it again when it
 * reads it, and that answer, the same line (else a firedup bug, said on stderr), is not written twice.
 */
class AnsweredStdioTransport extends StdioServerTransport {
  #answered: FrontHandoff['answered'];

  constructor(answered: NonNullable<FrontHandoff['answered']>) {
    super();
    this.#answered = answered;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const a = this.#answered;
    if (a && !('method' in message) && 'id' in message && message.id === a.id) {
      this.#answered = null;
      // as the SDK's transport serializes it (shared/stdio.js)
      const text = `${JSON.stringify(message)}\n`;
      if (text !== a.text)
        process.stderr.write(
          `firedup mcp: internal error: the early answer to initialize was ${a.text.trim()}, the server's is ${text.trim()}\n`,
        );
      return Promise.resolve();
    }
    return super.send(message);
  }
}

/** Serves until the client closes standard input (or SIGINT/SIGTERM); resolves then. */
export async function serveStdio(ctx: McpContext, version: string): Promise<void> {
  // what the front read comes first, its initialize included (the server reads it as if it came now)
  const front = takeFrontHandoff();
  if (front?.bytes.length) process.stdin.unshift(front.bytes);
  const server = createMcpServer(ctx, version);
  const transport = front?.answered ? new AnsweredStdioTransport(front.answered) : new StdioServerTransport();
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
