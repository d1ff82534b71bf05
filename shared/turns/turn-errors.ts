import { PayloadTooLarge } from "../errors.js";

/**
 * One cap for a composed turn and for the composition preview. A turn must fit the request record
 * that carries it back to the caller (one DynamoDB item, < 400 KB); a preview is answered
 * directly and would otherwise only stop at Lambda's 6 MB response limit (a 5 MB preview was
 * seen), so both stop here. Refused before anything is written, so no pending message is lost.
 */
export const MAX_TURN_BYTES = 300 * 1024;

/** API.md 413 PAYLOAD_TOO_LARGE: what the composition would answer is larger than the cap. */
export class TurnTooLarge extends PayloadTooLarge {
  constructor(
    readonly processId: string,
    readonly bytes: number,
    readonly preview = false,
  ) {
    super(
      `The ${preview ? "composition preview" : "turn"} of process '${processId}' would be ${bytes} bytes (limit ${MAX_TURN_BYTES}); ` +
        "clear a skill or shorten its inline reference docs",
      MAX_TURN_BYTES,
    );
  }
}

/**
 * The UTF-8 length of `JSON.stringify(value)`, without serializing what it measured before:
 * frozen objects (the memoized catalog, the `skill_activate` spec with the enum of every catalog
 * name — deep-frozen where they are built) are measured once and remembered. Serializing a whole
 * Turn on every turn only to measure it cost the steady turn a copy of its largest parts and the
 * garbage that goes with it. Objects with `toJSON` are serialized as JSON.stringify would.
 */
const frozenBytes = new WeakMap<object, number>();

// eslint-disable-next-line no-control-regex
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** UTF-8 bytes of `JSON.stringify(text)`, counted without building the escaped copy. */
export function jsonStringBytes(text: string): number {
  // Most prompt text has nothing JSON escapes (and no surrogates): the native count is exact then.
  if (!NEEDS_CARE.test(text)) return Buffer.byteLength(text, "utf8") + 2;
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) bytes += 2;
    else if (c < 0x20) bytes += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 6; // a lone surrogate: JSON.stringify writes \udXXX
    } else if (c >= 0xdc00 && c <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

export function jsonBytes(value: unknown, depth = 0): number {
  if (typeof value === "string") return jsonStringBytes(value);
  if (value !== null && typeof value === "object") {
    if (Object.isFrozen(value)) {
      const known = frozenBytes.get(value);
      if (known !== undefined) return known;
      const measured = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
      frozenBytes.set(value, measured);
      return measured;
    }
    if (depth < 3 && typeof (value as { toJSON?: unknown }).toJSON !== "function") {
      if (Array.isArray(value)) {
        let sum = 2 + Math.max(0, value.length - 1);
        for (const item of value)
          sum += item === undefined || typeof item === "function" || typeof item === "symbol" ? 4 : jsonBytes(item, depth + 1);
        return sum;
      }
      let sum = 2;
      let first = true;
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        sum += (first ? 0 : 1) + jsonStringBytes(key) + 1 + jsonBytes(item, depth + 1);
        first = false;
      }
      return sum;
    }
  }
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Buffer.byteLength(json, "utf8");
}

/** Measures the turn as it travels (JSON, UTF-8) and refuses it past MAX_TURN_BYTES. */
export function assertTurnFits<T>(processId: string, turn: T, preview = false): T {
  const bytes = jsonBytes(turn);
  if (bytes > MAX_TURN_BYTES) throw new TurnTooLarge(processId, bytes, preview);
  return turn;
}
