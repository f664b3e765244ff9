/**
 * What a server's command-line parser prints when it refuses the arguments, by parser: the usage line
 * opens the (failed) launch and the error line is its cause, a configuration error.
 */
import type { Signature } from './types.js';

/**
 * Python's argparse (SGLang's and vLLM's servers): `ArgumentParser.error` prints the usage, then
 * `%(prog)s: error: %(message)s` and exits 2. `prog` is the source of the engine's name in both lines.
 */
export function argparseSignatures(prog: string): Signature[] {
  return [
    {
      id: 'usage',
      kind: 'phase',
      phase: 'args',
      lit: 'sage: ',
      re: new RegExp(`^usage: (?:${prog})(?: |$)`),
    },
    {
      id: 'argument_error',
      kind: 'failure',
      failure: 'config_error',
      lit: ': error: ',
      re: new RegExp(`^(?:${prog}): error: (.*)$`),
    },
  ];
}

/** Rust's clap (TGI's launcher and router): `error: unexpected argument '--x' found`, then `Usage: PROG …`. */
export function clapSignatures(prog: string): Signature[] {
  return [
    {
      id: 'usage',
      kind: 'phase',
      phase: 'args',
      lit: 'Usage: ',
      re: new RegExp(`^Usage: (?:${prog})(?: |$)`),
    },
    {
      id: 'argument_error',
      kind: 'failure',
      failure: 'config_error',
      lit: 'error: ',
      re: /^error: (?:unexpected argument|invalid value|the following required arguments|a value is required|unexpected value|the argument '[^']*' cannot be used)/,
    },
  ];
}

/** Python's click (trtllm-serve): `Usage: trtllm-serve serve [OPTIONS] MODEL`, then `Error: No such option: --x`. */
export function clickSignatures(prog: string): Signature[] {
  return [
    {
      id: 'usage',
      kind: 'phase',
      phase: 'args',
      lit: 'Usage: ',
      re: new RegExp(`^Usage: (?:${prog})(?: |$)`),
    },
    {
      id: 'argument_error',
      kind: 'failure',
      failure: 'config_error',
      lit: 'Error: ',
      re: /^Error: (?:No such option|Invalid value|Missing (?:argument|option)|Got unexpected extra argument|Option '[^']*' requires)/,
    },
  ];
}
