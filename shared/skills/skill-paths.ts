import { InvalidRequest } from "../errors.js";
import { validateDocumentPath } from "../documents/document-path.js";
import { checkSkillFilePath } from "./manual-path.js";
import { isSkillName } from "./skill-name.js";

/** Where skills live inside every layer (spec §2): `_vance/skills/<name>/SKILL.md` plus siblings. */
export const SKILLS_PREFIX = "_vance/skills/";
export const SKILL_DOCUMENT_NAME = "SKILL.md";

export { isSkillName };

export const skillDirectory = (name: string): string => `${SKILLS_PREFIX}${name}`;

export const skillDocumentPath = (name: string): string => `${skillDirectory(name)}/${SKILL_DOCUMENT_NAME}`;

const SKILL_DOCUMENT_PATH = /^_vance\/skills\/([^/]+)\/SKILL\.md$/;

/** The directory name of a `_vance/skills/<dir>/SKILL.md` path (not yet checked as a skill name). */
export function skillDirectoryNameOf(path: string): string | undefined {
  return SKILL_DOCUMENT_PATH.exec(path)?.[1];
}

/**
 * The document path of a sibling file of a skill (reference doc, script). The relative part is
 * checked with the same rule the parser applies to `referenceDocs[].file` and `scripts[].file`,
 * so the result always stays inside the skill directory.
 */
export function skillFilePath(directory: string, relativePath: string): string {
  const checked = checkSkillFilePath(String(relativePath));
  if (!checked.ok) throw new InvalidRequest(`Skill file ${JSON.stringify(String(relativePath).slice(0, 200))} ${checked.message}`);
  return validateDocumentPath(`${directory}/${checked.path}`);
}
