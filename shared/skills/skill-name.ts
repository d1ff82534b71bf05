/**
 * What a skill may be called. The name is always its directory name (API.md "Agent Skills
 * documents"), and it ends up in S3 keys, URL path segments, DynamoDB keys, the `/skill` grammar
 * and script tool names (`skill_<name>__<script>`, `^[a-zA-Z0-9_-]{1,64}$`). Agent Skills asks for
 * lowercase letters, digits and hyphens; real collections also use underscores, capitals and
 * leading digits, which are safe in every one of those places, so they load (with a warning).
 * Refused: anything else — and `__`, which would make a script tool name ambiguous.
 */
export const MAX_SKILL_NAME_LENGTH = 64;

/** Letters, digits, `_` and `-`; a letter or digit at both ends; no `__`; at most 64. */
export const SKILL_DIRECTORY_NAME = /^(?!.*__)[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$/;

/** The Agent Skills rule (agentskills.io): what other hosts expect, and this service prefers. */
export const AGENT_SKILLS_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export const isSkillName = (name: string): boolean => typeof name === "string" && SKILL_DIRECTORY_NAME.test(name);

const quoted = (name: string): string => JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name).slice(1, -1);

/** Why `name` cannot be a skill name, with the fix; undefined when it can. */
export function skillNameRefusal(name: string): string | undefined {
  if (isSkillName(name)) return undefined;
  const shown = `skill name '${quoted(name)}'`;
  if (name.length === 0) return `${shown}: a name may not be empty; rename the folder`;
  if (name.length > MAX_SKILL_NAME_LENGTH)
    return `${shown}: a name has at most ${MAX_SKILL_NAME_LENGTH} characters (this one has ${name.length}); rename the folder`;
  const bad = [...name].find((c) => !/[A-Za-z0-9_-]/.test(c));
  if (bad !== undefined) return `${shown}: a name holds only letters, digits, '_' and '-' (not ${JSON.stringify(bad)}); rename the folder`;
  if (!/^[A-Za-z0-9]/.test(name)) return `${shown}: a name may not start with '${name[0]}'; rename the folder`;
  if (!/[A-Za-z0-9]$/.test(name)) return `${shown}: a name may not end with '${name.at(-1)}'; rename the folder`;
  return `${shown}: a name may not contain '__' (it separates skill and script in tool names); rename the folder`;
}

/** A warning for a name that loads here but not under the Agent Skills rule; undefined otherwise. */
export function skillNameDeviation(name: string): string | undefined {
  if (!isSkillName(name) || AGENT_SKILLS_NAME.test(name)) return undefined;
  return `skill name '${name}' is not an Agent Skills name (lowercase letters, digits and hyphens); it loads here as it is, other hosts may refuse it`;
}

/** The key two names of one level must not share: `Foo` and `foo` would be one folder on macOS and Windows. */
export const foldedSkillName = (name: string): string => name.toLowerCase();
