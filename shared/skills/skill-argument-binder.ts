import { SkillArgumentMissing } from "../errors.js";
import { SkillArgumentInvalid, SkillArgumentsTooLong } from "./skill-errors.js";
import type { SkillArgument } from "./skill-frontmatter.js";
import type { SkillDefinition } from "./resolved-skill.js";

/**
 * SkillArgumentBinder (spec §2b): turns the raw rest of a `/skill <name> <rest>` line into the
 * `args` of the render context. Bound freshly on every render against the current declaration.
 * The result is data for the template context only — never template source.
 */

/** `text` (the trimmed rest), `words` (its whitespace tokens) and one entry per bound argument. */
export type BoundArguments = { text: string; words: string[] } & Record<string, unknown>;

/** A hostile caller must not make every turn parse megabytes of arguments. */
export const MAX_RAW_ARGUMENTS_LENGTH = 64 * 1024;
const MAX_JSON_DEPTH = 32;

/**
 * - `arguments` missing or `false` → undefined: the skill does not consume the rest (the caller
 *   injects it as a user message instead).
 * - `true` → `{ text, words }`.
 * - a list → `{ text, words, <name>… }`. Tokens are separated by Unicode whitespace; the n-th
 *   declared argument takes the n-th token. Only when the LAST declared argument has type
 *   `string` does it bind greedily: the rest of the text from its token on, inner whitespace
 *   kept. (A string argument followed by other arguments takes one token, or those would never
 *   bind.) Excess tokens stay visible in `text`/`words`. A missing token throws
 *   SkillArgumentMissing for `required: true` and leaves the argument unset otherwise. A
 *   declared argument named `text` or `words` shadows the raw view.
 * - Coercion: number (finite decimal), integer (safe integer), boolean (true/false/yes/no/1/0,
 *   any case), object/array (one JSON token of that kind, so written without spaces).
 */
export function bindArguments(
  skillName: string,
  declaration: SkillDefinition["arguments"] | undefined,
  raw: string | undefined,
): BoundArguments | undefined {
  if (declaration === undefined || declaration === false) return undefined;
  const source = raw ?? "";
  if (source.length > MAX_RAW_ARGUMENTS_LENGTH) throw new SkillArgumentsTooLong(skillName, source.length, MAX_RAW_ARGUMENTS_LENGTH);
  const text = source.trim();
  // JS `\s`/`\S` and String#trim agree on what whitespace is (Unicode White_Space + BOM).
  const spans = [...text.matchAll(/\S+/gu)];
  const bound: BoundArguments = { text, words: spans.map((span) => span[0]) };
  if (declaration === true) return bound;
  declaration.forEach((argument, position) => {
    const span = spans[position];
    if (span === undefined) {
      if (argument.required) throw new SkillArgumentMissing(skillName, argument.name);
      return;
    }
    const greedy = position === declaration.length - 1 && argument.type === "string";
    const token = greedy ? text.slice(span.index) : span[0];
    // defineProperty: an argument named `__proto__` must become data, not a prototype.
    const value = coerce(skillName, argument, token);
    // An `enum` names every value the argument may take (MCP completion offers them).
    if (argument.enum !== undefined && !argument.enum.includes(value as string | number | boolean)) {
      throw new SkillArgumentInvalid(
        skillName,
        argument.name,
        `must be one of ${argument.enum.map((v) => JSON.stringify(v)).join(", ")}, got '${preview(token)}'`,
      );
    }
    Object.defineProperty(bound, argument.name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
  return bound;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, yes: true, "1": true, false: false, no: false, "0": false };

function coerce(skillName: string, argument: SkillArgument, token: string): unknown {
  const invalid = (expected: string): SkillArgumentInvalid =>
    new SkillArgumentInvalid(skillName, argument.name, `must be ${expected}, got '${preview(token)}'`);
  switch (argument.type) {
    case "string":
      return token;
    case "number": {
      const value = DECIMAL.test(token) ? Number(token) : Number.NaN;
      if (!Number.isFinite(value)) throw invalid("a finite number");
      return value;
    }
    case "integer": {
      const value = INTEGER.test(token) ? Number(token) : Number.NaN;
      if (!Number.isSafeInteger(value)) throw invalid(`an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
      return value;
    }
    case "boolean": {
      const value = BOOLEANS[token.toLowerCase()];
      if (value === undefined) throw invalid("true/false, yes/no or 1/0");
      return value;
    }
    case "object":
    case "array": {
      const expected = argument.type === "array" ? "a JSON array" : "a JSON object";
      const value = parseJson(token);
      const isArray = Array.isArray(value);
      const kindMatches = argument.type === "array" ? isArray : typeof value === "object" && value !== null && !isArray;
      if (!kindMatches) throw invalid(expected);
      if (jsonDepth(value) > MAX_JSON_DEPTH) throw invalid(`${expected} nested at most ${MAX_JSON_DEPTH} levels deep`);
      return value;
    }
  }
}

function parseJson(token: string): unknown {
  try {
    return JSON.parse(token) as unknown;
  } catch {
    return undefined;
  }
}

/** Iterative, so a deeply nested value cannot overflow the stack while being measured. */
function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.node !== "object" || item.node === null) continue;
    deepest = Math.max(deepest, item.depth);
    if (deepest > MAX_JSON_DEPTH) return deepest;
    for (const child of Object.values(item.node)) stack.push({ node: child, depth: item.depth + 1 });
  }
  return deepest;
}

function preview(token: string): string {
  return token.length > 40 ? `${token.slice(0, 40)}…` : token;
}
