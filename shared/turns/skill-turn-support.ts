// The turn's writes: compose and complete as conditional writes on one process snapshot (and the
// preview, which writes nothing). What a turn contains is prepared in turn-preparation.ts; what
// completing it triggers (clears, guard, report to the parent) is in turn-completion.ts. Issue 29
// split the three apart; this file keeps the one place where a lane turn reads and writes.
import { assertNotEnded } from "../processes/process-lifecycle.js";
import type { TriggerTimeBudget } from "../skills/triggers/trigger-time-budget.js";
import type { SkillActivation } from "../steering/skill-activations.js";
import { InvalidRequest } from "../errors.js";
import type { TurnComposePayload, TurnCompletePayload, TurnContext } from "../lanes/lane-payloads.js";
import type { LaneUser } from "../lanes/lane-message.js";
import { applyOnce } from "../processes/apply-once.js";
import { ProcessNotFound } from "../processes/process-errors.js";
import type { ActiveSkillRef, Process } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import { engineConfig } from "../recipes/engines.js";
import type { EngineConfig } from "../recipes/engines.js";
import type { SkillTriggerMatcher } from "../skills/triggers/skill-trigger-matcher.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import type { LaneRequests } from "../steering/lane-requests.js";
import { turnRenderContext } from "../steering/render-context.js";
import type { SkillCommandRunner } from "../steering/skill-command-runner.js";
import { SYSTEM_SENDER } from "../steering/skill-steer-processor.js";
import type { RecipeSource } from "../steering/skill-steer-processor.js";
import { pendingId, scopeOf, withWarnings } from "../steering/steer-context.js";
import type { SteerOutcome, SteerRequest } from "../steering/steer-context.js";
import { MAX_OUTPUT_BYTES, MAX_PENDING_TEXT_BYTES } from "../processes/process-limits.js";
import { truncateUtf8 } from "../steering/steering-limits.js";
import type { GuardRunner } from "./guard-runner.js";
import type { ToolSpecProvider } from "./service-tool-specs.js";
import { activationLedger } from "./activation-ledger.js";
import type { ActivationEntry, BlockedTrigger } from "./activation-ledger.js";
import { assertTurnFits } from "./turn-errors.js";
import { oneShotsOf, TurnCompletion } from "./turn-completion.js";
import type { TurnCompleteResult } from "./turn-completion.js";
import { toUserMessage, TurnPreparation } from "./turn-preparation.js";
import type { PreparedTurn, TurnSkillSource } from "./turn-preparation.js";
import { StoreTurnStates } from "./turn-state.js";
import type { TurnState, TurnStates } from "./turn-state.js";
import type { Turn } from "./turn.js";
import { composeSection } from "../skills/skill-prompt-composer.js";

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

export const PREVIEW_TURN_ID = "preview";

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
  private readonly clock: () => Date;
  private readonly preparation: TurnPreparation;
  private readonly completion: TurnCompletion;

  constructor(deps: SkillTurnSupportDeps) {
    this.deps = deps;
    this.states = deps.states ?? new StoreTurnStates(deps.store);
    this.clock = deps.clock ?? (() => new Date());
    this.preparation = new TurnPreparation({
      skills: deps.skills,
      recipes: deps.recipes,
      renderer: deps.renderer,
      commands: deps.commands,
      matcher: deps.matcher,
      triggerBudget: deps.triggerBudget,
      toolSpecs: deps.toolSpecs,
      engines: deps.engines ?? engineConfig,
      clock: this.clock,
    });
    this.completion = new TurnCompletion({ commands: deps.commands, guard: deps.guard, requests: deps.requests, clock: this.clock });
  }

  async preview(
    process: Process,
    message?: string,
    context?: TurnContext,
    user?: LaneUser | null,
    options: PreviewOptions = {},
  ): Promise<Turn> {
    const userMessage = toUserMessage(message, `${PREVIEW_TURN_ID}#user`, user ?? null, this.clock().toISOString());
    return assertTurnFits(
      process.processId,
      (await this.preparation.prepare(process, PREVIEW_TURN_ID, userMessage, context, options.explain ?? "matched")).turn,
      true,
    );
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
    const section = await composeSection(
      [{ skill, args: ref?.args ?? undefined }],
      turnRenderContext(process, recipe, undefined),
      this.deps.renderer,
      undefined,
      { tenant: process.tenant },
    );
    return { content: section.section, warnings: section.warnings.map((w) => `Skill '${w.skill}' left out: ${w.message}`) };
  }

  /** `state`: the process as the lane just read it for this request (TurnStates.loadForLane); read here without it. */
  async compose(req: SteerRequest, payload: TurnComposePayload, state?: TurnState): Promise<SteerOutcome<Turn>> {
    const { process: snapshot } = state ?? (await this.load(req));
    return applyOnce(this.deps.store, req, {
      snapshot,
      alreadyApplied: (process) => this.replayCompose(process, payload),
      prepare: async () => {
        assertActive(snapshot);
        const at = this.clock().toISOString();
        const userMessage = toUserMessage(payload.message, pendingId(req.requestId, "user"), req.user, at);
        const prepared = await this.preparation.prepare(snapshot, payload.turnId, userMessage, payload.context);
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
              next = this.preparation.activateTriggered(next, skill, at);
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
            next = {
              ...next,
              turn: {
                turnId: payload.turnId,
                oneShotSkills: next.activeSkills.filter((s) => s.oneShot).map((s) => s.name),
                ...(task !== "" ? { task } : {}),
              },
            };
            return { process: next, answer: composed };
          },
        };
      },
    });
  }

  async complete(req: SteerRequest, payload: TurnCompletePayload): Promise<SteerOutcome<TurnCompleteResult>> {
    const { process: snapshot } = await this.load(req);
    return applyOnce(this.deps.store, req, {
      snapshot,
      alreadyApplied: (process) => this.completion.replay(req, process, payload),
      prepare: async () => {
        assertActive(snapshot);
        assertTurnInFlight(snapshot, payload.turnId);
        const final = payload.final ?? false;
        const output = truncateUtf8(payload.output, MAX_OUTPUT_BYTES);
        const definitions = await this.preparation.resolveAll(snapshot, final ? snapshot.activeSkills : oneShotsOf(snapshot));
        const guardMessage = await this.completion.guardMessage(req, snapshot, payload.turnId, output, final);
        return {
          fromSnapshot: true,
          mutate: (current) => {
            assertTurnInFlight(current, payload.turnId);
            const settled = this.completion.settle(current, { final, output, definitions, guardMessage });
            return {
              process: settled.process,
              answer: async (process) => {
                if (final) await this.completion.reportToParent(req, process, output);
                return {
                  result: withWarnings(
                    {
                      activeSkills: process.activeSkills,
                      cleared: settled.cleared,
                      status: process.status,
                      turnScheduled: guardMessage !== undefined,
                    },
                    settled.warnings,
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

  /**
   * A compose whose write already happened (redelivery after a crash before the result was
   * recorded): the same system prompt and tools, but the pending messages it consumed are gone
   * from the process and cannot be delivered again — the Turn says so.
   */
  private async replayCompose(process: Process, payload: TurnComposePayload): Promise<SteerOutcome<Turn>> {
    const prepared = await this.preparation.prepare({ ...process, pending: [] }, payload.turnId, undefined, payload.context);
    const turn = prepared.turn;
    turn.warnings.push("This turn was composed by an earlier delivery; its consumed messages are not repeated");
    if (payload.message !== undefined && payload.message.trim() !== "") {
      turn.messages.push({
        id: "replayed#user",
        sender: SYSTEM_SENDER,
        role: "user",
        text: payload.message,
        kind: "user",
        at: this.clock().toISOString(),
      });
    }
    return { result: turn, process };
  }
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
function ledgerAfterWrite(
  activeSkills: readonly ActiveSkillRef[],
  activated: readonly SkillActivation[],
  prepared: PreparedTurn,
): ActivationEntry[] {
  const now = new Set(activated.map((a) => a.name));
  const lost: BlockedTrigger[] = prepared.triggered
    .filter((skill) => !now.has(skill.name) && !activeSkills.some((s) => s.name === skill.name))
    .map((skill) => ({ name: skill.name, reason: "activate-failed", trigger: prepared.facts.matches.get(skill.name) }));
  const entries = activationLedger(activeSkills, now, { ...prepared.facts, blocked: [...lost, ...prepared.facts.blocked] }, []);
  const pinned = new Map(
    prepared.turn.activation.flatMap((e) => (e.pinnedVersion !== undefined ? [[e.name, e.pinnedVersion] as const] : [])),
  );
  if (pinned.size === 0) return entries;
  return entries.map((e) => {
    const pinnedVersion = e.outcome === "active" || e.outcome === "activated" ? pinned.get(e.name) : undefined;
    return pinnedVersion === undefined ? e : { ...e, pinnedVersion };
  });
}
