/** The dashboard's module table: every import a page makes is served, and the domain's names come from core. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { OUTCOMES, PHASES, STATE_ORDER } from '../../src/core/base/types.js';
import { LIVE_STATES } from '../../src/core/verdict/verdict.js';
import { domainModule, readStatic, staticTable } from '../../src/web/static.js';
import { ROOT } from '../helpers.js';

const WEB = path.join(ROOT, 'web');

function jsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return jsFiles(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

describe('the dashboard static table', () => {
  it('serves every module a page imports, at the URL the import resolves to', async () => {
    const table = staticTable(WEB);
    const files = [path.join(WEB, 'app.js'), ...jsFiles(path.join(WEB, 'js'))];
    let imports = 0;
    for (const file of files) {
      const url = `/assets/${path.relative(WEB, file).replace(/^app\.js$/, 'app.js')}`;
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bfrom\s+'(\.[^']+)'/g)) {
        const target = new URL(m[1]!, `http://x${url}`).pathname;
        const entry = table.get(target);
        assert.ok(
          entry,
          `${path.relative(ROOT, file)} imports ${m[1]} (${target}), which the server does not serve`,
        );
        assert.ok(await readStatic(entry), target);
        imports++;
      }
    }
    assert.ok(imports > 10, `only ${imports} imports found`);
  });

  it('domain.js carries the core phase order, outcomes and live states', async () => {
    const text = domainModule().toString();
    const mod = await import(`data:text/javascript;base64,${Buffer.from(text).toString('base64')}`);
    assert.deepEqual([...mod.PHASES], [...PHASES]);
    assert.deepEqual([...mod.OUTCOMES], [...OUTCOMES]);
    assert.deepEqual([...mod.LIVE_STATES], [...LIVE_STATES]);
    assert.deepEqual([...mod.STATE_ORDER], [...STATE_ORDER]);
    // No page keeps a second copy of the phase list.
    for (const file of jsFiles(path.join(WEB, 'js')))
      assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /'loading_weights',\s*'weights_loaded'/, file);
  });
});
