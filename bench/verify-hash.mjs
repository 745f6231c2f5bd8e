// Checks the built chainHash (js-sha256's pure-JS build + base32-encode of the first 10 digest
// bytes, see src/naming/chain-names.ts) against node:crypto on random strings: ASCII, multi-byte,
// surrogate pairs, lone surrogates, lengths across several SHA-256 blocks. Exits 1 on any mismatch.
//   node bench/verify-hash.mjs [COUNT]
import { createHash } from "node:crypto";
import { loadLibrary } from "./load.mjs";

const { chainHash } = await loadLibrary();
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function reference(text) {
  const bytes = createHash("sha256").update(text, "utf8").digest();
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes.subarray(0, 10)) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

let seed = 7;
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const SPECIAL = ["é", "€", "😀", "\ud800", "\udc00", "/", ":", " ", "\u0000"];
let bad = 0;
const count = Number(process.argv[2] ?? 100000);
for (let n = 0; n < count; n++) {
  const length = Math.floor(rand() * 300);
  let s = "";
  for (let i = 0; i < length; i++)
    s +=
      rand() < 0.85
        ? String.fromCharCode(32 + Math.floor(rand() * 95))
        : SPECIAL[Math.floor(rand() * SPECIAL.length)];
  if (chainHash(s) !== reference(s)) {
    if (bad++ < 5) console.log("mismatch:", JSON.stringify(s));
  }
}
console.log(`${count} strings, ${bad} mismatches`);
process.exit(bad === 0 ? 0 : 1);
