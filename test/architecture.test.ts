/**
 * The layers' rules (.dependency-cruiser.cjs) hold on src/: imports point down (faces → app → I/O layers → core →
 * errors), with the few exceptions the config names, and no cycles there or among the dashboard's modules (web/),
 * not even one closed by `import type`; no dashboard file is over 400 lines (scripts/web-file-lines.mjs). A
 * violation fails the suite, as it fails `npm run arch`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MODULES } from '../src/web/static.js';
import { ROOT, tmpDir } from './helpers.js';

const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const WEB_FILE_LINES = path.join(ROOT, 'scripts', 'web-file-lines.mjs');

function cruise(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [DEPCRUISE, '--config', CONFIG, '--output-type', 'err', 'src', 'web'],
    {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function webFileLines(cwd: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [WEB_FILE_LINES], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('architecture', () => {
  it('every import in src/ follows the layers (dependency-cruiser, .dependency-cruiser.cjs)', () => {
    const r = cruise(ROOT);
    assert.equal(r.status, 0, r.out);
  });

  it('the rules catch an import that points up, I/O in the core, a face importing the other, a cycle (even of types), a core stage importing a later one', () => {
    const dir = tmpDir();
    const put = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    put(
      'tsconfig.json',
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    );
    put('src/errors.ts', 'export class UsageError extends Error {}\n');
    put(
      'src/core/a.ts',
      "import fs from 'node:fs';\nimport { b } from '../cli/b.js';\nexport const a = [fs, b];\n",
    );
    put('src/cli/b.ts', 'export const b = 1;\n');
    put('src/web/c.ts', "import { b } from '../cli/b.js';\nexport const c = b;\n");
    put('src/store/d.ts', "import { e } from '../app/e.js';\nexport const d = e;\n");
    put('src/mcp/g.ts', "import { b } from '../cli/b.js';\nexport const g = b;\n");
    // A cycle closed only by `import type` is a cycle too, and so is one among the dashboard's modules.
    put('src/app/e.ts', "import type { F } from './f.js';\nexport type E = F | 1;\n");
    put('src/app/f.ts', "import type { E } from './e.js';\nexport type F = () => E;\n");
    put('web/js/router.js', "import { page } from './pages/page.js';\nexport const route = () => page;\n");
    put('web/js/pages/page.js', "import { route } from '../router.js';\nexport const page = () => route;\n");
    // The core's stages: base importing the reading (a later stage), a module lying loose in src/core/.
    put('src/core/base/g.ts', "import { h } from '../reading/h.js';\nexport const g = h;\n");
    put('src/core/reading/h.ts', "import { loose } from '../loose.js';\nexport const h = loose;\n");
    put('src/core/loose.ts', 'export const loose = 1;\n');
    const r = cruise(dir);
    assert.notEqual(r.status, 0, r.out);
    for (const rule of [
      'core-imports-only-core',
      'core-has-no-io',
      'faces-do-not-import-each-other',
      'lower-layers-import-core-only',
      'mcp-is-a-face',
      'no-cycles',
      'core-stages-point-down',
      'core-is-in-stage-folders',
    ])
      assert.match(r.out, new RegExp(`${rule}:`), `${rule} not reported:\n${r.out}`);
    assert.match(r.out, /no-cycles: src\/app\/e\.ts/, r.out);
    assert.match(r.out, /no-cycles: web\/js\//, r.out);
  });
});

describe('dashboard file size', () => {
  it('no file of web/ is over 400 lines', () => {
    const r = webFileLines(ROOT);
    assert.equal(r.status, 0, r.out);
  });

  it('a file over 400 lines is named, with its count, in one line', () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, 'web', 'js', 'pages'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'web', 'js', 'pages', 'big.js'), 'export const x = 1;\n'.repeat(401));
    fs.writeFileSync(path.join(dir, 'web', 'js', 'small.js'), 'export const y = 1;\n'.repeat(400));
    const r = webFileLines(dir);
    assert.equal(r.status, 1, r.out);
    assert.equal(r.out, 'web-file-lines: web/js/pages/big.js: 401 lines, over 400: split it by job\n');
  });
});

describe('dashboard modules', () => {
  it('every ES module the dashboard imports is one the server serves (MODULES), and none is left unused', () => {
    const web = path.join(ROOT, 'web');
    const seen = new Set<string>();
    const visit = (file: string) => {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^import (?:[^;]*? from )?'(\.[^']+)';/gm)) {
        const target = path.resolve(path.dirname(file), m[1]!);
        const rel = path.relative(path.join(web, 'js'), target).replace(/\.js$/, '');
        // domain.js is no file: the server generates it from src/core (static.ts, domainModule).
        if (rel === 'domain' || seen.has(rel)) continue;
        seen.add(rel);
        visit(target);
      }
    };
    visit(path.join(web, 'app.js'));
    assert.deepEqual([...seen].sort(), [...MODULES].sort());
  });
});
