import { precompileTemplate } from "../templates/template-precompiler.js";
import { lineAt } from "../yaml/yaml-safety.js";
import type { DocumentProblem } from "../errors.js";
import type { SkillDefinition } from "./resolved-skill.js";
import { rendersAsTemplate } from "./skill-body.js";

/**
 * Save-time check (documents API, `skills validate`), never on the turn path: it compiles the
 * template. A variable the render context never has renders empty without an error, which is
 * how a body written for another host (`{{user_id}}` meant as text) or a typo (`{{ arg.text }}`)
 * silently loses text.
 */
export const RENDER_CONTEXT_KEYS: readonly string[] = [
  "args",
  "engine",
  "lang",
  "mode",
  "model",
  "params",
  "profile",
  "provider",
  "recipe",
  "tier",
];
const NUNJUCKS_GLOBALS = new Set(["range", "cycler", "joiner", "loop", "caller", "super"]);

const LOOKUP = /contextOrFrameLookup\(context, frame, "([^"\\]+)"\)/g;

/** Names a template reads from its context, less those it defines itself ({% set %}, macros, imports). */
export async function freeTemplateVariables(source: string): Promise<string[]> {
  let code: string;
  try {
    code = await precompileTemplate(source);
  } catch {
    return []; // a template that does not compile is refused elsewhere (or fails its render with a warning)
  }
  const defined = new Set<string>();
  for (const match of source.matchAll(/\{%-?\s*(?:set|macro|import\s+\S+\s+as|from\s+\S+\s+import)\s+([\w\s,]+?)\s*(?:=|\(|%|-%)/g)) {
    for (const name of match[1]!.split(/[\s,]+/)) if (name !== "") defined.add(name);
  }
  const names = new Set<string>();
  for (const match of code.matchAll(LOOKUP)) {
    const name = match[1]!;
    if (!defined.has(name) && !NUNJUCKS_GLOBALS.has(name)) names.add(name);
  }
  return [...names];
}

/** Warnings for the template fields of a skill that may be saved; `text` is the whole SKILL.md (for lines). */
export async function templateVariableWarnings(definition: SkillDefinition, path: string, text: string): Promise<DocumentProblem[]> {
  const sources: { field: string; source: string }[] = [];
  if (rendersAsTemplate(definition)) sources.push({ field: "body", source: definition.body });
  if (definition.action !== undefined) sources.push({ field: "action", source: definition.action });
  const known = new Set(RENDER_CONTEXT_KEYS);
  const free = await Promise.all(sources.map(async ({ field, source }) => ({ field, names: await freeTemplateVariables(source) })));
  return free.flatMap(({ field, names }) =>
    names
      .filter((name) => !known.has(name))
      .map((name) => {
        const at = text.search(new RegExp(`\\{[{%][^}]*\\b${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`));
        return {
          path,
          ...(at >= 0 ? { line: lineAt(text, at) } : {}),
          message: `${field}: the template reads '${name}', which the render context never has (it renders empty); the context has ${RENDER_CONTEXT_KEYS.join(", ")}. If the text is meant for the model, set template: false`,
          severity: "warning" as const,
        };
      }),
  );
}
