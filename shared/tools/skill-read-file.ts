import * as z from "zod/mini";
import "../../contract/locale.js";
import { DocumentNotFound, InvalidRequest } from "../errors.js";
import { strictUtf8 } from "../documents/document-body.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { matchSkillFile, MAX_SKILL_READ_BYTES, type SkillFile } from "../skills/skill-files.js";
import { checkSkillFilePath } from "../skills/manual-path.js";
import { scopeOf } from "../steering/steer-context.js";
import { SKILL_READ_FILE_TOOL } from "../turns/service-tool-specs.js";
import { serviceTool, type ToolCall } from "./tool-invoker.js";

/**
 * A file above this is refused even in parts: the store has no ranged read, so every part reads
 * the whole file into the function's memory, and a text file this big is not something to page
 * through 256 KB at a time.
 */
export const MAX_SKILL_READABLE_FILE_BYTES = 8 * 1024 * 1024;

const args = z.strictObject({
  skill: z.string().check(z.minLength(1), z.maxLength(128)),
  path: z.string().check(z.minLength(1), z.maxLength(1024)),
  offset: z.optional(z.number().check(z.int(), z.gte(0))),
  limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_SKILL_READ_BYTES))),
});

interface SkillFileContent {
  path: string;
  content: string;
  /** Bytes of the whole file. */
  size: number;
  /** Only for a read in parts: where this part starts, and where the next starts (null at the end). */
  offset?: number;
  nextOffset?: number | null;
}

const shown = (value: string): string => JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);

/** A UTF-8 continuation byte (10xxxxxx): never the first byte of a character. */
const isContinuation = (byte: number | undefined): boolean => byte !== undefined && (byte & 0xc0) === 0x80;

/** The active skill named `name`, as the process resolves it now; refused when it is not active. */
async function activeSkill(call: ToolCall<unknown>, name: string): Promise<ResolvedSkill> {
  const notActive = (why: string): InvalidRequest =>
    new InvalidRequest(
      `Skill ${shown(name)} ${why}; skill_read_file reads files of the skills active on process '${call.process.processId}' only`,
    );
  if (!call.process.activeSkills.some((entry) => entry.name === name)) throw notActive("is not active");
  const skill = await call.loader.load(scopeOf(call.process), name);
  if (skill === undefined) throw notActive("is active but no longer resolves");
  if (skill.lifecycle === "shot") throw notActive("is a shot skill now and is not active in a turn");
  return skill;
}

/** The listed file `raw` names; only listed files are read, so no other layer's or skill's file can be. */
function listedFile(skill: ResolvedSkill, raw: string): SkillFile {
  const checked = checkSkillFilePath(raw);
  if (!checked.ok) throw new InvalidRequest(`Path ${shown(raw)} ${checked.message}`);
  const match = matchSkillFile(skill.files ?? [], checked.path);
  if (match.kind === "ambiguous") {
    throw new InvalidRequest(
      `Path ${shown(raw)} is ambiguous: it matches ${match.candidates.map(shown).join(" and ")} ignoring case; give the exact path`,
    );
  }
  if (match.kind === "absent") throw new DocumentNotFound(`${checked.path} (a file of skill '${skill.name}')`);
  return match.file;
}

function checkSize(path: string, size: number, inParts: boolean): void {
  if (size > MAX_SKILL_READABLE_FILE_BYTES) {
    throw new InvalidRequest(
      `File '${path}' is too large: ${size} bytes, more than the ${MAX_SKILL_READABLE_FILE_BYTES} bytes skill_read_file reads at all`,
    );
  }
  if (!inParts && size > MAX_SKILL_READ_BYTES) {
    throw new InvalidRequest(
      `File '${path}' is too large for one read: ${size} bytes, more than ${MAX_SKILL_READ_BYTES}; read it in parts with offset and limit (in bytes)`,
    );
  }
}

/** Bytes [offset, offset + limit) moved to character boundaries: never half a character. */
function part(body: Uint8Array, offset: number, limit: number): { content: string; start: number; end: number } {
  let start = Math.min(offset, body.byteLength);
  while (start < body.byteLength && isContinuation(body[start])) start++;
  let end = Math.min(start + limit, body.byteLength);
  while (end > start && end < body.byteLength && isContinuation(body[end])) end--;
  // A limit smaller than the character at `start` still returns that one character.
  if (end === start && start < body.byteLength) {
    end = start + 1;
    while (end < body.byteLength && isContinuation(body[end])) end++;
  }
  return { content: new TextDecoder("utf-8").decode(body.subarray(start, end)), start, end };
}

/**
 * API.md "Skill files": `skill_read_file {"skill","path"[,"offset","limit"]}` reads a text file of
 * an active skill's directory from the layer that provided its SKILL.md. The path must be one the
 * loader listed (exactly, or as the single case-insensitive match). `offset` and `limit` count
 * bytes of the file (the listing's sizes are bytes too) and are moved to character boundaries.
 */
export const skillReadFileTool = serviceTool({
  name: SKILL_READ_FILE_TOOL,
  schema: args,
  async invoke(call): Promise<SkillFileContent> {
    const skill = await activeSkill(call, call.args.skill);
    const file = listedFile(skill, call.args.path);
    const inParts = call.args.offset !== undefined || call.args.limit !== undefined;
    checkSize(file.path, file.size, inParts);
    const doc = await call.loader.readSkillFileDocument(scopeOf(call.process), skill, file.path);
    if (!doc) throw new DocumentNotFound(`${file.path} (a file of skill '${skill.name}')`);
    // The listing may be older than the file: check what was read, not only what was listed.
    checkSize(file.path, doc.body.byteLength, inParts);
    if (strictUtf8(doc.body) === undefined) {
      throw new InvalidRequest(
        `File '${file.path}' of skill '${skill.name}' is binary (not UTF-8 text); skill_read_file reads text files only`,
      );
    }
    if (!inParts) return { path: file.path, content: new TextDecoder("utf-8").decode(doc.body), size: doc.body.byteLength };
    const { content, start, end } = part(doc.body, call.args.offset ?? 0, call.args.limit ?? MAX_SKILL_READ_BYTES);
    return { path: file.path, content, size: doc.body.byteLength, offset: start, nextOffset: end < doc.body.byteLength ? end : null };
  },
});
