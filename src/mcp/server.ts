/** One MCP server (one per connection): firedup's tools, resources and prompt, as the context allows. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './context.js';
import { INSTRUCTIONS, SERVER_NAME } from './initialize.js';
import { registerPrompt } from './prompt.js';
import { registerResources } from './resources.js';
import { registerBenchTool } from './tool-bench.js';
import { registerWaitTool } from './tool-wait.js';
import { registerLaunchTools } from './tools-launch.js';
import { registerReadTools } from './tools-read.js';

export function createMcpServer(ctx: McpContext, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: SERVER_NAME, version },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  registerReadTools(server, ctx);
  registerWaitTool(server, ctx);
  registerBenchTool(server, ctx);
  if (ctx.allowLaunch) registerLaunchTools(server, ctx);
  registerResources(server, ctx);
  registerPrompt(server);
  return server;
}
