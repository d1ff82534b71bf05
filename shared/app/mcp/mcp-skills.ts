import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Resource } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/mini";
import "../../../contract/locale.js";
import { digestLabel } from "../../skills/document-digest.js";
import type { ListedSkill } from "../../skills/resolved-skill.js";
import type { SkillManifest } from "../../skills/skill-manifests.js";
import { SKILL_DOCUMENT_NAME } from "../../skills/skill-paths.js";
import { mimeTypeOf, skillFileUri } from "./mcp-resources.js";

/**
 * The MCP Skills extension (SEP-2640, `specification/stable/skills.mdx` of
 * modelcontextprotocol/ext-skills): its identifier, methods, entry shape and the URIs it reads.
 */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** Entries of one `skills/list` page: every entry carries its whole manifest, so pages are smaller than `resources/list`'s. */
export const SKILLS_PAGE_SIZE = 50;

/** `_meta` key of a `skills/list` page: the visible skills of the page the extension cannot serve, and why. */
export const SKIPPED_META = "skills-service/skipped";

/** The listing is the caller's own cascade: never shared across callers; digests are checked on read, so no freshness is promised. */
export const CACHE_HINT = { ttlMs: 0, cacheScope: "private" as const };

const DIRECTORY_MIME_TYPE = "inode/directory";
const SCHEME = "skill://";

const cursor = z.optional(z.string());
export const ListSkillsRequestSchema = z.object({ method: z.literal("skills/list"), params: z.optional(z.looseObject({ cursor })) });
export const GetSkillRequestSchema = z.object({ method: z.literal("skills/get"), params: z.looseObject({ uri: z.string() }) });
export const ReadResourceDirectoryRequestSchema = z.object({
  method: z.literal("resources/directory/read"),
  params: z.looseObject({ uri: z.string(), cursor }),
});

export interface SkillResourceEntry {
  uri: string;
  digest: string;
  size: number;
}

export interface SkillEntry {
  uri: string;
  frontmatter: SkillManifest["frontmatter"];
  resources: SkillResourceEntry[];
}

/** A Skill entry: the SKILL.md's URI, the rendition's frontmatter, every file with `sha256:` digest and size. */
export const skillEntry = (name: string, manifest: SkillManifest): SkillEntry => ({
  uri: skillFileUri(name, SKILL_DOCUMENT_NAME),
  frontmatter: manifest.frontmatter,
  resources: manifest.files.map((file) => ({ uri: skillFileUri(name, file.path), digest: digestLabel(file.sha256), size: file.size })),
});

/** The skill a `skills/get` URI names: exactly `skill://{name}/SKILL.md`; anything else is no skill this server serves (-32602). */
export function skillNameOfUri(uri: string): string {
  const notServed = new McpError(ErrorCode.InvalidParams, `No skill is served at ${uri.slice(0, 200)}`);
  if (!uri.startsWith(SCHEME) || !uri.endsWith(`/${SKILL_DOCUMENT_NAME}`)) throw notServed;
  const encoded = uri.slice(SCHEME.length, -SKILL_DOCUMENT_NAME.length - 1);
  if (encoded === "" || encoded.includes("/")) throw notServed;
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw notServed;
  }
}

/** `skill://{name}` (the skill's root) or `skill://{name}/{dir}` → its parts, each segment percent-decoded once. */
export function parseDirectoryUri(uri: string): { skill: string; directory: string } {
  const bad = (): McpError =>
    new McpError(
      ErrorCode.InvalidParams,
      `${uri.slice(0, 200)} is not a directory resource (skill://{name} or skill://{name}/{directory})`,
    );
  if (!uri.startsWith(SCHEME)) throw bad();
  const segments = uri.slice(SCHEME.length).split("/");
  if (segments.some((s) => s === "")) throw bad();
  try {
    const [skill, ...rest] = segments.map((s) => decodeURIComponent(s));
    return { skill: skill!, directory: rest.join("/") };
  } catch {
    throw bad();
  }
}

/**
 * The direct children of a directory of a skill (SKILL.md and the listed files; S3 has no empty
 * directories): files with their resource metadata, subdirectories as `inode/directory`, by name.
 * Undefined when `directory` is not one (a file, or nothing).
 */
export function directoryChildren(skill: ListedSkill, directory: string): Resource[] | undefined {
  const prefix = directory === "" ? "" : `${directory}/`;
  const files = [
    { path: SKILL_DOCUMENT_NAME, size: undefined as number | undefined },
    ...(skill.files ?? []).map((f) => ({ path: f.path, size: f.size as number | undefined })),
  ];
  const children = new Map<string, Resource>();
  let found = directory === "";
  for (const file of files) {
    if (!file.path.startsWith(prefix)) continue;
    found = true;
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash < 0) {
      const mimeType = mimeTypeOf(file.path);
      children.set(rest, {
        uri: skillFileUri(skill.name, file.path),
        name: rest,
        ...(mimeType !== undefined ? { mimeType } : {}),
        ...(file.size !== undefined ? { size: file.size } : {}),
      });
      continue;
    }
    const child = rest.slice(0, slash);
    if (!children.has(child))
      children.set(child, { uri: skillFileUri(skill.name, `${prefix}${child}`), name: child, mimeType: DIRECTORY_MIME_TYPE });
  }
  if (!found) return undefined;
  return [...children.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, resource]) => resource);
}
