/**
 * The /metrics page against a real Prometheus (Debian's, installed when missing): it scrapes `firedup serve`
 * watching a replayed launch that gets stuck loading, and its query API must show the stall. The example
 * alert rules are checked and unit-tested with promtool.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';
import { ensurePrometheus, PROMTOOL, startPrometheus, type TestPrometheus } from '../prometheus.js';
import { request, type Served, serve } from './serve-helpers.js';

const ALERTS = path.join(ROOT, 'examples', 'prometheus', 'alerts.yml');
const SCRAPE_EXAMPLE = path.join(ROOT, 'examples', 'prometheus', 'prometheus.yml');
const skip = ensurePrometheus();

describe('Prometheus', { skip: skip ?? false }, () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('promtool accepts the example alert rules and scrape config', () => {
    const rules = spawnSync(PROMTOOL, ['check', 'rules', ALERTS], { encoding: 'utf8' });
    assert.equal(rules.status, 0, rules.stdout + rules.stderr);
    assert.match(rules.stdout, /SUCCESS: 4 rules found/);
    const config = spawnSync(PROMTOOL, ['check', 'config', SCRAPE_EXAMPLE], { encoding: 'utf8' });
    assert.equal(config.status, 0, config.stdout + config.stderr);
  });

  it('the alerts fire as described: stalled after 2 minutes, crashed at once, with the labels in their text', () => {
    const labels = 'target="glm5-a",host="gpu-a",model="GLM-5",engine="sglang"';
    const exp = { target: 'glm5-a', host: 'gpu-a', model: 'GLM-5', engine: 'sglang' };
    const tests = path.join(dir, 'alerts.test.yml');
    fs.writeFileSync(
      tests,
      JSON.stringify({
        rule_files: [ALERTS],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: [
              { series: `firedup_stalled{${labels}}`, values: '0 1 1 1 1 1' },
              { series: `firedup_phase{${labels},phase="loading_weights"}`, values: '1 1 1 1 1 1' },
              { series: `firedup_phase{${labels},phase="serving"}`, values: '0 0 0 0 0 0' },
              { series: `firedup_crashed{${labels}}`, values: '0 0 0 0 1 1' },
            ],
            alert_rule_test: [
              { eval_time: '2m', alertname: 'FiredupStalled', exp_alerts: [] },
              {
                eval_time: '4m',
                alertname: 'FiredupStalled',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'warning', ...exp },
                    exp_annotations: {
                      summary: 'glm5-a on gpu-a stalled in loading_weights',
                      description:
                        "GLM-5 (sglang) has shown no progress for longer than its phase allows, for more than 2 minutes. Run `firedup status` on the log, or open the dashboard's live page, for the evidence lines and what to check next (py-spy dump of the server's pid).",
                    },
                  },
                ],
              },
              { eval_time: '3m', alertname: 'FiredupCrashed', exp_alerts: [] },
              {
                eval_time: '4m',
                alertname: 'FiredupCrashed',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'critical', ...exp },
                    exp_annotations: {
                      summary: 'glm5-a on gpu-a crashed',
                      description:
                        'GLM-5 (sglang) crashed. `firedup status` on the log names the root cause (oom, nccl, cuda_error, ...) with its evidence lines and a hint.',
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const r = spawnSync(PROMTOOL, ['test', 'rules', tests], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  describe('scraping firedup serve', () => {
    let prom: TestPrometheus | undefined;
    let s: Served | undefined;

    after(async () => {
      await prom?.stop();
      assert.equal(await s?.stop(), 0);
    });

    it('a replayed launch stuck at shard 40/83: firedup_stalled 1 and firedup_phase{phase="loading_weights"} 1', async () => {
      const log = path.join(dir, 'stuck.log');
      fs.writeFileSync(log, '');
      // Replayed 20x faster, so budgets scaled by 0.1: loading's 20 s without a shard becomes 2 s.
      s = await serve(['--ledger', path.join(dir, 'ledger.db'), '--watch', log], {
        FIREDUP_BUDGET_SCALE: '0.1',
      });
      prom = await startPrometheus([`127.0.0.1:${s.port}`]);
      const replay = spawnCli(
        ['replay', path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), '--speed', '20', '--out', log],
        {},
        120_000,
      );
      const want = async (q: string) => (await prom!.query(q)).map((x) => [x.metric.target, x.value[1]]);
      let stalled: unknown[] = [];
      let phase: unknown[] = [];
      const deadline = Date.now() + 90_000;
      while (Date.now() < deadline) {
        stalled = await want('firedup_stalled');
        phase = await want('firedup_phase{phase="loading_weights"}');
        if (JSON.stringify(stalled) === JSON.stringify([['stuck.log', '1']])) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const rp = await replay.done;
      assert.equal(rp.code, 0, rp.stderr);
      assert.deepEqual(stalled, [['stuck.log', '1']], (await request(s.base, '/metrics')).body);
      assert.deepEqual(phase, [['stuck.log', '1']]);
      // The other series made it too, with their labels.
      const [up] = await prom.query('firedup_up');
      assert.deepEqual(
        { ...up!.metric, __name__: undefined, instance: undefined },
        {
          __name__: undefined,
          instance: undefined,
          job: 'firedup',
          target: 'stuck.log',
          host: 'localhost',
          model: 'lukealonso/GLM-5-NVFP4',
          engine: 'sglang',
        },
      );
      const [ratio] = await prom.query('firedup_load_progress_ratio');
      assert.equal(Number(ratio!.value[1]), 0.48);
      const serving = await prom.query('firedup_phase{phase="serving"}');
      assert.equal(serving[0]!.value[1], '0');
    });
  });
});
