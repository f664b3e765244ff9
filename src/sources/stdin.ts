/**
 * Standard input as a live source (`kubectl logs -f pod | firedup watch -`): the same events as a file
 * follower, minus the ones a pipe cannot have (no truncation, no rotation).
 */
import type { FollowEvent } from './follow.js';

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

export class StreamSource implements LiveSource {
  private offset = 0;
  private onData: ((chunk: Buffer) => void) | null = null;
  private onEnd: (() => void) | null = null;
  /** True once the stream has ended: nothing more will come. */
  ended = false;

  constructor(
    private readonly stream: NodeJS.ReadableStream,
    /** Called when the stream ends: nothing more will come. */
    private readonly whenEnded: () => void = () => {},
  ) {}

  start(onEvent: (e: FollowEvent) => void): void {
    this.onData = (chunk: Buffer) => {
      onEvent({ kind: 'data', chunk, offset: this.offset });
      this.offset += chunk.length;
    };
    this.onEnd = () => {
      this.ended = true;
      this.whenEnded();
    };
    this.stream.on('data', this.onData);
    this.stream.once('end', this.onEnd);
    this.stream.once('error', (err: Error) =>
      onEvent({ kind: 'error', message: `standard input: ${err.message}` }),
    );
  }

  stop(): void {
    if (this.onData) this.stream.off('data', this.onData);
    if (this.onEnd) this.stream.off('end', this.onEnd);
    (this.stream as NodeJS.ReadStream).pause?.();
  }
}
