import { re2jsLibrary } from "../../lazy/lazy-libraries.js";

/**
 * Trigger patterns are authored as Java regexes (spec §4a) but run on RE2 (re2js). RE2 rejects
 * some Java constructs with a parse error that does not say what to write instead, and reads
 * others differently without any error ((?U), \v), so the Java-only ones are named here before
 * the pattern is compiled.
 */

/** RE2 refuses repeat counts ({n,m}) above this; Java allows far larger ones. */
export const MAX_REPEAT_COUNT = 1000;

/**
 * Non-fatal findings: constructs that compile but behave differently from what a Java author
 * probably meant. The loader may surface them as document warnings.
 */
export function triggerPatternWarnings(pattern: string): string[] {
  const warnings: string[] = [];
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(pattern) && /(?:^|[^\\])(?:\\\\)*\\[wWbB]/.test(pattern)) {
    warnings.push(
      "\\w and \\b are ASCII-only here: non-ASCII letters such as 'ä' are not word characters, so a word boundary next to them never matches",
    );
  }
  return warnings;
}

// Java flags RE2 lacks or reads differently: U is UNICODE_CHARACTER_CLASS in Java but
// "ungreedy" in RE2; x/u/d/c do not exist in RE2.
const JAVA_ONLY_FLAGS: Readonly<Record<string, string>> = {
  U: "inline flag (?U) means Unicode character classes in Java but ungreedy matching here",
  x: "inline flag (?x) (comments mode) is not supported",
  u: "inline flag (?u) (Unicode case) is not supported; matching is already case-insensitive",
  d: "inline flag (?d) (Unix lines) is not supported",
  c: "inline flag (?c) (canonical equivalence) is not supported",
};

const JAVA_ONLY_ESCAPES: Readonly<Record<string, string>> = {
  Z: "\\Z (end before a final line terminator) is not supported; use $ or \\z",
  G: "\\G (end of previous match) is not supported",
  u: "\\uXXXX escapes are not supported; write the character itself (or \\x{XXXX})",
  v: "\\v means vertical whitespace in Java but a vertical tab here; write the characters, e.g. [\\n\\r]",
  h: "\\h (horizontal whitespace) is not supported; use [ \\t]",
  H: "\\H is not supported; use [^ \\t]",
  V: "\\V is not supported; use [^\\n\\r]",
  R: "\\R (line break) is not supported; use \\n",
  X: "\\X (grapheme cluster) is not supported",
  e: "\\e (escape character) is not supported; use \\x1b",
  c: "\\c (control character) escapes are not supported; use \\x..",
  N: "\\N{name} escapes are not supported; write the character itself",
  "0": "octal escapes (\\0…) are not supported; write the character itself (or \\x{..})",
};

/**
 * One left-to-right scan that understands escapes, `\Q…\E` quoting and character classes, so
 * `\(?=` or `[(?=]` are not mistaken for lookahead. Returns a message for the first construct
 * RE2 cannot honour, or undefined.
 */
export function findUnsupportedConstruct(pattern: string): string | undefined {
  let inClass = false;
  let classStart = -1;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return undefined; // trailing backslash: the compiler reports it
      if (next === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        if (end < 0) return undefined;
        i = end + 2;
        continue;
      }
      if (next >= "1" && next <= "9") {
        return `backreference \\${next} is not supported (RE2 matches in linear time and has no backreferences)`;
      }
      if (next === "k" && pattern[i + 2] === "<") {
        return "named backreference \\k<name> is not supported (RE2 has no backreferences)";
      }
      if (next === "p" || next === "P") {
        const name = propertyName(pattern, i + 2);
        if (name !== undefined && !isKnownProperty(name.text)) {
          return `character property \\${next}{${name.text}} is not supported (Java names such as Alpha, javaLowerCase or IsLatin do not exist in RE2); use a Unicode category or script such as \\p{L}, \\p{Lu}, \\p{Greek}, or a class such as [a-z]`;
        }
        i = name === undefined ? i + 2 : name.end;
        continue;
      }
      if (next === "b" && pattern[i + 2] === "{") {
        return "\\b{…} (grapheme boundary) is not supported";
      }
      const javaOnly = JAVA_ONLY_ESCAPES[next];
      if (javaOnly !== undefined) return javaOnly;
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === "]" && i > classStart) {
        inClass = false;
      } else if (ch === "[") {
        return pattern[i + 1] === ":"
          ? "POSIX class [[:name:]] means different things in Java and RE2; use [a-z], \\d, \\s or \\p{L}"
          : "nested character class (Java class union) is not supported; escape a literal bracket as \\[";
      } else if (ch === "&" && pattern[i + 1] === "&") {
        return "character class intersection && (e.g. [a-z&&[^aeiou]]) is not supported; list the characters instead";
      }
      i += 1;
      continue;
    }
    if (ch === "[") {
      const posixLookalike = /^\[:\^?[a-z]+:\]/.exec(pattern.slice(i, i + 16));
      if (posixLookalike !== null) {
        return `${posixLookalike[0]} is a set of the characters between the brackets, not a POSIX class; use [a-z], \\d, \\s or \\p{L}`;
      }
      inClass = true;
      // `]` right after `[` or `[^` is a literal, not the end of the class
      classStart = pattern[i + 1] === "^" ? i + 2 : i + 1;
      i += 1;
      continue;
    }
    if (ch === "(" && pattern[i + 1] === "?") {
      const group = groupProblem(pattern, i + 2);
      if (group !== undefined) return group;
      i += 2;
      continue;
    }
    if (ch === "{") {
      const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (repeat !== null) {
        const counts = [repeat[1], repeat[2]].filter((c): c is string => c !== undefined && c !== "").map(Number);
        if (counts.some((c) => c > MAX_REPEAT_COUNT)) {
          return `repeat count ${repeat[0]} is above ${MAX_REPEAT_COUNT}`;
        }
        i += repeat[0].length;
        if (pattern[i] === "+") return `possessive quantifier ${repeat[0]}+ is not supported; drop the trailing +`;
        continue;
      }
    }
    if ((ch === "*" || ch === "+" || ch === "?") && pattern[i + 1] === "+") {
      return `possessive quantifier ${ch}+ is not supported; drop the trailing +`;
    }
    i += 1;
  }
  return undefined;
}

function propertyName(pattern: string, at: number): { text: string; end: number } | undefined {
  if (pattern[at] === "{") {
    const close = pattern.indexOf("}", at + 1);
    return close < 0 ? undefined : { text: pattern.slice(at + 1, close), end: close + 1 };
  }
  const single = pattern[at];
  return single === undefined ? undefined : { text: single, end: at + 1 };
}

function isKnownProperty(name: string): boolean {
  try {
    re2jsLibrary().RE2JS.compile(`\\p{${name}}`);
    return true;
  } catch {
    return false;
  }
}

/** Inspects what follows `(?`. */
function groupProblem(pattern: string, at: number): string | undefined {
  const rest = pattern.slice(at, at + 3);
  if (rest.startsWith("=")) return "lookahead (?=…) is not supported";
  if (rest.startsWith("!")) return "negative lookahead (?!…) is not supported";
  if (rest.startsWith("<=")) return "lookbehind (?<=…) is not supported";
  if (rest.startsWith("<!")) return "negative lookbehind (?<!…) is not supported";
  if (rest.startsWith(">")) return "atomic group (?>…) is not supported";
  if (rest.startsWith("#")) return "comment group (?#…) is not supported";
  const flags = /^[A-Za-z-]*/.exec(pattern.slice(at, at + 16))?.[0] ?? "";
  for (const flag of flags) {
    const problem = JAVA_ONLY_FLAGS[flag];
    if (problem !== undefined) return problem;
  }
  return undefined;
}
