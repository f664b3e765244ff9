/**
 * A log of many short SGLang launches, made line by line, and what the ledger-many-launches tests (local and
 * remote) read back of it.
 */
import assert from 'node:assert/strict';
import type { LedgerStore } from '../src/store/ledger-store.js';
import { openLedger } from '../src/store/open.js';
import type { LaunchFilter } from '../src/store/types.js';

const stamp = (s: number) =>
  new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString().slice(0, 19).replace('T', ' ');

/** One SGLang launch at second `t`: served, or (every seventh) out of memory while loading; tp changes now and then. */
export function launch(i: number): string {
  const t = i * 3;
  const at = (dt: number, msg: string) => `[${stamp(t + dt)}] ${msg}\n`;
  const head = at(
    0,
    `server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', tp_size=${1 + (Math.floor(i / 500) % 2)}, port=30000)`,
  );
  if (i % 7 === 3)
    return (
      head +
      at(0, 'Load weight begin. avail mem=78.50 GB') +
      at(1, 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB')
    );
  return (
    head +
    at(0, 'Load weight begin. avail mem=78.50 GB') +
    at(1, 'Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.21 GB') +
    at(1, 'The server is fired up and ready to roll!') +
    at(
      2,
      `Decode batch, #running-req: ${i % 50}, #token: 9000, token usage: 0.02, cuda graph: True, gen throughput (token/s): ${100 + (i % 997)}.25, #queue-req: 0, `,
    )
  );
}

export const logOf = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => launch(from + k)).join('');

/** `status --json` without its live verdict (the file's age differs from one read to the next). */
export const statusOf = (text: string) => {
  const { live: _, ...rest } = JSON.parse(text);
  return rest;
};

export async function withStore<T>(where: string, fn: (s: LedgerStore) => Promise<T>): Promise<T> {
  const s = await openLedger(where);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

/** Each launch recorded at a place: its start offset, id and last write, in file order. */
export function launchRows(where: string, at: LaunchFilter) {
  return withStore(where, async (s) =>
    (await s.listItems(at))
      .map((r) => ({ offset: r.startOffset, id: r.id, updatedAt: r.updatedAt }))
      .sort((a, b) => a.offset - b.offset),
  );
}

type LaunchRow = { offset: number; id: string; updatedAt: number };

/**
 * After one launch was appended to a log read before (`first`, its state saved at `savedAt`) and read again:
 * one row more, the earlier rows under their ids, and only the launch it closed and the new one written.
 */
export function assertOneAppended(after: LaunchRow[], first: LaunchRow[], savedAt: number): void {
  assert.equal(after.length, first.length + 1);
  assert.deepEqual(
    after.slice(0, first.length).map((r) => r.id),
    first.map((r) => r.id),
    'ids stable',
  );
  const rewritten = after.filter((r) => r.updatedAt > savedAt).map((r) => r.offset);
  assert.deepEqual(rewritten, [first.at(-1)!.offset, after.at(-1)!.offset]);
}
