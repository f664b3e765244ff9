/**
 * The dashboard's static files, from a fixed whitelist: a request path is looked up in this table and never
 * joined to a directory, so no URL (`/assets/../../package.json`, `%2e%2e`, `//etc/passwd`) can name
 * another file. web/ is at the repository root, two levels above the compiled server
 * (dist/src/web/server.js → ../../../web); uPlot comes from its installed package.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  file: string;
  type: string;
}

const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

function uplotDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return path.join(path.dirname(require.resolve('uplot/package.json')), 'dist');
  } catch {
    return null;
  }
}

/** The dashboard's ES modules under web/js/ that app.js imports (directly or not), each at /assets/js/NAME.js. */
export const MODULES = [
  'dom',
  'format',
  'states',
  'api',
  'charts',
  'router',
  'pages/table',
  'pages/detail',
  'pages/compare',
  'pages/sweeps',
  'pages/live',
];

/** URL path → file. Built once; `webRoot` overrides the repository's web/ (tests). */
export function staticTable(webRoot?: string): Map<string, StaticFile> {
  const web = webRoot ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web');
  const t = new Map<string, StaticFile>([
    ['/', { file: path.join(web, 'index.html'), type: HTML }],
    ['/assets/app.js', { file: path.join(web, 'app.js'), type: JS }],
    ['/assets/app.css', { file: path.join(web, 'app.css'), type: CSS }],
  ]);
  for (const m of MODULES) t.set(`/assets/js/${m}.js`, { file: path.join(web, 'js', `${m}.js`), type: JS });
  const uplot = uplotDir();
  if (uplot) {
    t.set('/assets/uplot.js', { file: path.join(uplot, 'uPlot.iife.min.js'), type: JS });
    t.set('/assets/uplot.css', { file: path.join(uplot, 'uPlot.min.css'), type: CSS });
  }
  return t;
}

/** The file's bytes, or null when it is missing (a tree without the pages built). Read per request: small. */
export async function readStatic(f: StaticFile): Promise<Buffer | null> {
  try {
    return await fs.promises.readFile(f.file);
  } catch {
    return null;
  }
}
