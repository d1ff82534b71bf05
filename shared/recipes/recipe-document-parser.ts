import type { DocumentProblem } from "../errors.js";
import { sanitizeManualPath } from "../skills/manual-path.js";
import { formatFieldPath, schemaProblems } from "../yaml/schema-problems.js";
import { isPlainObject, lineAt, parseSafeYaml, shown } from "../yaml/yaml-safety.js";
import type { YamlPath } from "../yaml/yaml-safety.js";
import { ENGINE_NAMES, engineConfig } from "./engines.js";
import { isRecipeName } from "./recipe-paths.js";
import { RecipeDocument } from "./recipe-schema.js";
import type { RecipeDefinition } from "./recipe-schema.js";

/**
 * `_vance/recipes/<name>.yaml` → RecipeDefinition. Recipes are documents any project member can
 * write, so the YAML is untrusted (SECURITY.md "YAML frontmatter"): same hardened parser as skills.
 * Nothing here throws for bad input; every finding is a DocumentProblem with a line where known.
 */

/** promptPrefix alone may be 64 KB; anything much larger is not a recipe. */
export const MAX_RECIPE_BYTES = 128 * 1024;
/** A legitimate recipe nests 3 levels (params → manualPaths → entry). */
const MAX_RECIPE_DEPTH = 10;

interface RecipeParseResult {
  /** Present iff no problem has severity "error". */
  recipe?: RecipeDefinition;
  problems: DocumentProblem[];
}

/** `name` comes from the file name (like a skill's from its directory); `path` is reported in every problem. */
export function parseRecipeDocument(name: string, text: string, path: string): RecipeParseResult {
  const problems: DocumentProblem[] = [];
  const report = (severity: DocumentProblem["severity"], message: string, line?: number): void => {
    problems.push({ path, ...(line !== undefined ? { line } : {}), message, severity });
  };
  if (text.length > MAX_RECIPE_BYTES || Buffer.byteLength(text, "utf8") > MAX_RECIPE_BYTES) {
    report("error", `document is larger than ${MAX_RECIPE_BYTES} bytes`);
    return { problems };
  }
  if (!isRecipeName(name)) {
    report("error", `recipe name '${shown(String(name))}' must be lowercase letters, digits and hyphens (at most 64 characters)`);
  }
  const nul = text.indexOf("\0");
  if (nul !== -1) {
    report("error", "document contains a NUL character: it is not a text file", lineAt(text, nul));
    return { problems };
  }

  const yaml = parseSafeYaml(text, path, { maxBytes: MAX_RECIPE_BYTES, maxDepth: MAX_RECIPE_DEPTH });
  if (yaml.problems.length > 0) return { problems: [...problems, ...yaml.problems] };
  if (!isPlainObject(yaml.value)) {
    report("error", "recipe must be a mapping of fields (at least engine)", 1);
    return { problems };
  }
  const parsed = RecipeDocument.safeParse(yaml.value, { reportInput: true });
  if (!parsed.success) return { problems: [...problems, ...schemaProblems(parsed.error.issues, path, yaml.lineOf)] };

  const at = (field: YamlPath, severity: DocumentProblem["severity"], message: string): void =>
    report(severity, `${formatFieldPath(field)}: ${message}`, yaml.lineOf(field));
  const doc = parsed.data;

  if (!engineConfig(doc.engine)) at(["engine"], "error", `unknown engine '${doc.engine}' (known: ${ENGINE_NAMES.join(", ")})`);

  const defaults = distinct(doc.defaultActiveSkills, (i, skill) =>
    at(["defaultActiveSkills", i], "warning", `'${skill}' is listed twice (ignored)`),
  );
  const allowed = doc.allowedSkills === null ? null : distinct(doc.allowedSkills, () => {});
  if (allowed !== null) {
    // Spec §7a: a default the whitelist forbids could never be active; the recipe does not load.
    const permitted = new Set(allowed);
    doc.defaultActiveSkills.forEach((skill, i) => {
      if (!permitted.has(skill)) {
        at(["defaultActiveSkills", i], "error", `'${skill}' is not in allowedSkills (default skills must be allowed skills)`);
      }
    });
  }

  // A pin of a skill the whitelist forbids could never compose: refused like such a default.
  if (allowed !== null && doc.skillVersions !== undefined) {
    const permitted = new Set(allowed);
    for (const skill of Object.keys(doc.skillVersions)) {
      if (!permitted.has(skill))
        at(["skillVersions", skill], "error", `'${skill}' is not in allowedSkills (a pinned skill must be an allowed skill)`);
    }
  }

  const manualPaths: string[] = [];
  doc.params.manualPaths?.forEach((raw, i) => {
    const checked = sanitizeManualPath(raw);
    if (checked.ok) manualPaths.push(checked.path);
    else at(["params", "manualPaths", i], "error", checked.message);
  });

  if (problems.some((p) => p.severity === "error")) return { problems };
  const params = { ...doc.params };
  if (doc.params.manualPaths !== undefined) params.manualPaths = [...new Set(manualPaths)];
  return { recipe: { ...doc, name, defaultActiveSkills: defaults, allowedSkills: allowed, params }, problems };
}

/** Order-preserving dedup; `onDuplicate` gets the index of each repeated entry. */
function distinct(items: readonly string[], onDuplicate: (index: number, item: string) => void): string[] {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item)) onDuplicate(i, item);
    seen.add(item);
  });
  return [...seen];
}
