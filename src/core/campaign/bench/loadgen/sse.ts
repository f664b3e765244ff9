/**
 * An incremental Server-Sent Events reader: text in (any split, even mid-line), `data:` payloads out. Only what
 * the OpenAI streaming API uses is kept: data lines, joined per event; comments and other fields are skipped.
 * It works on strings because the socket is read as UTF-8 (a multi-byte character split across packets is
 * joined by the decoder before it gets here).
 */
/** An event (or a line) larger than this is no OpenAI chunk: the stream is refused rather than held in memory. */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;

export class SseError extends Error {}

export class SseReader {
  private rest = '';
  private data: string | null = null;

  /** Feeds a piece of the stream; calls `onData` for each event completed by it. */
  push(text: string, onData: (payload: string) => void): void {
    const buf = this.rest === '' ? text : this.rest + text;
    let from = 0;
    for (;;) {
      const nl = buf.indexOf('\n', from);
      if (nl < 0) break;
      let end = nl;
      if (end > from && buf.charCodeAt(end - 1) === 13) end--; // \r\n
      this.line(buf, from, end, onData);
      from = nl + 1;
    }
    this.rest = from === 0 ? buf : buf.slice(from);
    if (this.rest.length > MAX_EVENT_CHARS)
      throw new SseError(
        `a stream line over ${MAX_EVENT_CHARS / 1048576} MB without a newline: not an event stream`,
      );
  }

  /** The stream ended: an event not closed by a blank line still counts (some servers omit the last one). */
  end(onData: (payload: string) => void): void {
    if (this.rest !== '') this.line(this.rest, 0, this.rest.length, onData);
    this.rest = '';
    if (this.data !== null) onData(this.data);
    this.data = null;
  }

  private line(buf: string, from: number, end: number, onData: (payload: string) => void): void {
    if (end === from) {
      if (this.data !== null) onData(this.data);
      this.data = null;
      return;
    }
    // "data:" is 5 chars; one optional space after the colon is part of the syntax, not the payload.
    if (end - from >= 5 && buf.startsWith('data:', from)) {
      const start = buf.charCodeAt(from + 5) === 32 ? from + 6 : from + 5;
      const v = buf.slice(start, end);
      // Servers that omit the blank line between events (`data: {…}\ndata: {…}`) would join every chunk of a
      // reply into one event: a payload that is already whole JSON, followed by one that starts anew, is an event.
      if (this.data !== null && isWhole(this.data) && startsPayload(v)) {
        onData(this.data);
        this.data = null;
      }
      this.data = this.data === null ? v : `${this.data}\n${v}`;
      if (this.data.length > MAX_EVENT_CHARS)
        throw new SseError(`an event over ${MAX_EVENT_CHARS / 1048576} MB: not an OpenAI stream chunk`);
    }
  }
}

const isWhole = (d: string): boolean => d === '[DONE]' || (d.startsWith('{') && d.trimEnd().endsWith('}'));
const startsPayload = (v: string): boolean => v.startsWith('{') || v === '[DONE]';
