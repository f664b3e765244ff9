import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.js';

/** The real logs: the shared corpora, the wild and unseen fixtures. */
export function realLogs(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log')) out.push(p);
    }
  };
  // the shared corpus: the copy the repository carries, which a clean clone has; the one beside the checkout
  // (npm run corpus's ../shared, or beside a worktree's parent) only where the repository has none, so that no
  // log is read twice
  const own = path.join(ROOT, 'test', 'fixtures', 'corpus');
  if (fs.existsSync(own)) walk(own);
  else {
    walk(path.resolve(ROOT, '..', 'shared', 'corpus'));
    walk(path.resolve(ROOT, '..', '..', 'shared', 'corpus'));
  }
  for (const d of fs.readdirSync(path.join(ROOT, 'test', 'fixtures')))
    if (d === 'wild' || d.startsWith('unseen-')) walk(path.join(ROOT, 'test', 'fixtures', d));
  return [...new Set(out)];
}

/** Every distinct line of the real logs. */
export function realLines(): string[] {
  const lines = new Set<string>();
  for (const f of realLogs()) for (const l of fs.readFileSync(f, 'utf8').split('\n')) lines.add(l);
  return [...lines];
}
