/** One MCP server (one per connection): firedup's tools, resources and prompt, as the context allows. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './context.js';
import { registerPrompt } from './prompt.js';
import { registerResources } from './resources.js';
import { registerBenchTool } from './tool-bench.js';
import { registerWaitTool } from './tool-wait.js';
import { registerLaunchTools } from './tools-launch.js';
import { registerReadTools } from './tools-read.js';

export const INSTRUCTIONS =
  "firedup reads LLM inference servers' logs (SGLang, vLLM, TensorRT-LLM, TGI, llama.cpp) and says which launch and phase a server is in, whether it is ready, stalled, crashed or dead and why, with the log lines that prove it. Ask it (status, wait) instead of grepping a log: a log holds earlier launches' lines. Read the verdict and its evidence before acting; run bench_run only after wait says ready.";

export function createMcpServer(ctx: McpContext, version: string): McpServer {
  const server = new McpServer(
    { name: 'firedup', title: 'firedup', version },
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
