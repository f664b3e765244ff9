import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  gpuActivity,
  parseComputeApps,
  parseGpuQuery,
  parseSmiNumber,
} from '../../../src/core/verdict/gpu.js';
import type { GpuObservation } from '../../../src/core/verdict/observations.js';
import { SHARED } from '../../helpers.js';

// Captured on one H200 (driver 580.159.04), idle and then running a matmul loop.
const fixture = (name: string) => fs.readFileSync(path.join(SHARED, 'nvidia-smi-h200', name), 'utf8');

// The capture's query, wider than the probe's: the header-less capture needs its columns named.
const CAPTURE_FIELDS = [
  'index',
  'uuid',
  'name',
  'pci.bus_id',
  'memory.used',
  'memory.total',
  'utilization.gpu',
  'power.draw',
  'power.limit',
  'temperature.gpu',
  'pstate',
  'clocks.current.sm',
];
const UUID = 'GPU-9aaf21c8-2d29-9475-e479-3d351a5e41b7';

const obs = (csv: string, at: number): GpuObservation => ({
  gpus: parseGpuQuery(csv, at),
  apps: [],
  error: null,
  at,
});

describe('parseGpuQuery', () => {
  it('reads the idle capture with its header and units', () => {
    assert.deepEqual(parseGpuQuery(fixture('idle-query.csv'), 1), [
      {
        index: 0,
        uuid: UUID,
        name: 'NVIDIA H200',
        memUsedMiB: 0,
        memTotalMiB: 143771,
        utilPct: 0,
        powerW: 78.13,
        powerLimitW: 700,
      },
    ]);
  });

  it('reads the busy capture', () => {
    const [g] = parseGpuQuery(fixture('busy-query.csv'), 1);
    assert.equal(g?.memUsedMiB, 39159);
    assert.equal(g?.utilPct, 100);
    assert.equal(g?.powerW, 690.85);
  });

  it('reads header-less, unit-less output by the columns it was asked for', () => {
    const [g] = parseGpuQuery(fixture('idle-query-nounits.csv'), 1, CAPTURE_FIELDS);
    assert.equal(g?.uuid, UUID);
    assert.equal(g?.memTotalMiB, 143771);
    assert.equal(g?.utilPct, 0);
    assert.equal(g?.powerW, 78.12);
  });

  it("reads the probe's own query output (noheader,nounits, 8 columns)", () => {
    const csv =
      `0, ${UUID}, NVIDIA H200, 0, 143771, 0, 78.13, 700.00\n` +
      `1, GPU-1111, NVIDIA H200, 81000, 143771, 97, 650.10, 700.00\n`;
    const gpus = parseGpuQuery(csv, 1);
    assert.deepEqual(
      gpus.map((g) => [g.index, g.memUsedMiB, g.utilPct]),
      [
        [0, 0, 0],
        [1, 81000, 97],
      ],
    );
  });

  it("reads a second H200's answer to the probe's exact query (idle at 126 W: no wattage means idle)", () => {
    // Printed by nvidia-smi 580 for GPU_QUERY_FIELDS with --format=csv,noheader,nounits.
    const now: GpuObservation = {
      gpus: parseGpuQuery(
        '0, GPU-250888dd-9645-39b6-9c0a-f41bbf843218, NVIDIA H200, 0, 143771, 0, 126.15, 700.00\n',
        2,
      ),
      apps: [],
      error: null,
      at: 2,
    };
    assert.equal(now.gpus[0]?.powerW, 126.15);
    assert.equal(gpuActivity(now, now)?.busy, false);
  });

  it('turns [N/A] and [Not Supported] into null, and drops rows it cannot map', () => {
    const csv =
      `0, ${UUID}, NVIDIA H200, 10, 143771, [N/A], [Not Supported], [N/A]\n` +
      `1, GPU-2, NVIDIA H200, [N/A], 143771, 0, 70, 700\n` + // no memory: would read as an empty GPU
      `2, GPU-3, short row\n`;
    const gpus = parseGpuQuery(csv, 1);
    assert.equal(gpus.length, 1);
    assert.equal(gpus[0]?.utilPct, null);
    assert.equal(gpus[0]?.powerW, null);
    assert.equal(gpus[0]?.powerLimitW, null);
  });

  it('reads no GPU from an error message', () => {
    assert.deepEqual(
      parseGpuQuery("NVIDIA-SMI has failed because it couldn't communicate with the driver", 1),
      [],
    );
  });

  it('parses numbers with units and rejects bracketed values', () => {
    assert.equal(parseSmiNumber('39159 MiB'), 39159);
    assert.equal(parseSmiNumber('100 %'), 100);
    assert.equal(parseSmiNumber(' 78.13 W '), 78.13);
    assert.equal(parseSmiNumber('[N/A]'), null);
    assert.equal(parseSmiNumber('[Insufficient Permissions]'), null);
  });
});

describe('parseComputeApps', () => {
  it('reads the busy capture (header says used_gpu_memory, the query says used_memory)', () => {
    assert.deepEqual(parseComputeApps(fixture('busy-apps.csv')), [
      { pid: 426, name: 'python3', gpuUuid: UUID, usedMiB: 39150 },
    ]);
  });

  it('reads an idle GPU as no processes: a header alone, or nothing', () => {
    assert.deepEqual(parseComputeApps(fixture('idle-apps.csv')), []);
    assert.deepEqual(parseComputeApps(''), []);
    assert.deepEqual(parseComputeApps('No running processes found\n'), []);
  });

  it("reads the probe's exact query output while a process holds the GPU", () => {
    assert.deepEqual(parseComputeApps('447, python3, GPU-250888dd-9645-39b6-9c0a-f41bbf843218, 1386\n'), [
      { pid: 447, name: 'python3', gpuUuid: 'GPU-250888dd-9645-39b6-9c0a-f41bbf843218', usedMiB: 1386 },
    ]);
  });

  it('reads noheader,nounits rows', () => {
    assert.deepEqual(parseComputeApps(`426, python3, ${UUID}, 39150\n427, python3, ${UUID}, [N/A]\n`), [
      { pid: 426, name: 'python3', gpuUuid: UUID, usedMiB: 39150 },
      { pid: 427, name: 'python3', gpuUuid: UUID, usedMiB: null },
    ]);
  });
});

describe('gpuActivity', () => {
  const idle = obs(fixture('idle-query.csv'), 100);
  const idle2: GpuObservation = {
    gpus: parseGpuQuery(fixture('idle-query-nounits.csv'), 105, CAPTURE_FIELDS),
    apps: [],
    error: null,
    at: 105,
  };
  const busy = obs(fixture('busy-query.csv'), 110);

  it('idle → idle is not busy, though the H200 draws 78 W doing nothing', () => {
    assert.ok((idle2.gpus[0]?.powerW ?? 0) > 70);
    const a = gpuActivity(idle, idle2);
    assert.equal(a?.busy, false);
    assert.equal(a?.memoryMoving, false);
    assert.match(a?.reason ?? '', /under 5%, memory steady/);
  });

  it('idle → busy is busy, by utilisation and by memory', () => {
    const a = gpuActivity(idle, busy);
    assert.equal(a?.busy, true);
    assert.equal(a?.memoryMoving, true);
    assert.match(a?.reason ?? '', /GPU 0 at 100%/);
    assert.match(a?.reason ?? '', /GPU 0 memory 0 → 39159 MiB/);
  });

  it('memory moving at 0% utilisation (weights being copied in) is busy', () => {
    const loading = obs(fixture('idle-query.csv'), 105);
    loading.gpus = loading.gpus.map((g) => ({ ...g, memUsedMiB: 20000, utilPct: 0 }));
    const a = gpuActivity(idle, loading);
    assert.deepEqual([a?.busy, a?.memoryMoving], [true, true]);
  });

  it('memory noise under 256 MiB is not movement', () => {
    const drift = obs(fixture('idle-query.csv'), 105);
    drift.gpus = drift.gpus.map((g) => ({ ...g, memUsedMiB: 200 }));
    assert.equal(gpuActivity(idle, drift)?.busy, false);
  });

  it('judges utilisation alone without an earlier sample', () => {
    assert.equal(gpuActivity(null, busy)?.busy, true);
    assert.equal(gpuActivity(null, busy)?.memoryMoving, false);
    assert.match(gpuActivity(null, idle)?.reason ?? '', /no earlier sample/);
  });

  it('cannot tell when nvidia-smi failed or is missing', () => {
    assert.equal(gpuActivity(idle, null), null);
    assert.equal(
      gpuActivity(idle, { gpus: [], apps: [], error: 'nvidia-smi not found on PATH', at: 1 }),
      null,
    );
  });

  it('a failed earlier sample only loses the memory comparison', () => {
    const failed: GpuObservation = { gpus: [], apps: [], error: 'timeout', at: 1 };
    assert.equal(gpuActivity(failed, idle)?.busy, false);
    assert.equal(gpuActivity(failed, busy)?.busy, true);
  });
});
