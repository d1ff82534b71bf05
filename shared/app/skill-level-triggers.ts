import type { DocumentProblem } from "../errors.js";
import { mapWithConcurrency } from "../documents/cascade-layers.js";
import { strictUtf8 } from "../documents/document-body.js";
import type { DocumentStore } from "../documents/document-store.js";
import type { SkillDefinition } from "../skills/resolved-skill.js";
import { parseSkillDocument } from "../skills/skill-document-parser.js";
import { skillDirectoryNameOf, SKILLS_PREFIX } from "../skills/skill-paths.js";
import { addCounts, countTriggers, levelCapExceeded, type TriggerCount, type TriggerLevelCaps } from "../skills/triggers/trigger-caps.js";

/** Parallel reads of the level's other SKILL.md documents. */
const READ_CONCURRENCY = 8;

/**
 * The save-time half of the level caps on triggers (trigger-caps.ts): would the level (`project`:
 * a project id, `_tenant` or `_user_<login>`) hold more triggers than allowed with `definition`
 * saved at `path`? Counts every other SKILL.md of the level as stored (disabled ones too: enabling
 * one is a save that is not counted again); one that does not parse counts as none, as the loader
 * skips it. A save that adds no triggers is never refused, so a level over the caps can still be
 * brought back under them.
 */
export async function levelTriggerProblem(
  store: DocumentStore,
  tenant: string,
  project: string,
  path: string,
  definition: SkillDefinition,
  caps: TriggerLevelCaps,
): Promise<DocumentProblem | undefined> {
  const own = countTriggers(definition.triggers);
  if (own.triggers === 0) return undefined;
  const others = (await store.list(tenant, project, SKILLS_PREFIX)).filter((ref) => ref.path !== path && skillDirectoryNameOf(ref.path) !== undefined);
  const counts = await mapWithConcurrency(others, READ_CONCURRENCY, async (ref): Promise<TriggerCount> => {
    const name = skillDirectoryNameOf(ref.path) as string;
    const doc = await store.get(tenant, project, ref.path);
    const text = doc === undefined ? undefined : strictUtf8(doc.body);
    if (text === undefined) return { triggers: 0, patterns: 0 };
    try {
      return countTriggers(parseSkillDocument(name, text, ref.path).definition?.triggers ?? []);
    } catch {
      return { triggers: 0, patterns: 0 };
    }
  });
  const exceeded = levelCapExceeded(counts.reduce(addCounts, own), caps);
  return exceeded === undefined ? undefined : { path, message: `triggers: ${exceeded}`, severity: "error" };
}
