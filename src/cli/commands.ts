/**
 * What each command is for, its flags and examples: the one source for `firedup --help`, `firedup CMD
 * --help` (= `firedup help CMD`), "did you mean" on commands and `firedup completion`. Data only, so
 * help costs no command module's load.
 */

import { ENGINES } from '../core/base/types.js';
import { LAUNCH_STATES } from '../core/verdict/launch-state.js';

export interface CommandDoc {
  name: string;
  /** One line for the global help. */
  summary: string;
  usage: string[];
  /**
   * What it does, a few lines; shown under the usage, wrapped to the terminal. Write it as running text: a
   * single newline is a space (so a line broken in the source never leaves an orphan word on screen), and a
   * blank line (`\n\n`) starts a new paragraph.
   */
  about?: string;
  /** [flags as written, what they do]; the flags are also what completion offers. */
  options: Array<[string, string]>;
  examples: Array<[string, string]>;
  /** Subcommands (bench import, target add|list|rm), offered by completion. */
  subcommands?: string[];
  /** Files to complete for the positional (completion): log files for most. */
  files?: boolean;
}

const LEDGER_OPT: [string, string] = [
  '--ledger PATH',
  'the ledger: a file or postgres://… (default: FIREDUP_LEDGER, else ~/.local/share/firedup/ledger.db)',
];
const NO_LEDGER: [string, string] = [
  '--no-ledger',
  'read without recording (FIREDUP_LEDGER=off does the same)',
];
const JSON_OPT: [string, string] = ['-j, --json', 'machine-readable output (docs/json.md)'];
const ENGINE_OPT: [string, string] = [
  '--engine NAME',
  `read the log as ${ENGINES.join(', ')} instead of detecting it`,
];
const COLOR_OPT: [string, string] = ['--no-color', 'no colour even on a terminal (NO_COLOR is honoured too)'];
const SSH_OPTS: Array<[string, string]> = [
  ['--ssh-config FILE', 'ssh client config for a remote log (ssh -F)'],
  ['--ssh-option K=V', 'an ssh option for a remote log (ssh -o), repeatable'],
];
const NODE_OPTS: Array<[string, string]> = [
  [
    '--node LOG',
    "a node's log of a multi-node launch (path or host:path), once per node: one launch, the node that holds it named",
  ],
  ['--config FILE', 'firedup.toml, with --target'],
  ['--target NAME', "the [[target]] of --config whose nodes = [...] are the launch's logs"],
];
const LIVE_OPTS: Array<[string, string]> = [
  ['--url U', "the server's HTTP address (default: host and port from the logged config)"],
  ['--pid P', "the server's process (default: found from the port or the engine's command line)"],
  ['--no-gpu', 'do not run nvidia-smi'],
  [
    '--on-ready CMD',
    'run CMD (sh -c) when the server becomes ready; FIREDUP_* variables describe it (FIREDUP_LOG absolute, FIREDUP_HOST the machine)',
  ],
  ['--on-fail CMD', 'run CMD when it crashes, stalls or dies'],
  ['--timeout T', 'stop after T (90s, 30m, 2h) with exit code 6'],
];

export const COMMANDS: CommandDoc[] = [
  {
    name: 'status',
    summary: 'the latest launch in a log: phase, progress, outcome, failure and why',
    usage: ['firedup status <log> [options]', 'firedup status --explain <log> [--json]'],
    about:
      '<log> is a path, - for standard input, or [user@]host:path / ssh://host/path read through ssh.\n\nExit: 0 ready or serving, 2 crashed, 3 starting, 4 stalled, 5 shut down or dead, 1 usage error.',
    options: [
      JSON_OPT,
      ['--url U', 'probe the server at U as well: a refused port is not ready'],
      ['--pid P', 'check process P as well: gone means dead'],
      [
        '--no-probe',
        "read the log alone: by default a local log's open launch is checked against its process, found as wait finds it",
      ],
      ['--explain', 'the lines behind each conclusion, and the lines no rule knew (for a bug report)'],
      ['--lines [N]', 'the raw log around each piece of evidence, N lines of context (default 3)'],
      ENGINE_OPT,
      ...NODE_OPTS,
      LEDGER_OPT,
      NO_LEDGER,
      ...SSH_OPTS,
      COLOR_OPT,
    ],
    examples: [
      ['firedup status server.log', 'the latest launch'],
      ['firedup status -j server.log | jq .phase', 'machine-readable'],
      ['firedup status gpu-a:/var/log/sglang.log', 'a log on another machine, over ssh'],
      [
        'firedup status --node gpu-a:/srv/sglang.log --node gpu-b:/srv/sglang.log',
        'one launch over two nodes',
      ],
    ],
    files: true,
  },
  {
    name: 'runs',
    summary: 'every launch in a log, or (no log) every launch the ledger has recorded',
    usage: [
      'firedup runs <log> [--json]',
      'firedup runs [--model M] [--host H] [--since 3d] [--outcome O] [--where k=v]... [-n N]',
    ],
    about:
      'With a log: its launches, one line each. Without: the ledger, newest first, with the config keys that\nvary between the listed launches. --where takes config keys as logged (tp_size=8) or as the summary\nline prints them (tp=8, pp, dp, ep, quantization, ...).',
    options: [
      JSON_OPT,
      ['--model M', 'launches whose model contains M'],
      ['--host H', 'launches that ran on machine H (its hostname, or the ssh host of a remote log)'],
      ['--since T', 'started after T: a date, a date-time, or an age (30m, 2h, 3d, 1w)'],
      ['--outcome O', `a state: ${LAUNCH_STATES.join(', ')}`],
      ['--where KEY=VALUE', 'the logged config has KEY=VALUE (True/None as printed); repeatable'],
      ['-n, --limit N', 'the newest N (default 50)'],
      ENGINE_OPT,
      ...NODE_OPTS,
      LEDGER_OPT,
      NO_LEDGER,
      ...SSH_OPTS,
      COLOR_OPT,
    ],
    examples: [
      ['firedup runs server.log', 'the launches in one file'],
      ['firedup runs --model glm --since 3d --outcome crashed', 'the ledger, filtered'],
      ['firedup runs --where tp=8 --where moe_runner_backend=flashinfer_trtllm -n 10', 'did it run?'],
    ],
    files: true,
  },
  {
    name: 'show',
    summary: 'one recorded launch in full: phases, failure with evidence, benches, targets',
    usage: ['firedup show <id> [--json] [--lines [N]]'],
    about: '<id>: an id or a unique prefix of 4+ hex characters, last, or last~N.',
    options: [
      JSON_OPT,
      ['--lines [N]', 'the raw log around each piece of evidence, N lines of context (default 3)'],
      LEDGER_OPT,
      COLOR_OPT,
    ],
    examples: [
      ['firedup show last', 'the newest launch'],
      ['firedup show 4c94bc82 --json', 'with its whole config'],
      ['firedup show last --lines 5', 'the lines that prove it, with less +N to open the log there'],
    ],
  },
  {
    name: 'forget',
    summary: 'remove launches from the ledger (with their benches and the paths they were read at)',
    usage: ['firedup forget <id>... [--json]', 'firedup forget --path <log> [--everywhere] [--json]'],
    about: '<id>: an id or a unique prefix of 4+ hex characters, last, or last~N.',
    options: [
      [
        '--path LOG',
        "LOG's place: where reading it stopped, and the launches read there that no other place (a copy, the original) holds",
      ],
      ['--everywhere', "with --path: LOG's launches, from every place they were read at"],
      JSON_OPT,
      LEDGER_OPT,
    ],
    examples: [
      ['firedup forget last', 'the newest launch'],
      ['firedup forget --path /tmp/replay.log', 'a replay: the launches the original log holds stay'],
      ['firedup forget --path /tmp/replay.log --everywhere', "the replay's launches, wherever read"],
    ],
  },
  {
    name: 'note',
    summary: 'a note on a recorded launch: why it was relaunched, what was tried',
    usage: ['firedup note <id> "text" [--json]'],
    about: '<id>: an id or a unique prefix of 4+ hex characters, last, or last~N. show lists the notes.',
    options: [JSON_OPT, LEDGER_OPT],
    examples: [['firedup note last "relaunched with --tp 8 after the OOM"', 'on the newest launch']],
  },
  {
    name: 'tag',
    summary: 'a tag on a recorded launch (baseline, prod, ...); --rm takes it off',
    usage: ['firedup tag <id> NAME [--rm] [--json]'],
    options: [['--rm', 'take the tag off'], JSON_OPT, LEDGER_OPT],
    examples: [
      ['firedup tag last baseline', 'mark the run to compare against'],
      ['firedup tag 4c94bc82 baseline --rm', 'take it off'],
    ],
  },
  {
    name: 'ledger',
    summary: "ledger push: copy this machine's ledger into a shared one (postgres://…), safe to repeat",
    usage: ['firedup ledger push --to URL [--ledger PATH] [--json]'],
    about:
      'Every launch, with its benchmark runs and live verdict, and the targets; a launch already there is\nupdated, never added twice.',
    options: [
      ['--to URL', 'the ledger to copy into (postgres://user:pass@host/db, or a file)'],
      JSON_OPT,
      LEDGER_OPT,
    ],
    examples: [
      ['firedup ledger push --to postgres://firedup@db.lab/firedup', "a laptop's history joins the team's"],
    ],
    subcommands: ['push'],
  },
  {
    name: 'diff',
    summary: 'two launches side by side, only what differs (config, phases, throughput, benches)',
    usage: ['firedup diff <a> <b> [--json]', 'firedup diff <log>'],
    about:
      'a and b: ids (prefixes, last, last~N) or logs (their latest launches); one log: its last two launches.',
    options: [JSON_OPT, ENGINE_OPT, LEDGER_OPT, ...SSH_OPTS, COLOR_OPT],
    examples: [
      ['firedup diff last~1 last', 'the two newest recorded launches'],
      ['firedup diff old.log new.log', 'two logs, no ledger needed'],
      ['firedup diff server.log', 'a relaunch against the launch before it'],
    ],
    files: true,
  },
  {
    name: 'bench',
    summary: "bench run: benchmark a server with firedup's load generator; bench import: attach results",
    usage: [
      'firedup bench run --url URL [options]   (firedup bench run --help for all its options)',
      'firedup bench import <file> [--launch ID] [--host H] [--port P] [--json]',
      'firedup bench list | bench attach <N> <launch> | bench detach <N> | bench rm <N>',
    ],
    about:
      'run: streaming requests to an OpenAI-compatible server at fixed concurrencies or rates; the result is\nrecorded on the launch serving at URL. import: sglang.bench_serving / vllm bench serve output (result\nblocks, --output-file JSONL, --save-result JSON), each run attached to the launch serving while it ran.\nA bench attaches to a launch only when machine, port and model match; one that matches none is kept\nunattached with why (bench list), and bench attach / detach / rm correct mistakes.',
    options: [
      ['--url URL', 'run: the server to benchmark'],
      ['--concurrency LIST', 'run: requests in flight per level (1,8,64)'],
      ['--rate LIST', 'run: requests per second per level instead (open loop)'],
      ['--requests N', 'run: requests per level'],
      ['--duration T', 'run: seconds per level instead'],
      ['--input-len N', 'run: random prompt length in tokens'],
      ['--output-len N', 'run: tokens asked for per request'],
      ['--dataset FILE', 'run: ShareGPT JSON/JSONL prompts instead'],
      ['--slo K=V,...', 'run: goodput objectives (ttft_ms=500,tpot_ms=50)'],
      ['--launch ID', 'attach every run to this launch instead'],
      ['--host H', 'the host the benchmark ran against (default: from the results, else this machine)'],
      ['--port P', 'the port it ran against (default: from the results)'],
      JSON_OPT,
      LEDGER_OPT,
      COLOR_OPT,
    ],
    examples: [
      ['firedup bench run --url http://127.0.0.1:30000 -c 1,8,64 --input-len 1024 --output-len 256', 'load'],
      ['firedup bench import sglang_0219_2000_1024_256.jsonl', 'placed by time, host and port'],
      ['firedup bench import result.json --launch last', 'attached to the newest launch'],
    ],
    subcommands: ['run', 'import', 'list', 'attach', 'detach', 'rm'],
    files: true,
  },
  {
    name: 'target',
    summary: 'target add|list|rm: goals (output_tok_s >= 1000) that runs and show check',
    usage: [
      'firedup target add "<metric> <op> <number>" [--model M]',
      'firedup target list [--model M]',
      'firedup target rm <n>',
    ],
    options: [['--model M', 'only for models containing M'], JSON_OPT, LEDGER_OPT, COLOR_OPT],
    examples: [
      ['firedup target add "output_tok_s >= 1000" --model GLM-5', 'a throughput goal'],
      ['firedup target add "ttft_p99_ms <= 500"', 'a latency goal, every model'],
      ['firedup target rm 3', 'remove target #3'],
    ],
    subcommands: ['add', 'list', 'rm'],
  },
  {
    name: 'watch',
    summary: 'a live view of a launch until it ends: phase, progress, GPUs, the verdict',
    usage: ['firedup watch <log> [options]'],
    about:
      'Follows the log as it grows and probes the process, the port and the GPUs. On a terminal a block is\nredrawn in place; otherwise one timestamped line per event. Ctrl-C leaves.',
    options: [
      JSON_OPT,
      ...LIVE_OPTS,
      ENGINE_OPT,
      ...NODE_OPTS,
      LEDGER_OPT,
      NO_LEDGER,
      ...SSH_OPTS,
      COLOR_OPT,
    ],
    examples: [
      ['firedup watch server.log', 'until the launch ends'],
      ['firedup watch server.log --url http://10.0.0.5:30000 --pid 4242', 'naming the server'],
      ['firedup watch root@gpu-a:/root/sglang.log', 'over ssh, nothing installed there'],
      ['firedup watch --config firedup.toml --target dsv3-2node', 'a multi-node launch from firedup.toml'],
    ],
    files: true,
  },
  {
    name: 'wait',
    summary:
      'judge the latest launch at once, then block until ready (0), crashed (2), stalled (4), exited or dead (5), timeout passed (6)',
    usage: ['firedup wait <log> [options]'],
    options: [
      JSON_OPT,
      ['--for STATE', 'ready (default), serving (a request served) or loaded (weights in memory)'],
      ['--next', 'skip launches already over when wait starts: wait for the relaunch'],
      ['-q, --quiet', 'print only the final verdict, one line'],
      ...LIVE_OPTS.map(([f, d]): [string, string] =>
        f === '--timeout T' ? [f, 'give up after T (90s, 30m, 2h; default: 60m) with exit code 6'] : [f, d],
      ),
      ENGINE_OPT,
      ...NODE_OPTS,
      LEDGER_OPT,
      NO_LEDGER,
      ...SSH_OPTS,
      COLOR_OPT,
    ],
    examples: [
      ['firedup wait server.log && python -m sglang.bench_serving ...', 'benchmark once ready'],
      ['firedup wait server.log --timeout 30m --url http://10.0.0.5:30000', 'with a deadline'],
      ['firedup wait server.log --on-fail \'curl -d "$FIREDUP_WHY" hooks.example/x\'', 'say why it failed'],
    ],
    files: true,
  },
  {
    name: 'launch',
    summary: 'run a server under firedup: its log appended, watched live, its flags checked',
    usage: ['firedup launch [--log FILE] [options] -- <server command...>'],
    about:
      "The server's output is appended to FILE (as nohup CMD >> FILE 2>&1); the flags it logs are held against\nthe ones given. Ctrl-C is passed on to the server; a second one kills it.",
    options: [
      ['--log FILE', 'where the output goes (default ./firedup-<engine>-<yyyymmdd-hhmmss>.log)'],
      ['--url U', "the server's HTTP address (default: from --host/--port on the command line)"],
      ENGINE_OPT,
      JSON_OPT,
      ['--no-gpu', 'do not run nvidia-smi'],
      LEDGER_OPT,
      ['--no-ledger', 'record nothing (FIREDUP_LEDGER=off does the same)'],
      COLOR_OPT,
    ],
    examples: [
      ['firedup launch --log server.log -- python -m sglang.launch_server --model-path X --tp 8', 'SGLang'],
      ['firedup launch -- vllm serve Qwen/Qwen3-8B -tp 2', 'vLLM, log named for you'],
      ['firedup launch -j -- llama-server -m model.gguf --port 8080', 'JSON events'],
    ],
  },
  {
    name: 'sweep',
    summary: 'a tuning campaign: every point of a grid of flags launched, checked, benchmarked, ranked',
    usage: ['firedup sweep FILE [--dry-run] [--resume] [options]', 'firedup sweep report [NAME] [--json]'],
    about:
      'FILE is TOML: command = "llama-server -m m.gguf --port 8090", targets = ["output_tok_s >= 100"],\na [grid] (parallel = [1, 2], ctx_size = [512, 1024]: their Cartesian product), [[variant]] tables\n(name, args), [bench] (concurrency, input_len, output_len, requests, warmup, endpoint, model, slo,\nrequest_timeout) and [timeouts] (ready, bench, stop). Each point is launched as `launch` does (in\nthe file\'s directory), waited for with the live verdict (a crash or stall ends it), held against\nthe flags it logged, benchmarked with `bench run`\'s generator, and stopped (SIGTERM, then SIGKILL)\nbefore the next. repeat = N runs each point N times: the median ranks, the min–max spread marks\npoints within noise (no winner is declared among them). Latency targets (tpot_ms <= 50, ttft_ms)\nare limits on each concurrency level; throughput ranks the levels within them. Ctrl-C, SIGTERM or\nSIGHUP stops the current server, exit 130. Exit 0: a point met the targets; 3: none.',
    options: [
      ['--dry-run', 'print the points, their commands and the bench plan; launch nothing'],
      ['--resume', 'skip points already finished in the ledger (same command and bench plan)'],
      ['--no-gpu', 'do not run nvidia-smi (nor wait for GPU memory to be freed between points)'],
      JSON_OPT,
      LEDGER_OPT,
      COLOR_OPT,
    ],
    examples: [
      ['firedup sweep --dry-run examples/sweep.toml', 'the plan'],
      ['firedup sweep examples/sweep.toml', 'run it, then the ranked table'],
      ['firedup sweep --resume examples/sweep.toml', 'after a Ctrl-C: the points left'],
      ['firedup sweep report', 'the latest sweep again, from the ledger'],
    ],
    subcommands: ['report'],
    files: true,
  },
  {
    name: 'serve',
    summary: 'the dashboard, its JSON API and /metrics for Prometheus',
    usage: ['firedup serve [--port 7070] [--host H] [--token T] [--watch LOG]... [--config firedup.toml]'],
    about:
      'Prints one line per URL it listens on and runs until Ctrl-C. Any address but loopback needs a token.',
    options: [
      ['--port P', 'TCP port (default 7070; 0 picks a free one)'],
      ['--host H', 'address to bind (default 127.0.0.1)'],
      ['--token T', 'the access token (16+ characters); default: a random one, printed'],
      ['--watch LOG', 'watch a log live (a path or user@host:/path); repeatable'],
      ['--config FILE', 'firedup.toml: host, port, token, ledger, ssh and [[target]] tables'],
      ENGINE_OPT,
      ['--no-gpu', 'do not run nvidia-smi'],
      LEDGER_OPT,
      ...SSH_OPTS,
    ],
    examples: [
      ['firedup serve', 'http://127.0.0.1:7070'],
      ['firedup serve --watch server.log --watch gpu-b:/var/log/vllm.log', 'live cards and /metrics'],
      ['firedup serve --config examples/firedup.toml', 'from a config file'],
    ],
    files: true,
  },
  {
    name: 'ps',
    summary: 'one line per target of firedup.toml: state, phase, progress, age, tok/s, failure',
    usage: ['firedup ps [--config firedup.toml] [--watch] [--json]'],
    about:
      'Targets are read at once, one ssh connection per host; a host that does not answer within\n--connect-timeout is unreachable and holds up no other. Exit (the worst target decides):\n0 all ready, serving or idle, 2 one crashed, 5 one dead or exited, 4 one stalled,\n7 a host unreachable, 3 still starting, 1 usage error.',
    options: [
      [
        '--config FILE',
        'the fleet: [[target]] tables with log, name, url, pid, engine (default ./firedup.toml)',
      ],
      JSON_OPT,
      ['-w, --watch', 'redraw the table as targets change, until q or Ctrl-C'],
      ['--connect-timeout S', 'seconds a host gets to answer before it is unreachable (default 5)'],
      ['--no-gpu', 'do not run nvidia-smi'],
      LEDGER_OPT,
      NO_LEDGER,
      ...SSH_OPTS,
      COLOR_OPT,
    ],
    examples: [
      ['firedup ps', 'the fleet in ./firedup.toml'],
      ['firedup ps --config fleet.toml --watch', 'kept up to date in place'],
      ['firedup ps -j | jq \'.targets[] | select(.state != "serving") | .name\'', 'what is not serving'],
    ],
  },
  {
    name: 'mcp',
    summary: 'a Model Context Protocol server, so a coding agent asks firedup instead of grepping logs',
    usage: [
      'firedup mcp [--allow-launch] [--ledger PATH]',
      'firedup mcp --http [--host H] [--port P] [--token T]',
    ],
    about:
      "Over standard input and output by default, as an agent's MCP settings start it. Tools: status, wait\n(progress notifications), runs, show, diff, explain, bench_run; launch and sweep only with\n--allow-launch. Resources firedup://launch/ID and firedup://log/PATH; the prompt diagnose_launch.",
    options: [
      ['--allow-launch', 'offer the launch and sweep tools (they start processes on this machine)'],
      LEDGER_OPT,
      ['--no-ledger', 'record nothing (FIREDUP_LEDGER=off does the same)'],
      ['--http', 'serve Streamable HTTP at /mcp instead of stdio'],
      ['--host H', 'with --http: address to bind (default 127.0.0.1; any other needs the token)'],
      ['--port P', 'with --http: TCP port (default 7071; 0 picks a free one)'],
      ['--token T', 'with --http: the token (16+ characters); default off loopback: a random one, printed'],
    ],
    examples: [
      ['firedup mcp', "what an agent's settings file runs"],
      ['firedup mcp --allow-launch --ledger ~/campaign.db', 'the agent may launch servers and sweeps'],
      ['firedup mcp --http --port 7071', 'http://127.0.0.1:7071/mcp'],
    ],
  },
  {
    name: 'replay',
    summary: 'write a recorded log into a file at its own timing, sped up, for trying a watcher',
    usage: ['firedup replay <log> --speed 20 --out FILE [--serve PORT] [--max-gap S]'],
    options: [
      ['--speed N', 'play N times faster than the log was written (default 1)'],
      ['--out FILE', "append the lines to FILE, like the server's >> (default: standard output)"],
      ['--serve PORT', "also answer the engine's HTTP endpoints on 127.0.0.1:PORT in step"],
      ['--max-gap S', 'pauses longer than S seconds of log time are shortened to S (default 30)'],
    ],
    examples: [
      ['firedup replay examples/glm5-serving.log --speed 20 --out /tmp/live.log', 'then watch /tmp/live.log'],
      [
        'firedup replay examples/vllm-llama3-8b-serving.log --speed 10 --out x.log --serve 8000',
        'with /health',
      ],
    ],
    files: true,
  },
  {
    name: 'demo',
    summary: 'watch a bundled GLM-5 launch replayed live, from load to shutdown (no GPU needed)',
    usage: ['firedup demo [--speed 10] [--json]'],
    options: [
      ['--speed N', 'how much faster than real time (default 10; serving 4× that, its quiet stretches cut)'],
      JSON_OPT,
      COLOR_OPT,
    ],
    examples: [
      ['firedup demo', 'about half a minute'],
      ['firedup demo --speed 100', 'faster'],
    ],
  },
  {
    name: 'completion',
    summary: 'print a shell completion script: source <(firedup completion bash)',
    usage: ['firedup completion bash|zsh'],
    options: [],
    examples: [
      ['source <(firedup completion bash)', 'in ~/.bashrc'],
      ['source <(firedup completion zsh)', 'in ~/.zshrc'],
    ],
  },
  {
    name: 'help',
    summary: "a command's flags and examples: firedup help status",
    usage: ['firedup help [command]'],
    options: [],
    examples: [['firedup help runs', 'the same as firedup runs --help']],
  },
];

/** `bench import --help`: the subcommand's own page (the `bench` page covers every subcommand briefly). */
export const BENCH_IMPORT_DOC: CommandDoc = {
  name: 'bench import',
  summary: 'attach sglang.bench_serving / vllm bench serve results to the launch that served them',
  usage: ['firedup bench import <file> [--launch ID] [--host H] [--port P] [--json]'],
  about:
    'Reads result blocks (the text bench_serving prints), --output-file JSONL or --save-result JSON. Each run is attached to the launch that was serving while it ran: the same machine, port and model. A run that matches no launch is kept unattached with why (firedup bench list); bench attach N LAUNCH places it.',
  options: [
    ['--launch ID', 'attach every run to this launch instead (an id, a unique prefix, last, last~N)'],
    ['--host H', 'the host the benchmark ran against (default: from the results, else this machine)'],
    ['--port P', 'the port it ran against (default: from the results)'],
    JSON_OPT,
    LEDGER_OPT,
    COLOR_OPT,
  ],
  examples: [
    ['firedup bench import sglang_0219_2000_1024_256.jsonl', 'placed by time, host and port'],
    ['firedup bench import result.json --launch last', 'attached to the newest launch'],
    ['firedup bench import bench.txt --host gpu-a --port 30000', 'run from another machine'],
  ],
  files: true,
};

/** Enum flags' values, for completion (the commands check them with "did you mean"). */
export const FLAG_VALUES: Record<string, readonly string[]> = {
  '--engine': ENGINES,
  '--outcome': LAUNCH_STATES,
  '--for': ['ready', 'serving', 'loaded'],
  '--endpoint': ['completions', 'chat'],
  '--arrival': ['poisson', 'constant'],
};

export const COMMAND_NAMES = COMMANDS.map((c) => c.name);

export function commandDoc(name: string): CommandDoc | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The long flags a command's help names: what completion offers after it. */
export function flagsOf(doc: CommandDoc): string[] {
  const out = new Set<string>();
  for (const [f] of doc.options) for (const m of f.matchAll(/(?:^|[ ,])(--?[a-zA-Z][\w-]*)/g)) out.add(m[1]!);
  out.add('--help');
  return [...out];
}
