import type { ResolvedReferenceDoc, ResolvedSkill } from "../skills/resolved-skill.js";
import { scopeOf } from "../steering/steer-context.js";
import type { ToolCall } from "./tool-invoker.js";

interface ActiveReference {
  skill: ResolvedSkill;
  ref: ResolvedReferenceDoc;
}

/** The reference docs of the process's active skills, in activation order (shot skills contribute none to a turn). */
export async function activeReferences(call: ToolCall<unknown>): Promise<ActiveReference[]> {
  const scope = scopeOf(call.process);
  const skills = await Promise.all(call.process.activeSkills.map((entry) => call.loader.load(scope, entry.name)));
  return skills
    .filter((skill): skill is ResolvedSkill => skill !== undefined && skill.lifecycle !== "shot")
    .flatMap((skill) => skill.referenceDocs.map((ref) => ({ skill, ref })));
}

/** The text of a reference, from the layer that provided its skill; undefined when the file is missing there. */
export async function readReference(call: ToolCall<unknown>, found: ActiveReference): Promise<string | undefined> {
  if (found.ref.content !== undefined) return found.ref.content;
  return call.loader.readSkillFile(scopeOf(call.process), found.skill, found.ref.file);
}
