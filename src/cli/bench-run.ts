/**
 * `firedup bench run --url URL`: benchmarks a running server with firedup's own load generator (src/bench), shows
 * progress and the results, and records each level in the ledger on the launch serving at that URL — the record
 * `bench import` makes for sglang.bench_serving and vllm bench serve, plus what only a generator of our own knows
 * (failures with their causes, goodput, the server's config).
 */

import { type Measured, measureServer, type Recorded, recordBenchRun } from '../app/bench-run.js';
import type { BenchError } from '../bench/errors.js';
import type { ServerInfo } from '../bench/server-info.js';
import { parseRunFlags } from './bench-run-flags.js';
import { formatResults, levelJson, progressPrinter } from './bench-run-output.js';
import { shortId } from './format-ledger.js';
import { withLedger } from './ledger-commands.js';
import { colorWanted, makeStyle } from './style.js';
import { outputWidth, wrapLine } from './width.js';

export const BENCH_RUN_HELP = `firedup bench run --url URL [options]
  Benchmarks an OpenAI-compatible server (SGLang, vLLM, TRT-LLM, TGI, llama-server) with streaming requests and records the result on the launch serving at URL.

  load     --concurrency 1,8,64     requests in flight, one level per value (default 1)
           --rate 2,10              requests per second instead (open loop); --concurrency N caps it
           --arrival poisson|constant  arrival process for --rate (default poisson)
           --requests N | --duration 60s   per level (default max(20, 5 × concurrency) requests)
           --warmup N               requests sent before each level and not counted
  prompts  --input-len N --output-len N   random prompts (default 256 / 128), ignore_eos on
           --dataset FILE           ShareGPT JSON or JSONL (first human turn; reply length as max_tokens)
           --model M                default: the first model of /v1/models
           --endpoint completions|chat   /v1/completions (default) or /v1/chat/completions
           --no-ignore-eos --seed N --timeout 600s (per request)
  report   --slo ttft_ms=500,tpot_ms=50   goodput: requests/s meeting every objective
           --json --no-color
  ledger   --launch ID (attach to this launch) --host H (the server's host as the ledger knows it)
           --ledger PATH --no-ledger

  exit: 0 measured (failed requests are reported, not fatal), 1 bad input, no server or no request succeeded, 130 interrupted
`;

function benchErrorLine(url: string, e: BenchError): string {
  const hint =
    e.code === 'unreachable'
      ? 'is the server up and listening there? (firedup wait server.log --url URL waits until it is ready)'
      : e.code === 'no_model'
        ? 'give the model name with --model'
        : 'is it an OpenAI-compatible server? give --model to skip /v1/models';
  return `bench run: --url ${url}: ${e.message}; ${hint}`;
}

function serverLine(s: ServerInfo): string | null {
  if (!s.engine) return null;
  return `${s.engine}${s.version ? ` ${s.version}` : ''}${s.config ? ' (config recorded)' : ''}`;
}

export async function benchRunCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    // Wrapped once, here, to the terminal (100 columns at most, as the other commands' help): a flag's
    // description continues under the flags, prose under itself.
    const w = Math.min(100, outputWidth() ?? 100);
    const text = BENCH_RUN_HELP.split('\n').flatMap((l) =>
      wrapLine(l, w, /^ {2}\S+ +--| {11}--/.test(l) ? ' '.repeat(13) : '  '),
    );
    process.stdout.write(text.join('\n'));
    return 0;
  }
  const opts = parseRunFlags(argv);
  const base = opts.url.origin;
  const abort = new AbortController();
  let interrupts = 0;
  const onSig = () => {
    // The first Ctrl-C stops sending and cancels what is in flight; a second leaves at once.
    if (++interrupts > 1) process.exit(130);
    abort.abort();
  };
  process.on('SIGINT', onSig);
  const tty = Boolean(process.stderr.isTTY);
  const progress = tty ? progressPrinter(process.stderr) : null;
  let measured: Measured;
  try {
    measured = await measureServer(
      base,
      { ...opts.plan, model: opts.model ?? null },
      { signal: abort.signal, onProgress: progress ? (p) => progress.update(p) : undefined },
      (e) => benchErrorLine(base, e),
    );
  } finally {
    progress?.clear();
    process.off('SIGINT', onSig);
  }
  const { model, server, result } = measured;
  const json = Boolean(opts.flags.json);
  const st = makeStyle(!json && colorWanted(process.stdout, Boolean(opts.flags['no-color'])));
  const useLedger = !opts.flags['no-ledger'] && process.env.FIREDUP_LEDGER !== 'off' && !result.interrupted;
  const anyOk = result.levels.some((l) => l.metrics.completed > 0);
  const rec: Recorded =
    useLedger && anyOk
      ? await withLedger(opts.flags, (l) => recordBenchRun(l, opts, result, server))
      : {
          launch: null,
          benches: [],
          why: result.interrupted ? 'interrupted' : anyOk ? 'ledger off' : 'no request succeeded',
        };
  if (json) {
    process.stdout.write(
      `${JSON.stringify({
        url: base,
        model,
        endpoint: result.endpoint,
        prompts: opts.promptsFrom,
        server,
        interrupted: result.interrupted,
        levels: result.levels.map((l) => levelJson(l.metrics, l.startedAt, l.endedAt)),
        ledger: rec.launch ? { launch: rec.launch.id, benches: rec.benches } : null,
        notRecorded: rec.launch || rec.benches.length ? null : rec.why,
        unattached: !rec.launch && rec.benches.length ? { benches: rec.benches, why: rec.why } : null,
      })}\n`,
    );
  } else {
    process.stdout.write(
      formatResults(
        result,
        { promptsFrom: opts.promptsFrom, server: serverLine(server), maxFailedRate: opts.maxFailedRate },
        st,
      ),
    );
    if (rec.launch)
      process.stdout.write(
        `\n  recorded: bench ${rec.benches.map((b) => `#${b}`).join(', ')} → launch ${st.bold(shortId(rec.launch.id))} (${rec.launch.model ?? '?'} on ${rec.launch.host}${rec.launch.port ? `:${rec.launch.port}` : ''})\n`,
      );
    else if (useLedger && anyOk && rec.benches.length)
      process.stdout.write(
        `\n  not attached: ${rec.why}\n  ${st.dim(`kept as bench ${rec.benches.map((b) => `#${b}`).join(', ')} without a launch: firedup bench attach ${rec.benches[0]} LAUNCH places it (firedup bench list shows it)`)}\n`,
      );
    else if (useLedger && anyOk) process.stdout.write(`\n  ${st.dim(`not recorded: ${rec.why}`)}\n`);
  }
  if (result.interrupted) return 130;
  return anyOk ? 0 : 1;
}
