/**
 * Help text, made from the command docs (commands.ts): the global help lists the commands one line each;
 * `firedup CMD --help` and `firedup help CMD` give the command's usage, flags and examples. Descriptions
 * wrap at word boundaries to the terminal (80 columns at most, for reading).
 */
import { BENCH_IMPORT_DOC, COMMANDS, type CommandDoc, commandDoc } from './commands.js';
import { outputWidth, wrapText } from './width.js';

function width(): number {
  return Math.min(100, outputWidth() ?? 100);
}

/** `  left    description…` with the description wrapped under itself. */
function twoColumns(rows: Array<[string, string]>, indent = '  '): string[] {
  const w = width();
  const left = Math.min(28, Math.max(0, ...rows.map(([l]) => l.length)) + 2);
  const out: string[] = [];
  for (const [l, d] of rows) {
    const room = Math.max(20, w - indent.length - left);
    const lines = wrapText(d, room);
    if (l.length + 2 > left) {
      out.push(`${indent}${l}`);
      for (const x of lines) out.push(`${indent}${' '.repeat(left)}${x}`);
    } else
      lines.forEach((x, i) => {
        out.push(`${indent}${(i === 0 ? l : '').padEnd(left)}${x}`);
      });
  }
  return out;
}

export function helpText(): string {
  const w = width();
  const lines = [
    "firedup — read an LLM inference server's log and say which launch and phase it is in, and why",
    '',
    'Usage: firedup <command> [options]   (firedup <command> --help for its flags and examples)',
    '',
    'Commands:',
    ...twoColumns(COMMANDS.map((c) => [c.name, c.summary])),
    '',
    'Examples:',
    '  firedup status server.log',
    '  firedup wait server.log && python -m sglang.bench_serving ...',
    '  firedup runs --since 3d --where tp=8',
    '',
    'Options every command takes:',
    ...twoColumns([
      ['-h, --help', "this help, or the command's"],
      ['-V, --version', 'the version'],
    ]),
    '',
    ...wrapText(
      '<log> is a file path, - for standard input, or [user@]host:path read through the system ssh (nothing installed on the server). Usage errors exit 1 with one line on stderr.',
      w,
    ),
  ];
  return `${lines.flatMap((l) => wrapKeepingIndent(l, w)).join('\n')}\n`;
}

export function commandHelp(doc: CommandDoc): string {
  const w = width();
  const lines = [`firedup ${doc.name} — ${doc.summary}`, '', 'Usage:', ...doc.usage.map((u) => `  ${u}`)];
  if (doc.about) {
    lines.push('');
    // Running text, wrapped here once: a newline in the source is a space, a blank line a new paragraph.
    doc.about.split(/\n\s*\n/).forEach((para, i) => {
      if (i > 0) lines.push('');
      lines.push(...wrapText(para, w - 2).map((l) => `  ${l}`));
    });
  }
  lines.push('', 'Options:', ...twoColumns([...doc.options, ['-h, --help', 'this help']]));
  lines.push('', 'Examples:');
  for (const [cmd, what] of doc.examples) lines.push(`  ${cmd}`, `      ${what}`);
  return `${lines.flatMap((l) => wrapKeepingIndent(l, w)).join('\n')}\n`;
}

/** A line too long for the width, wrapped at words; continuation lines indented 4 more than the first. */
function wrapKeepingIndent(line: string, w: number): string[] {
  if (line.length <= w) return [line];
  const indent = /^\s*/.exec(line)![0];
  const [first, ...more] = wrapText(line, w - indent.length - 4);
  return [`${indent}${first}`, ...more.map((m) => `${indent}    ${m}`)];
}

/** The help for `name` (a command, or `bench import`), or null for a name that is no command. */
export function helpFor(name: string): string | null {
  const doc = name === BENCH_IMPORT_DOC.name ? BENCH_IMPORT_DOC : commandDoc(name);
  return doc ? commandHelp(doc) : null;
}
