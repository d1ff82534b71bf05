import { MAX_PATTERN_TRIGGERS_PER_SKILL, patternCount } from "./triggers/trigger-caps.js";
import type { YamlPath } from "../yaml/yaml-safety.js";
import { checkSkillFilePath, sanitizeManualPath } from "./manual-path.js";
import { parseAllowedTools } from "./allowed-tools.js";
import { isServiceTool } from "./service-tool-names.js";
import { AGENT_SKILLS_DESCRIPTION_CHARS, hasControlCharacters } from "./skill-frontmatter.js";
import type { SkillArgument, SkillFrontmatterParsed } from "./skill-frontmatter.js";
import { triggerPatternWarnings } from "./triggers/pattern-dialect.js";
import { checkTriggerPattern } from "./triggers/skill-trigger-pattern.js";

/**
 * Rules across fields of one SKILL.md that the zod schema cannot express (spec §2, §2a–§2c,
 * §13.1). Problems name the field they concern; the parser turns that into a message and a line.
 */

interface FieldProblem {
  field: YamlPath;
  message: string;
  severity: "error" | "warning" | "info";
}

const MAX_TOOL_NAME = 128;
const MAX_TOOLS = 200;

type Report = (severity: FieldProblem["severity"], field: YamlPath, message: string) => void;

// semver 2.0.0, from semver.org
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * API.md "Agent Skills documents": the skill is called by its directory name whatever `name:`
 * says, and a missing title or version, a display name, a long description are warnings.
 */
export const isSemver = (version: string): boolean => SEMVER.test(version);

/** A `name:` that reads like a path is an attack or a mistake, never a display name: hosts that use it as a path segment would escape. */
// eslint-disable-next-line no-control-regex
export const PATH_LIKE_NAME = /[/\\\u0000-\u001f\u007f]|(^|[^.])\.\.($|[^.])|^\.+$/;

function checkIdentity(fm: SkillFrontmatterParsed, skillName: string, report: Report): void {
  if (fm.name !== undefined && PATH_LIKE_NAME.test(fm.name)) {
    report(
      "error",
      ["name"],
      `'${fm.name.slice(0, 80)}' looks like a path (it holds '/', '\\', '..' or a control character); write the skill's name or a display name`,
    );
    return;
  }
  if (fm.name !== undefined && fm.name !== skillName) {
    const title = fm.title === undefined ? `; '${fm.name.slice(0, 200)}' becomes its title` : "";
    report("warning", ["name"], `is '${fm.name.slice(0, 200)}', not the directory name: the skill is called '${skillName}'${title}`);
  }
  // What Agent Skills documents simply look like: nothing behaves differently, so info.
  if (fm.title === undefined) report("info", ["title"], `is absent; the title is '${(fm.name ?? skillName).slice(0, 200)}'`);
  if (fm.version === undefined) report("info", ["version"], "is absent (Agent Skills documents have none); the skill reports no version");
  // This service's own form (with a title) has always required semver; elsewhere the version is informational.
  else if (!SEMVER.test(fm.version)) {
    if (fm.title !== undefined) report("error", ["version"], "must be a semantic version such as 1.0.0");
    else report("info", ["version"], `'${fm.version}' is not a semantic version such as 1.0.0; kept as written`);
  }
  if (fm.description.length > AGENT_SKILLS_DESCRIPTION_CHARS) {
    report(
      "warning",
      ["description"],
      `has ${fm.description.length} characters; Agent Skills hosts allow ${AGENT_SKILLS_DESCRIPTION_CHARS} (kept whole here; the catalog shortens it)`,
    );
  }
}

function checkRun(fm: SkillFrontmatterParsed, report: Report): void {
  if (fm.run?.target !== "spawn") {
    if (fm.run?.recipe !== undefined) report("warning", ["run", "recipe"], "is ignored unless run.target is spawn");
    if (fm.run?.inherit !== undefined) report("warning", ["run", "inherit"], "is ignored unless run.target is spawn");
    return;
  }
  if (fm.run.recipe === undefined) report("error", ["run", "recipe"], "is required for run.target: spawn");
  if (fm.action === undefined || fm.action.trim() === "") {
    report("error", ["action"], "is required for run.target: spawn (without it the worker would start and idle)");
  }
  if (fm.lifecycle === "shot") report("error", ["lifecycle"], "shot cannot be combined with run.target: spawn");
  if ((fm.triggers?.length ?? 0) > 0) {
    report("warning", ["triggers"], "are ignored for run.target: spawn (only an explicit /skill starts a worker)");
  }
}

function checkLifecycle(fm: SkillFrontmatterParsed, report: Report): void {
  if (fm.lifecycle === "shot" && (fm.deactivate?.length ?? 0) > 0) {
    report("warning", ["deactivate"], "is never fired for lifecycle: shot");
  }
}

function checkPaths(fm: SkillFrontmatterParsed, report: Report): void {
  fm.manualPaths?.forEach((raw, i) => {
    const checked = sanitizeManualPath(raw);
    if (!checked.ok) report("error", ["manualPaths", i], checked.message);
  });
  fm.referenceDocs?.forEach((doc, i) => {
    const checked = checkSkillFilePath(doc.file);
    if (!checked.ok) report("error", ["referenceDocs", i, "file"], checked.message);
  });
  fm.scripts?.forEach((script, i) => {
    const checked = checkSkillFilePath(script.file);
    if (!checked.ok) report("error", ["scripts", i, "file"], checked.message);
  });
}

/** Reports every repeat of a key after its first occurrence. */
function checkUnique<T>(
  items: readonly T[] | undefined,
  keyOf: (item: T) => string,
  field: (i: number) => YamlPath,
  what: string,
  report: Report,
): void {
  const firstAt = new Map<string, number>();
  items?.forEach((item, i) => {
    const key = keyOf(item);
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, i);
    else report("error", field(i), `duplicate ${what} '${key}' (first at index ${first})`);
  });
}

function checkUniqueness(fm: SkillFrontmatterParsed, report: Report): void {
  const args: readonly SkillArgument[] | undefined = Array.isArray(fm.arguments) ? fm.arguments : undefined;
  checkUnique(
    args,
    (a) => a.name,
    (i) => ["arguments", i, "name"],
    "argument name",
    report,
  );
  checkUnique(
    fm.scripts,
    (s) => s.name,
    (i) => ["scripts", i, "name"],
    "script name",
    report,
  );
  checkUnique(
    fm.referenceDocs,
    (d) => d.title,
    (i) => ["referenceDocs", i, "title"],
    "reference doc title",
    report,
  );
  fm.scripts?.forEach((script, s) =>
    checkUnique(
      script.params,
      (p) => p.name,
      (i) => ["scripts", s, "params", i, "name"],
      "parameter name",
      report,
    ),
  );
}

function checkTriggers(fm: SkillFrontmatterParsed, report: Report): void {
  const patterns = patternCount(fm.triggers);
  if (patterns > MAX_PATTERN_TRIGGERS_PER_SKILL) {
    report("error", ["triggers"], `holds ${patterns} PATTERN triggers; at most ${MAX_PATTERN_TRIGGERS_PER_SKILL} per skill are allowed`);
  }
  fm.triggers?.forEach((trigger, i) => {
    if (trigger.type !== "PATTERN") return;
    const error = checkTriggerPattern(trigger.pattern);
    if (error !== undefined) {
      report("error", ["triggers", i, "pattern"], error);
      return;
    }
    for (const warning of triggerPatternWarnings(trigger.pattern)) report("warning", ["triggers", i, "pattern"], warning);
  });
}

function checkAllowedTools(fm: SkillFrontmatterParsed, report: Report): void {
  const { names, patterns, problems } = parseAllowedTools(fm["allowed-tools"]);
  for (const problem of problems) report("warning", ["allowed-tools"], problem);
  if (names.length > MAX_TOOLS) report("error", ["allowed-tools"], `must name at most ${MAX_TOOLS} tools`);
  const long = names.find((name) => name.length > MAX_TOOL_NAME);
  if (long !== undefined) report("error", ["allowed-tools"], `tool names must be at most ${MAX_TOOL_NAME} characters`);
  // The string form splits on line breaks too, so the check is on each entry, permission pattern included.
  if (patterns.some(hasControlCharacters))
    report(
      "error",
      ["allowed-tools"],
      "tool names must not contain control characters (escape sequences, tabs or line breaks inside an entry)",
    );
  checkServiceTools(["allowed-tools"], names, report);
}

/** A service tool in a skill's list is ignored at turn time (tool-union.ts); the author hears it at save. */
function checkServiceTools(field: YamlPath, names: readonly string[], report: Report): void {
  const granted = [...new Set(names.filter(isServiceTool))];
  if (granted.length === 0) return;
  report(
    "warning",
    field,
    `${granted.map((name) => `'${name}'`).join(", ")}: service tools are not a skill's to grant (the service adds them by its own rules); ignored`,
  );
}

/** `skillName` is the directory name the document was read from. */
export function validateSkillFrontmatter(fm: SkillFrontmatterParsed, skillName: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const report: Report = (severity, field, message) => problems.push({ field, message, severity });
  checkIdentity(fm, skillName, report);
  checkRun(fm, report);
  checkLifecycle(fm, report);
  checkPaths(fm, report);
  checkUniqueness(fm, report);
  checkTriggers(fm, report);
  checkAllowedTools(fm, report);
  checkServiceTools(["tools"], fm.tools ?? [], report);
  return problems;
}
