/** The top-level help. The ledger commands' part lives with them and is loaded only when help is asked for. */

export async function helpText(): Promise<string> {
  const { LEDGER_HELP } = await import('./ledger-commands.js');
  return HELP.replace('@LEDGER_HELP@', LEDGER_HELP);
}

const HELP = `firedup — read an LLM inference server's log and say which launch and phase it is in, and why

Usage:
  firedup status <log> [--json] [--url U] [--pid P]
                                    the latest launch: phase, progress, ETA, outcome, failure with evidence,
                                    config summary, what changed since the previous launch, and (from the
                                    file's age, the process and the port) whether it is stalled or dead now
  firedup status --explain <log> [--json]
                                    the lines behind each conclusion (engine votes, start, phases with the
                                    rule that matched, failure, config) and the engine-looking lines no rule
                                    recognised, grouped by shape with counts: paste it into a bug report
  firedup runs <log> [--json]       every launch in the file
  firedup watch <log> [--url U] [--pid P] [--json]
                                    a live view: phase, progress, ETA, GPUs, evidence, and the verdict
                                    (ready, stalled, crashed, exited, dead) as it happens
  firedup wait <log> [--for ready|serving|loaded] [--next] [--timeout 60m] [-q]
                                    judge the latest launch at once, then block until ready (0), crashed (2),
                                    stalled (4), exited/dead (5), timeout (6; default 60m)
  firedup replay <log> --speed 20 --out FILE [--serve PORT]
                                    write a recorded log into FILE at its own timing, scaled
  firedup demo                      watch a bundled GLM-5 launch replayed live (no GPU needed)
  firedup launch [--log FILE] [--ledger PATH] [--json] -- <server command...>
                                    run the server with its output appended to FILE, watch it live, flag
                                    the flags it logs differently, record it; exits with the server's status
  firedup serve [--port 7070] [--host H] [--watch LOG]... [--config firedup.toml]
                                    the dashboard (launch history, live targets), its JSON API, and
                                    /metrics for Prometheus (see firedup serve --help)

@LEDGER_HELP@
  <log> is a file path, or - for standard input; status and runs also read [user@]host:path and
  ssh://[user@]host[:port]/path through the system ssh (nothing installed on the server).

Options:
  --ssh-config FILE   ssh client config for remote logs (ssh -F)
  --ssh-option K=V    an ssh option for remote logs (ssh -o), repeatable
  --ledger PATH       record launches in this ledger (default: FIREDUP_LEDGER, else
                      ~/.local/share/firedup/ledger.db); the next read of the same log continues
                      where this one stopped
  --no-ledger         read without recording (FIREDUP_LEDGER=off does the same)
  --json              machine-readable output (see README, "JSON contract")
  --engine NAME       read the log as sglang, vllm, trtllm, tgi or llamacpp instead of detecting it
  --no-color          no colour even on a terminal (NO_COLOR is honoured too)
  -h, --help          this help
  -v, --version       the version

Exit codes of status: 0 ready or serving, 2 crashed, 3 still starting, 4 stalled, 5 shut down or dead,
1 usage error or unreadable input.
`;
