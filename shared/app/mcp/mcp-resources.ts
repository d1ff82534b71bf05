import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { strictUtf8 } from "../../documents/document-body.js";
import type { ListedSkill } from "../../skills/resolved-skill.js";
import { matchSkillFile } from "../../skills/skill-files.js";
import { SKILL_DOCUMENT_NAME } from "../../skills/skill-paths.js";
import { RESOURCE_NOT_FOUND } from "./mcp-protocol.js";

const SCHEME = "skill://";

/**
 * A resource read answers in one JSON-RPC message; a Lambda answer is at most 6 MB and base64
 * adds a third, so a bigger file is refused rather than cut.
 */
export const MAX_MCP_RESOURCE_BYTES = 4 * 1024 * 1024;

export const SKILL_FILE_TEMPLATE: ResourceTemplate = {
  uriTemplate: "skill://{name}/{+path}",
  name: "skill-file",
  title: "A file of a skill",
  description: "A file of a visible skill (SKILL.md included), read from the cascade level that provides the skill's SKILL.md",
};

/** Extensions a skill folder typically holds; anything else is `application/octet-stream` when binary, `text/plain` when text. */
const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip",
  njk: "text/plain",
};

export function mimeTypeOf(path: string): string | undefined {
  const dot = path.lastIndexOf(".");
  return dot < 0 ? undefined : MIME_BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}

export const skillFileUri = (skill: string, path: string): string =>
  `${SCHEME}${skill}/${path.split("/").map(encodeURIComponent).join("/")}`;

/** `skill://{name}/{path}` → its parts, each segment percent-decoded once; anything else is -32602. */
export function parseSkillFileUri(uri: string): { skill: string; path: string } {
  const bad = (): McpError =>
    new McpError(ErrorCode.InvalidParams, `Resource URI must be skill://{name}/{path}, got '${uri.slice(0, 200)}'`);
  if (!uri.startsWith(SCHEME)) throw bad();
  const [name, ...rest] = uri.slice(SCHEME.length).split("/");
  if (name === undefined || name === "" || rest.length === 0 || rest.some((s) => s === "")) throw bad();
  try {
    return { skill: decodeURIComponent(name), path: rest.map((s) => decodeURIComponent(s)).join("/") };
  } catch {
    throw bad();
  }
}

/** SKILL.md first, then the listed files (the loader's listing of the pinned layer). */
export function skillResources(skill: ListedSkill): Resource[] {
  const entry = (path: string, size?: number): Resource => {
    const mimeType = mimeTypeOf(path);
    return {
      uri: skillFileUri(skill.name, path),
      name: `${skill.name}/${path}`,
      ...(path === SKILL_DOCUMENT_NAME ? { title: skill.title, description: skill.description } : {}),
      ...(mimeType !== undefined ? { mimeType } : {}),
      ...(size !== undefined ? { size } : {}),
    };
  };
  return [entry(SKILL_DOCUMENT_NAME), ...(skill.files ?? []).map((f) => entry(f.path, f.size))];
}

/**
 * The path as the loader lists it: SKILL.md, or the one listed file it names — exactly, or as the
 * single match ignoring case, the rule skill_read_file follows (matchSkillFile), so
 * `skill://pdf/FORMS.md` reads `forms.md` wherever the tool would. Never another layer's file.
 */
export function listedPath(skill: ListedSkill, path: string): string {
  if (path.toLowerCase() === SKILL_DOCUMENT_NAME.toLowerCase()) return SKILL_DOCUMENT_NAME;
  const match = matchSkillFile(skill.files ?? [], path);
  if (match.kind === "ambiguous") {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Path '${path.slice(0, 200)}' of skill '${skill.name}' is ambiguous: it matches ${match.candidates.map((c) => `'${c}'`).join(" and ")} ignoring case; give the exact path`,
    );
  }
  if (match.kind !== "found") throw new McpError(RESOURCE_NOT_FOUND, `Skill '${skill.name}' has no file '${path.slice(0, 200)}'`);
  return match.file.path;
}

/** Text when the bytes are UTF-8, else a base64 blob. */
export function resourceContents(
  uri: string,
  path: string,
  body: Uint8Array,
): { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string } {
  if (body.byteLength > MAX_MCP_RESOURCE_BYTES) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Resource '${uri.slice(0, 200)}' is ${body.byteLength} bytes, more than the ${MAX_MCP_RESOURCE_BYTES} one read returns`,
    );
  }
  const text = strictUtf8(body);
  const known = mimeTypeOf(path);
  if (text !== undefined) return { uri, mimeType: known ?? "text/plain", text };
  return { uri, mimeType: known ?? "application/octet-stream", blob: Buffer.from(body).toString("base64") };
}
