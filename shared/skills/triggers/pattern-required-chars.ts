import { re2jsLibrary } from "../../lazy/lazy-libraries.js";

/**
 * The cheap check in front of a trigger regex that has no required literal (pattern-prefilter.ts
 * found none): character classes of which every match holds at least one character, e.g. a digit
 * for `\d+[a-z]{2}`. A message (TriggerInput.lowered) without any character of one of them cannot
 * match, so the pattern is ruled out without being compiled (issue 27: a cold first turn should
 * not load re2js at all when no pattern can match).
 *
 * The classes come from re2js's own syntax tree of the pattern as `RE2JS.compile(p,
 * CASE_INSENSITIVE)` parses and simplifies it, an internal of re2js; trigger-re2js-contract.test.ts
 * pins every part of it read here, and a self-check at first use switches the analysis off (no
 * classes, never a wrong skip) when the tree does not look as expected.
 */

/** Characters of which a match holds at least one: ASCII exactly (a 128-bit mask), everything else as one flag. */
export interface RequiredChars {
  /** Bit `c & 31` of word `c >> 5` is set when ASCII character `c` is in the class. */
  readonly ascii: readonly [number, number, number, number];
  /** True when the class holds any non-ASCII character (the message check then only asks "any non-ASCII?"). */
  readonly nonAscii: boolean;
}

/** What a message holds, in the terms of RequiredChars. */
export interface MessageChars {
  readonly ascii: Uint32Array;
  readonly nonAscii: boolean;
}

/** More classes cost storage and checks for little: any one missing already rules the message out. */
const MAX_REQUIRED_CLASSES = 4;
/** Deeper subtrees claim nothing (a sound answer) instead of recursing further. */
const MAX_DEPTH = 200;
const MAX_RUNE = 0x10ffff;

export function messageCharsOf(lowered: string): MessageChars {
  const ascii = new Uint32Array(4);
  let nonAscii = false;
  for (let i = 0; i < lowered.length; i++) {
    const code = lowered.charCodeAt(i);
    // A UTF-16 unit of a non-ASCII code point (surrogates included) is never ASCII, and vice versa.
    if (code < 128) (ascii[code >> 5] as number) |= 1 << (code & 31);
    else nonAscii = true;
  }
  return { ascii, nonAscii };
}

/** False only when the message lacks every character of some required class (then no match is possible). */
export function mayHoldMatch(required: readonly RequiredChars[], message: MessageChars): boolean {
  const { ascii } = message;
  for (const chars of required) {
    const a = chars.ascii;
    const hit =
      ((a[0] & (ascii[0] as number)) | (a[1] & (ascii[1] as number)) | (a[2] & (ascii[2] as number)) | (a[3] & (ascii[3] as number))) !==
        0 ||
      (chars.nonAscii && message.nonAscii);
    if (!hit) return false;
  }
  return true;
}

/** `RequiredChars` as stored (level snapshots): 32 hex digits of the ASCII mask, word 0 first, then `+` when non-ASCII is in. */
export function encodeRequiredChars({ ascii, nonAscii }: RequiredChars): string {
  return ascii.map((word) => (word >>> 0).toString(16).padStart(8, "0")).join("") + (nonAscii ? "+" : "");
}

/** The class an `encodeRequiredChars` string stands for; undefined for anything else, or for an empty class (never written). */
export function decodeRequiredChars(text: unknown): RequiredChars | undefined {
  if (typeof text !== "string" || !/^[0-9a-f]{32}\+?$/.test(text)) return undefined;
  const word = (i: number): number => Number.parseInt(text.slice(8 * i, 8 * i + 8), 16) | 0;
  const chars: RequiredChars = { ascii: [word(0), word(1), word(2), word(3)], nonAscii: text.endsWith("+") };
  return chars.nonAscii || chars.ascii.some((w) => w !== 0) ? chars : undefined;
}

/**
 * The classes every case-insensitive match of `pattern` holds a character of (at most
 * MAX_REQUIRED_CLASSES, none of them a superset of another); empty when nothing can be proven,
 * including for a pattern that does not parse.
 */
export function requiredChars(pattern: string): RequiredChars[] {
  if (!treeShapeVerified()) return [];
  let tree: unknown;
  try {
    tree = re2jsSyntaxTreeOf(pattern);
  } catch {
    return [];
  }
  return prune(classesOf(tree, 0));
}

/**
 * re2js's syntax tree of `pattern` as `RE2JS.compile(pattern, CASE_INSENSITIVE)` compiles it
 * (parsed with the same flags, then simplified): RE2Set.add keeps it in `regexps`. Throws when the
 * pattern does not parse.
 */
export function re2jsSyntaxTreeOf(pattern: string): unknown {
  const { RE2JS, RE2Set } = re2jsLibrary();
  const set = new RE2Set(RE2Set.UNANCHORED, RE2JS.CASE_INSENSITIVE);
  set.add(pattern);
  return (set as unknown as { regexps?: unknown[] }).regexps?.[0];
}

/** re2js 2.10's `Regexp.Op` codes of the nodes read here; any other op claims nothing. */
export const RE2JS_REGEXP_OP = {
  LITERAL: 2,
  CHAR_CLASS: 3,
  ANY_CHAR_NOT_NL: 4,
  ANY_CHAR: 5,
  CAPTURE: 12,
  STAR: 13,
  PLUS: 14,
  QUEST: 15,
  CONCAT: 17,
  ALTERNATE: 18,
} as const;
/** re2js's `RE2Flags.FOLD_CASE`: a literal that matches its case-fold orbit. */
export const RE2JS_FOLD_CASE = 1;

/** The fields read of a node of re2js's internal `Regexp` (re2js 2.10, pinned). */
interface Re2Regexp {
  op: number;
  flags: number;
  subs: unknown[];
  runes: ArrayLike<number>;
}

function isRegexp(value: unknown): value is Re2Regexp {
  if (typeof value !== "object" || value === null) return false;
  const node = value as Partial<Re2Regexp>;
  return (
    typeof node.op === "number" &&
    typeof node.flags === "number" &&
    Array.isArray(node.subs) &&
    (node.runes instanceof Int32Array || Array.isArray(node.runes))
  );
}

/** A conjunction: every match holds a character of each class. Keyed by encoding, to drop duplicates. */
type Classes = Map<string, RequiredChars>;

const NOTHING: Classes = new Map();

function classesOf(raw: unknown, depth: number): Classes {
  if (depth > MAX_DEPTH || !isRegexp(raw)) return NOTHING;
  const { LITERAL, CHAR_CLASS, ANY_CHAR_NOT_NL, ANY_CHAR, CAPTURE, PLUS, CONCAT, ALTERNATE } = RE2JS_REGEXP_OP;
  switch (raw.op) {
    case LITERAL: {
      // One character per rune, each required (a literal matches exactly its runes, in order).
      const classes: Classes = new Map();
      for (let i = 0; i < raw.runes.length; i++) {
        const chars = literalRune(raw.runes[i] as number, (raw.flags & RE2JS_FOLD_CASE) !== 0);
        if (chars !== undefined) classes.set(encodeRequiredChars(chars), chars);
      }
      return classes;
    }
    case CHAR_CLASS:
      return single(charClass(raw.runes));
    case ANY_CHAR_NOT_NL:
      return single(range(0, 9, range(11, MAX_RUNE)));
    case ANY_CHAR:
      return single(range(0, MAX_RUNE));
    case CAPTURE:
    case PLUS:
      return raw.subs.length === 1 ? classesOf(raw.subs[0], depth + 1) : NOTHING;
    case CONCAT: {
      // A match is a match of every part, one after another: it holds what each part holds.
      const classes: Classes = new Map();
      for (const sub of raw.subs) for (const [key, chars] of classesOf(sub, depth + 1)) classes.set(key, chars);
      return classes;
    }
    case ALTERNATE: {
      // A match is a match of one alternative: it holds a character of the union of one class of
      // each (the narrowest); an alternative that proves nothing makes the union prove nothing.
      let union: RequiredChars | undefined;
      for (const sub of raw.subs) {
        const narrowest = [...classesOf(sub, depth + 1).values()].sort(byWeight)[0];
        if (narrowest === undefined) return NOTHING;
        union = union === undefined ? narrowest : unite(union, narrowest);
      }
      return single(union);
    }
    default:
      // Empty-width assertions, optional parts (STAR, QUEST), counted repeats (a simplified tree
      // has none: x{2,} is x x+) and anything unknown: nothing required.
      return NOTHING;
  }
}

/**
 * What one rune of a literal matches. Case-folded, an ASCII rune matches its ASCII case twin and,
 * for k and s only, non-ASCII runes (K U+212A, ſ U+017F) — pinned for every ASCII rune in
 * trigger-re2js-contract.test.ts. A case-folded non-ASCII rune's orbit is irregular (and could
 * reach ASCII): it claims nothing.
 */
function literalRune(rune: number, folded: boolean): RequiredChars | undefined {
  if (!Number.isInteger(rune) || rune < 0 || rune > MAX_RUNE) return undefined;
  if (rune >= 128) return folded ? undefined : { ascii: [0, 0, 0, 0], nonAscii: true };
  const ascii: [number, number, number, number] = [0, 0, 0, 0];
  setBit(ascii, rune);
  const lower = rune | 0x20;
  const letter = lower >= 0x61 && lower <= 0x7a;
  if (folded && letter) setBit(ascii, rune ^ 0x20);
  return { ascii, nonAscii: folded && (lower === 0x6b || lower === 0x73) };
}

/** A CHAR_CLASS's runes are [lo, hi] pairs; the parser has already case-folded them, and the compiler matches them as they are. */
function charClass(runes: ArrayLike<number>): RequiredChars | undefined {
  if (runes.length % 2 !== 0) return undefined;
  let chars: RequiredChars | undefined;
  for (let i = 0; i < runes.length; i += 2) {
    const lo = runes[i] as number;
    const hi = runes[i + 1] as number;
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 0 || hi < lo || hi > MAX_RUNE) return undefined;
    chars = range(lo, hi, chars);
  }
  // An empty class matches nothing; claiming nothing is sound too.
  return chars;
}

function range(lo: number, hi: number, to?: RequiredChars): RequiredChars {
  const ascii: [number, number, number, number] = to === undefined ? [0, 0, 0, 0] : [...to.ascii];
  for (let c = lo; c <= Math.min(hi, 127); c++) setBit(ascii, c);
  return { ascii, nonAscii: (to?.nonAscii ?? false) || hi >= 128 };
}

function setBit(ascii: number[], c: number): void {
  ascii[c >> 5] = (ascii[c >> 5] as number) | (1 << (c & 31));
}

function unite(a: RequiredChars, b: RequiredChars): RequiredChars {
  return {
    ascii: [a.ascii[0] | b.ascii[0], a.ascii[1] | b.ascii[1], a.ascii[2] | b.ascii[2], a.ascii[3] | b.ascii[3]],
    nonAscii: a.nonAscii || b.nonAscii,
  };
}

function single(chars: RequiredChars | undefined): Classes {
  return chars === undefined ? NOTHING : new Map([[encodeRequiredChars(chars), chars]]);
}

function isSubset(a: RequiredChars, b: RequiredChars): boolean {
  return a.ascii.every((word, i) => (word & ~(b.ascii[i] as number)) === 0) && (!a.nonAscii || b.nonAscii);
}

/**
 * How often a message is expected to hold some character of the class (lower: rules out more
 * messages). Messages are lowercased, so uppercase ASCII never occurs in them.
 */
function weight({ ascii, nonAscii }: RequiredChars): number {
  let total = nonAscii ? 3 : 0;
  for (let c = 0; c < 128; c++) {
    if (((ascii[c >> 5] as number) & (1 << (c & 31))) === 0) continue;
    if (c === 0x20) total += 10;
    else if (c >= 0x61 && c <= 0x7a) total += 5;
    else if (c >= 0x30 && c <= 0x39) total += 2;
    else if (c >= 0x41 && c <= 0x5a) total += 0;
    else total += 1;
  }
  return total;
}

const byWeight = (a: RequiredChars, b: RequiredChars): number => weight(a) - weight(b);

/** The narrowest classes, without one that a narrower one implies (a superset) or one every message holds. */
function prune(classes: Classes): RequiredChars[] {
  const kept: RequiredChars[] = [];
  for (const chars of [...classes.values()].sort(byWeight)) {
    const everything = chars.nonAscii && chars.ascii.every((word) => word === -1);
    if (everything || kept.some((narrower) => isSubset(narrower, chars))) continue;
    kept.push(chars);
    if (kept.length === MAX_REQUIRED_CLASSES) break;
  }
  return kept;
}

let shapeVerified: boolean | undefined;

/**
 * One look, per process, at the trees of patterns whose shape is known: if re2js ever renumbers an
 * op (a STAR read as a PLUS would require what is optional), no class is claimed at all.
 */
function treeShapeVerified(): boolean {
  if (shapeVerified !== undefined) return shapeVerified;
  const { LITERAL, CHAR_CLASS, CAPTURE, STAR, PLUS, QUEST, CONCAT, ALTERNATE } = RE2JS_REGEXP_OP;
  const node = (pattern: string): Partial<Re2Regexp> => {
    const tree = re2jsSyntaxTreeOf(pattern);
    return isRegexp(tree) ? tree : {};
  };
  try {
    const opsOf = (pattern: string): number[] => (node(pattern).subs ?? []).map((sub) => (isRegexp(sub) ? sub.op : -1));
    const folded = node("k");
    shapeVerified =
      folded.op === LITERAL &&
      ((folded.flags as number) & RE2JS_FOLD_CASE) !== 0 &&
      ((node("(?-i)k").flags as number) & RE2JS_FOLD_CASE) === 0 &&
      node("[0-9]").op === CHAR_CLASS &&
      JSON.stringify(opsOf("(?:0|a+)(1)x*y?z")) === JSON.stringify([ALTERNATE, CAPTURE, STAR, QUEST, LITERAL]) &&
      node("(?:0|a+)(1)x*y?z").op === CONCAT &&
      (node("(?:0|a+)").subs?.[1] as Partial<Re2Regexp> | undefined)?.op === PLUS;
  } catch {
    shapeVerified = false;
  }
  return shapeVerified;
}
