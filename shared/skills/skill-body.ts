import { hasTemplateSyntax } from "../templates/template-renderer.js";
import type { BoundArguments } from "./skill-argument-binder.js";

/**
 * How a body reaches the model. A template body (the `template` field; default: this service's
 * own form, with title or version) is rendered by nunjucks. Any other body — every Agent Skills
 * document, whose `{{user_id}}` or `${{ secrets.TOKEN }}` is text for the model — is sent as
 * written, except for Claude Code's placeholders: `$ARGUMENTS` (the whole rest of the line),
 * `$ARGUMENTS[N]` and `$N` (the N-th word, from 0; past the end: empty). They are replaced in one
 * pass by data, which is never rendered again. A body of this service's own form without
 * template syntax is sent untouched: its `$1` is shell in a code block, not a placeholder.
 */
const PLACEHOLDER = /\$ARGUMENTS(?:\[(\d{1,4})\])?(?![A-Za-z0-9_])|\$(\d{1,4})(?![0-9])/g;

export const rendersAsTemplate = (skill: { template: boolean; body: string }): boolean => skill.template && hasTemplateSyntax(skill.body);

/** The body as the model gets it when it is not rendered. */
export const plainBody = (skill: { template: boolean; body: string }, args: BoundArguments | undefined): string =>
  skill.template ? skill.body : substitutePlaceholders(skill.body, args);

export function usesPlaceholders(text: string): boolean {
  if (!text.includes("$")) return false;
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.test(text);
}

export function substitutePlaceholders(text: string, args: BoundArguments | undefined): string {
  if (!text.includes("$")) return text;
  const words = args?.words ?? [];
  return text.replace(PLACEHOLDER, (_match, indexed: string | undefined, short: string | undefined) => {
    const index = indexed ?? short;
    return index === undefined ? (args?.text ?? "") : (words[Number(index)] ?? "");
  });
}
