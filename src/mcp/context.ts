/** What every tool of one `firedup mcp` server shares: the ledger it records to, and what it may start. */
export interface McpContext {
  /** --ledger, passed to every command (null: the commands' default, FIREDUP_LEDGER or the user's ledger). */
  ledger: string | null;
  /** --allow-launch: `launch` and `sweep` are offered. Starting processes on a GPU machine is the user's call. */
  allowLaunch: boolean;
}

export function ledgerArgs(ctx: McpContext): string[] {
  return ctx.ledger === null ? [] : ['--ledger', ctx.ledger];
}
