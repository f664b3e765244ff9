/**
 * Turns a graph of in-memory state (plain objects, arrays, Maps, Sets, typed arrays and instances of known
 * classes) into JSON and back, exactly: the same prototypes, `undefined`, -0, NaN, insertion orders, and
 * shared references (an object reached twice comes back as one object reached twice — a failure's
 * `remedies` array is the same array the traceback reader keeps appending to).
 *
 * Anything it was not told about (an unknown class, a function, a new field of a class restored into an
 * existing instance) makes `encode` throw instead of being silently dropped: a checkpoint that loses state
 * would give a different report after restore, and the tests would have to be lucky to notice.
 *
 * Tagged values are objects whose first key starts with `$`; a plain object that has such a key is wrapped
 * in `$o`, so no input can be mistaken for a tag.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A class whose instances are created afresh on decode (from the prototype) with every own field saved. */
export interface CreateSpec {
  kind: 'create';
  name: string;
  proto: object;
}

/**
 * A class whose instance is built by its owner's constructor (it holds closures or options) and into which
 * the saved fields are written back. Every own field must be listed, either as state or as rebuilt.
 */
export interface IntoSpec {
  kind: 'into';
  name: string;
  proto: object;
  state: readonly string[];
  /** Fields the constructor rebuilds (closures, options, buffers that are empty at a checkpoint): not saved. */
  rebuilt: readonly string[];
}

export type ClassSpec = CreateSpec | IntoSpec;

const TYPED: Record<string, new (n: number) => ArrayLike<number> & { [i: number]: number }> = {
  Uint8Array,
  Uint16Array,
  Uint32Array,
  Int32Array,
  Float32Array,
  Float64Array,
};

type Holder = Json[] | { [k: string]: Json };

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** `bytes` (the elements of `of`) in little-endian order from the host's, or back: a copy when they differ. */
function littleEndian(bytes: Buffer, of: ArrayBufferView, copy: boolean): Buffer {
  const size = (of as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  if (HOST_LE || size === 1) return bytes;
  const out = copy ? Buffer.from(bytes) : bytes;
  if (size === 2) out.swap16();
  else if (size === 4) out.swap32();
  else out.swap64();
  return out;
}

interface First {
  holder: Holder;
  key: number | string;
  node: Json;
  id: number;
}

/** A number JSON keeps as it is: finite, and not -0. */
function plain(v: number): boolean {
  return Number.isFinite(v) && !Object.is(v, -0);
}

function num(v: number): Json {
  if (plain(v)) return v;
  return { $num: Object.is(v, -0) ? '-0' : String(v) };
}

/** `o[k] = v`, also for a key named `__proto__` (a config read from a log may have one): an own field. */
function put(o: object, k: string | number, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else (o as Record<string | number, unknown>)[k] = v;
}

function firstKey(o: object): string | undefined {
  for (const k in o) return k;
  return undefined;
}

export class StateCodec {
  private readonly byProto = new Map<object, ClassSpec>();
  private readonly byName = new Map<string, ClassSpec>();
  private readonly constName = new Map<unknown, string>();
  private readonly constValue = new Map<string, unknown>();

  /** `constants`: values saved by name (engine modules, parser functions), the first name of a value wins. */
  constructor(classes: readonly ClassSpec[], constants: Iterable<[string, unknown]>) {
    for (const c of classes) {
      this.byProto.set(c.proto, c);
      this.byName.set(c.name, c);
    }
    for (const [name, v] of constants) {
      if (!this.constName.has(v)) this.constName.set(v, name);
      this.constValue.set(name, v);
    }
  }

  spec(o: object): ClassSpec | undefined {
    return this.byProto.get(Object.getPrototypeOf(o));
  }

  /** Encodes an object of an `into` class (the root of a checkpoint). */
  encodeInto(root: object, spec: IntoSpec): Json {
    return new Encoding(this).instance(root, spec);
  }

  /** Writes what `encodeInto` saved back into `target`, an instance built by its constructor. */
  decodeInto(json: Json, target: object, spec: IntoSpec): void {
    new Decoding(this).into(json, target, spec);
  }

  /** @internal */
  constOf(v: unknown): string | undefined {
    return this.constName.get(v);
  }

  /** @internal */
  constNamed(name: string): unknown {
    if (!this.constValue.has(name)) throw new Error(`unknown constant ${name}`);
    return this.constValue.get(name);
  }

  /** @internal */
  named(name: string): ClassSpec {
    const s = this.byName.get(name);
    if (!s) throw new Error(`unknown class ${name}`);
    return s;
  }
}

class Encoding {
  private readonly first = new Map<object, First>();
  private readonly active = new Set<object>();
  private readonly path: Array<string | number> = [];
  private nextId = 0;

  constructor(private readonly codec: StateCodec) {}

  private fail(what: string): never {
    throw new Error(`state codec: cannot save ${what} at ${this.path.join('.') || '(root)'}`);
  }

  /** Encodes `v`, which its caller stores at `holder[key]` as soon as this returns. */
  value(v: unknown, holder: Holder, key: number | string): Json {
    // Most values are numbers and strings: answered first (this runs in V8's interpreter at each save).
    if (typeof v === 'number') return num(v);
    if (typeof v === 'string') return v;
    if ((typeof v === 'object' && v !== null) || typeof v === 'function') {
      const name = this.codec.constOf(v);
      if (name !== undefined) return { $k: name };
    }
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        return num(v);
      case 'undefined':
        return { $u: 1 };
      case 'object':
        if (v === null) return null;
        break;
      default:
        this.fail(`a ${typeof v}`);
    }
    const o = v as object;
    const seen = this.first.get(o);
    if (seen) {
      if (this.active.has(o)) this.fail('a cycle');
      if (seen.id < 0) {
        // Reached twice: the first occurrence becomes the definition, the others refer to it.
        seen.id = this.nextId++;
        put(seen.holder, seen.key, { $def: seen.id, v: seen.node });
      }
      return { $ref: seen.id };
    }
    const entry: First = { holder, key, node: null, id: -1 };
    this.first.set(o, entry);
    this.active.add(o);
    entry.node = this.object(o);
    this.active.delete(o);
    return entry.node;
  }

  private object(o: object): Json {
    const proto = Object.getPrototypeOf(o);
    if (Array.isArray(o)) {
      if (proto !== Array.prototype || Object.keys(o).length !== o.length) this.fail('an array with extras');
      const out: Json[] = [];
      for (let i = 0; i < o.length; i++) {
        this.path.push(i);
        out.push(this.value(o[i], out, i));
        this.path.pop();
      }
      return out;
    }
    if (proto === Map.prototype) {
      const list: Json[] = [];
      for (const [k, x] of o as Map<unknown, unknown>) {
        // A pair of plain numbers (a TimeSeries' buckets: hundreds of them) without the general path.
        if (typeof k === 'number' && typeof x === 'number' && plain(k) && plain(x)) {
          list.push([k, x]);
          continue;
        }
        const pair: Json[] = [];
        pair.push(this.value(k, pair, 0));
        pair.push(this.value(x, pair, 1));
        list.push(pair);
      }
      return { $map: list };
    }
    if (proto === Set.prototype) {
      const list: Json[] = [];
      for (const x of o as Set<unknown>) list.push(this.value(x, list, list.length));
      return { $set: list };
    }
    if (ArrayBuffer.isView(o)) return this.typed(o);
    if (proto === Object.prototype || proto === null) {
      const fields = this.fields(o, Object.keys(o));
      const wrap = proto === null || Object.keys(o).some((k) => k.startsWith('$'));
      return wrap ? { $o: fields, np: proto === null } : fields;
    }
    const spec = this.codec.spec(o);
    if (!spec) this.fail(`an instance of ${proto?.constructor?.name ?? 'an unknown class'}`);
    return this.instance(o, spec);
  }

  instance(o: object, spec: ClassSpec): Json {
    let keys = Object.keys(o);
    if (spec.kind === 'into') {
      for (const k of keys)
        if (!spec.state.includes(k) && !spec.rebuilt.includes(k))
          this.fail(`${spec.name}.${k}: a field that is neither state nor rebuilt (add it to its spec)`);
      for (const k of spec.state) if (!keys.includes(k)) this.fail(`${spec.name}.${k}: no such field`);
      keys = keys.filter((k) => spec.state.includes(k));
    }
    this.path.push(spec.name);
    const f = this.fields(o, keys);
    this.path.pop();
    return { $c: spec.name, f };
  }

  private fields(o: object, keys: string[]): { [k: string]: Json } {
    const out: { [k: string]: Json } = {};
    for (const k of keys) {
      this.path.push(k);
      put(out, k, this.value((o as Record<string, unknown>)[k], out, k));
      this.path.pop();
    }
    return out;
  }

  /**
   * Its bytes, base64: exact (-0, NaN) and done by Node in one call, where a loop over the elements runs in
   * V8's interpreter at every `firedup status` (~1.5 ms for a launch's histograms). Little-endian whatever
   * the machine (littleEndian), so a checkpoint reads the same on another.
   */
  private typed(o: ArrayBufferView): Json {
    const name = o.constructor.name;
    if (TYPED[name] === undefined || Object.getPrototypeOf(o) !== TYPED[name].prototype)
      this.fail(`a ${name}`);
    const b = littleEndian(Buffer.from(o.buffer, o.byteOffset, o.byteLength), o, true).toString('base64');
    return { $ta: name, n: (o as unknown as ArrayLike<number>).length, b };
  }
}

type JsonObject = { [k: string]: Json };

class Decoding {
  private readonly defs = new Map<number, unknown>();

  constructor(private readonly codec: StateCodec) {}

  value(j: Json): unknown {
    if (j === null || typeof j !== 'object') return j;
    if (Array.isArray(j)) return j.map((x) => this.value(x));
    const tag = firstKey(j);
    if (tag === undefined || !tag.startsWith('$')) return this.fields({}, j);
    switch (tag) {
      case '$u':
        return undefined;
      case '$num':
        return j.$num === '-0' ? -0 : Number(j.$num as string);
      case '$k':
        return this.codec.constNamed(j.$k as string);
      case '$def': {
        const v = this.value(j.v!);
        this.defs.set(j.$def as number, v);
        return v;
      }
      case '$ref': {
        const id = j.$ref as number;
        if (!this.defs.has(id)) throw new Error(`reference ${id} before its definition`);
        return this.defs.get(id);
      }
      case '$map': {
        const m = new Map();
        for (const pair of j.$map as Json[][]) {
          const k = pair[0]!;
          const v = pair[1]!;
          // primitives decode as themselves (value's first line): skipped for the hundreds of a TimeSeries
          m.set(
            k === null || typeof k !== 'object' ? k : this.value(k),
            v === null || typeof v !== 'object' ? v : this.value(v),
          );
        }
        return m;
      }
      case '$set':
        return new Set((j.$set as Json[]).map((x) => this.value(x)));
      case '$ta':
        return this.typed(j);
      case '$o':
        return this.fields(j.np ? Object.create(null) : {}, j.$o as JsonObject);
      case '$c': {
        const spec = this.codec.named(j.$c as string);
        if (spec.kind === 'into') throw new Error(`${spec.name} outside its owner`);
        return this.fields(Object.create(spec.proto), j.f as JsonObject);
      }
      default:
        throw new Error(`unknown tag ${tag}`);
    }
  }

  into(j: Json, target: object, spec: IntoSpec): void {
    const node = j as JsonObject;
    if (node?.$c !== spec.name) throw new Error(`expected ${spec.name}`);
    const f = node.f as JsonObject;
    const keys = Object.keys(f);
    if (keys.length !== spec.state.length || !spec.state.every((k) => keys.includes(k)))
      throw new Error(`${spec.name}: saved fields differ from its spec`);
    const t = target as Record<string, unknown>;
    for (const k of keys) {
      const cur = t[k];
      const inner = typeof cur === 'object' && cur !== null ? this.codec.spec(cur) : undefined;
      if (inner?.kind === 'into') this.into(f[k]!, cur as object, inner);
      else t[k] = this.value(f[k]!);
    }
  }

  private fields(o: Record<string, unknown>, j: JsonObject): Record<string, unknown> {
    for (const k of Object.keys(j)) put(o, k, this.value(j[k]!));
    return o;
  }

  private typed(j: JsonObject): unknown {
    const Ctor = TYPED[j.$ta as string];
    if (!Ctor) throw new Error(`unknown typed array ${j.$ta}`);
    const a = new Ctor(j.n as number) as unknown as ArrayBufferView;
    const bytes = Buffer.from(String(j.b), 'base64');
    if (bytes.length !== a.byteLength) throw new Error(`${j.$ta}: ${bytes.length} bytes for ${j.n} elements`);
    new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(littleEndian(bytes, a, false));
    return a;
  }
}
