import { InMemoryDocumentStore } from "../shared/documents/in-memory-document-store.js";
import { SkillNotFound } from "../shared/errors.js";
import { bindArguments } from "../shared/skills/skill-argument-binder.js";
import { SkillLoader } from "../shared/skills/skill-loader.js";
import { composeSection } from "../shared/skills/skill-prompt-composer.js";
import type { RenderContext } from "../shared/templates/template-renderer.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import { directoryLayer } from "./directory-layer.js";

interface RenderOptions {
  root: string;
  name: string;
  args?: string | undefined;
  /** `key=value` pairs: context fields (tier, model, mode, …) or `params.<key>`. */
  set: readonly string[];
}

const CONTEXT_KEYS = new Set(["tier", "model", "provider", "mode", "profile", "recipe", "engine", "lang"]);

export function contextFromSettings(settings: readonly string[]): RenderContext {
  const context: RenderContext = {};
  const params: Record<string, unknown> = {};
  for (const setting of settings) {
    const eq = setting.indexOf("=");
    if (eq <= 0) throw new Error(`--set expects key=value, got '${setting}'`);
    const key = setting.slice(0, eq);
    const value = setting.slice(eq + 1);
    if (key.startsWith("params.")) params[key.slice("params.".length)] = value;
    else if (CONTEXT_KEYS.has(key)) (context as Record<string, unknown>)[key] = value;
    else throw new Error(`--set: unknown context key '${key}' (use one of ${[...CONTEXT_KEYS].join(", ")} or params.<name>)`);
  }
  if (Object.keys(params).length > 0) context.params = params;
  return context;
}

/** The composed skill section for one skill, exactly as a turn would carry it. */
export async function renderSkill(options: RenderOptions): Promise<{ section: string; warnings: string[] }> {
  // The folder is the only layer: it stands in the RESOURCE position, with nothing shadowing it.
  const loader = new SkillLoader({ store: new InMemoryDocumentStore(), bundled: directoryLayer(options.root) });
  const scope = { tenantId: "local" };
  const skill = await loader.load(scope, options.name);
  if (!skill) {
    const problems = (await loader.problems(scope)).filter((p) => p.name === options.name);
    if (problems.length > 0) throw new Error(problems.map((p) => `${p.path}:${p.line ?? 1}: ${p.message}`).join("\n"));
    throw new SkillNotFound(options.name);
  }
  // As activation does: a missing `required` argument refuses the skill (SkillArgumentMissing)
  // instead of a section composed without it.
  bindArguments(skill.name, skill.arguments, options.args);
  const renderer = createTemplateRenderer();
  const composed = await composeSection([{ skill, args: options.args }], contextFromSettings(options.set), renderer);
  return {
    section: composed.section,
    warnings: [...skill.warnings.map((w) => w.message), ...composed.warnings.map((w) => `${w.skill}: ${w.message}`)],
  };
}
