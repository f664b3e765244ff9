/**
 * What one streamed event of the OpenAI API says: generated text (completions' `choices[0].text`, chat's
 * `delta.content` or `delta.reasoning_content`), token usage, an error the server sent in the stream, or the end.
 * A chat stream's first event carries only the role: it is not a token and must not count as the first one.
 */
export interface TokenUsage {
  promptTokens: number | null;
  completionTokens: number | null;
}

export type StreamEvent =
  | { kind: 'done' }
  | { kind: 'chunk'; text: boolean; usage: TokenUsage | null }
  | { kind: 'error'; message: string };

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  const o = e as Obj;
  return typeof o?.message === 'string' ? o.message : JSON.stringify(e);
}

export function readEvent(payload: string): StreamEvent {
  if (payload === '[DONE]') return { kind: 'done' };
  let o: Obj;
  try {
    o = JSON.parse(payload) as Obj;
  } catch {
    return { kind: 'error', message: `unreadable event: ${payload.slice(0, 120)}` };
  }
  if (o === null || typeof o !== 'object')
    return { kind: 'error', message: `unexpected event: ${payload.slice(0, 120)}` };
  if (o.error !== undefined && o.error !== null) return { kind: 'error', message: errorText(o.error) };
  const c = (o.choices as Obj[] | undefined)?.[0];
  let text = false;
  if (c) {
    if (typeof c.text === 'string') text = c.text.length > 0;
    else {
      const d = c.delta as Obj | undefined;
      text =
        (typeof d?.content === 'string' && d.content.length > 0) ||
        (typeof d?.reasoning_content === 'string' && d.reasoning_content.length > 0);
    }
  }
  const u = o.usage as Obj | null | undefined;
  const usage = u ? { promptTokens: num(u.prompt_tokens), completionTokens: num(u.completion_tokens) } : null;
  return { kind: 'chunk', text, usage };
}
