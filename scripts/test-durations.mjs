/**
 * A node:test reporter that writes one line per test file, slowest first: the seconds its top-level tests
 * took (summed), the seconds from its first to its last event as seen here (setup included), its test
 * count, pass/FAIL and path. Used beside the usual reporter to find the files that set the suite's length:
 *   node scripts/run-tests.mjs --test-reporter=spec --test-reporter-destination=stdout \
 *     --test-reporter=./scripts/test-durations.mjs --test-reporter-destination=durations.txt
 * With FIREDUP_TEST_DURATIONS=FILE it appends its table to FILE instead (run-tests.mjs runs node --test twice,
 * and a reporter's own destination is written afresh each time).
 */
import fs from 'node:fs';

export default async function* durations(source) {
  const files = new Map();
  const fileOf = (data) => {
    const name = data.file;
    if (!files.has(name))
      files.set(name, { name, summed: 0, first: Date.now(), last: Date.now(), tests: 0, ok: true });
    const f = files.get(name);
    f.last = Date.now();
    return f;
  };
  for await (const event of source) {
    // The run's own diagnostics (totals) name no file.
    if (!event.data || typeof event.data !== 'object' || !event.data.file) continue;
    const f = fileOf(event.data);
    if (event.type === 'test:fail') f.ok = false;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      f.summed += (event.data.details?.duration_ms ?? 0) / 1000;
    }
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.details?.type !== 'suite')
      f.tests++;
  }
  const rows = [...files.values()].sort((a, b) => b.summed - a.summed);
  let table = '  tests  seen  tests result file\n';
  for (const f of rows) {
    const seen = (f.last - f.first) / 1000;
    table += `${f.summed.toFixed(1).padStart(7)} ${seen.toFixed(1).padStart(5)} ${String(f.tests).padStart(5)} ${f.ok ? 'ok  ' : 'FAIL'}   ${f.name}\n`;
  }
  const total = rows.reduce((s, f) => s + f.summed, 0);
  table += `${total.toFixed(1).padStart(7)} summed over ${rows.length} files\n`;
  if (process.env.FIREDUP_TEST_DURATIONS) fs.appendFileSync(process.env.FIREDUP_TEST_DURATIONS, table);
  else yield table;
}
