/**
 * Lines any engine can print because they come from PyTorch, NCCL, the C runtime or the shell: tried after
 * the engine's own signatures.
 */
import type { Signature } from './types.js';

export const commonSignatures: Signature[] = [
  // c10d's own error lines: `[rank3]:[E421 04:13:43.4266 ProcessGroupGloo.cpp:143] ...`
  {
    id: 'c10d_error',
    kind: 'failure',
    lit: '.cpp:',
    re: /^(?:\[rank\d+\]:)?\[E\d{3,4}(?: [\d:.]+)?(?: \d+)? \w+\.cpp:\d+\] (.*)$/,
  },
  {
    id: 'nccl_watchdog',
    kind: 'failure',
    failure: 'nccl',
    lit: 'Watchdog caught collective operation timeout',
    re: /Watchdog caught collective operation timeout/,
  },
  {
    id: 'nccl_info',
    kind: 'phase',
    phase: 'dist_init',
    lit: 'NCCL INFO',
    re: /NCCL INFO (?:Bootstrap|NET\/|Init COMPLETE|comm 0x|cudaDriverVersion|NCCL version|Channel \d+|Connected all|Using network)/,
  },
  { id: 'killed', kind: 'consequence', lit: 'Killed', re: /^(?:\S+: line \d+: +\d+ )?Killed\b/ },
  {
    id: 'segfault',
    kind: 'failure',
    lit: 'ault',
    re: /^(?:Segmentation fault|Fatal Python error: (.*)|Bus error)(?: \(core dumped\))?/,
  },
];
