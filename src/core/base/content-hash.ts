/**
 * A 128-bit hash of some bytes, for telling whether a log's first bytes (and those before where the last read
 * stopped) are still the ones read then: app/ingest.ts keeps it in the ledger. The loop is the bulk wasm
 * module's (assembly/bulk.ts, hash128: XXH64's round in four lanes), which runs at memory speed from the first
 * call; SHA-256 would need node:crypto (~2 ms to load at each `firedup status`) or, in JS, ~10 ms for 64 KiB
 * before V8 optimises it. Not cryptographic: an accidental change goes unseen with a chance of about 2^-64.
 * The text is `h128:` and 32 hex digits, which no older ledger entry has (those hold a SHA-256's 64 digits).
 */
import { bulkInstance } from './bulk-instance.js';

interface HashExports {
  memory: WebAssembly.Memory;
  hash128(start: number, end: number): void;
}

/** Where the bytes go in the instance's memory (assembly/bulk.ts IN: its own instance, nothing else there). */
const IN = 524288;
export const CONTENT_HASH_PREFIX = 'h128:';

let hasher: HashExports | null = null;

export function contentHash(bytes: Uint8Array): string {
  hasher ??= bulkInstance() as unknown as HashExports;
  const x = hasher;
  const need = IN + bytes.length - x.memory.buffer.byteLength;
  if (need > 0) x.memory.grow(Math.ceil(need / 65536));
  new Uint8Array(x.memory.buffer, IN, bytes.length).set(bytes);
  x.hash128(IN, IN + bytes.length);
  const out = new Uint8Array(x.memory.buffer, 0, 16);
  let hex = CONTENT_HASH_PREFIX;
  for (let i = 0; i < 16; i++) hex += out[i]!.toString(16).padStart(2, '0');
  return hex;
}
