import type { BoundArguments } from "../skills/skill-argument-binder.js";
import { plainBody, rendersAsTemplate } from "../skills/skill-body.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { hasTemplateSyntax } from "../templates/template-renderer.js";
import type { RenderContext, RenderOptions, TemplateRenderer } from "../templates/template-renderer.js";

const nonBlank = (text: string | undefined): string | undefined => (text === undefined || text.trim() === "" ? undefined : text);

/**
 * The turn prompt an activation schedules (spec §2a): `action:` for every lifecycle, else (shot
 * only) the body; blank → undefined (no turn). Shared by the steer processor and MCP's
 * prompts/get, so a shot skill reads the same in both. `context` is asked for only when a
 * template is rendered (it may load the recipe); `options` go to the render (the tenant).
 */
export async function skillTurnPrompt(
  skill: ResolvedSkill,
  args: BoundArguments | undefined,
  renderer: TemplateRenderer,
  context: () => Promise<RenderContext>,
  options?: RenderOptions,
): Promise<string | undefined> {
  const action = nonBlank(skill.action);
  const source = action ?? (skill.lifecycle === "shot" ? nonBlank(skill.body) : undefined);
  if (source === undefined) return undefined;
  let text = source;
  // A shot body follows the body rule (skill-body.ts); `action:` exists only in this service's form.
  if (action === undefined && !rendersAsTemplate(skill)) {
    text = plainBody(skill.name, { template: skill.template, body: source, arguments: skill.arguments }, args);
  } else if (hasTemplateSyntax(source)) {
    text = await renderer.render(source, { ...(await context()), ...(args ? { args } : {}) }, options);
  }
  const trimmed = text.trim();
  return trimmed === "" ? undefined : trimmed;
}
