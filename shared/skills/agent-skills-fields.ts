import type { YamlPath } from "../yaml/yaml-safety.js";
import { isPlainObject, shown } from "../yaml/yaml-safety.js";
import { AGENT_SKILLS_DESCRIPTION_CHARS } from "./skill-frontmatter.js";

/**
 * The shapes Agent Skills hosts load without complaint but this service's schema would refuse,
 * read the way those hosts read them, each with a warning naming the field (API.md "Agent
 * Skills documents": a deviation they tolerate is a warning, never a refusal). Runs on the raw
 * YAML mapping before the schema, so the schema itself stays the one strict description of
 * what is written back (and of the published JSON Schema).
 */
export interface FieldWarning {
  field: YamlPath;
  message: string;
  /** Info: read exactly as the author meant it, nothing behaves differently (default: warning). */
  severity?: "info";
}

/**
 * Fields that only describe the skill (who wrote it, how a collection files it): ignoring them
 * changes nothing, so they are info, not warnings like a host's behaviour field (`model:`, `hooks:`).
 */
const DESCRIPTIVE_FOREIGN_FIELDS: ReadonlySet<string> = new Set(["author", "category"]);

export const foreignFieldSeverity = (key: string): "warning" | "info" => (DESCRIPTIVE_FOREIGN_FIELDS.has(key) ? "info" : "warning");

/** Fields of other hosts this service knows and does not use: named in their warning. */
const FOREIGN_FIELDS: Readonly<Record<string, string>> = {
  model: "Claude Code",
  context: "Claude Code",
  agent: "Claude Code",
  hooks: "Claude Code",
  effort: "Claude Code",
  shell: "Claude Code",
  paths: "Claude Code",
  requires: "skill collections",
  category: "skill collections",
  author: "skill collections",
  globs: "Cursor",
  alwaysApply: "Cursor",
};

export const foreignFieldMessage = (key: string): string =>
  Object.hasOwn(FOREIGN_FIELDS, key)
    ? `field '${key}' (${FOREIGN_FIELDS[key]}) is not used by this service (ignored)`
    : `unknown field '${shown(key)}' (ignored)`;

const BOOLEAN_FIELDS = ["enabled", "template", "disable-model-invocation", "user-invocable"] as const;
const TEXT_FIELDS = ["name", "version", "license", "compatibility", "when_to_use", "argument-hint"] as const;

const scalarText = (value: unknown): string | undefined =>
  typeof value === "number" || typeof value === "boolean" || typeof value === "bigint" ? String(value) : undefined;

/** Claude Code: without a description, the first paragraph of the body stands in. Headings are not a paragraph. */
export function firstParagraph(body: string): string | undefined {
  const blocks = body.split(/\n[ \t]*\n/).map((block) => block.trim());
  const paragraph = blocks.find((block) => block !== "" && !/^(#|```|~~~|<!--|---)/.test(block));
  if (paragraph === undefined) return undefined;
  const flat = paragraph.replace(/\s+/g, " ");
  return flat.length > AGENT_SKILLS_DESCRIPTION_CHARS ? `${flat.slice(0, AGENT_SKILLS_DESCRIPTION_CHARS - 1)}…` : flat;
}

export function tolerateForeignShapes(
  raw: Readonly<Record<string, unknown>>,
  body: string,
): { fields: Record<string, unknown>; warnings: FieldWarning[] } {
  const fields: Record<string, unknown> = { ...raw };
  const warnings: FieldWarning[] = [];
  for (const key of TEXT_FIELDS) {
    const text = scalarText(fields[key]);
    if (text === undefined) continue;
    // `version: 1.0` in this service's own form (with a title) stays the error it always was.
    if (key === "version" && fields.title !== undefined) continue;
    fields[key] = text;
    if (key !== "version" && key !== "name") warnings.push({ field: [key], message: `is not text; read as '${shown(text)}'` });
  }
  for (const key of BOOLEAN_FIELDS) {
    const value = fields[key];
    if (typeof value !== "string" || !/^(true|false|yes|no)$/i.test(value.trim())) continue;
    fields[key] = /^(true|yes)$/i.test(value.trim());
    warnings.push({
      field: [key],
      message: `is the text '${shown(value)}', read as ${String(fields[key])}; write true or false without quotes`,
    });
  }
  const hint = fields["argument-hint"];
  // `argument-hint: [issue-number]` is how Claude Code documents it; YAML reads it as a list.
  if (Array.isArray(hint))
    fields["argument-hint"] = hint.map((item) => `[${typeof item === "string" ? item : JSON.stringify(item)}]`).join(" ");
  const tools = fields["allowed-tools"];
  if (Array.isArray(tools)) fields["allowed-tools"] = tools.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  tolerateMetadata(fields, warnings);
  tolerateDescription(fields, body, warnings);
  return { fields, warnings };
}

function tolerateMetadata(fields: Record<string, unknown>, warnings: FieldWarning[]): void {
  const metadata = fields.metadata;
  if (metadata === undefined || metadata === null) {
    delete fields.metadata;
    return;
  }
  if (!isPlainObject(metadata)) {
    delete fields.metadata;
    warnings.push({ field: ["metadata"], message: "is not a mapping (ignored)" });
    return;
  }
  const converted = Object.entries(metadata).filter(([, value]) => typeof value !== "string");
  if (converted.length === 0) return;
  fields.metadata = Object.fromEntries(
    Object.entries(metadata).map(([key, value]) => [key, typeof value === "string" ? value : (JSON.stringify(value) ?? "null")]),
  );
  warnings.push({
    field: ["metadata", converted[0]![0]],
    message: `Agent Skills metadata values are text; ${converted.map(([key]) => `'${shown(key)}'`).join(", ")} kept as JSON text`,
    severity: "info",
  });
}

function tolerateDescription(fields: Record<string, unknown>, body: string, warnings: FieldWarning[]): void {
  const description = fields.description;
  const text = scalarText(description);
  if (text !== undefined) fields.description = text;
  if (typeof fields.description === "string" && fields.description.trim() !== "") return;
  if (description !== undefined && typeof description !== "string") return; // a list or mapping: the schema says what is wrong
  if (fields.enabled === false) return;
  // This service's own form (with a title) has always required a description: only Agent Skills documents get the stand-in.
  if (fields.title !== undefined) return;
  const paragraph = firstParagraph(body);
  if (paragraph === undefined) return; // nothing to stand in: the schema's "is required" stays
  fields.description = paragraph;
  warnings.push({ field: ["description"], message: "is absent; the body's first paragraph stands in (as Claude Code does)" });
}
