// Preparing a turn: everything a turn needs, computed from one process snapshot without writing —
// the trigger hook's activations tried on a copy, the active skills' definitions, the catalog, the
// activation ledger and the composed Turn. Split from skill-turn-support.ts (issue 29) so the
// writes (compose/complete) and what completion triggers each read as one concept; preview,
// compose and its replay all go through this one `prepare`, so they cannot compose differently.
import type { TriggerTimeBudget } from "../skills/triggers/trigger-time-budget.js";
import type { SkillRefusal } from "../steering/skill-activations.js";
import { SkillsError } from "../errors.js";
import type { TurnContext } from "../lanes/lane-payloads.js";
import type { LaneUser } from "../lanes/lane-message.js";
import type { ActiveSkillRef, PendingMessage, Process } from "../processes/process.js";
import type { EngineConfig } from "../recipes/engines.js";
import { isComplete, type ListedSkill, type ResolvedSkill } from "../skills/resolved-skill.js";
import type { SkillTriggerMatcher } from "../skills/triggers/skill-trigger-matcher.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import type { PinOutcome } from "../skills/pinned-skill-versions.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import { addTriggered } from "../steering/active-skill-rules.js";
import { turnRenderContext } from "../steering/render-context.js";
import type { SkillCommandRunner } from "../steering/skill-command-runner.js";
import { SYSTEM_SENDER } from "../steering/skill-steer-processor.js";
import type { RecipeSource, SkillSource } from "../steering/skill-steer-processor.js";
import { scopeOf } from "../steering/steer-context.js";
import type { ToolSpecProvider } from "./service-tool-specs.js";
import { triggeredSkills } from "./trigger-hook.js";
import type { TriggerExplain } from "./trigger-hook.js";
import { activationLedger, NO_ACTIVATION_FACTS, withExplained } from "./activation-ledger.js";
import { catalogLeftOut } from "./catalog-explained.js";
import type { ActivationEntry, ActivationFacts, BlockedTrigger } from "./activation-ledger.js";
import { composeTurn } from "./turn-composer.js";
import type { Turn, TurnMessage } from "./turn.js";
import { skillsByName } from "../skills/skill-listing.js";
import { catalogFor, DEFAULT_CATALOG_BUDGET_CHARS } from "../skills/skill-catalog.js";

export interface TurnSkillSource extends SkillSource {
  /** Entries may lack their body (a listing from a level snapshot): `complete` reads it, else `resolve` does. */
  listAvailable(ctx: SkillScopeContext): Promise<ListedSkill[]>;
  /** A listing entry with its body, kept per entry (SkillResolver.complete); optional for hand-built sources. */
  complete?(ctx: SkillScopeContext, listed: ListedSkill): Promise<ResolvedSkill | undefined>;
  /** Why a pinned skill cannot be served (SkillResolver.checkPin); optional for hand-built sources. */
  checkPin?(ctx: SkillScopeContext, name: string, versionId: string): Promise<PinOutcome>;
}

export interface TurnPreparationDeps {
  skills: TurnSkillSource;
  recipes: RecipeSource;
  renderer: TemplateRenderer;
  commands: SkillCommandRunner;
  matcher: SkillTriggerMatcher;
  /** A fresh time budget per message for regex triggers (default: DEFAULT_TRIGGER_TIME_BUDGET_MS of real time). */
  triggerBudget?: () => TriggerTimeBudget;
  toolSpecs: ToolSpecProvider;
  engines: (name: string) => EngineConfig | undefined;
  clock: () => Date;
}

/** Everything a turn needs, computed from one snapshot without writing. */
export interface PreparedTurn {
  turn: Turn;
  /** Trigger activations that passed their `activate:` commands on the snapshot. */
  triggered: ListedSkill[];
  consumed: PendingMessage[];
  /** What the activation ledger says, to be rebuilt on the active set the write ends with. */
  facts: ActivationFacts;
  /** Trigger activations whose `activate:` failed: counted as refused once the turn is stored. */
  refused: SkillRefusal[];
}

export class TurnPreparation {
  constructor(private readonly deps: TurnPreparationDeps) {}

  async prepare(
    snapshot: Process,
    turnId: string,
    userMessage: TurnMessage | undefined,
    context: TurnContext | undefined,
    explain: TriggerExplain = "matched",
  ): Promise<PreparedTurn> {
    const scope = scopeOf(snapshot);
    const warnings: string[] = [];
    const at = this.deps.clock().toISOString();
    // The trigger hook (with a user message) and the catalog (unless the engine turns it off) list
    // every visible skill; that listing then also resolves the active ones, so a turn costs one
    // listing instead of a read per skill. A recipe that turns the catalog off is only known after
    // the listing started: it costs that listing (warm: nothing), never a wrong catalog.
    const engine = this.deps.engines(snapshot.engine);
    const engineBudget = engine?.catalogBudgetChars ?? DEFAULT_CATALOG_BUDGET_CHARS;
    const [recipe, available] = await Promise.all([
      this.deps.recipes.load(scope, snapshot.recipe),
      userMessage || engineBudget > 0 ? this.deps.skills.listAvailable(scope) : Promise.resolve(undefined),
    ]);
    if (!recipe) warnings.push(`Recipe '${snapshot.recipe}' no longer resolves; composing without its prefix and tool changes`);
    if (!engine) warnings.push(`Engine '${snapshot.engine}' is unknown; composing without its default prompt and tools`);
    const matched =
      available && userMessage
        ? triggeredSkills(available, snapshot, userMessage.text, this.deps.matcher, this.deps.triggerBudget?.(), explain)
        : undefined;
    const triggerable = matched?.fired ?? [];
    if (matched && matched.skipped.length > 0)
      warnings.push(
        skippedTriggersWarning(
          matched.skipped.map((s) => s.name),
          matched.budgetMs,
        ),
      );
    if (matched && matched.overCap.length > 0) warnings.push(overCapWarning(matched.overCap));

    // Trigger activations run their `activate:` on a trial copy; one that fails is skipped (§4a: the turn continues).
    let trial = snapshot;
    const triggered: ListedSkill[] = [];
    const failed: BlockedTrigger[] = [];
    const refused: SkillRefusal[] = [];
    for (const skill of triggerable) {
      try {
        trial = this.activateTriggered(trial, skill, at, true);
        triggered.push(skill);
      } catch (error) {
        if (!(error instanceof SkillsError)) throw error;
        warnings.push(`Triggered skill '${skill.name}' not activated: ${error.message}`);
        failed.push({ name: skill.name, reason: "activate-failed", trigger: matched?.facts.matches.get(skill.name) });
        refused.push({ name: skill.name, path: "trigger", code: error.code, source: skill.source });
      }
    }

    const availableByName = available && skillsByName(available);
    const definitions = availableByName
      ? await this.completeAll(scope, trial.activeSkills, availableByName)
      : await this.resolveAll(trial, trial.activeSkills);

    warnings.push(...(await this.unservedPinWarnings(scope, trial, definitions)));

    const consumed = [...snapshot.pending];
    const messages: TurnMessage[] = [...consumed.map((m) => ({ ...m, role: "user" as const })), ...(userMessage ? [userMessage] : [])];
    const budgetChars = recipe?.catalogBudgetChars ?? engineBudget;
    // Issue 26: the catalog is ranked for what the model is about to answer — this turn's messages.
    const query = messages.map((m) => m.text).join("\n");
    const catalog =
      available && budgetChars > 0
        ? catalogFor(available, {
            budgetChars,
            pinned: recipe?.catalogPinned,
            activeNames: trial.activeSkills.map((s) => s.name),
            allowedSkills: trial.allowedSkillsOverride,
            ...(query.trim() !== "" ? { query } : {}),
          })
        : undefined;

    const matchedFacts = matched?.facts ?? NO_ACTIVATION_FACTS;
    const blockedFacts: ActivationFacts = { ...matchedFacts, blocked: [...failed, ...matchedFacts.blocked] };
    const facts =
      explain === "all" && available
        ? withExplained(
            blockedFacts,
            catalogLeftOut(
              available,
              catalog,
              new Set(trial.activeSkills.map((s) => s.name)),
              trial.allowedSkillsOverride,
              new Set([...blockedFacts.notMatched.map((n) => n.name), ...blockedFacts.blocked.map((b) => b.name)]),
            ),
          )
        : blockedFacts;
    const activation = withPinnedVersions(
      activationLedger(trial.activeSkills, new Set(triggered.map((s) => s.name)), facts, warnings),
      definitions,
    );

    const turn = await composeTurn(
      {
        turnId,
        tenant: snapshot.tenant,
        process: trial,
        definitions,
        recipe,
        engine,
        context: turnRenderContext(trial, recipe, context),
        messages,
        warnings,
        activation,
        catalog,
      },
      { renderer: this.deps.renderer, toolSpecs: this.deps.toolSpecs },
    );
    return { turn, triggered, consumed, facts, refused };
  }

  /**
   * A trigger activation: `activate:` then a oneShot entry, never on top of an existing entry
   * (§4c). In the write a failing one is skipped (strict=false): it passed on the snapshot, so
   * only a state that changed since could make it fail.
   */
  activateTriggered(process: Process, skill: ListedSkill, at: string, strict = false): Process {
    if (process.activeSkills.some((s) => s.name === skill.name)) return process;
    let next: Process;
    try {
      next = this.deps.commands.activate(process, skill);
    } catch (error) {
      if (strict) throw error;
      return process;
    }
    return { ...next, activeSkills: addTriggered(next.activeSkills, skill.name, skill.source, at) };
  }

  async resolveAll(process: Process, entries: readonly ActiveSkillRef[]): Promise<Map<string, ResolvedSkill | undefined>> {
    const scope = scopeOf(process);
    const resolved = await Promise.all(entries.map(async (e) => [e.name, await this.deps.skills.resolve(scope, e.name)] as const));
    return new Map(resolved);
  }

  /** An active pinned skill that did not resolve is left out; say why, so the author sees it was the pin. */
  private async unservedPinWarnings(
    scope: SkillScopeContext,
    process: Process,
    definitions: ReadonlyMap<string, ResolvedSkill | undefined>,
  ): Promise<string[]> {
    const pins = process.skillVersions;
    const checkPin = this.deps.skills.checkPin?.bind(this.deps.skills);
    if (pins === undefined || !checkPin) return [];
    const unserved = process.activeSkills.filter((s) => Object.hasOwn(pins, s.name) && definitions.get(s.name) === undefined);
    const outcomes = await Promise.all(unserved.map((s) => checkPin(scope, s.name, pins[s.name]!)));
    return outcomes.flatMap((outcome, i) =>
      "refusal" in outcome
        ? [`Skill '${unserved[i]!.name}' is pinned by skillVersions to a version that cannot be served: ${outcome.refusal}`]
        : [],
    );
  }

  /**
   * The active skills from the listing, each with its body: a snapshot-served entry has none, so
   * it is completed (its SKILL.md read once per ETag and kept; a warm turn reads nothing).
   */
  private async completeAll(
    scope: SkillScopeContext,
    entries: readonly ActiveSkillRef[],
    listing: ReadonlyMap<string, ListedSkill>,
  ): Promise<Map<string, ResolvedSkill | undefined>> {
    const complete = async (name: string): Promise<ResolvedSkill | undefined> => {
      const listed = listing.get(name);
      if (listed === undefined) return undefined;
      if (isComplete(listed)) return listed;
      return this.deps.skills.complete ? this.deps.skills.complete(scope, listed) : this.deps.skills.resolve(scope, name);
    };
    return new Map(await Promise.all(entries.map(async (e) => [e.name, await complete(e.name)] as const)));
  }
}

export function toUserMessage(text: string | undefined, id: string, user: LaneUser | null, at: string): TurnMessage | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  return { id, role: "user", sender: user?.login ?? SYSTEM_SENDER, text, kind: "user", at };
}

const MAX_NAMED_SKIPPED = 10;

/** The turn goes on without the triggers the time budget cut; the author sees which. */
function skippedTriggersWarning(names: readonly string[], budgetMs: number): string {
  const shown = names
    .slice(0, MAX_NAMED_SKIPPED)
    .map((n) => `'${n}'`)
    .join(", ");
  const more = names.length > MAX_NAMED_SKIPPED ? ` and ${names.length - MAX_NAMED_SKIPPED} more` : "";
  return `Trigger matching ran out of its ${budgetMs} ms budget for this message; the pattern triggers of ${shown}${more} were not evaluated`;
}

function overCapWarning(names: readonly string[]): string {
  const shown = names
    .slice(0, MAX_NAMED_SKIPPED)
    .map((n) => `'${n}'`)
    .join(", ");
  const more = names.length > MAX_NAMED_SKIPPED ? ` and ${names.length - MAX_NAMED_SKIPPED} more` : "";
  return `Pattern triggers over the per-skill or per-level cap are ignored: ${shown}${more} (keyword triggers still apply)`;
}

/** The ledger says which active skills composed a pinned version, so a stale-looking turn explains itself. */
function withPinnedVersions(entries: ActivationEntry[], definitions: ReadonlyMap<string, ResolvedSkill | undefined>): ActivationEntry[] {
  return entries.map((entry) => {
    const versionId =
      entry.outcome === "blocked" || entry.outcome === "not-matched" ? undefined : definitions.get(entry.name)?.location.versionId;
    return versionId === undefined ? entry : { ...entry, pinnedVersion: versionId };
  });
}
