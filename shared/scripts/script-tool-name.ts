import { createHash } from "node:crypto";

/**
 * Names of the virtual tools a skill's scripts become while the skill is active (spec §13.2):
 * `skill_<skill>__<script>`. Skill and script names are lowercase letters, digits and hyphens
 * (never two underscores), so the `__` separator cannot be ambiguous and the hyphens are kept
 * as the author wrote them: every name already matches the tool-name rule of the model APIs,
 * `^[a-zA-Z0-9_-]{1,64}$`, except for its length.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_TOOL_NAME_LENGTH = 64;
const SCRIPT_TOOL_PREFIX = "skill_";

const HASH_CHARS = 8;

/**
 * The tool name of one script. A name longer than 64 characters keeps its first 55 characters
 * and ends in `_` + 8 hex digits of the SHA-256 of the full name: deterministic (the same
 * skill and script give the same name on every turn and in every Lambda), readable, and two
 * long names that share a prefix still differ.
 */
export function scriptToolName(skillName: string, scriptName: string): string {
  const full = `${SCRIPT_TOOL_PREFIX}${skillName}__${scriptName}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash("sha256").update(full, "utf8").digest("hex").slice(0, HASH_CHARS);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - HASH_CHARS - 1)}_${hash}`;
}

/** Cheap pre-check before resolving skills: only such names can be script tools. */
export const looksLikeScriptTool = (toolName: string): boolean =>
  toolName.startsWith(SCRIPT_TOOL_PREFIX) && TOOL_NAME_PATTERN.test(toolName);
