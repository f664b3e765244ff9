/**
 * What `firedup mcp` answers to `initialize`: the SDK's McpServer (server.ts) is built from these, and the
 * stdio front (front.ts) answers with them before the SDK is loaded. Nothing here imports the SDK or zod.
 */

export const SERVER_NAME = 'firedup';

export const INSTRUCTIONS =
  "firedup reads LLM inference servers' logs (SGLang, vLLM, TensorRT-LLM, TGI, llama.cpp) and says which launch and phase a server is in, whether it is ready, stalled, crashed or dead and why, with the log lines that prove it. Ask it (status, wait) instead of grepping a log: a log holds earlier launches' lines. Read the verdict and its evidence before acting; run bench_run only after wait says ready.";

/**
 * The SDK's SUPPORTED_PROTOCOL_VERSIONS, newest (its LATEST_PROTOCOL_VERSION) first: a client asking for one
 * of them gets it, any other client the newest. test/mcp/front.test.ts holds them equal to the SDK's.
 */
export const PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/**
 * The capabilities the SDK's McpServer declares for firedup's server, in its order: `logging` (server.ts asks
 * for it), then what registering tools, resources (with subscriptions, resources.ts) and a prompt adds.
 * With or without --allow-launch alike. test/mcp/front.test.ts compares the whole answer with the SDK's.
 */
const CAPABILITIES = {
  logging: {},
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
};

/** The result of `initialize`, as the SDK's Server._oninitialize builds it. */
export function initializeResult(requestedVersion: string, version: string): Record<string, unknown> {
  return {
    protocolVersion: PROTOCOL_VERSIONS.includes(requestedVersion) ? requestedVersion : PROTOCOL_VERSIONS[0],
    capabilities: CAPABILITIES,
    serverInfo: { name: SERVER_NAME, title: SERVER_NAME, version },
    instructions: INSTRUCTIONS,
  };
}
