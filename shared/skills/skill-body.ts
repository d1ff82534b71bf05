import { hasTemplateSyntax } from "../templates/template-renderer.js";
import type { BoundArguments } from "./skill-argument-binder.js";
import type { SkillDefinition } from "./resolved-skill.js";
import { SkillRenderTooLarge } from "./skill-errors.js";

/**
 * How a body reaches the model. A template body (the `template` field; default: this service's
 * own form) is rendered by nunjucks. Any other body — every Agent Skills document, whose
 * `{{user_id}}` or `${{ secrets.TOKEN }}` is text for the model — is sent as written, except for
 * Claude Code's placeholders in a skill that uses them on purpose (decisions.md, issue 30):
 *
 * - on purpose: the body contains `$ARGUMENTS` (alone or as `$ARGUMENTS[N]`), or the frontmatter
 *   has `argument-hint` or `arguments:` (the parser then sets `arguments`, so the test here is
 *   `arguments !== false` or `$ARGUMENTS` in the body). Any other body is sent untouched: its
 *   `$5.00` is a price.
 * - `$ARGUMENTS` is the whole rest of the line; `$ARGUMENTS[N]` the N-th word from 0 (past the
 *   end: empty, the author asked for a placeholder there).
 * - `$N` is the N-th word only when it stands alone: not after a letter, digit, `_` or `$`
 *   (`B$6`, `$B$6` are spreadsheet references), not followed by a letter, digit, `_` or by `.` or
 *   `,` and a digit (`$5.00`, `$1,000` are numbers), and only when that word was given: past the
 *   given words it stays literal (`costs $5` with two words keeps `$5`).
 *
 * Replacements are data and are never expanded again. The output is measured while it is built
 * and refused past MAX_RENDERED_BODY_BYTES before anything is joined: 7 000 `$0` and a 64 KB
 * argument cost a scan and a refusal, not 450 MB.
 */
const PLACEHOLDER = /\$ARGUMENTS(?:\[(\d{1,4})\])?(?![A-Za-z0-9_])|(?<![A-Za-z0-9_$])\$(\d{1,4})(?![A-Za-z0-9_]|[.,]\d)/g;
const ARGUMENTS_PLACEHOLDER = /\$ARGUMENTS(?:\[\d{1,4}\])?(?![A-Za-z0-9_])/;

/** The cap of one rendered body, the same as the template renderer's output cap. */
export const MAX_RENDERED_BODY_BYTES = 256 * 1024;

type BodyOf = Pick<SkillDefinition, "template" | "body" | "arguments">;

export const rendersAsTemplate = (skill: { template: boolean; body: string }): boolean => skill.template && hasTemplateSyntax(skill.body);

/** Whether an Agent Skills body's Claude Code placeholders are meant as such (see above). */
export const usesPlaceholdersOnPurpose = (skill: BodyOf): boolean =>
  !skill.template && (skill.arguments !== false || mentionsArguments(skill.body));

/** `$ARGUMENTS` in any of its forms: what makes a body's placeholders deliberate. */
export const mentionsArguments = (text: string): boolean => text.includes("$ARGUMENTS") && ARGUMENTS_PLACEHOLDER.test(text);

/**
 * The body as the model gets it when it is not rendered; `text` is the source when it is not the
 * body itself (a shot skill's body is its turn prompt). Past `maxBytes`: SkillRenderTooLarge.
 */
export function plainBody(skillName: string, skill: BodyOf, args: BoundArguments | undefined, maxBytes = MAX_RENDERED_BODY_BYTES): string {
  return usesPlaceholdersOnPurpose(skill) ? substitutePlaceholders(skillName, skill.body, args, maxBytes) : skill.body;
}

/**
 * The `$N` placeholders a body of a skill that uses them on purpose has: for `skills validate`,
 * which warns that they will be substituted (a price such as `$5` among them would lose its text).
 */
export function numberedPlaceholders(skill: BodyOf): string[] {
  if (!usesPlaceholdersOnPurpose(skill)) return [];
  const found = new Set<string>();
  for (const match of skill.body.matchAll(PLACEHOLDER)) if (match[2] !== undefined) found.add(`$${match[2]}`);
  return [...found];
}

export function substitutePlaceholders(
  skillName: string,
  text: string,
  args: BoundArguments | undefined,
  maxBytes = MAX_RENDERED_BODY_BYTES,
): string {
  if (!text.includes("$")) return text;
  const words = args?.words ?? [];
  const wholeText = args?.text ?? "";
  const pieces: string[] = [];
  let bytes = 0;
  let last = 0;
  const add = (piece: string): void => {
    if (piece === "") return;
    // Counted before it is kept: the output is refused when it would pass the cap, never built first.
    bytes += Buffer.byteLength(piece, "utf8");
    if (bytes > maxBytes) throw new SkillRenderTooLarge(skillName, maxBytes);
    pieces.push(piece);
  };
  for (const match of text.matchAll(PLACEHOLDER)) {
    const [whole, indexed, short] = match;
    let value: string;
    if (short !== undefined) {
      const word = words[Number(short)];
      if (word === undefined) continue; // past the given words: literal, left in the text between matches
      value = word;
    } else value = indexed === undefined ? wholeText : (words[Number(indexed)] ?? "");
    add(text.slice(last, match.index));
    add(value);
    last = match.index + whole.length;
  }
  // Nothing substituted: the body as written (its size is the document's, capped at save).
  if (last === 0) return text;
  add(text.slice(last));
  return pieces.join("");
}
