import { InMemoryDocumentStore } from "../shared/documents/in-memory-document-store.js";
import { SkillNotFound } from "../shared/errors.js";
import { bindArguments } from "../shared/skills/skill-argument-binder.js";
import { SkillLoader } from "../shared/skills/skill-loader.js";
import { composeSection } from "../shared/skills/skill-prompt-composer.js";
import type { RenderContext } from "../shared/templates/template-renderer.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import { existsSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { directoryLayer, diskPathOf, skillFolderLayer } from "./directory-layer.js";

/** A skills root and a name in it, or one skill folder on its own (its level is the folder itself). */
export type RenderTarget = { root: string; name: string } | { folder: string; name: string };

type RenderOptions = RenderTarget & {
  args?: string | undefined;
  /** `key=value` pairs: context fields (tier, model, mode, …) or `params.<key>`. */
  set: readonly string[];
};

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

/**
 * `render <skill-folder>` (a directory holding SKILL.md: that folder alone, named by its
 * directory, never its parent) or `render <skills-root> <name>`.
 */
export function renderTarget(positionals: readonly string[]): RenderTarget | undefined {
  const [first, name] = positionals;
  if (first === undefined || positionals.length > 2) return undefined;
  if (name !== undefined) return { root: first, name };
  if (!existsSync(join(first, "SKILL.md"))) return undefined;
  const folder = resolve(first);
  return { folder, name: basename(folder) };
}

/** The composed skill section for one skill, exactly as a turn would carry it. */
export async function renderSkill(options: RenderOptions): Promise<{ section: string; warnings: string[] }> {
  // Messages name `_vance/skills/<name>/…` keys; an author wants the file on disk.
  const keyPrefix = `_vance/skills/${options.name}/`;
  const diskFolder = "folder" in options ? options.folder : diskPathOf(options.root, keyPrefix);
  const onDisk = (text: string): string => text.replaceAll(keyPrefix, `${relative(process.cwd(), diskFolder) || "."}/`);
  // The folder is the only layer: it stands in the RESOURCE position, with nothing shadowing it.
  const layer = "folder" in options ? skillFolderLayer(options.folder, options.name) : directoryLayer(options.root);
  const loader = new SkillLoader({ store: new InMemoryDocumentStore(), bundled: layer });
  const scope = { tenantId: "local" };
  const skill = await loader.load(scope, options.name);
  if (!skill) {
    const problems = (await loader.problems(scope)).filter((p) => p.name === options.name);
    if (problems.length > 0) throw new Error(problems.map((p) => onDisk(`${p.path}:${p.line ?? 1}: ${p.message}`)).join("\n"));
    throw new SkillNotFound(options.name);
  }
  // As activation does: a missing `required` argument refuses the skill (SkillArgumentMissing)
  // instead of a section composed without it.
  bindArguments(skill.name, skill.arguments, options.args);
  const renderer = createTemplateRenderer();
  const composed = await composeSection([{ skill, args: options.args }], contextFromSettings(options.set), renderer);
  return {
    section: composed.section,
    warnings: [
      ...skill.warnings.map((w) => onDisk(w.path ? `${w.path}:${w.line ?? 1}: ${w.message}` : w.message)),
      ...composed.warnings.map((w) => onDisk(`${w.skill}: ${w.message}`)),
    ],
  };
}
