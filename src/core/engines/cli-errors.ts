/**
 * What a server's command-line parser prints when it refuses the arguments, by parser: the usage line
 * opens the (failed) launch and the error line is its cause, a configuration error.
 */
import type { Signature } from './types.js';

function parserSignatures(usage: RegExp, usageLit: string, error: RegExp, errorLit: string): Signature[] {
  return [
    { id: 'usage', kind: 'phase', phase: 'args', lit: usageLit, re: usage },
    { id: 'argument_error', kind: 'failure', failure: 'config_error', lit: errorLit, re: error },
  ];
}

/**
 * Python's argparse (SGLang's and vLLM's servers): `ArgumentParser.error` prints the usage, then
 * `%(prog)s: error: %(message)s` and exits 2. `prog` is the source of the engine's name in both lines.
 */
export function argparseSignatures(prog: string): Signature[] {
  return parserSignatures(
    new RegExp(`^usage: (?:${prog})(?: |$)`),
    'sage: ',
    new RegExp(`^(?:${prog}): error: (.*)$`),
    ': error: ',
  );
}

/** Rust's clap (TGI's launcher and router): `error: unexpected argument '--x' found`, then `Usage: PROG …`. */
export function clapSignatures(prog: string): Signature[] {
  return parserSignatures(
    new RegExp(`^Usage: (?:${prog})(?: |$)`),
    'Usage: ',
    /^error: (?:unexpected argument|invalid value|the following required arguments|a value is required|unexpected value|the argument '[^']*' cannot be used)/,
    'error: ',
  );
}

/** Python's click (trtllm-serve): `Usage: trtllm-serve serve [OPTIONS] MODEL`, then `Error: No such option: --x`. */
export function clickSignatures(prog: string): Signature[] {
  return parserSignatures(
    new RegExp(`^Usage: (?:${prog})(?: |$)`),
    'Usage: ',
    /^Error: (?:No such option|Invalid value|Missing (?:argument|option)|Got unexpected extra argument|Option '[^']*' requires)/,
    'Error: ',
  );
}
