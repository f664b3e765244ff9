/**
 * nvidia-smi's CSV output as GpuDevice / GpuApp rows, and whether the GPUs are working. Pure: the probe
 * (src/probes/gpu.ts) runs the command; this only reads text and compares two observations.
 */
import type { GpuApp, GpuDevice, GpuObservation } from './observations.js';

/** The columns the probe asks for, in this order (`--query-gpu=` + join(',')). */
export const GPU_QUERY_FIELDS = [
  'index',
  'uuid',
  'name',
  'memory.used',
  'memory.total',
  'utilization.gpu',
  'power.draw',
  'power.limit',
] as const;

/** The columns the probe asks for about processes (`--query-compute-apps=` + join(',')). */
export const APPS_QUERY_FIELDS = ['pid', 'process_name', 'gpu_uuid', 'used_memory'] as const;

/** Utilisation at or above this means a kernel ran during most of nvidia-smi's sample window. */
export const BUSY_UTIL_PCT = 5;
/** Memory moving by this much between two samples is an allocation (weights, KV cache), not noise. */
export const MEMORY_MOVE_MIB = 256;

// nvidia-smi prints some names differently in the header than in the query (`used_memory` comes back
// as `used_gpu_memory [MiB]`), and accepts a few aliases; both map to the name the parser looks up.
const ALIASES: Record<string, string> = { used_gpu_memory: 'used_memory', gpu_name: 'name' };

function canonical(header: string): string {
  const name = header.replace(/\s*\[[^\]]*\]\s*$/, '').trim();
  return ALIASES[name] ?? name;
}

// A header starts with a column name the probes ask for; a data row starts with a number, and
// "No running processes found" with neither.
const KNOWN = new Set<string>([...GPU_QUERY_FIELDS, ...APPS_QUERY_FIELDS]);

function splitRow(line: string): string[] {
  return line.split(',').map((f) => f.trim());
}

/**
 * A number from a field with or without its unit (`39159 MiB`, `100 %`, `78.13 W`); null for `[N/A]`,
 * `[Not Supported]`, `[Insufficient Permissions]` and anything else that is not a number.
 */
export function parseSmiNumber(field: string | undefined): number | null {
  if (field === undefined) return null;
  const m = /^(-?\d+(?:\.\d+)?)(?:\s*(?:MiB|GiB|%|W|MHz|C))?$/.exec(field.trim());
  return m ? Number(m[1]) : null;
}

function parseSmiText(field: string | undefined): string | null {
  if (field === undefined || field === '' || /^\[.*\]$/.test(field) || field === 'N/A') return null;
  return field;
}

/** Rows as objects keyed by canonical column name; a header line, when present, overrides `fields`. */
function readTable(csv: string, fields: readonly string[]): Array<Record<string, string>> {
  let columns = fields.map(canonical);
  const rows: Array<Record<string, string>> = [];
  for (const raw of csv.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    const cells = splitRow(raw);
    if (KNOWN.has(canonical(cells[0]!))) {
      columns = cells.map(canonical);
      continue;
    }
    // A row of another width belongs to a query this layout does not describe: guessing would put
    // the power draw where the memory goes.
    if (cells.length !== columns.length) continue;
    const row: Record<string, string> = {};
    columns.forEach((c, i) => {
      row[c] = cells[i]!;
    });
    rows.push(row);
  }
  return rows;
}

/**
 * The output of `nvidia-smi --query-gpu=<GPU_QUERY_FIELDS> --format=csv,noheader,nounits`, or the same
 * with the header line and units. Without a header the columns are `fields`. `at` is accepted so every
 * parser takes the sample time; a device row carries none of its own (the observation does).
 *
 * A row without a readable index, uuid or memory is dropped: the type promises numbers, and a made-up
 * 0 MiB would read as an empty, idle GPU.
 */
export function parseGpuQuery(
  csv: string,
  _at: number,
  fields: readonly string[] = GPU_QUERY_FIELDS,
): GpuDevice[] {
  const out: GpuDevice[] = [];
  for (const row of readTable(csv, fields)) {
    const index = parseSmiNumber(row.index);
    const uuid = parseSmiText(row.uuid);
    const memUsedMiB = parseSmiNumber(row['memory.used']);
    const memTotalMiB = parseSmiNumber(row['memory.total']);
    if (index === null || uuid === null || memUsedMiB === null || memTotalMiB === null) continue;
    out.push({
      index,
      uuid,
      name: parseSmiText(row.name) ?? '',
      memUsedMiB,
      memTotalMiB,
      utilPct: parseSmiNumber(row['utilization.gpu']),
      powerW: parseSmiNumber(row['power.draw']),
      powerLimitW: parseSmiNumber(row['power.limit']),
    });
  }
  return out;
}

/**
 * The output of `nvidia-smi --query-compute-apps=<APPS_QUERY_FIELDS> --format=csv,noheader,nounits`
 * (header and units tolerated). The pids are as the driver sees them: in a container they can be the
 * host's, not the ones /proc shows.
 */
export function parseComputeApps(csv: string, fields: readonly string[] = APPS_QUERY_FIELDS): GpuApp[] {
  const out: GpuApp[] = [];
  for (const row of readTable(csv, fields)) {
    const pid = parseSmiNumber(row.pid);
    if (pid === null) continue;
    out.push({
      pid,
      name: parseSmiText(row.process_name) ?? '',
      gpuUuid: parseSmiText(row.gpu_uuid) ?? '',
      usedMiB: parseSmiNumber(row.used_memory),
    });
  }
  return out;
}

export interface GpuActivity {
  busy: boolean;
  memoryMoving: boolean;
  reason: string;
}

/**
 * Whether the GPUs are working now: some GPU at BUSY_UTIL_PCT or more, or memory moving by
 * MEMORY_MOVE_MIB since `before`. Power draw is never used: idle draw differs by card (78 W on an idle
 * H200, 34 W on an idle RTX PRO 6000), so no wattage tells idle from busy. Null when `now` cannot tell
 * (missing, failed, or no GPU listed).
 */
export function gpuActivity(before: GpuObservation | null, now: GpuObservation | null): GpuActivity | null {
  if (!now || now.error !== null || now.gpus.length === 0) return null;
  const hot = now.gpus.filter((g) => g.utilPct !== null && g.utilPct >= BUSY_UTIL_PCT);
  const moves: string[] = [];
  const comparable = before !== null && before.error === null && before.gpus.length > 0;
  if (comparable) {
    for (const g of now.gpus) {
      // By uuid: indices can be renumbered by CUDA_VISIBLE_DEVICES on a remote, uuids cannot.
      const prev = before.gpus.find((p) => p.uuid === g.uuid);
      if (prev && Math.abs(g.memUsedMiB - prev.memUsedMiB) >= MEMORY_MOVE_MIB)
        moves.push(`GPU ${g.index} memory ${prev.memUsedMiB} → ${g.memUsedMiB} MiB`);
    }
  }
  const memoryMoving = moves.length > 0;
  const busy = hot.length > 0 || memoryMoving;
  const reasons: string[] = [];
  if (hot.length > 0) reasons.push(hot.map((g) => `GPU ${g.index} at ${g.utilPct}%`).join(', '));
  reasons.push(...moves);
  if (!busy) {
    const known = now.gpus.filter((g) => g.utilPct !== null).length;
    const util =
      known === 0
        ? 'utilisation not reported'
        : `${known === now.gpus.length ? 'all' : `${known} of`} ${now.gpus.length} GPU${now.gpus.length === 1 ? '' : 's'} under ${BUSY_UTIL_PCT}%`;
    reasons.push(`${util}, ${comparable ? 'memory steady' : 'no earlier sample to compare memory'}`);
  }
  return { busy, memoryMoving, reason: reasons.join('; ') };
}
