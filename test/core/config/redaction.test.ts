import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { redactArgv } from '../../../src/core/campaign/intended-env.js';
import { isSecretKey, redactText } from '../../../src/core/config/redact.js';
import { analyzeText, readShared, runCli, tmpDir } from '../../helpers.js';

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

describe('secrets by the shape of their value, and more secret names (issue 15, 1–3)', () => {
  const secrets = [
    'S3cr3tPassw0rd',
    'ghp_0123456789abcdefghijABCDEFGHIJ0123',
    'AKIAIOSFODNN7EXAMPLE',
    'tok-abcdef123456',
    'hunter2hunter2',
    '-Zq8abcdefgh12345',
  ];
  const log = [
    "[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=2)",
    '[2026-03-01 10:00:01] Connecting to postgres://svc:S3cr3tPassw0rd@db.internal:5432/runs',
    '[2026-03-01 10:00:02] Pushing with ghp_0123456789abcdefghijABCDEFGHIJ0123 to the model hub mirror',
    '[2026-03-01 10:00:03] using AKIAIOSFODNN7EXAMPLE for the checkpoint bucket',
    '[2026-03-01 10:00:04] extra: wandb_key=tok-abcdef123456 db_pass=hunter2hunter2',
    '[2026-03-01 10:00:05] relaunch with --api-key -Zq8abcdefgh12345 --port 30000',
    'Traceback (most recent call last):',
    '  File "/x/sglang/srt/managers/scheduler.py", line 1, in run',
    'RuntimeError: could not reach postgres://svc:S3cr3tPassw0rd@db.internal:5432/runs',
  ].join('\n');

  it('never reach the report: evidence, messages, config', () => {
    const json = JSON.stringify(analyzeText(`${log}\n`));
    for (const s of secrets) assert.ok(!json.includes(s), `${s} leaked`);
  });

  it('never reach the CLI output nor the ledger', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'server.log');
    const ledger = path.join(dir, 'ledger.db');
    fs.writeFileSync(file, `${log}\n`);
    for (const args of [
      ['status', file],
      ['status', '--json', file],
      ['runs', '--json', file],
    ]) {
      const r = runCli([...args, '--ledger', ledger]);
      for (const s of secrets) assert.ok(!r.stdout.includes(s), `${args.join(' ')}: ${s} leaked`);
    }
    const db = fs.readFileSync(ledger).toString('latin1');
    for (const s of secrets) assert.ok(!db.includes(s), `ledger: ${s} stored`);
  });

  it('names: *_pass, pgpassword, *_creds, api_keys, wandb_key, pass', () => {
    for (const k of ['db_pass', 'pgpassword', 'aws_creds', 'api_keys', 'wandb_key', 'pass', 'PGPASSWORD'])
      assert.ok(isSecretKey(k), k);
    for (const k of ['passes', 'num_passes', 'key_size', 'eos_token', 'password_file', 'bypass_cache'])
      assert.ok(!isSecretKey(k), k);
  });

  it('a flag value that begins with a dash is still a value; the next flag is not', () => {
    assert.deepEqual(redactArgv(['--api-key', '-Zq8abcdefgh12345', '--port', '1']), [
      '--api-key',
      '<redacted>',
      '--port',
      '1',
    ]);
    assert.deepEqual(redactArgv(['--api-key', '--port', '1']), ['--api-key', '--port', '1']);
    assert.equal(redactText('--api-key=-abc'), '--api-key=<redacted>');
  });
});
