// SHA-256, synchronous: a report's key is computed while the pipeline is still synchronous
// (the memory store answers without a promise), and core imports nothing from node:, so
// WebCrypto's promise-only digest does not fit. The same digest Postgres's `sha256()` and
// every other implementation give, so a key can be computed again outside reportkit.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const encoder = new TextEncoder();
// Scratch space reused by every call (the function is synchronous, so no two calls share it):
// a report's key is hashed per request, and allocations there showed in the bench.
const W = new Int32Array(64);
const H = new Int32Array(8);
let block = new Uint8Array(128);
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** The SHA-256 of `text`'s UTF-8 bytes, as 64 lower-case hex digits. */
export function sha256Hex(text: string): string {
  const length = byteLength(text);
  // The message, a 1 bit, zeros, and its length in bits as 64 bits: a whole number of blocks.
  const total = Math.ceil((length + 9) / 64) * 64;
  if (block.length < total) block = new Uint8Array(total);
  const bytes = block;
  if (length === text.length) {
    for (let i = 0; i < length; i++) bytes[i] = text.charCodeAt(i);
  } else {
    bytes.set(encoder.encode(text));
  }
  bytes.fill(0, length, total);
  bytes[length] = 0x80;
  const bits = length * 8;
  const high = Math.floor(bits / 0x100000000);
  bytes[total - 8] = high >>> 24;
  bytes[total - 7] = high >>> 16;
  bytes[total - 6] = high >>> 8;
  bytes[total - 5] = high;
  bytes[total - 4] = bits >>> 24;
  bytes[total - 3] = bits >>> 16;
  bytes[total - 2] = bits >>> 8;
  bytes[total - 1] = bits;

  H[0] = 0x6a09e667;
  H[1] = 0xbb67ae85;
  H[2] = 0x3c6ef372;
  H[3] = 0xa54ff53a;
  H[4] = 0x510e527f;
  H[5] = 0x9b05688c;
  H[6] = 0x1f83d9ab;
  H[7] = 0x5be0cd19;
  for (let offset = 0; offset < total; offset += 64) compress(bytes, offset);
  let hex = "";
  for (let i = 0; i < 8; i++) {
    const word = H[i] as number;
    hex +=
      (HEX[word >>> 24] as string) +
      (HEX[(word >>> 16) & 0xff] as string) +
      (HEX[(word >>> 8) & 0xff] as string) +
      (HEX[word & 0xff] as string);
  }
  return hex;
}

/** UTF-8 length of `text`: its length when it is ASCII (a phone number), else encoded. */
function byteLength(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).length;
  }
  return text.length;
}

/** One 64-byte block into H. */
function compress(bytes: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i++) {
    const at = offset + i * 4;
    W[i] =
      ((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number);
  }
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15] as number;
    const y = W[i - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
  }
  let a = H[0] as number;
  let b = H[1] as number;
  let c = H[2] as number;
  let d = H[3] as number;
  let e = H[4] as number;
  let f = H[5] as number;
  let g = H[6] as number;
  let h = H[7] as number;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const choice = (e & f) ^ (~e & g);
    const t1 = (h + s1 + choice + (K[i] as number) + (W[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const majority = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (s0 + majority) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = ((H[0] as number) + a) | 0;
  H[1] = ((H[1] as number) + b) | 0;
  H[2] = ((H[2] as number) + c) | 0;
  H[3] = ((H[3] as number) + d) | 0;
  H[4] = ((H[4] as number) + e) | 0;
  H[5] = ((H[5] as number) + f) | 0;
  H[6] = ((H[6] as number) + g) | 0;
  H[7] = ((H[7] as number) + h) | 0;
}
