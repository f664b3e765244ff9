/**
 * The agents' MCP settings in docs/mcp.md work as written: each snippet's command line is started, with
 * `firedup` on PATH as `npm link` puts it, and answers as an MCP server.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT, tmpDir } from '../helpers.js';
import { FIREDUP } from './client.js';

/** The fenced blocks under docs/mcp.md's "Settings for agents", each with its language. */
function snippets(): Array<{ lang: string; body: string }> {
  const readme = fs.readFileSync(path.join(ROOT, 'docs', 'mcp.md'), 'utf8');
  const start = readme.indexOf('## Settings for agents');
  assert.ok(start >= 0, 'docs/mcp.md has a Settings for agents section');
  const end = readme.indexOf('\n## ', start + 5);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** command and args of a snippet: Claude Code/Cursor JSON, opencode JSON, or Codex TOML. */
function commandOf(s: { lang: string; body: string }): string[] | null {
  if (s.lang === 'json') {
    const j = JSON.parse(s.body);
    const entry = j.mcpServers?.firedup ?? j.mcp?.firedup;
    if (!entry) return null;
    return Array.isArray(entry.command) ? entry.command : [entry.command, ...(entry.args ?? [])];
  }
  if (s.lang === 'toml' && s.body.includes('[mcp_servers.firedup]')) {
    const command = /^command = "(.*)"$/m.exec(s.body)?.[1];
    const args = /^args = \[(.*)\]$/m.exec(s.body)?.[1];
    return command ? [command, ...(args ? JSON.parse(`[${args}]`) : [])] : null;
  }
  return null;
}

describe("docs/mcp.md: the agents' MCP settings", () => {
  it('has snippets for at least two agents, each starting a working server', async () => {
    const cmds = snippets()
      .map(commandOf)
      .filter((c): c is string[] => c !== null);
    assert.ok(cmds.length >= 2, `snippets found: ${cmds.length}`);
    // `firedup` on PATH, as `npm link` or `npm i -g` puts it
    const bin = tmpDir();
    fs.symlinkSync(FIREDUP, path.join(bin, 'firedup'));
    for (const [command, ...args] of cmds) {
      assert.equal(command, 'firedup');
      const client = new Client({ name: 'readme', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: command!,
          args,
          env: {
            ...(process.env as Record<string, string>),
            PATH: `${bin}:${process.env.PATH}`,
            FIREDUP_LEDGER: 'off',
          },
          stderr: 'pipe',
        }),
      );
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('status'), `${[command, ...args].join(' ')}: ${names.join(',')}`);
      } finally {
        await client.close();
      }
    }
  });
});
