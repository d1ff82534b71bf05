import type { SkillArgument } from "skills-service/client";

/** `/skill <name> [rest] [--once]`: the spec's §6 command line, as the chat clients read it. */
export function parseSkillCommand(line: string): { skillName: string; args?: string; oneShot: boolean } | { error: string } {
  const match = /^\/skill\s+(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match?.[1]) return { error: "Write /skill <name> [arguments] [--once]" };
  let rest = (match[2] ?? "").trim();
  const oneShot = /(^|\s)--once$/.test(rest);
  if (oneShot) rest = rest.replace(/(^|\s)--once$/, "").trim();
  return { skillName: match[1], ...(rest === "" ? {} : { args: rest }), oneShot };
}

/** Completions for what has been typed so far: `/skill ` then a name prefix. */
export function completeSkillCommand(line: string, names: string[]): string[] {
  const match = /^\/(s(k(i(l(l)?)?)?)?)?(\s+(\S*))?$/.exec(line);
  if (!line.startsWith("/") || !match) return [];
  const prefix = match[7] ?? "";
  return names.filter((name) => name.startsWith(prefix)).map((name) => `/skill ${name}`);
}

/**
 * The raw rest of the line from an argument form (the binder's rule, shared/skills/
 * skill-argument-binder.ts): the n-th declared argument takes the n-th token, a last `string`
 * argument takes the rest. An empty optional field in the middle would shift the later ones,
 * so the form stops at the first empty field; a value with spaces is one token only in the last
 * `string` argument, elsewhere it is refused rather than silently split.
 */
export function argumentLine(declared: SkillArgument[], values: Record<string, string>): { line: string } | { error: string } {
  const tokens: string[] = [];
  for (const [index, argument] of declared.entries()) {
    const value = (values[argument.name] ?? "").trim();
    if (value === "") break;
    const greedy = index === declared.length - 1 && argument.type === "string";
    if (!greedy && /\s/.test(value)) return { error: `'${argument.name}' is one word (only the last string argument may hold spaces)` };
    tokens.push(value);
  }
  return { line: tokens.join(" ") };
}

/** The catalog's estimate (shared/skills/skill-catalog.ts): about four characters a token. */
export const approxTokens = (chars: number): number => Math.ceil(chars / 4);

/** Each skill's block of a skill section, split at the composer's `--- Skill: <name> ---` headers. */
export function skillBlocks(section: string): { name: string; chars: number }[] {
  const parts = section.split(/(?=^--- Skill: [^\n]+ ---$)/m);
  return parts.flatMap((part) => {
    const header = /^--- Skill: ([^\n]+) ---$/m.exec(part);
    return header?.[1] ? [{ name: header[1], chars: part.trimEnd().length }] : [];
  });
}
