import { assertNotEnded } from "../processes/process-lifecycle.js";
import type { TriggerTimeBudget } from "../skills/triggers/trigger-time-budget.js";
import type { SkillActivation, SkillRefusal } from "../steering/skill-activations.js";
import { InvalidRequest, SkillsError } from "../errors.js";
import type { TurnComposePayload, TurnCompletePayload, TurnContext } from "../lanes/lane-payloads.js";
import type { LaneUser } from "../lanes/lane-message.js";
import { applyOnce } from "../processes/apply-once.js";
import { ProcessNotFound } from "../processes/process-errors.js";
import type { ActiveSkillRef, PendingMessage, Process, ProcessStatus } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import { engineConfig } from "../recipes/engines.js";
import type { EngineConfig } from "../recipes/engines.js";
import { isComplete, type ListedSkill, type ResolvedSkill } from "../skills/resolved-skill.js";
import type { SkillTriggerMatcher } from "../skills/triggers/skill-trigger-matcher.js";
import type { SkillScopeContext } from "../skills/skill-scope.js";
import type { PinOutcome } from "../skills/pinned-skill-versions.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import { addTriggered } from "../steering/active-skill-rules.js";
import type { LaneRequests } from "../steering/lane-requests.js";
import { turnRenderContext } from "../steering/render-context.js";
import type { SkillCommandRunner } from "../steering/skill-command-runner.js";
import { deactivateAll, SYSTEM_SENDER } from "../steering/skill-steer-processor.js";
import type { RecipeSource, SkillSource } from "../steering/skill-steer-processor.js";
import { derivedRequestId, pendingId, scopeOf, withWarnings } from "../steering/steer-context.js";
import type { SteerOutcome, SteerRequest } from "../steering/steer-context.js";
import { appendPending, MAX_OUTPUT_BYTES, MAX_PENDING_TEXT_BYTES, truncateUtf8 } from "../steering/steering-limits.js";
import type { GuardRunner } from "./guard-runner.js";
import type { ToolSpecProvider } from "./service-tool-specs.js";
import { triggeredSkills } from "./trigger-hook.js";
import type { TriggerExplain } from "./trigger-hook.js";
import { activationLedger, NO_ACTIVATION_FACTS, withExplained } from "./activation-ledger.js";
import { catalogLeftOut } from "./catalog-explained.js";
import type { ActivationEntry, ActivationFacts, BlockedTrigger } from "./activation-ledger.js";
import { assertTurnFits } from "./turn-errors.js";
import { composeTurn } from "./turn-composer.js";
import { StoreTurnStates } from "./turn-state.js";
import type { TurnState, TurnStates } from "./turn-state.js";
import type { Turn, TurnMessage } from "./turn.js";
import { skillsByName } from "../skills/skill-listing.js";
import { catalogFor, DEFAULT_CATALOG_BUDGET_CHARS } from "../skills/skill-catalog.js";
import { composeSection } from "../skills/skill-prompt-composer.js";

export interface TurnSkillSource extends SkillSource {
  /** Entries may lack their body (a listing from a level snapshot): `complete` reads it, else `resolve` does. */
  listAvailable(ctx: SkillScopeContext): Promise<ListedSkill[]>;
  /** A listing entry with its body, kept per entry (SkillResolver.complete); optional for hand-built sources. */
  complete?(ctx: SkillScopeContext, listed: ListedSkill): Promise<ResolvedSkill | undefined>;
  /** Why a pinned skill cannot be served (SkillResolver.checkPin); optional for hand-built sources. */
  checkPin?(ctx: SkillScopeContext, name: string, versionId: string): Promise<PinOutcome>;
}

export interface SkillTurnSupportDeps {
  store: ProcessStore;
  /**
   * Where a lane turn reads its process (default: `store.get`). WarmTurnStates reads the
   * catalogue versions in the same round trip and hands them to the turn's lookups.
   */
  states?: TurnStates;
  skills: TurnSkillSource;
  recipes: RecipeSource;
  renderer: TemplateRenderer;
  commands: SkillCommandRunner;
  matcher: SkillTriggerMatcher;
  /** A fresh time budget per message for regex triggers (default: DEFAULT_TRIGGER_TIME_BUDGET_MS of real time). */
  triggerBudget?: () => TriggerTimeBudget;
  toolSpecs: ToolSpecProvider;
  guard: GuardRunner;
  /** Sends a finished worker's report to its parent's lane. */
  requests: LaneRequests;
  engines?: (name: string) => EngineConfig | undefined;
  clock?: () => Date;
}

export const GUARD_SENDER = "_guard";
export const PREVIEW_TURN_ID = "preview";

/** Result of `turn.complete`. */
export interface TurnCompleteResult {
  activeSkills: ActiveSkillRef[];
  /** oneShot skills auto-cleared by this completion (all skills when the process ended). */
  cleared: string[];
  status: ProcessStatus;
  turnScheduled: boolean;
  warnings?: string[];
}

/** Everything a turn needs, computed from one snapshot without writing. */
interface PreparedTurn {
  turn: Turn;
  /** Trigger activations that passed their `activate:` commands on the snapshot. */
  triggered: ListedSkill[];
  consumed: PendingMessage[];
  /** What the activation ledger says, to be rebuilt on the active set the write ends with. */
  facts: ActivationFacts;
  /** Trigger activations whose `activate:` failed: counted as refused once the turn is stored. */
  refused: SkillRefusal[];
}

/** Composition preview options (API.md `&explain=all`). */
export interface PreviewOptions {
  /** `all`: the ledger also lists every skill with triggers that did not match. */
  explain?: "all" | undefined;
}

/**
 * SkillTurnSupport (spec §4a, §5): the one place that turns a process into an LLM turn and
 * settles it afterwards, so engines cannot diverge.
 *
 * compose (lane): pre-turn trigger hook (oneShot activations with their `activate:`), then the
 * composition, consuming every pending message — each one is delivered in exactly one turn —
 * and recording the turn in flight with the oneShot skills it carries.
 * complete (lane): auto-clears those oneShot skills (firing `deactivate:`), stores the output,
 * asks the guard hook, and on `final` ends the process (every skill is cleared — `deactivate:`
 * fires "on close", §2c) and reports to the parent.
 * preview: the turn compose would produce now, trigger activations included, writing nothing.
 *
 * Round trips of a lane turn: one read (the process, with the catalogue versions when the states
 * are warm) and one conditional write that starts from that very snapshot; only a write that lost
 * a race re-applies, on the state it found stored (ProcessStore.update with `expected`).
 */
export class SkillTurnSupport {
  private readonly deps: SkillTurnSupportDeps;
  private readonly states: TurnStates;
  private readonly engines: (name: string) => EngineConfig | undefined;
  private readonly clock: () => Date;

  constructor(deps: SkillTurnSupportDeps) {
    this.deps = deps;
    this.states = deps.states ?? new StoreTurnStates(deps.store);
    this.engines = deps.engines ?? engineConfig;
    this.clock = deps.clock ?? (() => new Date());
  }

  async preview(process: Process, message?: string, context?: TurnContext, user?: LaneUser | null, options: PreviewOptions = {}): Promise<Turn> {
    const userMessage = toUserMessage(message, `${PREVIEW_TURN_ID}#user`, user ?? null, this.clock().toISOString());
    return assertTurnFits(process.processId, (await this.prepare(process, PREVIEW_TURN_ID, userMessage, context, options.explain ?? "matched")).turn, true);
  }

  /**
   * The skill section of one skill as a turn of this process composes it now — the block the
   * composer writes for it, with its stored args — so skill_activate can hand the model what it
   * just activated within the same turn. Reads the skill and the recipe; writes nothing.
   */
  async renderSkill(process: Process, name: string): Promise<{ content: string; warnings: string[] }> {
    const scope = scopeOf(process);
    const [skill, recipe] = await Promise.all([this.deps.skills.resolve(scope, name), this.deps.recipes.load(scope, process.recipe)]);
    if (!skill) return { content: "", warnings: [`Skill '${name}' no longer resolves`] };
    const ref = process.activeSkills.find((s) => s.name === name);
    const section = await composeSection([{ skill, args: ref?.args ?? undefined }], turnRenderContext(process, recipe, undefined), this.deps.renderer);
    return { content: section.section, warnings: section.warnings.map((w) => `Skill '${w.skill}' left out: ${w.message}`) };
  }

  /** `state`: the process as the lane just read it for this request (TurnStates.loadForLane); read here without it. */
  async compose(req: SteerRequest, payload: TurnComposePayload, state?: TurnState): Promise<SteerOutcome<Turn>> {
    const { process: snapshot, lookups } = state ?? (await this.load(req));
    return applyOnce(this.deps.store, req, {
      snapshot,
      alreadyApplied: (process) => lookups(() => this.replayCompose(process, payload)),
      prepare: async () => {
        assertActive(snapshot);
        const at = this.clock().toISOString();
        const userMessage = toUserMessage(payload.message, pendingId(req.requestId, "user"), req.user, at);
        const prepared = await lookups(() => this.prepare(snapshot, payload.turnId, userMessage, payload.context));
        assertTurnFits(snapshot.processId, prepared.turn);
        const consumedIds = new Set(prepared.consumed.map((m) => m.id));
        const task = truncateUtf8(userMessage?.text ?? prepared.consumed.map((m) => m.text).join("\n\n"), MAX_PENDING_TEXT_BYTES);
        return {
          fromSnapshot: true,
          mutate: (current) => {
            let next = current;
            const activated: SkillActivation[] = [];
            for (const skill of prepared.triggered) {
              const before = next;
              next = this.activateTriggered(next, skill, at);
              if (next !== before) activated.push({ name: skill.name, path: "trigger", source: skill.source });
            }
            const composed = (process: Process): SteerOutcome<Turn> => ({
              result: {
                ...prepared.turn,
                activeSkills: process.activeSkills.map((s) => ({ ...s })),
                // The write may have started from a newer state than the snapshot: the ledger follows what was written.
                activation: ledgerAfterWrite(process.activeSkills, activated, prepared),
              },
              process,
              ...(activated.length > 0 ? { activated } : {}),
              ...(prepared.refused.length > 0 ? { refused: prepared.refused } : {}),
            });
            next = { ...next, pending: next.pending.filter((m) => !consumedIds.has(m.id)) };
            next = { ...next, turn: { turnId: payload.turnId, oneShotSkills: next.activeSkills.filter((s) => s.oneShot).map((s) => s.name), ...(task !== "" ? { task } : {}) } };
            return { process: next, answer: composed };
          },
        };
      },
    });
  }

  async complete(req: SteerRequest, payload: TurnCompletePayload): Promise<SteerOutcome<TurnCompleteResult>> {
    const { process: snapshot, lookups } = await this.load(req);
    return applyOnce(this.deps.store, req, {
      snapshot,
      alreadyApplied: (process) => this.replayComplete(req, process, payload),
      prepare: async () => {
        assertActive(snapshot);
        assertTurnInFlight(snapshot, payload.turnId);
        const final = payload.final ?? false;
        const output = truncateUtf8(payload.output, MAX_OUTPUT_BYTES);
        const definitions = await lookups(() => this.resolveAll(snapshot, final ? snapshot.activeSkills : oneShotsOf(snapshot)));
        const verdict = snapshot.guard !== null ? await this.deps.guard.evaluate({ process: snapshot, turnId: payload.turnId, task: snapshot.turn?.task, output, final }) : {};
        const continueWith = final ? undefined : verdict.continueWith?.trim() || undefined;
        const guardMessage: PendingMessage | undefined =
          continueWith === undefined
            ? undefined
            : {
                id: pendingId(req.requestId, "guard"),
                sender: GUARD_SENDER,
                text: truncateUtf8(continueWith, MAX_PENDING_TEXT_BYTES),
                kind: "guard",
                at: this.clock().toISOString(),
              };
        return {
          fromSnapshot: true,
          mutate: (current) => {
            assertTurnInFlight(current, payload.turnId);
            const removed = final ? current.activeSkills : oneShotsOf(current);
            const removedNames = new Set(removed.map((s) => s.name));
            const remaining = current.activeSkills.filter((s) => !removedNames.has(s.name));
            const deactivated = deactivateAll(this.deps.commands, { ...current, activeSkills: remaining }, removed, definitions);
            const cleared = removed.map((s) => s.name);
            let next: Process = { ...deactivated.process, lastOutput: output, turn: null, ...(final ? { status: "DONE" as const } : {}) };
            if (guardMessage) next = appendPending(next, [guardMessage]);
            return {
              process: next,
              answer: async (process) => {
                if (final) await this.reportToParent(req, process, output);
                return {
                  result: withWarnings(
                    { activeSkills: process.activeSkills, cleared, status: process.status, turnScheduled: guardMessage !== undefined },
                    deactivated.warnings,
                  ),
                  process,
                  scheduled: guardMessage ? { reason: "guard", pending: process.pending } : undefined,
                };
              },
            };
          },
        };
      },
    });
  }

  private async load(req: SteerRequest): Promise<TurnState> {
    const state = await this.states.load(req.tenant, req.processId);
    if (!state) throw new ProcessNotFound(req.processId);
    return state;
  }

  private async prepare(
    snapshot: Process,
    turnId: string,
    userMessage: TurnMessage | undefined,
    context: TurnContext | undefined,
    explain: TriggerExplain = "matched",
  ): Promise<PreparedTurn> {
    const scope = scopeOf(snapshot);
    const warnings: string[] = [];
    const at = this.clock().toISOString();
    // The trigger hook (with a user message) and the catalog (unless the engine turns it off) list
    // every visible skill; that listing then also resolves the active ones, so a turn costs one
    // listing instead of a read per skill. A recipe that turns the catalog off is only known after
    // the listing started: it costs that listing (warm: nothing), never a wrong catalog.
    const engine = this.engines(snapshot.engine);
    const engineBudget = engine?.catalogBudgetChars ?? DEFAULT_CATALOG_BUDGET_CHARS;
    const [recipe, available] = await Promise.all([
      this.deps.recipes.load(scope, snapshot.recipe),
      userMessage || engineBudget > 0 ? this.deps.skills.listAvailable(scope) : Promise.resolve(undefined),
    ]);
    if (!recipe) warnings.push(`Recipe '${snapshot.recipe}' no longer resolves; composing without its prefix and tool changes`);
    if (!engine) warnings.push(`Engine '${snapshot.engine}' is unknown; composing without its default prompt and tools`);
    const matched = available && userMessage ? triggeredSkills(available, snapshot, userMessage.text, this.deps.matcher, this.deps.triggerBudget?.(), explain) : undefined;
    const triggerable = matched?.fired ?? [];
    if (matched && matched.skipped.length > 0) warnings.push(skippedTriggersWarning(matched.skipped.map((s) => s.name), matched.budgetMs));
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
    const activation = withPinnedVersions(activationLedger(trial.activeSkills, new Set(triggered.map((s) => s.name)), facts, warnings), definitions);

    const turn = await composeTurn(
      {
        turnId,
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
  private activateTriggered(process: Process, skill: ListedSkill, at: string, strict = false): Process {
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

  /** An active pinned skill that did not resolve is left out; say why, so the author sees it was the pin. */
  private async unservedPinWarnings(scope: SkillScopeContext, process: Process, definitions: ReadonlyMap<string, ResolvedSkill | undefined>): Promise<string[]> {
    const pins = process.skillVersions;
    const checkPin = this.deps.skills.checkPin?.bind(this.deps.skills);
    if (pins === undefined || !checkPin) return [];
    const unserved = process.activeSkills.filter((s) => Object.hasOwn(pins, s.name) && definitions.get(s.name) === undefined);
    const outcomes = await Promise.all(unserved.map((s) => checkPin(scope, s.name, pins[s.name]!)));
    return outcomes.flatMap((outcome, i) => ("refusal" in outcome ? [`Skill '${unserved[i]!.name}' is pinned by skillVersions to a version that cannot be served: ${outcome.refusal}`] : []));
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

  private async resolveAll(process: Process, entries: readonly ActiveSkillRef[]): Promise<Map<string, ResolvedSkill | undefined>> {
    const scope = scopeOf(process);
    const resolved = await Promise.all(entries.map(async (e) => [e.name, await this.deps.skills.resolve(scope, e.name)] as const));
    return new Map(resolved);
  }

  /**
   * A compose whose write already happened (redelivery after a crash before the result was
   * recorded): the same system prompt and tools, but the pending messages it consumed are gone
   * from the process and cannot be delivered again — the Turn says so.
   */
  private async replayCompose(process: Process, payload: TurnComposePayload): Promise<SteerOutcome<Turn>> {
    const prepared = await this.prepare({ ...process, pending: [] }, payload.turnId, undefined, payload.context);
    const turn = prepared.turn;
    turn.warnings.push("This turn was composed by an earlier delivery; its consumed messages are not repeated");
    if (payload.message !== undefined && payload.message.trim() !== "") {
      turn.messages.push({ id: "replayed#user", sender: SYSTEM_SENDER, role: "user", text: payload.message, kind: "user", at: this.clock().toISOString() });
    }
    return { result: turn, process };
  }

  private async replayComplete(req: SteerRequest, process: Process, payload: TurnCompletePayload): Promise<SteerOutcome<TurnCompleteResult>> {
    // The report is sent after the write; a crash in between is repaired here (the parent applies it once).
    if (payload.final && process.status === "DONE") await this.reportToParent(req, process, process.lastOutput ?? "");
    return { result: { activeSkills: process.activeSkills, cleared: [], status: process.status, turnScheduled: false }, process };
  }

  private async reportToParent(req: SteerRequest, child: Process, output: string): Promise<void> {
    if (child.parentProcessId === null) return;
    await this.deps.requests.enqueue({
      tenant: child.tenant,
      processId: child.parentProcessId,
      user: null,
      kind: "process.report",
      payload: { childProcessId: child.processId, childName: child.name, output, status: child.status },
      requestId: derivedRequestId(req.requestId, "report"),
    });
  }
}

function toUserMessage(text: string | undefined, id: string, user: LaneUser | null, at: string): TurnMessage | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  return { id, role: "user", sender: user?.login ?? SYSTEM_SENDER, text, kind: "user", at };
}

function assertActive(process: Process): void {
  assertNotEnded(process);
  if (process.status !== "ACTIVE") throw new InvalidRequest(`Process '${process.processId}' is ${process.status}; it runs no more turns`);
}

function assertTurnInFlight(process: Process, turnId: string): void {
  if (process.turn?.turnId !== turnId) {
    throw new InvalidRequest(`Turn '${turnId.slice(0, 80)}' is not the turn in flight on process '${process.processId}'`);
  }
}

/**
 * The ledger on the active set the compose wrote: a trigger activation the write could not apply
 * (the stored state had changed since the snapshot) is reported blocked, not activated.
 */
function ledgerAfterWrite(activeSkills: readonly ActiveSkillRef[], activated: readonly SkillActivation[], prepared: PreparedTurn): ActivationEntry[] {
  const now = new Set(activated.map((a) => a.name));
  const lost: BlockedTrigger[] = prepared.triggered
    .filter((skill) => !now.has(skill.name) && !activeSkills.some((s) => s.name === skill.name))
    .map((skill) => ({ name: skill.name, reason: "activate-failed", trigger: prepared.facts.matches.get(skill.name) }));
  const entries = activationLedger(activeSkills, now, { ...prepared.facts, blocked: [...lost, ...prepared.facts.blocked] }, []);
  const pinned = new Map(prepared.turn.activation.flatMap((e) => (e.pinnedVersion !== undefined ? [[e.name, e.pinnedVersion] as const] : [])));
  if (pinned.size === 0) return entries;
  return entries.map((e) => {
    const pinnedVersion = e.outcome === "active" || e.outcome === "activated" ? pinned.get(e.name) : undefined;
    return pinnedVersion === undefined ? e : { ...e, pinnedVersion };
  });
}

/** The oneShot skills the turn in flight carried and that are still oneShot (an explicit re-activation may have made one sticky). */
function oneShotsOf(process: Process): ActiveSkillRef[] {
  const carried = new Set(process.turn?.oneShotSkills ?? []);
  return process.activeSkills.filter((s) => s.oneShot && carried.has(s.name));
}

const MAX_NAMED_SKIPPED = 10;

/** The turn goes on without the triggers the time budget cut; the author sees which. */
function skippedTriggersWarning(names: readonly string[], budgetMs: number): string {
  const shown = names.slice(0, MAX_NAMED_SKIPPED).map((n) => `'${n}'`).join(", ");
  const more = names.length > MAX_NAMED_SKIPPED ? ` and ${names.length - MAX_NAMED_SKIPPED} more` : "";
  return `Trigger matching ran out of its ${budgetMs} ms budget for this message; the pattern triggers of ${shown}${more} were not evaluated`;
}

function overCapWarning(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMED_SKIPPED).map((n) => `'${n}'`).join(", ");
  const more = names.length > MAX_NAMED_SKIPPED ? ` and ${names.length - MAX_NAMED_SKIPPED} more` : "";
  return `Pattern triggers over the per-skill or per-level cap are ignored: ${shown}${more} (keyword triggers still apply)`;
}

/** The ledger says which active skills composed a pinned version, so a stale-looking turn explains itself. */
function withPinnedVersions(entries: ActivationEntry[], definitions: ReadonlyMap<string, ResolvedSkill | undefined>): ActivationEntry[] {
  return entries.map((entry) => {
    const versionId = entry.outcome === "blocked" || entry.outcome === "not-matched" ? undefined : definitions.get(entry.name)?.location.versionId;
    return versionId === undefined ? entry : { ...entry, pinnedVersion: versionId };
  });
}
