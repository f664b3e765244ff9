import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, tmpDir } from '../../helpers.js';

/** The WebAssembly embedded in src/core/base/bulk-wasm.ts must be what assembly/bulk.ts compiles to. */
describe('the embedded bulk reader', () => {
  it('is up to date with assembly/bulk.ts (npm run build:wasm)', async () => {
    const dir = tmpDir();
    const out = path.join(dir, 'bulk.wasm');
    try {
      const { compileBulkWasm } = await import(path.join(ROOT, 'scripts', 'lib', 'wasm.mjs'));
      compileBulkWasm(ROOT, out);
      const built = fs.readFileSync(out).toString('base64');
      const embedded = fs
        .readFileSync(path.join(ROOT, 'src/core/base/bulk-wasm.ts'), 'utf8')
        .match(/'([A-Za-z0-9+/=]+)'/g)!
        .map((x) => x.slice(1, -1))
        .join('');
      assert.equal(embedded, built, 'src/core/base/bulk-wasm.ts is stale: run npm run build:wasm');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
