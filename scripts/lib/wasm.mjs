// How assembly/bulk.ts is compiled: shared by scripts/build-wasm.mjs and the test that checks the
// embedded module is current.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export function compileBulkWasm(root, outFile) {
  const asc = path.join(root, 'node_modules', 'assemblyscript', 'bin', 'asc.js');
  // Static data (string literals) at 9216: between the regions assembly/bulk.ts lays out by hand (its memory map).
  const args = [
    asc,
    'assembly/bulk.ts',
    '-O3',
    '--runtime',
    'stub',
    '--noAssert',
    // SIMD (16 bytes per step in the line scanners): in every Node since 16.4
    '--enable',
    'simd',
    '--memoryBase',
    '9216',
    '--outFile',
    outFile,
  ];
  execFileSync(process.execPath, args, { cwd: root, stdio: 'pipe' });
}
