import type { ResolvedSkill } from "../skills/resolved-skill.js";
import type { SkillScript } from "../skills/skill-frontmatter.js";
import type { ToolSpec } from "../skills/tool-spec.js";
import { scriptToolName } from "./script-tool-name.js";
import { scriptParamsSchema } from "./script-tool-schema.js";

/** One `scripts:` entry of an active skill, as the virtual tool it is while the skill is active. */
export interface ScriptTool {
  name: string;
  skill: ResolvedSkill;
  script: SkillScript;
}

/**
 * The script tools of the given (active, registered) skills in activation order, then script
 * order. A shot skill never registers (spec §2a), so it contributes none; the caller passes
 * the skills a turn includes. When two scripts map to one name the first one keeps it.
 */
export function scriptToolsOf(skills: readonly ResolvedSkill[]): ScriptTool[] {
  const seen = new Set<string>();
  const tools: ScriptTool[] = [];
  for (const skill of skills) {
    if (skill.lifecycle === "shot") continue;
    for (const script of skill.scripts) {
      const name = scriptToolName(skill.name, script.name);
      if (seen.has(name)) continue;
      seen.add(name);
      tools.push({ name, skill, script });
    }
  }
  return tools;
}

export const findScriptTool = (skills: readonly ResolvedSkill[], toolName: string): ScriptTool | undefined =>
  scriptToolsOf(skills).find((tool) => tool.name === toolName);

/** What the model is told about a script tool; FOOT scripts say where they run. */
export function scriptToolSpec({ name, skill, script }: ScriptTool): ToolSpec {
  const what = script.description?.trim() || `Runs the script '${script.name}' of the skill '${skill.name}' (${skill.title}).`;
  const where = script.target === "FOOT" ? " Runs on the user's machine (Foot client)." : "";
  return { name, description: `${what}${where}`, inputSchema: { ...scriptParamsSchema(script.params) } };
}
