/**
 * JSON log records whose message or exception field holds a traceback with escaped newlines (json-record.ts), on
 * made-up records of each logger's shape: tracing_subscriber's json formatter (TGI --json-output),
 * python-json-logger (`message`, `exc_info`), structlog's JSONRenderer (`event`, `exception`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { logicalSegments } from '../../../src/core/lines/clean.js';
import { jsonRecordLines } from '../../../src/core/lines/json-record.js';
import { analyzeText } from '../../helpers.js';

const TB = [
  'Traceback (most recent call last):',
  '  File "/srv/app/main.py", line 3, in <module>',
  '    run()',
  'ValueError: bad "thing"',
].join('\n');

describe('JSON log records', () => {
  it("python-json-logger's exc_info and structlog's exception come back as the lines they encode", () => {
    const pj = JSON.stringify({ levelname: 'ERROR', message: 'start failed', exc_info: TB });
    assert.deepEqual(jsonRecordLines(pj), ['start failed', ...TB.split('\n')]);
    const sl = JSON.stringify({ event: 'boom', level: 'error', exception: TB });
    assert.deepEqual(
      jsonRecordLines(`2025-01-02T03:04:05Z stdout F ${sl}`)?.[1],
      '2025-01-02T03:04:05Z stdout F Traceback (most recent call last):',
    );
    // `"None"` where the logger had no exception, and no newline in the message: the record stays as it is
    const none = JSON.stringify({ message: 'ok', exc_info: 'None', stack_info: 'None' });
    assert.equal(jsonRecordLines(none), null);
    assert.deepEqual(logicalSegments(none), [none]);
  });

  it("tracing's json record comes back in the plain formatter's shape, its message's lines after it", () => {
    const rec = JSON.stringify({
      timestamp: '2025-01-02T03:04:05.123456Z',
      level: 'ERROR',
      fields: { message: `Shard complete standard error output:\n\n${TB}` },
      target: 'text_generation_launcher',
      span: { rank: 0, name: 'shard-manager' },
    });
    const lines = jsonRecordLines(rec)!;
    assert.equal(
      lines[0],
      '2025-01-02T03:04:05.123456Z ERROR text_generation_launcher: Shard complete standard error output:',
    );
    assert.equal(lines.at(-1), 'ValueError: bad "thing"');
    const r = analyzeText(lines.length ? rec : '');
    assert.equal(r.launches.at(-1)?.outcome, 'crashed');
  });

  it("a record cut by the paste still gives its traceback's lines; Docker's json-file records are not this", () => {
    const cut = `{"level": "ERROR", "message": "", "exc_info": "${JSON.stringify(TB).slice(1, 80)}`;
    const lines = jsonRecordLines(cut)!;
    assert.equal(lines[1], 'Traceback (most recent call last):');
    assert.ok(lines[2]?.startsWith('  File "/srv/app/main.py", line 3'));
    const docker = JSON.stringify({ log: 'INFO hello\n', stream: 'stdout', time: '2025-01-02T03:04:05Z' });
    assert.equal(jsonRecordLines(docker), null);
  });
});
