/**
 * SHA-256 in JavaScript, for the short texts whose hash is part of a record's identity (store/record.ts: launch
 * ids, fingerprints, config hashes): the same digest as node:crypto's, without loading node:crypto, which costs
 * ~2 ms of every `firedup status`. Meant for texts of a few kilobytes at most; it runs before V8 has optimised
 * anything, at a few microseconds per 64-byte block.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const W = new Int32Array(64);
const H = new Int32Array(8);

/** Folds the 64-byte blocks of `src` before `end` into H. */
function blocks(src: Uint8Array, end: number): void {
  let h0 = H[0]!;
  let h1 = H[1]!;
  let h2 = H[2]!;
  let h3 = H[3]!;
  let h4 = H[4]!;
  let h5 = H[5]!;
  let h6 = H[6]!;
  let h7 = H[7]!;
  for (let off = 0; off < end; off += 64) {
    for (let i = 0; i < 16; i++) {
      const p = off + 4 * i;
      W[i] = (src[p]! << 24) | (src[p + 1]! << 16) | (src[p + 2]! << 8) | src[p + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15]!;
      const y = W[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  H[0] = h0;
  H[1] = h1;
  H[2] = h2;
  H[3] = h3;
  H[4] = h4;
  H[5] = h5;
  H[6] = h6;
  H[7] = h7;
}

const ENC = new TextEncoder();
/** The message and its padding, reused from call to call (a record's ids hash ~300k texts in a 100k-launch read). */
let BUF = new Uint8Array(4096);
const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push(i.toString(16).padStart(2, '0'));

/** SHA-256 of the UTF-8 bytes of `text`, as 64 hex digits. */
export function sha256Hex(text: string): string {
  // UTF-8 takes at most 3 bytes per UTF-16 unit; 72 more for the padding
  const room = text.length * 3 + 72;
  // (a text of more than a few hundred kilobytes gets a buffer of its own, not kept)
  if (room > BUF.length && room <= 1 << 20) BUF = new Uint8Array(room * 2);
  const buf = room <= BUF.length ? BUF : new Uint8Array(room);
  const n = ENC.encodeInto(text, buf).written;
  // 0x80, zeros, and the length in bits (big-endian, 64 bits), to a whole number of 64-byte blocks
  const end = (n + 72) & ~63;
  buf[n] = 0x80;
  buf.fill(0, n + 1, end - 8);
  const hi = Math.floor(n / 0x20000000);
  const lo = (n * 8) >>> 0;
  buf[end - 8] = hi >>> 24;
  buf[end - 7] = hi >>> 16;
  buf[end - 6] = hi >>> 8;
  buf[end - 5] = hi;
  buf[end - 4] = lo >>> 24;
  buf[end - 3] = lo >>> 16;
  buf[end - 2] = lo >>> 8;
  buf[end - 1] = lo;
  H[0] = 0x6a09e667;
  H[1] = 0xbb67ae85;
  H[2] = 0x3c6ef372;
  H[3] = 0xa54ff53a;
  H[4] = 0x510e527f;
  H[5] = 0x9b05688c;
  H[6] = 0x1f83d9ab;
  H[7] = 0x5be0cd19;
  blocks(buf, end);
  let hex = '';
  for (let i = 0; i < 8; i++) {
    const h = H[i]!;
    hex += HEX[(h >>> 24) & 255]! + HEX[(h >>> 16) & 255]! + HEX[(h >>> 8) & 255]! + HEX[h & 255]!;
  }
  return hex;
}
