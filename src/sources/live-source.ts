/**
 * A live source of log bytes as a watcher sees it, whatever it reads (a followed file: follow.ts; standard input:
 * stdin.ts; a file over ssh): the events it delivers and what it says of its file and backlog. The sources
 * implement it side by side without importing one another.
 */

export type FollowEvent =
  /** `chunk` is a view into a reused buffer: valid only during the callback; copy it to keep it. */
  | { kind: 'data'; chunk: Buffer; offset: number }
  | { kind: 'reset'; reason: 'truncated' | 'rotated' | 'recreated' }
  | { kind: 'missing' }
  | { kind: 'appeared' }
  | { kind: 'error'; message: string };

export interface LiveSource {
  start(onEvent: (e: FollowEvent) => void): void;
  stop(): void;
  /** When the bytes just delivered arrived as the file shows it (epoch seconds); absent or null: now. */
  arrival?(): number | null;
  /** Delivers what the source holds now, at once rather than at its next poll (where it can). */
  catchUp?(): void;
  /**
   * What is left of the bytes the source already held when it was opened (a log's history): null once they
   * are all delivered; `total` null while the size is not known yet (the file is still being opened).
   */
  backlog?(): Backlog | null;
  /** The file whose bytes were delivered last (its real path and identity), for a source that reads files. */
  file?(): ReadFile | null;
}

/** A file as it was opened: where a symlink pointed then, and the descriptor's device and inode. */
export interface ReadFile {
  path: string;
  dev: number;
  ino: number;
  /**
   * How many times what the source read started over (truncated, rotated, recreated) by then: the same file
   * refilled holds new launches, to be recorded afresh (absent: never counted).
   */
  generation?: number;
}

export interface Backlog {
  read: number;
  total: number | null;
}
