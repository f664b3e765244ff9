/**
 * The CLI as a Unix tool (issue 11): per-command help, "did you mean", short flags, --version, completion,
 * output fitted to a narrow terminal, --where by the summary's names, the bundled vLLM and llama.cpp logs.
 * Everything through the real command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, ROOT, runCli, SCENARIOS, tmpDir } from '../helpers.js';

const EXAMPLES = path.join(ROOT, 'examples');
const COMMANDS = [
  'status',
  'runs',
  'show',
  'diff',
  'bench',
  'target',
  'watch',
  'wait',
  'launch',
  'serve',
  'replay',
  'demo',
  'completion',
  'help',
];

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at /);
  return lines[0]!;
}

const visible = (s: string) => [...s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')].length;

describe('help', () => {
  it('firedup --help lists every command, one line each', () => {
    const r = runCli(['--help']);
    assert.equal(r.code, 0);
    for (const c of COMMANDS) assert.match(r.stdout, new RegExp(`^  ${c} +\\S.*$`, 'm'), c);
  });

  for (const c of COMMANDS) {
    it(`firedup ${c} --help is that command's help, with examples`, () => {
      const r = runCli([c, '--help']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.startsWith(`firedup ${c} — `), r.stdout.slice(0, 80));
      assert.match(r.stdout, /^Usage:/m);
      assert.match(r.stdout, /^Examples:\n {2}(firedup|source) /m);
      assert.doesNotMatch(r.stdout, /^Commands:/m, 'not the global help');
      assert.equal(runCli(['help', c]).stdout, r.stdout, 'help CMD says the same');
    });
  }

  it("status's help names its own flags; -h is --help", () => {
    const r = runCli(['status', '-h']);
    assert.equal(r.code, 0);
    for (const f of ['--url', '--pid', '--explain', '-j, --json']) assert.ok(r.stdout.includes(f), f);
    assert.ok(runCli(['runs', '--help']).stdout.includes('-n, --limit N'));
  });

  it('launch passes --help after -- to the server command', () => {
    // Not help: the launch is attempted (and fails on the missing command with the shell's 127).
    const r = runCli(['launch', '--log', path.join(tmpDir(), 'x.log'), '--', 'no-such-server-xyz', '--help']);
    assert.equal(r.code, 127, r.stderr);
  });
});

describe('did you mean', () => {
  const f = path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log');
  const cases: Array<[string[], RegExp]> = [
    [['stauts', f], /unknown command 'stauts'; did you mean 'status'\?/],
    [['wiat', f], /did you mean 'wait'\?/],
    [['status', '--jsn', f], /status: unknown option --jsn; did you mean --json\?/],
    [
      ['runs', '--outcome', 'crash'],
      /--outcome crash: not a state; did you mean crashed\? \(one of .*crashed/,
    ],
    [['status', '--engine', 'vlm', f], /--engine vlm: not an engine; did you mean vllm\?/],
    [['help', 'stat'], /no command 'stat'; did you mean 'status'\?/],
    [['completion', 'bsh'], /bsh: not a shell; did you mean bash\?/],
    [['--versoin'], /did you mean --version\?/],
  ];
  for (const [args, re] of cases)
    it(args.filter((a) => a !== f).join(' '), () => {
      const r = runCli(args);
      assert.equal(r.code, 1, r.stderr);
      assert.match(oneLine(r.stderr), re);
    });

  it('nothing close: no suggestion, still one line', () => {
    const r = runCli(['frobnicate']);
    assert.equal(r.code, 1);
    assert.doesNotMatch(oneLine(r.stderr), /did you mean/);
  });
});

describe('short flags and --version', () => {
  it('-V and --version print the version from package.json, exit 0', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const a of ['-V', '--version']) {
      const r = runCli([a]);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, `${version}\n`);
    }
  });

  it('-j is --json', () => {
    const r = runCli(['status', '-j', '--no-ledger', path.join(EXAMPLES, 'glm5-serving.log')]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).outcome, 'serving');
  });
});

describe('standard output that cannot be written', {
  skip: !fs.existsSync('/dev/full') && 'no /dev/full',
}, () => {
  it('> /dev/full (a full disk): one line on stderr naming it, exit 1, for every kind of command', () => {
    const log = path.join(ROOT, 'examples', 'glm5-serving.log');
    for (const args of [
      ['--help'],
      ['--version'],
      ['status', '--no-ledger', log],
      ['runs', '--json', '--no-ledger', log],
    ]) {
      const full = fs.openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [BIN, ...args], {
          stdio: ['ignore', full, 'pipe'],
          encoding: 'utf8',
        });
        assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /^firedup: cannot write to standard output \(ENOSPC[^\n]*\n$/, args.join(' '));
      } finally {
        fs.closeSync(full);
      }
    }
  });
});

describe('completion', () => {
  it('bash: every command, flags, and the values --outcome and --engine take; valid bash', () => {
    const r = runCli(['completion', 'bash']);
    assert.equal(r.code, 0);
    for (const c of COMMANDS) assert.ok(r.stdout.includes(c), c);
    for (const s of [
      '--json',
      '--where',
      '--limit',
      '--outcome',
      'crashed',
      'llamacpp',
      'complete -o default -F _firedup firedup',
    ])
      assert.ok(r.stdout.includes(s), s);
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'c.bash'), r.stdout);
    assert.equal(spawnSync('bash', ['-n', path.join(dir, 'c.bash')]).status, 0);
  });

  it('bash: completes a command and an --outcome value when run', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'c.bash'), runCli(['completion', 'bash']).stdout);
    const probe = (words: string) =>
      spawnSync(
        'bash',
        [
          '-c',
          `source ${dir}/c.bash; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _firedup; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(probe('firedup sta'), 'status');
    assert.equal(probe('firedup runs --outcome cr'), 'crashed');
    assert.match(probe('firedup runs --wh'), /--where/);
  });

  it('the --outcome values offered are the ones runs accepts', () => {
    const script = runCli(['completion', 'bash']).stdout;
    const offered = /--outcome\) COMPREPLY=\(\$\(compgen -W "([^"]+)"/.exec(script)![1]!.split(' ');
    const refused = runCli(['runs', '--outcome', 'zzz']).stderr;
    const accepted = /\(one of ([^)]+)\)/.exec(refused)![1]!.split(', ');
    assert.deepEqual(offered.sort(), accepted.sort());
  });

  it('zsh loads the same function through bashcompinit', () => {
    const r = runCli(['completion', 'zsh']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /bashcompinit/);
    assert.match(r.stdout, /complete -o default -F _firedup firedup/);
  });
});

describe('a narrow terminal', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = tmpDir();
    env = { FIREDUP_LEDGER: path.join(dir, 'ledger.db') };
    for (const f of fs.readdirSync(EXAMPLES).filter((x) => x.endsWith('.log')))
      assert.equal(cli(['runs', path.join(EXAMPLES, f)], env).code, 0);
    for (const f of ['glm5-trtllm-oom-in-cuda-graph.log', 'glm5-cutlass-bench-then-shutdown.log'])
      cli(['runs', path.join(SCENARIOS, f)], env);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fits = (out: string, width: number) => {
    for (const l of out.split('\n')) assert.ok(visible(l) <= width, `${visible(l)} > ${width}: ${l}`);
  };

  it('COLUMNS=80: runs, show and diff keep every line within 80 characters', () => {
    for (const args of [
      ['runs'],
      ['show', 'last'],
      ['diff', 'last~1', 'last'],
      ['runs', '--help'],
      ['--help'],
    ]) {
      const r = cli(args, { ...env, COLUMNS: '80' });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      fits(r.stdout, 80);
    }
  });

  it('the runs table drops columns by priority, says which, and keeps id, model and outcome', () => {
    const wide = cli(['runs'], env).stdout;
    assert.match(wide.split('\n')[0]!, /median tok\/s/, 'piped: every column');
    const r = cli(['runs'], { ...env, COLUMNS: '80' });
    const header = r.stdout.split('\n')[0]!;
    for (const c of ['id', 'model', 'outcome']) assert.match(header, new RegExp(`\\b${c}\\b`));
    assert.doesNotMatch(header, /median tok\/s/);
    assert.match(r.stdout, /left out for the terminal's width: median tok\/s/);
  });

  it('cut names end at a word, with an ellipsis', () => {
    const r = cli(['runs'], { ...env, COLUMNS: '80' });
    const cut = r.stdout.match(/\S+…/g) ?? [];
    assert.ok(cut.length > 0, r.stdout);
    // meta-llama/Meta-Llama-3-8B-Instruct is cut after a word, never inside one ("Meta-Ll…").
    for (const c of cut) assert.match(c, /(^|[/\-_.])[A-Za-z0-9]*[/\-_.]?…$|[/\-_.]…$|^[^…]*[A-Za-z0-9]…$/);
    assert.ok(r.stdout.includes('meta-llama/Meta-Llama-3…'), r.stdout);
  });

  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  it('watch on a 60-column terminal: no line of the live block is wider', { skip: !hasScript }, () => {
    const log = path.join(dir, 'loading.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
    const cmd = `COLUMNS=60 ${process.execPath} ${BIN} watch ${log} --no-gpu --no-ledger --timeout 2s`;
    const r = spawnSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const lines = r.stdout.replace(/\x1b\[\d+F\x1b\[0J/g, '\n').split(/\r?\n/);
    assert.ok(
      lines.some((l) => l.includes('40/83')),
      r.stdout.slice(-400),
    );
    for (const l of lines) assert.ok(visible(l) <= 60, `${visible(l)}: ${l}`);
  });
});

describe('--where by the names the summary prints', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    dir = tmpDir();
    env = { FIREDUP_LEDGER: path.join(dir, 'ledger.db') };
    for (const f of ['glm5-serving.log', 'vllm-llama3-8b-serving.log'])
      cli(['runs', path.join(EXAMPLES, f)], env);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('tp=8 finds the SGLang launches (tp_size), tp=1 the vLLM one (tensor_parallel_size)', () => {
    const tp8 = JSON.parse(cli(['runs', '-j', '--where', 'tp=8'], env).stdout).launches;
    assert.ok(tp8.length >= 1);
    assert.ok(tp8.every((l: { engine: string }) => l.engine === 'sglang'));
    assert.ok(tp8.every((l: { config: Record<string, unknown> }) => l.config.tp_size === 8));
    const tp1 = JSON.parse(cli(['runs', '-j', '--where', 'tp=1'], env).stdout).launches;
    assert.deepEqual(
      tp1.map((l: { engine: string }) => l.engine),
      ['vllm'],
    );
    const both = JSON.parse(cli(['runs', '-j', '--where', 'tp_size=8', '-n', '1'], env).stdout).launches;
    assert.equal(both.length, 1, '-n is --limit');
  });

  it('a value no launch has names the values tp had', () => {
    const r = cli(['runs', '--where', 'tp=4'], env);
    assert.match(r.stdout, /^no launch has tp=4: among 2 launches, tp was /);
    assert.match(r.stdout, /\b8 \(1 launch\)/);
    assert.match(r.stdout, /\b1 \(1 launch\)/);
  });
});

describe('bundled examples of vLLM and llama.cpp', () => {
  for (const [file, engine] of [
    ['vllm-llama3-8b-serving.log', 'vllm'],
    ['llamacpp-qwen2.5-3b-serving.log', 'llamacpp'],
  ] as const)
    it(`${file}: ${engine}, from launch to serving`, () => {
      const r = runCli(['status', '--json', '--no-ledger', path.join(EXAMPLES, file)]);
      assert.equal(r.code, 0, r.stderr);
      const l = JSON.parse(r.stdout);
      assert.equal(l.engine, engine);
      assert.equal(l.outcome, 'serving');
      assert.ok(l.phases.some((p: { phase: string }) => p.phase === 'loading_weights'));
      assert.ok(l.throughput.peak > 0);
    });
});
