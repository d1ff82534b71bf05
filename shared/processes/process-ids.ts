import { createHash, randomBytes } from "node:crypto";

/**
 * Process ids: 26 characters of lowercase Crockford base32 (URL- and key-safe, no look-alikes).
 * A fresh id is ULID-shaped — 48-bit millisecond time, then 80 random bits — so ids sort by
 * creation time. A child spawned for a lane request gets an id derived from that request, so a
 * redelivered spawn addresses the same process and ProcessStore.create answers it idempotently.
 */

// Ascending in ASCII, so string order of ids is numeric order of their bits.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const PROCESS_ID_LENGTH = 26;
export const PROCESS_ID_PATTERN = /^[0-9a-hjkmnp-tv-z]{26}$/;

const TIME_CHARS = 10;
const MAX_TIME = 2 ** 48 - 1;

/** `chars` base32 characters from the leading bits of `bytes`. */
function encodeBits(bytes: Uint8Array, chars: number): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === chars) return out;
  }
  throw new RangeError(`${bytes.length} bytes cannot fill ${chars} base32 characters`);
}

function encodeTime(ms: number): string {
  let t = Math.min(Math.max(Math.floor(ms), 0), MAX_TIME);
  let out = "";
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[t % 32]! + out;
    t = Math.floor(t / 32);
  }
  return out;
}

export function newProcessId(now: number = Date.now(), random: (size: number) => Uint8Array = randomBytes): string {
  return encodeTime(now) + encodeBits(random(10), PROCESS_ID_LENGTH - TIME_CHARS);
}

/** The same (parent, request) always yields the same id; different ones collide only by SHA-256 accident. */
export function deterministicChildId(parentProcessId: string, requestId: string): string {
  // Length-prefixed, so ("ab", "c") and ("a", "bc") cannot produce the same input.
  const digest = createHash("sha256")
    .update(`child:${parentProcessId.length}:${parentProcessId}:${requestId.length}:${requestId}`, "utf8")
    .digest();
  return encodeBits(digest, PROCESS_ID_LENGTH);
}
