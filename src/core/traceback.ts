/**
 * Groups a Python traceback, printed over many lines (each possibly carrying a logger prefix), into one
 * exception event: its type, message, rank, first line and the line that names the exception.
 */
import { classifyExceptionType, classifyFailureText } from './failure-class.js';
import type { FailureClass, LogLine } from './types.js';

export interface ExceptionEvent {
  type: string;
  message: string;
  cls: FailureClass;
  line: number;
  text: string;
  startLine: number | null;
  startText: string | null;
  tags: string | null;
  ts: number | null;
  /** Exceptions that end a process normally (Ctrl+C, cancelled requests), not failures. */
  benign: boolean;
  /** The remedies the engine printed after the exception (`Possible solutions:` lists). */
  remedies: string[];
  /** Set when the traceback went through a request handler (uvicorn/starlette), which does not kill the server. */
  requestScoped: boolean;
}

const TB_START = /Traceback \(most recent call last\):?\s*$/;
const FRAME = /^(?:\s|\^|~|File ["“”']|\.\.\.<\d+ lines>\.\.\.|During handling of the above exception|The above exception was the direct cause|\s*\+[- ]|\s*\|)/;
const EXCEPTION = /^((?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure|Dead\w*|Timeout)\w*|Exception|KeyboardInterrupt|SystemExit|StopIteration|CancelledError))(?::\s?(.*))?$/;
const BENIGN = /^(?:KeyboardInterrupt|SystemExit|(?:asyncio\.(?:exceptions\.)?)?CancelledError|GeneratorExit|StopIteration|StopAsyncIteration)$/;
const REQUEST_FRAME = /starlette|uvicorn\/protocols|fastapi\/routing|Exception in ASGI application|anyio\/_backends/;

export class TracebackTracker {
  private open = false;
  private start: number | null = null;
  private startText: string | null = null;
  private tags: string | null = null;
  private sawFrames = false;
  private requestScoped = false;
  private last: ExceptionEvent | null = null;
  private remedyWindow = 0;

  /** Feeds one line; returns an exception event when this line names one. */
  feed(line: LogLine): ExceptionEvent | null {
    const msg = line.msg;
    if (this.remedyWindow > 0 && this.last) {
      this.remedyWindow--;
      const r = /^\s*\d\.\s+(.+)$/.exec(msg);
      if (r) {
        this.last.remedies.push(r[1]!.trim());
        return null;
      }
      if (/^Possible solutions:?$/.test(msg.trim())) return null;
    }
    if (TB_START.test(msg)) {
      if (!this.open) {
        this.start = line.no;
        this.startText = line.text;
        this.tags = line.tags;
        this.requestScoped = /Exception in ASGI application/.test(msg);
      }
      this.open = true;
      this.sawFrames = false;
      return null;
    }
    if (/Exception in ASGI application|Exception in callback|Error in ASGI/.test(msg)) {
      this.requestScoped = true;
      this.start = line.no;
      this.startText = line.text;
      return null;
    }
    const m = EXCEPTION.exec(msg);
    if (m && (this.open || this.sawFrames || m[2] !== undefined)) {
      const type = m[1]!;
      const message = (m[2] ?? '').trim();
      const benign = BENIGN.test(type);
      const ev: ExceptionEvent = {
        type,
        message,
        cls: classifyExceptionType(type) ?? classifyFailureText(`${type}: ${message}`) ?? 'python_exception',
        line: line.no,
        text: line.text,
        startLine: this.start,
        startText: this.startText,
        tags: line.tags ?? this.tags,
        ts: line.ts,
        benign,
        remedies: [],
        requestScoped: this.requestScoped,
      };
      this.open = false;
      this.sawFrames = false;
      this.last = ev;
      this.remedyWindow = 12;
      return ev;
    }
    if (FRAME.test(msg) || msg === '') {
      this.sawFrames = true;
      if (REQUEST_FRAME.test(msg)) this.requestScoped = true;
      return null;
    }
    if (line.framed && !/^(?:ERROR|CRITICAL)/.test(line.msg)) this.reset();
    return null;
  }

  /** A plain logger line (from the fast path) ends any traceback in progress. */
  reset(): void {
    this.open = false;
    this.sawFrames = false;
    this.start = null;
    this.requestScoped = false;
    this.remedyWindow = 0;
  }
}
