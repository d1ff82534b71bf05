import type { ResolvedReferenceDoc, ResolvedSkill } from "./resolved-skill.js";
import type { SkillFile } from "./skill-files.js";
import type { SkillScript } from "./skill-frontmatter.js";
import { toSkillSummary } from "./skill-summary.js";
import { digestLabel } from "./document-digest.js";
import type { SkillSummary } from "./skill-summary.js";

/**
 * API.md `GET …/skills/effective/{name}`: the summary plus what a turn would use. INLINE
 * reference docs carry their `content`; ON_DEMAND ones only their metadata (they are read on
 * request through a tool). Where the skill was loaded from (`location`) stays internal.
 */
interface SkillDetail extends SkillSummary {
  body: string;
  tools: string[];
  manualPaths: string[];
  referenceDocs: ResolvedReferenceDoc[];
  activate: string[];
  deactivate: string[];
  action: string | null;
  scripts: SkillScript[];
  /** API.md "Skill files": the skill directory's files in its own layer, SKILL.md excluded; `digest` (issue 32) where known. */
  files: (Pick<SkillFile, "path" | "size"> & { digest?: string })[];
}

/** `digests`: SHA-256 hex by file path (SkillManifests.fileDigests), shown as `sha256:<hex>`. */
export const toSkillDetail = (skill: ResolvedSkill, digests?: ReadonlyMap<string, string>): SkillDetail => ({
  ...toSkillSummary(skill),
  body: skill.body,
  tools: [...skill.tools],
  manualPaths: [...skill.manualPaths],
  referenceDocs: skill.referenceDocs.map((ref) => ({ ...ref })),
  activate: [...skill.activate],
  deactivate: [...skill.deactivate],
  action: skill.action ?? null,
  scripts: structuredClone(skill.scripts),
  files: (skill.files ?? []).map((file) => {
    const sha256 = digests?.get(file.path);
    return { path: file.path, size: file.size, ...(sha256 !== undefined ? { digest: digestLabel(sha256) } : {}) };
  }),
});
