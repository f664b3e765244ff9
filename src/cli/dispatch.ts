/** Every command's modules, loaded when it runs: `status` does not pay for the dashboard or `launch`. */
import type { Dispatch } from './main.js';

export const dispatchAll: Dispatch = async (cmd, rest) => {
  switch (cmd) {
    case 'status':
      return (await import('./status.js')).status(rest);
    case 'runs': {
      const ledger = await import('./ledger-commands.js');
      return ledger.isLedgerRuns(rest)
        ? ledger.ledgerRunsCommand(rest)
        : (await import('./status.js')).runs(rest);
    }
    case 'show':
      return (await import('./ledger-commands.js')).showCommand(rest);
    case 'diff':
      return (await import('./ledger-commands.js')).diffCommand(rest);
    case 'bench':
      return (await import('./bench-import.js')).benchCommand(rest);
    case 'target':
      return (await import('./ledger-commands.js')).targetCommand(rest);
    case 'note':
    case 'tag':
      return (await import('./ledger-commands.js')).annotateCommand(cmd, rest);
    case 'forget':
      return (await import('./ledger-commands.js')).forgetCommand(rest);
    case 'ledger':
      return (await import('./ledger-push.js')).ledgerCommand(rest);
    case 'watch':
      return (await import('./watch.js')).watchCommand(rest);
    case 'wait':
      return (await import('./watch.js')).waitCommand(rest);
    case 'replay':
      return (await import('./replay.js')).replayCommand(rest);
    case 'demo':
      return (await import('./demo.js')).demoCommand(rest);
    case 'launch':
      return (await import('./launch.js')).launchCommand(rest);
    case 'sweep':
      return (await import('./sweep.js')).sweepCommand(rest);
    case 'serve':
      return (await import('./serve.js')).serveCommand(rest);
    case 'mcp':
      return (await import('./mcp.js')).mcpCommand(rest);
    case 'ps':
      return (await import('./ps.js')).psCommand(rest);
    case 'completion':
      return (await import('./completion.js')).completionCommand(rest);
    default:
      // A documented command without a case here is firedup's bug, not the user's.
      throw new Error(`command ${cmd} is documented but not dispatched`);
  }
};
