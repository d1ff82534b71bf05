import type { Process } from "../processes/process.js";
import { capMessages } from "../support/capped-list.js";
import type { EngineConfig } from "../recipes/engines.js";
import type { Recipe } from "../recipes/recipe-schema.js";
import type { ResolvedSkill } from "../skills/resolved-skill.js";
import { composeSection, DEFAULT_RENDER_BUDGET } from "../skills/skill-prompt-composer.js";
import type { ComposeEntry } from "../skills/skill-prompt-composer.js";
import { composeManualPaths, composeTools } from "../skills/tool-union.js";
import { TemplateError } from "../templates/template-errors.js";
import { hasTemplateSyntax } from "../templates/template-renderer.js";
import type { RenderContext, RenderOptions, TemplateRenderer } from "../templates/template-renderer.js";
import type { BuiltCatalog } from "../skills/skill-catalog.js";
import { approxTokens } from "../skills/skill-catalog.js";
import {
  SKILL_ACTIVATE_TOOL,
  SKILL_READ_FILE_TOOL,
  SKILL_REFERENCE_DOC_TOOL,
  SKILL_SEARCH_TOOL,
  skillActivateSpec,
} from "./service-tool-specs.js";
import type { ToolSpecProvider } from "./service-tool-specs.js";
import type { ActivationEntry } from "./activation-ledger.js";
import type { ToolSpec } from "../skills/tool-spec.js";
import type { SystemMessage, Turn, TurnMessage } from "./turn.js";

export interface TurnComposition {
  turnId: string;
  /** Whose turn: its renders queue in the sandbox pool as this tenant's (tenants take turns). */
  tenant?: string | undefined;
  /** The process as the turn sees it: trigger activations already added. */
  process: Pick<Process, "activeSkills">;
  /** Current definitions by name; a name mapped to undefined no longer resolves. */
  definitions: ReadonlyMap<string, ResolvedSkill | undefined>;
  recipe: Recipe | undefined;
  engine: EngineConfig | undefined;
  context: RenderContext;
  messages: TurnMessage[];
  /** Findings made before composing (trigger hook, missing recipe…). */
  warnings: readonly string[];
  /** The activation ledger of this turn (activation-ledger.ts), passed through as it is. */
  activation?: ActivationEntry[];
  /** The catalog of this turn (skill-catalog.ts); absent = none. */
  catalog?: BuiltCatalog | undefined;
}

const NO_CATALOG: BuiltCatalog = Object.freeze({
  catalog: Object.freeze({ entries: [], omitted: [], omittedCount: 0, budgetChars: 0, usedChars: 0, approxTokens: 0 }),
  text: "",
}) as BuiltCatalog;

/** One frozen spec per built catalog: the enum of 10 000 names is not rebuilt (or copied) every turn. */
const activateSpecs = new WeakMap<BuiltCatalog, ToolSpec>();

function activateSpecOf(built: BuiltCatalog): ToolSpec {
  let spec = activateSpecs.get(built);
  if (spec === undefined) {
    spec = freezeDeep(
      skillActivateSpec(
        built.catalog.entries.map((e) => e.name),
        built.catalog.omittedCount > 0,
      ),
    );
    activateSpecs.set(built, spec);
  }
  return spec;
}

export interface TurnComposerDeps {
  renderer: TemplateRenderer;
  toolSpecs: ToolSpecProvider;
}

/**
 * SkillTurnSupport's composition step (spec §5a–§5c): system prompt, skill section, tool union,
 * manual paths. Reads nothing and writes nothing; a skill that no longer resolves, has become a
 * shot, fails to render or no longer binds its stored args is left out — body, tools and
 * manual paths alike — with a warning, and the others compose normally.
 */
export async function composeTurn(input: TurnComposition, deps: TurnComposerDeps): Promise<Turn> {
  const warnings = [...input.warnings];
  const entries: ComposeEntry[] = [];
  for (const ref of input.process.activeSkills) {
    const skill = input.definitions.get(ref.name);
    if (!skill) {
      warnings.push(`Skill '${ref.name}' no longer resolves; left out of this turn`);
      continue;
    }
    if (skill.lifecycle === "shot") {
      warnings.push(`Skill '${ref.name}' is a shot skill now and contributes nothing to a turn`);
      continue;
    }
    entries.push({ skill, args: ref.args ?? undefined });
  }

  const rendering: RenderOptions = { tenant: input.tenant };
  const section = await composeSection(entries, input.context, deps.renderer, DEFAULT_RENDER_BUDGET, rendering);
  warnings.push(...section.warnings.map((w) => `Skill '${w.skill}' left out: ${w.message}`));
  const included = entries.filter((e) => section.included.includes(e.skill.name)).map((e) => e.skill);

  const tools = composeTools({
    engineTools: input.engine?.allowedTools ?? [],
    recipeAdd: input.recipe?.allowedToolsAdd,
    recipeRemove: input.recipe?.allowedToolsRemove,
    skills: included,
  });
  // The ON_DEMAND listing points at documents only this tool serves; only ever added, like skill tools.
  if (section.onDemand.length > 0 && !tools.includes(SKILL_REFERENCE_DOC_TOOL)) tools.push(SKILL_REFERENCE_DOC_TOOL);
  // The files listing of a skill block points at files only this tool serves (API.md "Skill files").
  if (included.some((skill) => (skill.files?.length ?? 0) > 0) && !tools.includes(SKILL_READ_FILE_TOOL)) tools.push(SKILL_READ_FILE_TOOL);
  // Script tools (spec §13.2) exist exactly while their skill is part of the turn.
  for (const name of deps.toolSpecs.toolsFor?.(included) ?? []) if (!tools.includes(name)) tools.push(name);
  // The catalog names skills only this tool activates (API.md): present exactly while it has entries.
  const built = input.catalog ?? NO_CATALOG;
  const hasCatalog = built.catalog.entries.length > 0;
  if (hasCatalog && !tools.includes(SKILL_ACTIVATE_TOOL)) tools.push(SKILL_ACTIVATE_TOOL);
  // API.md "Catalog at scale": what the catalog left out is reached by search, exactly while something is.
  const omitted = built.catalog.omittedCount;
  if (omitted > 0 && !tools.includes(SKILL_SEARCH_TOOL)) tools.push(SKILL_SEARCH_TOOL);
  if (omitted > 0) warnings.push(omittedWarning(omitted));

  const base = await basePrompt(input, deps.renderer, rendering, warnings);
  const systemPrompt: SystemMessage[] = [];
  if (base !== "") systemPrompt.push({ role: "system", content: base });
  if (section.section !== "") systemPrompt.push({ role: "system", content: section.section });
  // Its own block after the skill section: the same skills give the same bytes (prompt caches keep it).
  if (built.text !== "") systemPrompt.push({ role: "system", content: built.text });
  const toolSpecs = deps.toolSpecs.specsFor({ tools, skills: included }).filter((spec) => spec.name !== SKILL_ACTIVATE_TOOL);
  if (hasCatalog) toolSpecs.push(activateSpecOf(built));

  return {
    turnId: input.turnId,
    systemPrompt,
    skillSection: section.section,
    tools,
    toolSpecs,
    manualPaths: composeManualPaths({ recipePaths: input.recipe?.params.manualPaths, skills: included }),
    messages: input.messages,
    activeSkills: input.process.activeSkills.map((s) => ({ ...s })),
    activation: input.activation ?? [],
    warnings: capMessages(warnings),
    catalog: built.catalog,
    skillTokens: section.included.map((name, i) => ({ name, approxTokens: approxTokens(section.blockChars[i] ?? 0) })),
  };
}

/** One warning per turn, however many were omitted (API.md "Catalog at scale"). */
export const omittedWarning = (count: number): string =>
  `The skill catalog omitted ${count} candidate${count === 1 ? "" : "s"} over its budget; skill_search reaches ${count === 1 ? "it" : "them"} and skill_activate accepts ${count === 1 ? "it" : "them"}`;

/**
 * [1] engine default prompt and [2] recipe promptPrefix (spec §5a): APPEND joins them with a blank
 * line, OVERWRITE keeps the prefix only. A templated prefix renders with the turn context; one
 * that fails to render is left out with a warning, like a skill body.
 */
async function basePrompt(
  input: TurnComposition,
  renderer: TemplateRenderer,
  rendering: RenderOptions,
  warnings: string[],
): Promise<string> {
  const engine = input.engine?.systemPrompt.trim() ?? "";
  let prefix = input.recipe?.promptPrefix ?? "";
  if (hasTemplateSyntax(prefix)) {
    try {
      prefix = await renderer.render(prefix, input.context, rendering);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      warnings.push(`Recipe '${input.recipe?.name ?? "?"}' promptPrefix left out: ${error.message}`);
      prefix = "";
    }
  }
  prefix = prefix.trim();
  if (input.recipe?.promptMode === "OVERWRITE") return prefix;
  return [engine, prefix].filter((part) => part !== "").join("\n\n");
}

function freezeDeep<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) freezeDeep(inner);
  return Object.freeze(value);
}
