/**
 * An internal error's stack with the frames of compiled files mapped back to the sources through their
 * source maps (`…/dist/bundle/cli/firedup.cjs:21497:3` → `…/src/cli/main.ts:14:1`), so that a bug report
 * names the code to fix. Done only when printing one: Node's own --enable-source-maps would read the
 * bundle's 1.6 MB map at every start.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `at fn (FILE:LINE:COL)` or `at FILE:LINE:COL`, FILE a path or a file: URL of a .js/.cjs/.mjs file. */
const FRAME = /((?:\(|at )(?:file:\/\/)?)([^\s()]+\.[cm]?js):(\d+):(\d+)/g;

function load(file: string, maps: Map<string, SourceMap | null>): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

export function sourceMappedStack(stack: string): string {
  const maps = new Map<string, SourceMap | null>();
  return stack.replace(FRAME, (frame, pre: string, where: string, line: string, col: string) => {
    const file = pre.endsWith('file://') ? fileURLToPath(`file://${where}`) : where;
    const map = load(file, maps);
    // findEntry counts from 0, stack frames from 1; an entry without a source is "not found" ({}).
    const e = map?.findEntry(Number(line) - 1, Number(col) - 1) as
      | { originalSource?: string; originalLine?: number; originalColumn?: number }
      | undefined;
    if (!e?.originalSource || e.originalLine === undefined || e.originalColumn === undefined) return frame;
    const src = path.resolve(path.dirname(file), e.originalSource.replace(/^file:\/\//, ''));
    return `${pre.replace('file://', '')}${src}:${e.originalLine + 1}:${e.originalColumn + 1}`;
  });
}
