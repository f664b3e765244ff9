/**
 * The entry of the `mcp` bundle (dist/bundle/cli/mcp.cjs, scripts/build-bundle.mjs), which bin/firedup.js runs for
 * `firedup mcp`: the MCP face and the SDK without the other commands, so an agent's server starts as fast as a
 * `firedup --help` (the tools themselves run the CLI as children).
 */
import { runProcess } from './entry.js';

runProcess(async (cmd, rest) => {
  if (cmd !== 'mcp') throw new Error(`the mcp bundle was run for ${cmd}`);
  return (await import('./mcp.js')).mcpCommand(rest);
});
