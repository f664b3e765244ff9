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

/** SHA-256 of the UTF-8 bytes of `text`, as 64 hex digits. */
export function sha256Hex(text: string): string {
  const data = new TextEncoder().encode(text);
  H.set([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const n = data.length;
  const whole = n - (n % 64);
  blocks(data, whole);
  // the last bytes, 0x80, zeros, and the length in bits (big-endian, 64 bits) in one or two blocks
  const tail = new Uint8Array(n - whole + 9 > 64 ? 128 : 64);
  tail.set(data.subarray(whole));
  tail[n - whole] = 0x80;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(n / 0x20000000));
  view.setUint32(tail.length - 4, (n * 8) >>> 0);
  blocks(tail, tail.length);
  let hex = '';
  for (let i = 0; i < 8; i++) hex += (H[i]! >>> 0).toString(16).padStart(8, '0');
  return hex;
}
