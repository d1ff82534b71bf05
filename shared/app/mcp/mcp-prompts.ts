import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Prompt, PromptArgument } from "@modelcontextprotocol/sdk/types.js";
import { SkillsError } from "../../errors.js";
import { statusForCode } from "../../http/error-table.js";
import { bindArguments } from "../../skills/skill-argument-binder.js";
import { composeSection, DEFAULT_RENDER_BUDGET } from "../../skills/skill-prompt-composer.js";
import type { ListedSkill, ResolvedSkill } from "../../skills/resolved-skill.js";
import type { SkillArgument } from "../../skills/skill-frontmatter.js";
import { skillTurnPrompt } from "../../steering/skill-turn-prompt.js";
import type { RenderContext, RenderOptions, TemplateRenderer } from "../../templates/template-renderer.js";

/** `arguments: true` is one optional argument of this name: the rest of the `/skill` line. */
export const TEXT_ARGUMENT = "text";

/** Values one completion answers at most (MCP: at most 100). */
export const MAX_COMPLETION_VALUES = 100;

function promptArguments(skill: ListedSkill): PromptArgument[] {
  if (skill.arguments === false) return [];
  if (skill.arguments === true) {
    return [
      { name: TEXT_ARGUMENT, description: skill.argumentHint ?? "The text after the skill's name, as on a /skill line", required: false },
    ];
  }
  return skill.arguments.map((a) => ({
    name: a.name,
    ...(a.description !== undefined ? { description: a.description } : {}),
    required: a.required,
  }));
}

/** A user-invocable skill as an MCP prompt. */
export function toPrompt(skill: ListedSkill): Prompt {
  return { name: skill.name, title: skill.title, description: skill.description, arguments: promptArguments(skill) };
}

const invalid = (message: string): McpError => new McpError(ErrorCode.InvalidParams, message);

/**
 * MCP's named arguments as the raw rest of a `/skill` line, so the one binder decides (a missing
 * required argument is its SkillArgumentMissing). Declared arguments are positional there: an
 * optional one may be left out only when every later one is too, and only the last string
 * argument may hold whitespace. An empty string counts as not given (hosts send them for blanks).
 */
export function rawArguments(skill: ListedSkill, given: Readonly<Record<string, string>> = {}): string | undefined {
  const declaration = skill.arguments;
  const present = Object.entries(given).filter(([, value]) => value !== "");
  if (declaration === false) {
    if (present.length > 0) throw invalid(`Skill '${skill.name}' takes no arguments`);
    return undefined;
  }
  const declared: readonly Pick<SkillArgument, "name" | "type">[] =
    declaration === true ? [{ name: TEXT_ARGUMENT, type: "string" }] : declaration;
  for (const [name] of present) {
    if (!declared.some((a) => a.name === name)) throw invalid(`Skill '${skill.name}' has no argument '${name.slice(0, 64)}'`);
  }
  const tokens: string[] = [];
  let gap: string | undefined;
  declared.forEach((argument, position) => {
    const value = given[argument.name];
    if (value === undefined || value === "") {
      gap ??= argument.name;
      return;
    }
    if (gap !== undefined)
      throw invalid(`Argument '${argument.name}' of skill '${skill.name}' needs '${gap}' before it (arguments bind in order)`);
    const last = position === declared.length - 1 && argument.type === "string";
    if (!last && /\s/u.test(value.trim()))
      throw invalid(
        `Argument '${argument.name}' of skill '${skill.name}' must be one word (only the last string argument may hold spaces)`,
      );
    tokens.push(value.trim());
  });
  return tokens.join(" ");
}

/**
 * prompts/get: the skill as the service renders it — a `shot` skill (or one with `action:`) its
 * turn prompt, any other skill its block of the skill section — with the given arguments.
 * `options` go to the render (the caller's tenant).
 */
export async function renderPrompt(
  skill: ResolvedSkill,
  given: Readonly<Record<string, string>> | undefined,
  renderer: TemplateRenderer,
  context: { section: () => Promise<RenderContext>; activation: () => Promise<RenderContext> },
  options?: RenderOptions,
): Promise<string> {
  const raw = rawArguments(skill, given);
  // Throws SkillArgumentMissing / SkillArgumentInvalid: the caller maps them to -32602.
  const bound = bindArguments(skill.name, skill.arguments, raw);
  if (skill.lifecycle === "shot") {
    return (await skillTurnPrompt(skill, bound, renderer, context.activation, options)) ?? skill.description;
  }
  const section = await composeSection([{ skill, args: raw }], await context.section(), renderer, DEFAULT_RENDER_BUDGET, options);
  if (section.section === "") {
    // The typed reason (a template error, an argument, the render cap) becomes -32602 with its code.
    const left = section.warnings[0];
    const reason = section.errors[0];
    const code = reason instanceof SkillsError ? reason.code : undefined;
    if (left === undefined || code === undefined || statusForCode(code) >= 500)
      throw new McpError(ErrorCode.InternalError, `Skill '${skill.name}' did not render`);
    throw new McpError(ErrorCode.InvalidParams, `Skill '${skill.name}' did not render: ${left.message}`, { code });
  }
  return section.section;
}

/** Values an argument offers: its `enum`, else true/false for a boolean; prefix matches, case-insensitive. */
export function completeArgument(
  skill: ListedSkill,
  argumentName: string,
  prefix: string,
): { values: string[]; total: number; hasMore: boolean } {
  const argument = Array.isArray(skill.arguments) ? skill.arguments.find((a) => a.name === argumentName) : undefined;
  const declared = argument?.enum?.map(String) ?? (argument?.type === "boolean" ? ["true", "false"] : []);
  return completeFrom(declared, prefix);
}

export function completeFrom(candidates: readonly string[], prefix: string): { values: string[]; total: number; hasMore: boolean } {
  const wanted = prefix.toLowerCase();
  const matches = candidates.filter((value) => value.toLowerCase().startsWith(wanted));
  return { values: matches.slice(0, MAX_COMPLETION_VALUES), total: matches.length, hasMore: matches.length > MAX_COMPLETION_VALUES };
}
