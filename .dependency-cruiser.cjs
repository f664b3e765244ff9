/**
 * firedup's layers, checked by test/architecture.test.ts (and `npm run arch`). Imports point down only:
 *
 *   cli, web, mcp       faces: arguments/HTTP in, terminal text/JSON out; MCP tools for coding agents
 *     ↓
 *   app                 use cases: read a log, live session + recording, launch, bench import/run, sweep
 *     ↓
 *   sources probes store bench    I/O: log bytes, process/HTTP/GPU, the ledger, the load generator
 *     ↓
 *   core                pure: analyzer, engines, verdict, domain records, parsers (no node:*, no packages)
 *     ↓
 *   errors              typed errors with a code (src/errors.ts)
 *
 * An exception is a rule's `pathNot` with the reason next to it; keep them few. `npm run arch` cruises src/ and the
 * dashboard's modules (web/), and checks that no web file is over 400 lines (scripts/web-file-lines.mjs).
 */
const LOWER = '^src/(sources|probes|store|bench)/';

/**
 * The core's stage folders in the order a log goes through them (docs/architecture.md, each folder's README): a
 * folder imports only folders before it in this list, so the pipeline reads down the tree.
 */
const CORE_STAGES = [
  'base',
  'config',
  'lines',
  'engines',
  'multinode',
  'reading',
  'verdict',
  'campaign',
  'replay',
];
const coreStageRules = CORE_STAGES.slice(0, -1).map((stage, i) => ({
  name: 'core-stages-point-down',
  severity: 'error',
  comment: `core/${stage}/ comes before ${CORE_STAGES.slice(i + 1).join(', ')} in the pipeline: it imports none of them.`,
  from: { path: `^src/core/${stage}/` },
  to: { path: `^src/core/(${CORE_STAGES.slice(i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...coreStageRules,
    {
      name: 'core-is-in-stage-folders',
      severity: 'error',
      comment:
        'Every core module is in its stage folder (CORE_STAGES): no module imports one lying loose in src/core/ ' +
        '(scripts/move-modules.mjs with scripts/core-layout.json names and places one added there).',
      from: { path: '^src/' },
      to: { path: '^src/core/[^/]+\\.ts$' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'A cycle makes two modules one: neither can be read, tested or moved alone. No exception, not even a cycle ' +
        'closed only by `import type`: a type two modules share goes down into a module both import ' +
        "(core/base/report-types.ts, core/base/verdict-types.ts, sources/live-source.ts). The dashboard's modules (web/) too.",
      from: { path: '^(src|web)/' },
      to: { circular: true },
    },
    {
      name: 'errors-is-the-base',
      severity: 'error',
      comment: 'src/errors.ts is imported by every layer, so it imports nothing.',
      from: { path: '^src/errors\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'The core is pure: it takes nothing from the layers above it.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: ['^src/core/', '^src/errors\\.ts$'] },
    },
    {
      name: 'core-has-no-io',
      severity: 'error',
      comment: 'The core reads no files, spawns nothing, opens no sockets: no node built-ins, no packages.',
      from: { path: '^src/core/' },
      to: {
        dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
      },
    },
    {
      name: 'lower-layers-import-core-only',
      severity: 'error',
      comment:
        'sources, probes, store and bench stand on the core side by side: none imports another or anything above.',
      from: { path: '^src/(sources|probes|store|bench)/' },
      to: {
        path: '^src/',
        pathNot: [
          '^src/core/',
          '^src/errors\\.ts$',
          // Within its own folder.
          '^src/$1/',
        ],
      },
    },
    {
      name: 'app-imports-down',
      severity: 'error',
      comment: 'Use cases compose the layers below; they know nothing of a face.',
      from: { path: '^src/app/' },
      to: { path: '^src/(cli|web)/' },
    },
    {
      name: 'faces-do-not-import-each-other',
      severity: 'error',
      comment: 'The dashboard never calls into the CLI.',
      from: { path: '^src/web/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'mcp-is-a-face',
      severity: 'error',
      comment:
        'The MCP face (src/mcp/) answers through the CLI as a child process (its JSON contract), never by importing it; ' +
        'of the dashboard it takes only the token rule (web/auth.ts), so `mcp --http` and `serve` admit the same requests.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/(cli|web)/', pathNot: '^src/web/auth\\.ts$' },
    },
    {
      name: 'cli-mcp-starts-the-mcp-server',
      severity: 'error',
      comment:
        'Only `firedup mcp` (cli/mcp.ts) starts the MCP face; no other CLI module imports it, nor does the dashboard.',
      from: { path: '^src/(cli|web)/', pathNot: '^src/cli/mcp\\.ts$' },
      to: { path: '^src/mcp/' },
    },
    {
      name: 'cli-serve-starts-the-dashboard',
      severity: 'error',
      comment:
        'Exception, and only this one: `firedup serve` (cli/serve.ts) starts the dashboard, so it imports web/. No other CLI module does.',
      from: { path: '^src/cli/', pathNot: '^src/cli/serve\\.ts$' },
      to: { path: '^src/web/' },
    },
    {
      name: 'faces-use-the-app-not-the-io',
      severity: 'error',
      comment:
        'cli/ and web/ call use cases in app/ and format core types; they do not open files, streams or probes themselves. ' +
        'Exceptions (pathNot below), each for a reason.',
      from: { path: '^src/(cli|web)/' },
      to: {
        path: LOWER,
        pathNot: [
          // The ledger is the faces' query API (runs, show, diff, target, the dashboard's tables): LedgerError, the
          // LedgerStore a command opens from its --ledger flag (open.ts: a file or a postgres:// URL, ledger-url.ts:
          // which one a flag names), LaunchFilter/LaunchListItem and listItemOf (a record as a list row, web/api.ts).
          '^src/store/(ledger-store|open|ledger-url|types|paths|record)\\.ts$',
          // The load generator's plan, result and error types, which `bench run` formats (types only: see the
          // next rule); measuring and recording are app/bench-run.ts.
          '^src/bench/',
          // Pure helpers of the I/O layers: a target's parse (`host:path`), an fs error's one-line description,
          // SshOptions for --ssh-config, EngineInstall's type for `launch`'s output.
          '^src/sources/(target|file)\\.ts$',
          '^src/sources/ssh/session\\.ts$',
          '^src/probes/engine-install\\.ts$',
        ],
      },
    },
    {
      name: 'faces-take-only-types-from-the-load-generator',
      severity: 'error',
      comment:
        "cli/ and web/ format the load generator's types; running it is a use case (app/bench-run.ts, app/sweep-run.ts).",
      from: { path: '^src/(cli|web)/' },
      to: { path: '^src/bench/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
