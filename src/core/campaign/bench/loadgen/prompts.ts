/**
 * Prompts for the generator: seeded random text of about N tokens, or conversations from a ShareGPT-style file.
 * Without the model's tokenizer a prompt's exact token count is unknown here; each word below is one token in
 * the common BPE vocabularies (a leading space and a short English word), so N words come close, and the
 * figures use the server's own count (`usage.prompt_tokens`) anyway.
 */
export interface Prompt {
  /** Completions' prompt; chat sends it as one user message. */
  text: string;
  maxTokens: number;
}

const WORDS = (
  'the of and to in is was for on as with by he at from his an were are which this be or had not but first ' +
  'one their its new after who they have her she two been other when there all during into school time may ' +
  'years more most only over city some world would where later up such used many can state about national ' +
  'out known university united then made also year under three since high these film well part team being'
).split(' ');

/** mulberry32: a small seeded PRNG, so the same --seed gives the same prompts and arrival times. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `inputLen` random words: each prompt differs from its first word, so no prefix cache serves it. */
export function randomPrompt(rand: () => number, inputLen: number, outputLen: number): Prompt {
  const w: string[] = new Array(inputLen);
  for (let i = 0; i < inputLen; i++) w[i] = WORDS[Math.floor(rand() * WORDS.length)]!;
  return { text: w.join(' '), maxTokens: outputLen };
}

export class DatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatasetError';
  }
}

type Obj = Record<string, unknown>;

/** About four characters per token in English: how a reply's length becomes max_tokens without a tokenizer. */
const CHARS_PER_TOKEN = 4;

/** A ShareGPT conversation's first human turn and the reply's length, or a {prompt, output_len} line. */
function entryOf(o: Obj, outputLen: number | null): Prompt | null {
  const conv = (o.conversations ?? o.conversation ?? o.messages) as Obj[] | undefined;
  if (Array.isArray(conv)) {
    const turns = conv.map((t) => ({
      who: String(t.from ?? t.role ?? ''),
      text: String(t.value ?? t.content ?? ''),
    }));
    const h = turns.findIndex((t) => t.who === 'human' || t.who === 'user');
    if (h < 0 || turns[h]!.text === '') return null;
    const reply = turns[h + 1]?.text ?? '';
    const n = outputLen ?? Math.max(1, Math.round(reply.length / CHARS_PER_TOKEN));
    return { text: turns[h]!.text, maxTokens: n };
  }
  if (typeof o.prompt === 'string' && o.prompt !== '') {
    const given =
      typeof o.output_len === 'number'
        ? o.output_len
        : typeof o.max_tokens === 'number'
          ? o.max_tokens
          : null;
    const reply =
      typeof o.completion === 'string' ? o.completion : typeof o.output === 'string' ? o.output : null;
    const n = outputLen ?? given ?? (reply ? Math.max(1, Math.round(reply.length / CHARS_PER_TOKEN)) : 128);
    return { text: o.prompt, maxTokens: n };
  }
  return null;
}

/** A JSON array (ShareGPT's own file) or JSONL of conversations; `outputLen` overrides each reply's length. */
export function parseDataset(text: string, name: string, outputLen: number | null): Prompt[] {
  const t = text.trim();
  let items: unknown[];
  if (t.startsWith('[')) {
    try {
      items = JSON.parse(t) as unknown[];
    } catch (e) {
      throw new DatasetError(`${name}: not valid JSON (${(e as Error).message})`);
    }
  } else {
    items = [];
    const lines = t.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!.trim();
      if (l === '') continue;
      try {
        items.push(JSON.parse(l));
      } catch {
        throw new DatasetError(`${name}:${i + 1}: not a JSON line; expected a ShareGPT JSON array or JSONL`);
      }
    }
  }
  const out: Prompt[] = [];
  for (const it of items) {
    if (it && typeof it === 'object' && !Array.isArray(it)) {
      const p = entryOf(it as Obj, outputLen);
      if (p) out.push(p);
    }
  }
  if (out.length === 0)
    throw new DatasetError(
      `${name}: no conversation with a human turn (ShareGPT "conversations": [{"from": "human", "value": …}]) or "prompt" field in it`,
    );
  return out;
}
