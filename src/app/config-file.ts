/** Reading a config file (firedup.toml, a sweep file) with a one-line error naming it, and what to do. */
import fs from 'node:fs';
import { UsageError } from '../errors.js';

/**
 * The file's text; a file that cannot be read is one UsageError: `${label}: no such file…`. `hints` add to the
 * reason for the codes where the command knows better (`is a directory; name a .toml sweep file`).
 */
export function readConfigFile(
  file: string,
  label: string,
  hints: Partial<Record<'ENOENT' | 'EISDIR', string>> = {},
): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (e as Error).message;
    const hint = code === 'ENOENT' || code === 'EISDIR' ? hints[code] : undefined;
    throw new UsageError(`${label}: ${why}${hint ?? ''}`);
  }
}
