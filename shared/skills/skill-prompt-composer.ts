import { SkillArgumentMissing } from "../errors.js";
import { TemplateError } from "../templates/template-errors.js";
import type { RenderContext, RenderOptions, TemplateRenderer } from "../templates/template-renderer.js";
import { plainBody, rendersAsTemplate } from "./skill-body.js";
import { bindArguments } from "./skill-argument-binder.js";
import { RenderBudgetSpent, SkillArgumentInvalid, SkillArgumentsTooLong, SkillRenderTooLarge } from "./skill-errors.js";
import type { ResolvedSkill } from "./resolved-skill.js";
import type { SkillFile } from "./skill-files.js";

/**
 * SkillPromptComposer (spec §5a, §5c, §9): the system-prompt section of the active skills.
 *
 * Layout (blocks separated by one blank line, no trailing newline):
 *
 *     --- Skill: <name> ---
 *     <description>
 *
 *     <rendered body>                 (omitted when it renders blank)
 *
 *     --- Reference Doc: <title> ---  (each INLINE doc, content verbatim)
 *     <content>
 *
 *     Files of this skill — read a text file with skill_read_file {"skill":"<name>","path":"<path>"}:
 *     - <path> (<size> bytes)         (only when the skill has files; at most 50, then `… N more`)
 *
 *     …next skill…
 *
 *     On-demand references — load via manual_read:
 *     - <title> — <summary>           (or `- <title>`; only when there are ON_DEMAND docs)
 *
 * The caller passes the registered (sticky or --once) skills in activation order; a
 * `lifecycle: shot` skill never registers and is never passed. Whether a skill is enabled or
 * allowed is the caller's decision too.
 */

export interface ComposeEntry {
  skill: ResolvedSkill;
  /** Raw invocation rest stored with the activation (ActiveSkillRef.args). */
  args?: string | undefined;
}

interface OnDemandReference {
  skill: string;
  title: string;
  summary?: string | undefined;
}

interface ComposeWarning {
  skill: string;
  message: string;
}

interface ComposedSection {
  /** Empty string when no skill composed. */
  section: string;
  onDemand: OnDemandReference[];
  /** Skills left out because their template failed or their arguments no longer bind. */
  warnings: ComposeWarning[];
  /** The typed error behind each warning, in the same order (MCP's prompts/get answers it as such). */
  errors: Error[];
  /** Names of the skills in the section, in activation order. */
  included: string[];
  /** Characters of each included skill's block, in the same order (the ON_DEMAND listing is counted apart). */
  blockChars: number[];
}

export const ON_DEMAND_HEADER = "On-demand references — load via manual_read:";

/** Files named in a skill's block; the rest is counted (`… N more`) so a big folder stays a few lines. */
export const MAX_PROMPT_FILES = 50;

/**
 * The render budget of one turn: renders that have not started when `maxMs` have passed since
 * the first began are skipped, each with a warning in the Turn's warnings, so 40 bodies that
 * each run to the 500 ms render deadline cost one turn about `maxMs`, not 20 s, and the
 * sandbox pool is not held by one turn. At most `concurrency` renders of a turn run at once
 * (the pool's warm size), so the budget is checked between them rather than all being queued
 * up front. Cached outputs (successes and failures) cost nothing and are never skipped.
 */
export interface RenderBudget {
  maxMs: number;
  concurrency: number;
  now?: () => number;
}

export const DEFAULT_RENDER_BUDGET: RenderBudget = Object.freeze({ maxMs: 2_000, concurrency: 2 });

/**
 * Renders the bodies (uncached ones within the turn's RenderBudget), each with its own freshly
 * bound `args` (two skills never see each other's arguments; arguments are context data, never
 * template source). A TemplateError, an argument that no longer binds, or a spent budget skips
 * that skill with a warning; any other failure (the renderer itself is broken) rejects, because
 * silently dropping every skill would be worse. Bodies whose output the renderer has cached
 * are taken without a promise each (a warm turn). `options` go to every render (the tenant).
 */
export async function composeSection(
  entries: readonly ComposeEntry[],
  context: RenderContext,
  renderer: TemplateRenderer,
  budget: RenderBudget = DEFAULT_RENDER_BUDGET,
  options?: RenderOptions,
): Promise<ComposedSection> {
  const prepared = entries.map((entry) => renderBody(entry, context, renderer, options));
  const outcomes = prepared.some((outcome) => typeof outcome === "function")
    ? await withinBudget(prepared, budget)
    : (prepared as Outcome[]);
  const blocks: string[] = [];
  const onDemand: OnDemandReference[] = [];
  const warnings: ComposeWarning[] = [];
  const errors: Error[] = [];
  const included: string[] = [];
  const blockChars: number[] = [];
  entries.forEach(({ skill }, index) => {
    const outcome = outcomes[index];
    if (outcome === undefined) return;
    if ("warning" in outcome) {
      warnings.push({ skill: skill.name, message: outcome.warning });
      errors.push(outcome.error);
      return;
    }
    included.push(skill.name);
    const block = skillBlock(skill, outcome.body);
    blocks.push(block);
    blockChars.push(block.length);
    for (const doc of skill.referenceDocs) {
      if (doc.loadMode === "ON_DEMAND") onDemand.push({ skill: skill.name, title: doc.title, summary: doc.summary });
    }
  });
  if (onDemand.length > 0) blocks.push(onDemandBlock(onDemand));
  return { section: blocks.join("\n\n"), onDemand, warnings, errors, included, blockChars };
}

type Outcome = { body: string } | { warning: string; error: Error };
type Prepared = Outcome | (() => Promise<Outcome>);

/** Runs the renders in entry order, `concurrency` at a time; those not started within the budget are skipped. */
async function withinBudget(prepared: readonly Prepared[], budget: RenderBudget): Promise<Outcome[]> {
  const now = budget.now ?? Date.now;
  const outcomes: Outcome[] = new Array<Outcome>(prepared.length);
  const pending: number[] = [];
  prepared.forEach((item, index) => {
    if (typeof item === "function") pending.push(index);
    else outcomes[index] = item;
  });
  let started: number | undefined;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < pending.length) {
      const index = pending[next++] as number;
      started ??= now();
      if (now() - started >= budget.maxMs) {
        const warning = `skipped: the turn's render budget of ${budget.maxMs} ms was spent on other skills`;
        outcomes[index] = { warning, error: new RenderBudgetSpent(warning) };
        continue;
      }
      outcomes[index] = await (prepared[index] as () => Promise<Outcome>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(budget.concurrency, pending.length)) }, lane));
  return outcomes;
}

/** The outcome right away when it needs no rendering (or the output is cached), else the render to run. */
function renderBody(
  { skill, args }: ComposeEntry,
  context: RenderContext,
  renderer: TemplateRenderer,
  options: RenderOptions | undefined,
): Prepared {
  try {
    // Bind even for plain bodies: a required argument that no longer binds skips the skill.
    const bound = bindArguments(skill.name, skill.arguments, args);
    if (!rendersAsTemplate(skill)) return { body: plainBody(skill.name, skill, bound) };
    const bodyContext = withArgs(context, bound);
    const cached = renderer.cached?.(skill.body, bodyContext);
    if (cached !== undefined) return { body: cached };
    return () =>
      renderer.render(skill.body, bodyContext, options).then(
        (body) => ({ body }),
        (error: unknown) => outcomeOf(error),
      );
  } catch (error) {
    if (isSkippable(error)) return { warning: error.message, error };
    // Rejected when run, not thrown now: the other entries are still prepared and awaited.
    return () => Promise.reject(error as Error);
  }
}

/**
 * `{ ...context, args }`, same keys in the same order, built without object spread: on Node 20's
 * V8, spreading into a literal that then gets one more property gives every result a hidden class
 * of its own (1.5 µs and a fresh map each, which the scavenger then promotes), and this runs for
 * every skill on every turn. A `__proto__` key would be a prototype to Object.assign, so such a
 * context keeps the spread.
 */
function withArgs(context: RenderContext, args: RenderContext["args"]): RenderContext {
  if (Object.hasOwn(context, "__proto__")) return { ...context, args };
  const copy: RenderContext = Object.assign({}, context);
  copy.args = args;
  return copy;
}

function outcomeOf(error: unknown): Outcome {
  if (isSkippable(error)) return { warning: error.message, error };
  throw error;
}

function isSkippable(error: unknown): error is Error {
  return (
    error instanceof TemplateError ||
    error instanceof SkillArgumentMissing ||
    error instanceof SkillArgumentInvalid ||
    error instanceof SkillArgumentsTooLong ||
    error instanceof SkillRenderTooLarge
  );
}

interface BlockMemo {
  readonly body: string;
  readonly name: string;
  readonly description: string;
  readonly referenceDocs: ResolvedSkill["referenceDocs"];
  readonly files: ResolvedSkill["files"];
  readonly block: string;
}

/** The last block of each skill object: a warm turn renders the same bodies again and again. */
const lastBlocks = new WeakMap<ResolvedSkill, BlockMemo>();

function skillBlock(skill: ResolvedSkill, body: string): string {
  const memo = lastBlocks.get(skill);
  if (
    memo !== undefined &&
    memo.body === body &&
    memo.name === skill.name &&
    memo.description === skill.description &&
    memo.referenceDocs === skill.referenceDocs &&
    memo.files === skill.files
  ) {
    return memo.block;
  }
  const block = buildSkillBlock(skill, body);
  lastBlocks.set(skill, {
    body,
    name: skill.name,
    description: skill.description,
    referenceDocs: skill.referenceDocs,
    files: skill.files,
    block,
  });
  return block;
}

function buildSkillBlock(skill: ResolvedSkill, body: string): string {
  const parts = [`--- Skill: ${skill.name} ---\n${skill.description}`];
  const text = tidy(body);
  if (text !== "") parts.push(text);
  for (const doc of skill.referenceDocs) {
    // INLINE docs whose file could not be read carry no content; the loader already warned.
    if (doc.loadMode !== "INLINE" || doc.content === undefined) continue;
    const content = tidy(doc.content);
    parts.push(content === "" ? `--- Reference Doc: ${doc.title} ---` : `--- Reference Doc: ${doc.title} ---\n${content}`);
  }
  if (skill.files !== undefined && skill.files.length > 0) parts.push(filesBlock(skill.name, skill.files));
  return parts.join("\n\n");
}

/**
 * What the model needs to act on a body's relative links (`see references/forms.md`): which
 * files exist, how big they are, and the call that reads one. Sorted by the loader, so the same
 * files always give the same bytes.
 */
export function filesBlock(name: string, files: readonly SkillFile[]): string {
  const shown = files.length > MAX_PROMPT_FILES ? files.slice(0, MAX_PROMPT_FILES) : files;
  const lines = shown.map((file) => `- ${file.path} (${file.size} bytes)`);
  if (files.length > shown.length) lines.push(`… ${files.length - shown.length} more`);
  const call = JSON.stringify({ skill: name, path: "<path>" });
  return [`Files of this skill — read a text file with skill_read_file ${call}:`, ...lines].join("\n");
}

function onDemandBlock(references: readonly OnDemandReference[]): string {
  const lines = references.map(({ title, summary }) =>
    summary === undefined || summary.trim() === "" ? `- ${title}` : `- ${title} — ${summary.trim()}`,
  );
  return [ON_DEMAND_HEADER, ...lines].join("\n");
}

/** Drops leading blank lines and trailing whitespace; leading indentation of the first line stays. */
function tidy(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
}
