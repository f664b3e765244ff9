/** Which launches of an appended-to log are the new server's, from where the log ended before it started. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { earlierRuns } from '../../../src/core/campaign/run-boundary.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { LaunchReport } from '../../../src/core/reading/report.js';
import { analyzeText } from '../../helpers.js';

/** As `firedup launch` reads a llama-server log: the engine known from the command. */
function llamaLaunches(text: string): LaunchReport[] {
  const a = new LogAnalyzer({ engine: 'llamacpp' });
  a.push(Buffer.from(text));
  return a.end().launches;
}

const LLAMA = [
  '0.00.013.276 I srv  llama_server: initializing ...',
  "0.00.141.946 I srv    load_model: loading model '/m/tiny.gguf'",
  '0.00.181.350 I srv  llama_server: model loaded',
  '0.00.189.589 I srv  llama_server: listening on http://127.0.0.1:18099',
  '0.07.870.967 I srv    operator(): operator(): cleaning up before exit...',
].join('\n');

/** The line number at byte `from` of `text`, counted as the CLI counts it. */
const lineAt = (text: string, from: number) => () => text.slice(0, from).split('\n').length;

describe('earlierRuns', () => {
  it('a relaunch after a finished launch: the old launch is earlier, the new one ours', () => {
    const old = `${LLAMA}\n`;
    const text = `${old}${LLAMA}\n`;
    const ls = analyzeText(text).launches;
    assert.equal(ls.length, 2);
    assert.equal(earlierRuns(ls, old.length, lineAt(text, old.length)), 1);
  });

  it('before the new server wrote a launch line, every launch is earlier', () => {
    const text = `${LLAMA}\n`;
    const ls = analyzeText(text).launches;
    assert.equal(earlierRuns(ls, text.length, lineAt(text, text.length)), 1);
  });

  it('old lines that never made a launch fold into the new one, which is then ours', () => {
    const old = 'starting the server, see you soon\n';
    const text = `${old}${LLAMA}\n`;
    const ls = llamaLaunches(text);
    assert.equal(ls.length, 1);
    assert.ok(ls[0]!.startOffset < old.length);
    assert.equal(earlierRuns(ls, old.length, lineAt(text, old.length)), 0);
  });

  it('a launch that got somewhere before the new output began stays earlier', () => {
    const old = `${LLAMA.split('\n').slice(0, 2).join('\n')}\n`;
    const text = `${old}some line of the new server\n`;
    const ls = llamaLaunches(text);
    assert.equal(ls.length, 1);
    assert.equal(earlierRuns(ls, old.length, lineAt(text, old.length)), 1);
  });
});
