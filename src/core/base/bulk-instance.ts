/**
 * The bulk readers' wasm module (assembly/bulk.ts), compiled once; each reader gets its own instance. Its own
 * module so that the SGLang reader (bulk.ts) and the other engines' scanners (scan.ts) share it without
 * importing each other.
 */
import { BULK_WASM_BASE64 } from './bulk-wasm.js';

let compiled: WebAssembly.Module | null = null;

/** A new instance of the bulk wasm module (its own memory). */
export function bulkInstance(): Record<string, unknown> {
  compiled ??= new WebAssembly.Module(Buffer.from(BULK_WASM_BASE64, 'base64'));
  const instance = new WebAssembly.Instance(compiled, {
    env: {
      log: Math.log,
      abort: () => {
        throw new Error('bulk reader: wasm abort');
      },
    },
  });
  return instance.exports as Record<string, unknown>;
}
