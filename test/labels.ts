/**
 * Labeled logs (the corpus, test/fixtures/corpus/*, and the made-up synthetic sets, test/fixtures/synthetic/*): their
 * labels and the scorer's rules (../shared/tools/score.py), so that the suite reads them as the scorer does.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisReport } from '../src/core/reading/report.js';

export interface Label {
  id: string;
  engine: string;
  launches: number | null;
  outcome: string;
  last_phase: string;
  failure_class: string | null;
  evidence_line?: number | null;
  /** Synthetic only: the label is believed right and firedup still disagrees (run as todo). */
  open?: boolean;
}

/** A folder's labels, each with the path of its log (`<id's last part>.log`). */
export function readLabels(dir: string): Array<{ label: Label; file: string }> {
  return fs
    .readFileSync(path.join(dir, 'labels.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const label = JSON.parse(row) as Label;
      return { label, file: path.join(dir, `${label.id.split('-').pop()}.log`) };
    });
}

const EQ: Record<string, string> = { dist_init: 'args', autotune: 'compile' };
const ph = (p: string | null | undefined) => (p ? (EQ[p] ?? p) : p);

function expectedOutcomes(l: Label): string[] {
  if (l.outcome === 'ready') return ['ready', 'serving'];
  if (l.outcome === 'crashed') return l.evidence_line ? ['crashed'] : ['crashed', 'in_progress'];
  if (l.outcome === 'hung' || l.outcome === 'incomplete') return ['in_progress'];
  return [l.outcome];
}

export interface FieldScore {
  field: 'engine' | 'outcome' | 'phase' | 'failure_class' | 'launches';
  good: boolean;
  got: unknown;
  want: unknown;
}

/** Each scored field of a report's last launch against its label (failure class and launches only where labeled). */
export function scoreFields(label: Label, r: AnalysisReport): FieldScore[] {
  const last = r.launches.at(-1);
  const out: FieldScore[] = [
    // score.py: a log labelled `other` (a program that runs an engine inside it, Ollama) is right when firedup names
    // none of its engines
    {
      field: 'engine',
      good: r.engine === label.engine || (label.engine === 'other' && r.engine === null),
      got: r.engine,
      want: label.engine,
    },
  ];
  const exp = expectedOutcomes(label);
  out.push({ field: 'outcome', good: exp.includes(last?.outcome ?? ''), got: last?.outcome, want: exp });
  out.push({
    field: 'phase',
    good: ph(last?.phase) === ph(label.last_phase),
    got: last?.phase,
    want: label.last_phase,
  });
  if (label.failure_class && ['crashed', 'shutdown'].includes(label.outcome) && label.evidence_line)
    out.push({
      field: 'failure_class',
      good: last?.failure?.class === label.failure_class,
      got: last?.failure?.class,
      want: label.failure_class,
    });
  if (label.launches)
    out.push({
      field: 'launches',
      good: r.launches.length === label.launches,
      got: r.launches.length,
      want: label.launches,
    });
  return out;
}
