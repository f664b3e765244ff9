import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, readShared } from '../helpers.js';

describe('secrets in server_args', () => {
  it('a real api_key in ServerArgs never reaches the report', () => {
    const log = readShared('scenarios/glm5-trtllm-oom-in-cuda-graph.log')
      .toString('utf8')
      .replace('api_key=None', "api_key='sk-live-ABCDEF1234567890abcdef'")
      .replace('admin_api_key=None', "admin_api_key='admin-secret-xyz'");
    assert.ok(log.includes('sk-live-ABCDEF1234567890abcdef'));
    const r = analyzeText(log);
    const json = JSON.stringify(r);
    assert.ok(!json.includes('sk-live-ABCDEF1234567890abcdef'), 'api key leaked');
    assert.ok(!json.includes('admin-secret-xyz'), 'admin key leaked');
    assert.equal(r.launches[0]!.config.api_key, '<redacted>');
  });

  it('vLLM non-default args with an api key are redacted too', () => {
    const r = analyzeText(
      "(APIServer pid=1) INFO 11-29 14:01:58 [utils.py:240] non-default args: {'model': 'Qwen/Qwen3-32B', 'api_key': ['tok-123456789'], 'tensor_parallel_size': 2}\n",
    );
    assert.ok(!JSON.stringify(r).includes('tok-123456789'));
    assert.equal(r.launches[0]!.configSummary.tp, 2);
  });
});
