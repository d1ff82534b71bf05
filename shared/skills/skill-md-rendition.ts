import { strictUtf8 } from "../documents/document-body.js";
import { yamlLibrary } from "../lazy/lazy-libraries.js";
import { isPlainObject, parseSafeYaml } from "../yaml/yaml-safety.js";
import { MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_DEPTH, splitFrontmatter } from "./skill-document-parser.js";
import { AGENT_SKILLS_NAME } from "./skill-name.js";

/** The frontmatter of a SKILL.md as the MCP Skills extension carries it: `name` and `description` always there. */
export type SkillFrontmatterObject = { name: string; description: string } & Record<string, unknown>;

export interface SkillMdRendition {
  /** What MCP serves for the SKILL.md: the stored bytes, with `name:` added as the first key when the author left it out. */
  bytes: Uint8Array;
  /** The rendition's frontmatter as a JSON object, keys in the order written (`name` first when added). */
  frontmatter: SkillFrontmatterObject;
}

/** `name: <value>` as YAML that reads back as exactly that string (a folder named `true` or `123` is quoted). */
function nameLine(name: string, eol: string): string {
  const plain = yamlLibrary().parse(`v: ${name}`, { version: "1.2", schema: "core" }) as { v?: unknown };
  return `name: ${plain.v === name ? name : JSON.stringify(name)}${eol}`;
}

/**
 * This service's SKILL.md takes its name from its folder and may leave `name:` out; the MCP Skills
 * extension (SEP-2640) requires `name` in the frontmatter and an entry identical to the SKILL.md it
 * describes. So over MCP a SKILL.md is served as a rendition: the stored bytes with one line,
 * `name: <folder>`, inserted right after the opening `---` (the author's bytes otherwise untouched,
 * line ends kept), or the stored bytes as they are when `name:` is written. A document whose
 * written `name` differs from its folder, whose folder name breaks the Agent Skills naming rules,
 * or that has no readable frontmatter or no description is refused with the reason.
 */
export function skillMdRendition(name: string, stored: Uint8Array): SkillMdRendition | { refusal: string } {
  if (!AGENT_SKILLS_NAME.test(name))
    return { refusal: `the folder name '${name}' is not an Agent Skills name (lower-case letters, digits and single hyphens, at most 64)` };
  const text = strictUtf8(stored);
  if (text === undefined) return { refusal: "SKILL.md is not UTF-8 text" };
  const split = splitFrontmatter(text);
  if (!split.ok) return { refusal: `SKILL.md: ${split.message}` };
  const yaml = parseSafeYaml(split.frontmatter, "SKILL.md", {
    maxBytes: MAX_FRONTMATTER_BYTES,
    maxDepth: MAX_FRONTMATTER_DEPTH,
    firstLine: 2,
  });
  if (yaml.problems.length > 0 || !isPlainObject(yaml.value)) return { refusal: "SKILL.md's frontmatter is not a YAML mapping" };
  const written = yaml.value;
  if (typeof written.description !== "string") return { refusal: "SKILL.md's frontmatter has no description" };
  if (Object.hasOwn(written, "name")) {
    if (written.name !== name)
      return { refusal: `SKILL.md's frontmatter names the skill '${String(written.name).slice(0, 64)}', its folder is '${name}'` };
    return { bytes: stored, frontmatter: written as SkillFrontmatterObject };
  }
  // Byte-level insertion after the opening fence line: a BOM, CRLF line ends, trailing spaces stay.
  const fenceEnd = stored.indexOf(0x0a);
  const eol = fenceEnd > 0 && stored[fenceEnd - 1] === 0x0d ? "\r\n" : "\n";
  const line = Buffer.from(nameLine(name, eol), "utf8");
  const bytes = Buffer.concat([stored.subarray(0, fenceEnd + 1), line, stored.subarray(fenceEnd + 1)]);
  return { bytes, frontmatter: { name, ...written } as SkillFrontmatterObject };
}
