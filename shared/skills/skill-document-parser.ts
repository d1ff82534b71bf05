import type { DocumentProblem } from "../errors.js";
import { formatFieldPath, schemaProblems } from "../yaml/schema-problems.js";
import { isPlainObject, lineAt, parseSafeYaml } from "../yaml/yaml-safety.js";
import type { YamlPath } from "../yaml/yaml-safety.js";
import { sanitizeManualPath } from "./manual-path.js";
import type { SkillDefinition } from "./resolved-skill.js";
import { skillFrontmatterSchemas } from "./skill-frontmatter.js";
import { parseAllowedTools } from "./allowed-tools.js";
import { hasTemplateSyntax } from "../templates/template-renderer.js";
import { mentionsArguments, numberedPlaceholders } from "./skill-body.js";
import { searchTextOf } from "./skill-search-text.js";
import { foreignFieldMessage, foreignFieldSeverity, tolerateForeignShapes } from "./agent-skills-fields.js";
import { skillNameDeviation, skillNameRefusal } from "./skill-name.js";
import type { SkillFrontmatterParsed } from "./skill-frontmatter.js";
import { isSemver, validateSkillFrontmatter } from "./skill-validator.js";

/**
 * SKILL.md → SkillDefinition (spec §2, §9): `---` fenced YAML frontmatter, then the Markdown body.
 * Every finding is returned as a DocumentProblem with the file line where one is known; nothing
 * here throws for bad input, however hostile (SECURITY.md "YAML frontmatter").
 */

/** Checked first, before any scan of the text. */
export const MAX_SKILL_TEXT_BYTES = 1024 * 1024;
export const MAX_FRONTMATTER_BYTES = 32 * 1024;
/** A legitimate frontmatter nests at most 5 levels (scripts → params → entry). */
export const MAX_FRONTMATTER_DEPTH = 20;

interface SkillParseResult {
  /** Present iff no problem has severity "error". */
  definition?: SkillDefinition;
  problems: DocumentProblem[];
}

type FrontmatterSplit =
  | {
      ok: true;
      frontmatter: string;
      /** Leading blank lines and trailing whitespace removed; may be empty. */
      body: string;
      /** File line of the first frontmatter line (the one after the opening fence). */
      frontmatterLine: number;
    }
  | { ok: false; message: string; line: number };

const FENCE = /^---[ \t]*$/;

/** Splits off the frontmatter; tolerates a UTF-8 BOM and CRLF line ends. */
export function splitFrontmatter(text: string): FrontmatterSplit {
  const source = (text.startsWith("\uFEFF") ? text.slice(1) : text).replace(/\r\n/g, "\n");
  const firstEnd = source.indexOf("\n");
  if (!FENCE.test(firstEnd === -1 ? source : source.slice(0, firstEnd))) {
    return { ok: false, message: "missing frontmatter: the first line must be '---'", line: 1 };
  }
  if (firstEnd === -1) return { ok: false, message: "frontmatter is not closed: no '---' line follows", line: 1 };
  for (let start = firstEnd + 1; start < source.length;) {
    const end = source.indexOf("\n", start);
    const line = end === -1 ? source.slice(start) : source.slice(start, end);
    if (FENCE.test(line)) {
      const body = end === -1 ? "" : source.slice(end + 1);
      return {
        ok: true,
        frontmatter: source.slice(firstEnd + 1, start),
        body: body.replace(/^(?:[ \t]*\n)+/, "").trimEnd(),
        frontmatterLine: 2,
      };
    }
    if (end === -1) break;
    start = end + 1;
  }
  return { ok: false, message: "frontmatter is not closed: no '---' line follows", line: 1 };
}

/**
 * Fields only this service gives a meaning to, and that concern what the body is rendered with
 * or when: a document that declares one is written for this service, whatever its other fields
 * (decisions.md, issue 30 "Templates nobody renders").
 */
const SERVICE_BODY_FIELDS = ["arguments", "lifecycle", "activate", "deactivate", "action"] as const;

/**
 * Whether the body is a nunjucks template when `template:` is not written: this service's own
 * form (title or version, spec §2), or a document that declares a field of SERVICE_BODY_FIELDS
 * and whose body has template syntax (`Deploy to {{ args.env }}` with `arguments:` means the
 * render). An Agent Skills document has neither, and its `{{ … }}` is text meant for the model.
 */
function isTemplate(fm: SkillFrontmatterParsed, raw: Readonly<Record<string, unknown>>, body: string): boolean {
  if (fm.template !== undefined) return fm.template;
  if (fm.title !== undefined || fm.version !== undefined) return true;
  return SERVICE_BODY_FIELDS.some((field) => Object.hasOwn(raw, field)) && hasTemplateSyntax(body);
}

/** A body that reads `{{ args.… }}` but is sent as written: what it would take to render it. */
const READS_ARGS = /\{\{-?\s*args\b/;

function toDefinition(name: string, fm: SkillFrontmatterParsed, body: string, template: boolean): SkillDefinition {
  const allowed = parseAllowedTools(fm["allowed-tools"]);
  const run = fm.run ?? { target: "inline" as const };
  const tools = [...new Set([...(fm.tools ?? []), ...allowed.names])];
  const searchText = searchTextOf(body, tools);
  const manualPaths = (fm.manualPaths ?? []).flatMap((raw) => {
    const checked = sanitizeManualPath(raw);
    return checked.ok ? [checked.path] : [];
  });
  return {
    name,
    title: fm.title ?? fm.name ?? name,
    description: fm.description,
    version: fm.version,
    whenToUse: fm.when_to_use,
    argumentHint: fm["argument-hint"],
    compatibility: fm.compatibility,
    disableModelInvocation: fm["disable-model-invocation"],
    userInvocable: fm["user-invocable"],
    triggers: fm.triggers ?? [],
    tools,
    allowedToolPatterns: allowed.patterns,
    template,
    manualPaths: [...new Set(manualPaths)],
    referenceDocs: fm.referenceDocs ?? [],
    tags: fm.tags ?? [],
    enabled: fm.enabled,
    lifecycle: fm.lifecycle,
    // Spec §2c: a spawned worker starts without the caller's chat history unless told otherwise.
    run: run.target === "spawn" && run.inherit === undefined ? { ...run, inherit: "none" } : run,
    // Claude Code: a skill that asks for arguments on purpose ($ARGUMENTS in the body, or an
    // argument-hint) consumes the rest of the /skill line; a body whose only `$` is `$5.00` or
    // `$B$6` does not, so the user's text stays a message (decisions.md, issue 30).
    arguments: fm.arguments ?? (!template && (fm["argument-hint"] !== undefined || mentionsArguments(body))),
    activate: fm.activate ?? [],
    deactivate: fm.deactivate ?? [],
    // Spec §2a: a blank action: means no turn, so consumers need only test for presence.
    ...(fm.action !== undefined && fm.action.trim() !== "" ? { action: fm.action } : {}),
    scripts: fm.scripts ?? [],
    ...(fm.license !== undefined ? { license: fm.license } : {}),
    ...(fm.metadata !== undefined ? { metadata: fm.metadata } : {}),
    body,
    ...(searchText !== "" ? { searchText } : {}),
  };
}

/**
 * `name` is the skill's directory name (spec §2: the name comes from the directory); `path` is
 * reported in every problem.
 */
export function parseSkillDocument(name: string, text: string, path: string): SkillParseResult {
  const problem = (severity: DocumentProblem["severity"], message: string, line: number | undefined): DocumentProblem => ({
    path,
    ...(line !== undefined ? { line } : {}),
    message,
    severity,
  });
  if (text.length > MAX_SKILL_TEXT_BYTES || Buffer.byteLength(text, "utf8") > MAX_SKILL_TEXT_BYTES) {
    return { problems: [problem("error", `document is larger than ${MAX_SKILL_TEXT_BYTES} bytes`, undefined)] };
  }
  const problems: DocumentProblem[] = [];
  const refusal = skillNameRefusal(name);
  if (refusal !== undefined) problems.push(problem("error", refusal, undefined));
  const deviation = skillNameDeviation(name);
  // About the folder, not a field: reported at the document's first line so every warning has one.
  if (deviation !== undefined) problems.push(problem("warning", deviation, 1));
  const nul = text.indexOf("\0");
  if (nul !== -1) {
    problems.push(problem("error", "document contains a NUL character: it is not a text file", lineAt(text, nul)));
    return { problems };
  }
  const split = splitFrontmatter(text);
  if (!split.ok) {
    problems.push(problem("error", split.message, split.line));
    return { problems };
  }

  const yaml = parseSafeYaml(split.frontmatter, path, {
    maxBytes: MAX_FRONTMATTER_BYTES,
    maxDepth: MAX_FRONTMATTER_DEPTH,
    firstLine: split.frontmatterLine,
  });
  if (yaml.problems.length > 0) return { problems: [...problems, ...yaml.problems] };
  if (!isPlainObject(yaml.value)) {
    problems.push(problem("error", "frontmatter must be a mapping of fields (at least a description)", split.frontmatterLine));
    return { problems };
  }

  // A finding on a field that is not written (an absent title) is reported at the frontmatter's start.
  const lineOf = (field: YamlPath): number => yaml.lineOf(field) ?? (field.length > 1 ? yaml.lineOf(field.slice(0, 1)) : undefined) ?? 1;
  const schemas = skillFrontmatterSchemas();
  for (const key of Object.keys(yaml.value)) {
    if (!schemas.knownFields.has(key)) problems.push(problem(foreignFieldSeverity(key), foreignFieldMessage(key), lineOf([key])));
  }
  const tolerated = tolerateForeignShapes(yaml.value, split.body);
  for (const found of tolerated.warnings)
    problems.push(problem(found.severity ?? "warning", `${formatFieldPath(found.field)}: ${found.message}`, lineOf(found.field)));
  // Spec §3: a disabled override exists only to hide outer layers, so `enabled: false` alone is a
  // complete document; the required fields get neutral stand-ins. (parseSafeYaml already refused
  // `__proto__` keys, and spreading defines own properties only.)
  const disabled = tolerated.fields.enabled === false;
  const fields = disabled ? { title: name, version: "0.0.0", description: `${name} (disabled)`, ...tolerated.fields } : tolerated.fields;
  const parsed = schemas.SkillFrontmatter.safeParse(fields, { reportInput: true });
  if (!parsed.success) {
    // The validator does not run on a document the schema refused: report its version rule with the schema's findings.
    const version = fields.version;
    const badVersion =
      fields.title !== undefined && typeof version === "string" && !isSemver(version)
        ? [problem("error", "version: must be a semantic version such as 1.0.0", lineOf(["version"]))]
        : [];
    const found = [...schemaProblems(parsed.error.issues, path, yaml.lineOf), ...badVersion].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { problems: [...problems, ...found] };
  }

  for (const found of validateSkillFrontmatter(parsed.data, name)) {
    // A disabled stand-in is not a deviation of the author's.
    if (disabled && found.severity !== "error" && !((found.field[0] as string) in yaml.value)) continue;
    problems.push(problem(found.severity, `${formatFieldPath(found.field)}: ${found.message}`, lineOf(found.field)));
  }
  if (problems.some((p) => p.severity === "error")) return { problems };
  const template = isTemplate(parsed.data, yaml.value, split.body);
  const definition = toDefinition(name, parsed.data, split.body, template);
  const found = bodyWarnings(definition, parsed.data.template !== undefined);
  if (found.length > 0) {
    // The body is a verbatim slice of the text with LF line ends, after the frontmatter.
    const normalized = text.replace(/\r\n/g, "\n");
    const bodyStart = Math.max(0, normalized.indexOf(split.body, split.frontmatter.length));
    for (const { message, offset } of found) problems.push(problem("warning", message, lineAt(normalized, bodyStart + offset)));
  }
  return { definition, problems };
}

/**
 * What a body will not do as its author probably expects (issue 30): `{{ args.… }}` in a body
 * sent as written, and the `$N` Claude Code placeholders that will be replaced by words of the
 * `/skill` line. Reported at save, by `skills validate` and in the problems list alike.
 */
function bodyWarnings(definition: SkillDefinition, templateWritten: boolean): { message: string; offset: number }[] {
  const warnings: { message: string; offset: number }[] = [];
  const readsArgs = definition.template || templateWritten ? -1 : definition.body.search(READS_ARGS);
  if (readsArgs >= 0) {
    warnings.push({
      offset: readsArgs,
      message:
        "body: '{{ args… }}' reaches the model as written: this document is in the Agent Skills form (no title, version, template or arguments field); " +
        "add 'template: true' (or declare its 'arguments:') to render it, or write Claude Code placeholders ($ARGUMENTS, $0)",
    });
  }
  const numbered = numberedPlaceholders(definition);
  if (numbered.length > 0) {
    const shown = numbered.slice(0, 5).join(", ");
    warnings.push({
      offset: Math.max(0, definition.body.indexOf(numbered[0]!)),
      message:
        `body: ${shown}${numbered.length > 5 ? ", …" : ""} will be replaced by words of the /skill line (Claude Code placeholders: the skill asks for arguments with $ARGUMENTS, argument-hint or arguments:); ` +
        "one past the words given stays as written. If one is meant as text (a price, a cell), write it with its decimals ($5.00) or as a cell reference ($B$6)",
    });
  }
  return warnings;
}
