/**
 * Standard input as a live source (`kubectl logs -f pod | firedup watch -`): the same events as a file
 * follower, minus the ones a pipe cannot have (no truncation, no rotation).
 */
import type { FollowEvent, LiveSource } from './live-source.js';

export type { Backlog, LiveSource, ReadFile } from './live-source.js';

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
