import { assertNotEnded } from "../processes/process-lifecycle.js";
import { recipeActivations } from "./skill-activations.js";
import type { SkillActivation } from "./skill-activations.js";
import { SkillNotFound } from "../errors.js";
import type { LaneUser } from "../lanes/lane-message.js";
import type { ProcessSpawnActivatePayload, SkillActivatePayload, SkillClearPayload } from "../lanes/lane-payloads.js";
import { applyOnce } from "../processes/apply-once.js";
import type { OnceWrite } from "../processes/apply-once.js";
import { deterministicChildId } from "../processes/process-ids.js";
import type { ActiveSkillRef, PendingMessage, Process, ProcessChild } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import type { Recipe } from "../recipes/recipe-schema.js";
import type { ResolvedSkill, SkillProblem } from "../skills/resolved-skill.js";
import { SkillNotModelInvocable, SkillNotUserInvocable } from "../skills/skill-errors.js";
import { bindArguments } from "../skills/skill-argument-binder.js";
import type { BoundArguments } from "../skills/skill-argument-binder.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import { assertAllowedByRecipe, planClear, planClearAll, upsertExplicit } from "./active-skill-rules.js";
import type { TurnScheduledReason } from "./process-events.js";
import { activationRenderContext } from "./render-context.js";
import { skillTurnPrompt } from "./skill-turn-prompt.js";
import type { SkillCommandRunner } from "./skill-command-runner.js";
import type { SkillSpawnRunner } from "./skill-spawn-runner.js";
import { pendingId, scopeOf, withWarnings } from "./steer-context.js";
import type { ActivateResult, ClearResult, SteerOutcome, SteerRequest } from "./steer-context.js";
import { appendPending } from "./steering-limits.js";

/** What steering reads skills from (SkillResolver satisfies it). */
export interface SkillSource {
  resolve(ctx: SkillScopeContext, name: string): Promise<ResolvedSkill | undefined>;
  /** The documents the cascade skipped: read only to explain a SkillNotFound. */
  problems?(ctx: SkillScopeContext): Promise<SkillProblem[]>;
}

/** What steering reads recipes from (RecipeLoader satisfies it). */
export interface RecipeSource {
  load(scope: SkillScopeContext, name: string): Promise<Recipe | undefined>;
}

export interface SkillSteerProcessorDeps {
  store: ProcessStore;
  skills: SkillSource;
  recipes: RecipeSource;
  renderer: TemplateRenderer;
  commands: SkillCommandRunner;
  spawner: SkillSpawnRunner;
  clock?: () => Date;
}

/** Sender of a not-consumed argument line when the request carries no user (a system spawn). */
export const SYSTEM_SENDER = "_system";

interface InlineActivation {
  args: string | null;
  oneShot: boolean;
}

type ActivationPath = "explicit" | "model" | "spawn";

/**
 * SkillSteerProcessor (spec §2a–§2c, §4b, §6b, §7b–§7d): ACTIVATE, CLEAR and CLEAR_ALL of one
 * process, run on its lane. Every request is one read, the async work (resolve, bind, render,
 * spawn), then ONE conditional write whose mutation is synchronous and deterministic: it checks
 * the requestId against `appliedRequests` (a redelivery writes nothing), applies the change and
 * records the requestId (applyOnce). Domain errors are thrown before anything is written.
 *
 * Decisions where the spec leaves room:
 * - Unknown/disabled is checked before the whitelist: a name nobody can see is SKILL_NOT_FOUND.
 * - Re-activating an active skill is a parameter update (args replaced, place and activatedAt
 *   kept) that runs `activate:` again — setters are idempotent (§2a "only then are double
 *   activation and cleanup well-defined"), so it re-asserts what the skill configures — but never
 *   `action:` again (§2a "only on fresh activation").
 * - CLEAR of a skill that is not active succeeds and changes nothing (the goal state holds).
 * - CLEAR_ALL fires `deactivate:` in reverse activation order (last configured, first undone).
 * - Not-consumed arguments are queued after the skill's own turn prompt: the action sets the
 *   task, the user's rest of line qualifies it.
 * - `--once` on a spawn skill is ignored: the skill is sticky in the child (§2c).
 */
export class SkillSteerProcessor {
  private readonly store: ProcessStore;
  private readonly skills: SkillSource;
  private readonly recipes: RecipeSource;
  private readonly renderer: TemplateRenderer;
  private readonly commands: SkillCommandRunner;
  private readonly spawner: SkillSpawnRunner;
  private readonly clock: () => Date;

  constructor(deps: SkillSteerProcessorDeps) {
    this.store = deps.store;
    this.skills = deps.skills;
    this.recipes = deps.recipes;
    this.renderer = deps.renderer;
    this.commands = deps.commands;
    this.spawner = deps.spawner;
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * `/skill <name> [--once] [args]`: inline, or a fresh worker for `run.target: spawn` (§2c).
   * The model's path (skill_activate, `activatedBy: model`) is the same activation, with the
   * invocation flags read the other way round: `user-invocable: false` is for the model, and
   * `disable-model-invocation: true` refuses it.
   */
  async activate(req: SteerRequest, payload: SkillActivatePayload): Promise<SteerOutcome<ActivateResult>> {
    const path: ActivationPath = payload.activatedBy ?? "explicit";
    return applyOnce(this.store, req, {
      alreadyApplied: (process) => replayedActivation(process, req.requestId),
      prepare: async (snapshot) => {
        assertNotEnded(snapshot);
        const skill = await this.resolveAllowed(snapshot, payload.skillName);
        if (path === "model" ? skill.disableModelInvocation : !skill.userInvocable) {
          throw path === "model" ? new SkillNotModelInvocable(skill.name) : new SkillNotUserInvocable(skill.name);
        }
        const args = payload.args ?? null;
        // No grandchild (§2c): where the skill is active already (its worker), it is a parameter update.
        const isActive = snapshot.activeSkills.some((s) => s.name === skill.name);
        if (skill.run.target === "spawn" && !isActive) return this.spawn(req, snapshot, skill, args);
        return this.activateHere(req, snapshot, skill, { args, oneShot: payload.oneShot ?? false }, path);
      },
    });
  }

  /** The child's half of a spawn (§2c): the same activation, sticky, and never spawning again. */
  async spawnActivate(req: SteerRequest, payload: ProcessSpawnActivatePayload): Promise<SteerOutcome<ActivateResult>> {
    return applyOnce(this.store, req, {
      alreadyApplied: (process) => replayedActivation(process, req.requestId),
      prepare: async (snapshot) => {
        assertNotEnded(snapshot);
        const skill = await this.resolveAllowed(snapshot, payload.skillName);
        return this.activateHere(req, snapshot, skill, { args: payload.args, oneShot: false }, "spawn");
      },
    });
  }

  async clear(req: SteerRequest, payload: SkillClearPayload): Promise<SteerOutcome<ClearResult>> {
    return applyOnce(this.store, req, {
      alreadyApplied: unchangedClear,
      prepare: async (snapshot) => {
        assertNotEnded(snapshot);
        const { removed } = planClear(snapshot, payload.skillName);
        if (removed === undefined) return { answer: unchangedClear(snapshot) };
        const definitions = await this.resolveForCleanup(snapshot, [removed]);
        return this.writeClear(definitions, (current) => {
          const plan = planClear(current, payload.skillName);
          return { remaining: plan.remaining, removed: plan.removed ? [plan.removed] : [] };
        });
      },
    });
  }

  async clearAll(req: SteerRequest): Promise<SteerOutcome<ClearResult>> {
    return applyOnce(this.store, req, {
      alreadyApplied: unchangedClear,
      prepare: async (snapshot) => {
        assertNotEnded(snapshot);
        const { removed } = planClearAll(snapshot);
        if (removed.length === 0) return { answer: unchangedClear(snapshot) };
        const definitions = await this.resolveForCleanup(snapshot, removed);
        return this.writeClear(definitions, (current) => planClearAll(current));
      },
    });
  }

  private async resolveAllowed(process: Process, name: string): Promise<ResolvedSkill> {
    const skill = await this.skills.resolve(scopeOf(process), name);
    if (!skill) throw await skillNotFound(this.skills, scopeOf(process), name);
    assertAllowedByRecipe(process, skill.name);
    return skill;
  }

  private async spawn(
    req: SteerRequest,
    parent: Process,
    skill: ResolvedSkill,
    args: string | null,
  ): Promise<OnceWrite<SteerOutcome<ActivateResult>>> {
    // What the child would reject is rejected before a child exists: arguments and `activate:` verbs.
    bindArguments(skill.name, skill.arguments, args ?? undefined);
    this.commands.activate(parent, skill);
    const child = await this.spawner.spawn({ parent, skill, args, requestId: req.requestId, user: req.user });
    const spawned = (process: Process): SteerOutcome<ActivateResult> => ({
      result: { activeSkills: process.activeSkills, turnScheduled: false, spawned: { ...child } },
      process,
    });
    return {
      // The caller keeps nothing (§2c) but the child link and the applied marker.
      mutate: (current) => ({ process: { ...current, children: withChild(current.children, child) }, answer: spawned }),
      // A concurrent delivery that stored the link first: the same answer, with the child just spawned.
      alreadyApplied: spawned,
    };
  }

  private async activateHere(
    req: SteerRequest,
    snapshot: Process,
    skill: ResolvedSkill,
    activation: InlineActivation,
    path: ActivationPath = "explicit",
  ): Promise<OnceWrite<SteerOutcome<ActivateResult>>> {
    const bound = bindArguments(skill.name, skill.arguments, activation.args ?? undefined);
    const consumes = bound !== undefined;
    const isShot = skill.lifecycle === "shot";
    const isFresh = (p: Process): boolean => isShot || !p.activeSkills.some((s) => s.name === skill.name);
    // `activate:` first (§2a order), and on a trial copy: an unknown verb fails here, nothing written,
    // and the turn prompt renders against the state the commands set (e.g. a new mode).
    const configured = this.commands.activate(snapshot, skill);
    const at = this.clock().toISOString();
    const prompt = isFresh(snapshot) ? await this.turnPrompt(configured, skill, bound) : undefined;
    const promptMessage: PendingMessage | undefined =
      prompt === undefined
        ? undefined
        : {
            id: pendingId(req.requestId, isShot ? "shot" : "action"),
            sender: "_skill",
            text: prompt,
            kind: isShot ? "shot" : "action",
            at,
            skill: skill.name,
          };
    const rest = !consumes ? (activation.args?.trim() ?? "") : "";
    const argsMessage: PendingMessage | undefined =
      rest === ""
        ? undefined
        : { id: pendingId(req.requestId, "args"), sender: senderOf(req.user), text: rest, kind: "args", at, skill: skill.name };

    return {
      mutate: (current) => {
        const fresh = isFresh(current);
        let next = this.commands.activate(current, skill);
        if (!isShot) {
          next = {
            ...next,
            activeSkills: upsertExplicit(next.activeSkills, {
              name: skill.name,
              source: skill.source,
              oneShot: activation.oneShot,
              args: consumes ? activation.args : null,
              at,
              activatedBy: path,
            }),
          };
        }
        const appended = [...(fresh && promptMessage ? [promptMessage] : []), ...(argsMessage ? [argsMessage] : [])];
        // A worker's first request: its recipe's skills came with the process the parent spawned.
        const activated: SkillActivation[] = [
          ...(path === "spawn" ? recipeActivations(current.activeSkills) : []),
          { name: skill.name, path, source: skill.source },
        ];
        return {
          process: appendPending(next, appended),
          answer: (process) => ({
            result: { activeSkills: process.activeSkills, turnScheduled: appended.length > 0 },
            process,
            activated,
            scheduled: appended.length > 0 ? { reason: reasonOf(appended), pending: process.pending } : undefined,
          }),
        };
      },
    };
  }

  /** §2a precedence (skill-turn-prompt.ts), rendered with the process's activation context. */
  private async turnPrompt(process: Process, skill: ResolvedSkill, args: BoundArguments | undefined): Promise<string | undefined> {
    return skillTurnPrompt(
      skill,
      args,
      this.renderer,
      async () => activationRenderContext(process, await this.recipes.load(scopeOf(process), process.recipe)),
      { tenant: process.tenant },
    );
  }

  /** The current definitions of skills being cleared; one that no longer resolves is cleared without `deactivate:`. */
  private async resolveForCleanup(process: Process, entries: readonly ActiveSkillRef[]): Promise<Map<string, ResolvedSkill | undefined>> {
    const scope = scopeOf(process);
    const resolved = await Promise.all(entries.map(async (e) => [e.name, await this.skills.resolve(scope, e.name)] as const));
    return new Map(resolved);
  }

  private writeClear(
    definitions: ReadonlyMap<string, ResolvedSkill | undefined>,
    plan: (current: Process) => { remaining: ActiveSkillRef[]; removed: ActiveSkillRef[] },
  ): OnceWrite<SteerOutcome<ClearResult>> {
    // The warnings of the latest attempt; also what a write that finds the request applied
    // meanwhile reports (none when no attempt got as far).
    let warnings: string[] = [];
    const cleared = (process: Process): SteerOutcome<ClearResult> => ({
      result: withWarnings({ activeSkills: process.activeSkills }, warnings),
      process,
    });
    return {
      mutate: (current) => {
        const { remaining, removed } = plan(current);
        const deactivated = deactivateAll(this.commands, { ...current, activeSkills: remaining }, removed, definitions);
        warnings = deactivated.warnings;
        return { process: deactivated.process, answer: cleared };
      },
      alreadyApplied: cleared,
    };
  }
}

/**
 * Fires `deactivate:` of every removed skill, best effort, last activated first. A skill whose
 * definition is gone cannot say how to clean up; that is reported, not an error.
 */
export function deactivateAll(
  commands: SkillCommandRunner,
  process: Process,
  removed: readonly ActiveSkillRef[],
  definitions: ReadonlyMap<string, ResolvedSkill | undefined>,
): { process: Process; warnings: string[] } {
  const warnings: string[] = [];
  let current = process;
  for (const entry of [...removed].reverse()) {
    const skill = definitions.get(entry.name);
    if (!skill) {
      warnings.push(`Skill '${entry.name}' no longer resolves; cleared without deactivate:`);
      continue;
    }
    const result = commands.deactivate(current, skill);
    current = result.process;
    warnings.push(...result.warnings);
  }
  return { process: current, warnings };
}

/** CLEAR/CLEAR_ALL that changes nothing, or that the process applied already: the active skills as they are. */
const unchangedClear = (process: Process): SteerOutcome<ClearResult> => ({ result: { activeSkills: process.activeSkills }, process });

/** The stored state answers a redelivered request whose write already happened. */
function replayedActivation(process: Process, requestId: string): SteerOutcome<ActivateResult> {
  const childId = deterministicChildId(process.processId, requestId);
  const child = process.children.find((c) => c.processId === childId);
  const turnScheduled = process.pending.some((m) => m.id.startsWith(`${requestId}#`));
  return {
    result: { activeSkills: process.activeSkills, turnScheduled, ...(child ? { spawned: { ...child } } : {}) },
    process,
  };
}

const withChild = (children: readonly ProcessChild[], child: ProcessChild): ProcessChild[] =>
  children.some((c) => c.processId === child.processId) ? [...children] : [...children, { ...child }];

const reasonOf = (appended: readonly PendingMessage[]): TurnScheduledReason => {
  const first = appended[0]?.kind;
  return first === "shot" ? "shot" : first === "action" ? "action" : "args";
};

const senderOf = (user: LaneUser | null): string => user?.login ?? SYSTEM_SENDER;

/** SKILL_NOT_FOUND, saying why when a document of that name exists but was skipped (the innermost one). */
export async function skillNotFound(skills: SkillSource, scope: SkillScopeContext, name: string): Promise<SkillNotFound> {
  const problems = skills.problems ? await skills.problems(scope).catch(() => []) : [];
  // Errors only: a warning belongs to a skill that loads, an info entry to a hidden outer document.
  const skipped = problems.find((problem) => problem.name === name && (problem.severity ?? "error") === "error");
  return new SkillNotFound(name, skipped);
}
