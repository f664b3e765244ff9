/**
 * Finds the `============ Serving Benchmark Result ============` blocks that `sglang.bench_serving` and
 * `vllm bench serve` print, and reads their `{:<40} {:<10}` rows. The two tools share the layout; which tool
 * printed a block is decided from its rows (sglang.ts, vllm.ts).
 */
import { parseCallRepr } from '../../config/pyrepr.js';

export interface TextBlock {
  /** Row values keyed by the lower-cased label without its colon: `output token throughput (tok/s)`. */
  rows: Map<string, string>;
  /** 1-based lines of the header and of the last line of the block. */
  startLine: number;
  endLine: number;
  /** The block's own text, header to closing rule: what the run's fingerprint is computed from. */
  text: string;
  /** The last `Namespace(...)` (the tool's arguments, printed before the run) seen before the block, if any. */
  args: Record<string, unknown> | null;
}

const HEADER = /^=+\s*Serving Benchmark Result\s*=+$/;
const CLOSE = /^={10,}$/;
const SECTION = /^-{3,}[^-].*-{3,}$/;
const ROW = /^([A-Za-z#][^:]*?):\s+(\S(?:.*\S)?)$/;
// Terminal colours and tqdm's carriage-return redraws: only what the line finally showed counts.
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

function clean(raw: string): string {
  const cr = raw.lastIndexOf('\r', raw.length - 2);
  return (cr >= 0 ? raw.slice(cr + 1) : raw).replace(ANSI, '').replace(/\r$/, '').trim();
}

function namespaceOf(line: string): Record<string, unknown> | null {
  const i = line.indexOf('Namespace(');
  if (i < 0) return null;
  const call = parseCallRepr(line.slice(i));
  return call ? call.fields : null;
}

export function textBlocks(text: string): TextBlock[] {
  const lines = text.split('\n');
  const out: TextBlock[] = [];
  let args: Record<string, unknown> | null = null;
  let cur: (TextBlock & { raw: string[] }) | null = null;
  const finish = (endLine: number) => {
    if (!cur) return;
    cur.endLine = endLine;
    cur.text = cur.raw.join('\n');
    const { raw: _raw, ...block } = cur;
    out.push(block);
    cur = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = clean(lines[i]!);
    if (HEADER.test(line)) {
      finish(i);
      cur = { rows: new Map(), startLine: i + 1, endLine: i + 1, text: '', args, raw: [line] };
      continue;
    }
    if (!cur) {
      args = namespaceOf(line) ?? args;
      continue;
    }
    const block: TextBlock & { raw: string[] } = cur;
    if (CLOSE.test(line)) {
      block.raw.push(line);
      finish(i + 1);
      continue;
    }
    if (SECTION.test(line)) {
      block.raw.push(line);
      continue;
    }
    const m = ROW.exec(line);
    // Anything else ends a block whose closing rule never came (the run was cut off, or output interleaved).
    if (!m) {
      finish(i);
      args = namespaceOf(line) ?? args;
      continue;
    }
    block.raw.push(line);
    block.rows.set(m[1]!.trim().toLowerCase(), m[2]!);
  }
  finish(lines.length);
  return out;
}
