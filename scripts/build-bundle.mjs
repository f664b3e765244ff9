#!/usr/bin/env node
// `npm run build` (after tsc): the CLI bundled into one script, which is what bin/firedup.js runs.
//
// usage: node scripts/build-bundle.mjs [--outdir DIR] [--check]
//   --outdir DIR  where to write (default dist/bundle/cli)
//   --check       build in memory and exit 1 when DIR's files differ from it (a stale bundle)
//
// Why a bundle: `firedup status` loaded ~110 modules one file at a time, most of its run. Why CommonJS
// rather than ESM: bin/firedup.js compiles it with vm.Script and a V8 code cache, which Node 20 offers
// for scripts only (module.enableCompileCache is Node 22). The scan worker stays an ES module file of its
// own next to it, where `new URL('./scan-worker.js', import.meta.url)` finds it. quick.cjs answers `--help`
// and `--version` (src/cli/quick.ts) without the rest.
//
// The output directory is three levels below the package root, like dist/src/cli/, so the sources' paths
// relative to their own file (`../../../package.json`, `../../../web`, `../../../examples`) hold in both.
// esbuild's output is a pure function of the sources, which is what --check and the bundle test rely on.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_DIR = path.join(REPO, 'dist', 'bundle', 'cli');

/**
 * The engines' generated catalogs (src/core/engines/catalog/*.ts) are 670 kB of array literals, which V8
 * would parse at every start, though a read consults them only for the few lines no rule knows. In the
 * bundle each is a JSON file beside it (catalog-NAME.json), read and parsed on first use. The data is the
 * module's own, evaluated here; a catalog module exporting anything else fails the build.
 */
function lazyCatalogs(outdir, extra) {
  return {
    name: 'lazy-catalogs',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]core[\\/]engines[\\/]catalog[\\/][^\\/]+\.ts$/ }, async (args) => {
        const js = await esbuild.build({
          entryPoints: [args.path],
          bundle: true,
          format: 'esm',
          platform: 'neutral',
          write: false,
          logLevel: 'silent',
        });
        const mod = await import(
          `data:text/javascript;base64,${Buffer.from(js.outputFiles[0].text).toString('base64')}`
        );
        const names = Object.keys(mod);
        if (names.length !== 1 || names[0] !== 'CATALOG' || typeof mod.CATALOG !== 'object')
          throw new Error(
            `${args.path}: expected one export, CATALOG (got ${names.join(', ')}); update ${path.basename(import.meta.url)}`,
          );
        const file = `catalog-${path.basename(args.path, '.ts')}.json`;
        extra.push({ path: path.join(outdir, file), contents: Buffer.from(JSON.stringify(mod.CATALOG)) });
        const getters = Object.keys(mod.CATALOG).map(
          (k) => `get ${JSON.stringify(k)}() { return load()[${JSON.stringify(k)}]; }`,
        );
        return {
          loader: 'js',
          contents: [
            `// ${path.relative(REPO, args.path).replaceAll(path.sep, '/')}: its data in ${file}, read on first use (scripts/build-bundle.mjs)`,
            "import fs from 'node:fs';",
            "import path from 'node:path';",
            'let data;',
            `const load = () => (data ??= JSON.parse(fs.readFileSync(path.join(__dirname, ${JSON.stringify(file)}), 'utf8')));`,
            `export const CATALOG = { ${getters.join(', ')} };`,
          ].join('\n'),
        };
      });
    },
  };
}

/**
 * better-sqlite3 finds its native addon through `bindings`, which searches a dozen paths from the caller's
 * stack: inside a bundle the caller is the bundle, and the search costs milliseconds. Its JS is bundled
 * (no module resolution at run time) and the addon is loaded from the installed package's build directory:
 * first where the package's own node_modules has it (a checkout, an install of firedup: no resolution walk,
 * half a millisecond of every `status`), then where Node resolves the package, then by `bindings` (told
 * where the package is) for any other layout.
 */
const sqliteAddon = {
  name: 'sqlite-addon',
  setup(build) {
    build.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]better-sqlite3[\\/]/.test(args.importer)
        ? { path: 'bindings', namespace: 'sqlite-addon' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'sqlite-addon' }, () => ({
      loader: 'js',
      resolveDir: REPO,
      contents: `const path = require('node:path');
module.exports = function bindings(name) {
  try {
    return require(path.join(__dirname, '..', '..', '..', 'node_modules', 'better-sqlite3', 'build', 'Release', name));
  } catch {}
  const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
  try {
    return require(path.join(dir, 'build', 'Release', name));
  } catch {
    return require('bindings')({ bindings: name, module_root: dir });
  }
};`,
    }));
  },
};

/**
 * The MCP SDK's server builds an Ajv JSON-schema validator when it is constructed (server/index.js), for the
 * one thing that needs it: checking an elicitation form's answer, which firedup never asks for. Ajv is a
 * third of `firedup mcp`'s start. In the bundle its provider is a stand-in that loads the real one on first
 * use (a `require` of the real module, which esbuild keeps lazy), so a server that never validates a form
 * never evaluates Ajv.
 */
const AJV_PROVIDER =
  /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/;
const lazyAjv = {
  name: 'lazy-ajv',
  setup(build) {
    build.onResolve({ filter: /^firedup-real-ajv-provider$/ }, (args) => ({
      path: args.importer.replace(/[^\\/]+$/, 'ajv-provider.js'),
      namespace: 'real-ajv',
    }));
    build.onLoad({ filter: /.*/, namespace: 'real-ajv' }, async (args) => ({
      contents: await fs.promises.readFile(args.path, 'utf8'),
      loader: 'js',
      resolveDir: path.dirname(args.path),
    }));
    build.onLoad({ filter: AJV_PROVIDER }, () => ({
      loader: 'js',
      contents: [
        "// the SDK's validation/ajv-provider.js, loaded on first use (scripts/build-bundle.mjs, lazyAjv)",
        'export class AjvJsonSchemaValidator {',
        '  constructor(ajv) { this._ajv = ajv; this._real = null; }',
        "  getValidator(schema) { this._real ??= new (require('firedup-real-ajv-provider').AjvJsonSchemaValidator)(this._ajv); return this._real.getValidator(schema); }",
        '}',
      ].join('\n'),
    }));
  },
};

/**
 * zod 4 re-exports every locale of its error messages (`z.locales`), 40 modules that a bundle keeps because the
 * namespace is used as a value; firedup's schemas and the MCP SDK's speak English only (zod's default, `en`).
 * In the MCP bundle the locales' index exports `en` alone.
 */
const englishOnlyZod = {
  name: 'english-only-zod',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      loader: 'js',
      resolveDir: path.dirname(args.path),
      contents:
        "// zod's locales, English only (scripts/build-bundle.mjs, englishOnlyZod)\nexport { default as en } from './en.js';\n",
    }));
  },
};

function options(outdir, extra) {
  const common = {
    absWorkingDir: REPO,
    bundle: true,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    // Whitespace and syntax only, names kept: a third less to read and to index for line numbers at each
    // start, and stack traces keep their function names (src/cli/stack.ts maps the positions back to src/).
    minifyWhitespace: true,
    minifySyntax: true,
    // Source paths in the maps relative to the map, as tsc writes them: stack traces name src/….
    sourceRoot: '',
    // Not bundled: pg and playwright-core are large and only some paths need them.
    external: ['pg', 'playwright-core', 'better-sqlite3/package.json'],
    logLevel: 'warning',
    outdir,
  };
  return [
    {
      ...common,
      // `status` has a bundle of its own (src/cli/bin-status.ts): the read path without the other commands; so
      // has `mcp` (src/cli/bin-mcp.ts): the MCP SDK, which no other command loads.
      entryPoints: { firedup: 'src/cli/bin.ts', status: 'src/cli/bin-status.ts' },
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      plugins: [lazyCatalogs(outdir, extra), sqliteAddon, lazyAjv, englishOnlyZod],
      // The function bin/firedup.js compiles (vm.Script) and calls, in the file: the source V8 is given is then
      // the file as read, where a wrapper added at run time would be a second copy of it (V8 flattens the
      // concatenation). esbuild's source map counts the banner's line.
      banner: { js: WRAPPER_START },
      footer: { js: `${NODE_ESM}\n${WRAPPER_END}` },
      // The sources are ES modules: import.meta.url is the bundle's own file URL, set by bin/firedup.js.
      define: { 'import.meta.url': '__firedup_bundle_url' },
      // A dynamic import() of an external package becomes require(): vm.Script code has no import().
      supported: { 'dynamic-import': false },
    },
    {
      ...common,
      // `status` has a bundle of its own (src/cli/bin-status.ts): the read path without the other commands; so
      // has `mcp` (src/cli/bin-mcp.ts): the MCP SDK, which no other command loads.
      entryPoints: { mcp: 'src/cli/bin-mcp.ts' },
      // The MCP bundle carries the SDK, zod and their dependencies: short names make it a third smaller to read
      // at each start (its source map gives stack traces their names back).
      minifyIdentifiers: true,
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      plugins: [lazyCatalogs(outdir, extra), sqliteAddon, lazyAjv, englishOnlyZod],
      // The function bin/firedup.js compiles (vm.Script) and calls, in the file: the source V8 is given is then
      // the file as read, where a wrapper added at run time would be a second copy of it (V8 flattens the
      // concatenation). esbuild's source map counts the banner's line.
      banner: { js: WRAPPER_START },
      footer: { js: `${NODE_ESM}\n${WRAPPER_END}` },
      // The sources are ES modules: import.meta.url is the bundle's own file URL, set by bin/firedup.js.
      define: { 'import.meta.url': '__firedup_bundle_url' },
      // A dynamic import() of an external package becomes require(): vm.Script code has no import().
      supported: { 'dynamic-import': false },
    },
    // `--help` and `--version` (src/cli/quick.ts), which bin/firedup.js requires instead of the CLI.
    {
      ...common,
      entryPoints: { quick: 'src/cli/quick.ts' },
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      define: { 'import.meta.url': '__firedup_bundle_url' },
      banner: { js: "const __firedup_bundle_url = require('node:url').pathToFileURL(__filename).href;" },
      footer: { js: NODE_ESM },
    },
    // `firedup mcp`'s front (src/mcp/front.ts), which bin/firedup.js requires before the `mcp` bundle: it answers
    // the client's `initialize` with no more than this small file loaded.
    {
      ...common,
      entryPoints: { 'mcp-front': 'src/mcp/front.ts' },
      format: 'cjs',
      outExtension: { '.js': '.cjs' },
      define: { 'import.meta.url': '__firedup_bundle_url' },
      banner: { js: "const __firedup_bundle_url = require('node:url').pathToFileURL(__filename).href;" },
      footer: { js: NODE_ESM },
    },
    // The worker, an ES module file that `new URL('./scan-worker.js', import.meta.url)` finds.
    { ...common, entryPoints: { 'scan-worker': 'src/sources/scan-worker.ts' }, format: 'esm' },
    // The ledger's writer thread (src/store/bulk-writer.ts), found the same way. better-sqlite3 is CommonJS
    // and loads its addon with require: an ES module has none until it makes one.
    {
      ...common,
      entryPoints: { 'ledger-writer': 'src/store/ledger-writer.ts' },
      format: 'esm',
      plugins: [sqliteAddon],
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    },
  ];
}

/**
 * Non-ASCII characters (in regex literals and comments, which esbuild leaves as they are) as \\u escapes:
 * bin/firedup.js reads the bundle as latin1, twice as fast as utf8, which is right for ASCII only. There is
 * no String.raw in the sources, where an escape would read differently (checked). Source map columns shift
 * on the few lines concerned.
 */
function ascii(text, file) {
  if (/String\.raw/.test(text))
    throw new Error(`${file}: String.raw, whose text the ASCII escapes would change`);
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * esbuild imports a CommonJS module into ESM code through `__toESM(require(X), 1)`, which copies every
 * property of the module onto a new object as a getter: ~100 for node:fs, which 31 modules import, all in the
 * interpreter at each start (~2 ms of a `firedup status`). For Node's own modules the bundle uses
 * NODE_ESM instead: an object whose prototype is the module and whose `default` is the module, which reads
 * the same (esbuild calls a named import as `(0, ns.name)(…)`, so `this` is not the object). The call is
 * the same length, so the source map's columns hold; the helper, a function declaration, is hoisted from
 * the bundle's last line.
 */
const TO_ESM = /__toESM\(require\("(node:[a-z_/]+)"\),1\)/g;
const NODE_ESM = 'function __nodeESM(m){return __create(m,{default:{value:m,enumerable:!0}})}';
/** The CLI bundles' wrapper (see `options`): their parameters are what bin/firedup.js passes. */
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname, __firedup_bundle_url) {';
const WRAPPER_END = '})';
function nodeImports(text, file) {
  const out = text.replace(TO_ESM, (call, name) => {
    const short = `__nodeESM(require("${name}"))`;
    if (short.length !== call.length) throw new Error(`${file}: ${call} and ${short} differ in length`);
    return short;
  });
  if (out === text) return text;
  if (!/var __create=Object\.create[;,]/.test(text))
    throw new Error(
      `${file}: esbuild's __create helper not found; update nodeImports in ${path.basename(import.meta.url)}`,
    );
  return out;
}

/** Builds the bundle into `outdir` (written), or in memory (`write: false`): returns the files. */
export async function buildBundle(outdir = BUNDLE_DIR, { write = true } = {}) {
  const files = [];
  for (const o of options(outdir, files))
    for (const f of (await esbuild.build({ ...o, write: false })).outputFiles)
      files.push({
        path: f.path,
        contents: /\.cjs$/.test(f.path)
          ? Buffer.from(nodeImports(ascii(f.text, f.path), f.path))
          : /\.js$/.test(f.path)
            ? Buffer.from(ascii(f.text, f.path))
            : Buffer.from(f.contents),
      });
  if (write)
    for (const f of files) {
      fs.mkdirSync(path.dirname(f.path), { recursive: true });
      fs.writeFileSync(f.path, f.contents);
    }
  return files;
}

/** The names of the bundle's files that differ from a fresh build (empty: current). */
export async function staleFiles(outdir = BUNDLE_DIR) {
  const stale = [];
  for (const f of await buildBundle(outdir, { write: false })) {
    let have = null;
    try {
      have = fs.readFileSync(f.path);
    } catch {}
    if (have === null || !f.contents.equals(have)) stale.push(path.relative(REPO, f.path));
  }
  return stale;
}

async function main(argv) {
  let outdir = BUNDLE_DIR;
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--outdir') outdir = path.resolve(argv[++i] ?? '');
    else if (argv[i] === '--check') check = true;
    else throw new Error(`unknown option ${argv[i]} (see the usage at the top of this file)`);
  }
  if (check) {
    const stale = await staleFiles(outdir);
    if (stale.length) {
      process.stderr.write(`build-bundle: stale or missing: ${stale.join(', ')}; run npm run build\n`);
      process.exitCode = 1;
    }
    return;
  }
  fs.rmSync(outdir, { recursive: true, force: true });
  await buildBundle(outdir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`build-bundle: FAILED: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  });
