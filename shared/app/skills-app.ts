// The facade every handler, the local stack, the tests and the bench call: the service's API over
// the domain objects. Their construction from the ports is in skills-domain.ts (issue 29), so this
// file holds what the API does — request ids, lane enqueues, per-identity slots, reads — and nothing
// of how the objects are wired together.
import { TooManyRequests } from "../errors.js";
import { recipeActivations, reportActivations } from "../steering/skill-activations.js";
import { withRouting } from "../skills/evals/routing-evals.js";
import { searchSkills as searchSkillsIn } from "../skills/relevance/skill-search.js";
import type { SkillSearchAnswer } from "../skills/relevance/skill-search.js";
import type { UsageAnswer } from "../usage/skill-usage.js";
import { countUsage } from "./usage-counting.js";
import { TRIGGER_EVALS_FILE, parseTriggerEvals, runTriggerEvals } from "../skills/evals/trigger-evals.js";
import type { EvalReport } from "../skills/evals/trigger-evals.js";
import { EvalTimeBudget, ROUTE_EVALS_TIME_BUDGET_MS } from "../skills/evals/eval-time-budget.js";
import { pinnedLayer } from "../documents/cascade-layers.js";
import { textOrInvalid } from "../documents/document-body.js";
import { DocumentNotFound } from "../errors.js";
import { InvalidRequest } from "../errors.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import type { CascadeShadowed } from "../documents/cascade-resolver.js";
import type { FootInvocationStore } from "../foot/foot-invocation-store.js";
import type { LaneMessageKind, LaneUser } from "../lanes/lane-message.js";
import type { LanePayloads, TurnContext } from "../lanes/lane-payloads.js";
import type { LaneApply } from "../lanes/lane-worker.js";
import { ProcessNotFound } from "../processes/process-errors.js";
import { spawnProcess, validateSessionId } from "../processes/process-spawn.js";
import type { ActiveSkillRef, Process } from "../processes/process.js";
import type { ProcessStore } from "../processes/process-store.js";
import type { RequestRecord, RequestStatus, RequestStore } from "../processes/request-store.js";
import type { RecipeLoader } from "../recipes/recipe-loader.js";
import type { ListedSkill, ResolvedSkill, SkillProblem } from "../skills/resolved-skill.js";
import type { SkillResolver } from "../skills/skill-resolver.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import { RequestId, toLaneCommand } from "../steering/process-skill-request.js";
import { skillNotFound } from "../steering/skill-steer-processor.js";
import type { SkillSteerProcessor } from "../steering/skill-steer-processor.js";
import type { SkillTurnSupport } from "../turns/skill-turn-support.js";
import { composeRequestIdOf, turnIdFor } from "../processes/turn-ids.js";
import type { Turn } from "../turns/turn.js";
import { createSkillsDomain } from "./skills-domain.js";
import type { SkillsAppDeps } from "./skills-domain.js";

/** A crashed spawner frees its slot after this (a spawn is a few writes; Lambda's HTTP timeout is 30 s). */
const SPAWN_LEASE_MS = 30_000;

/** An evals slot outlives its run's budget by this much, so a crashed holder frees it soon after. */
const EVALS_LEASE_MS = ROUTE_EVALS_TIME_BUDGET_MS + 5_000;

/** A slot outlives its wait by this much, so a holder that crashed frees it soon after. */
const WAIT_LEASE_MARGIN_MS = 5_000;

/**
 * The process as the caller has just read it (an access check does): enqueuing then needs no read
 * of its own. Its project is fixed at spawn, so a read a moment old gives the same answer.
 */
export type KnownProcess = Pick<Process, "projectId">;

export interface Accepted {
  requestId: string;
  status: RequestStatus;
}

export interface SpawnInput {
  sessionId: string;
  recipe: string;
  projectId: string;
  name?: string | undefined;
}

/**
 * The facade the HTTP/WebSocket handlers, the local stack, tests and the bench use. Reads are
 * direct; every change of a process goes through its lane (`enqueue`), and a caller may wait for
 * the result with `waitForRequest`. Authorization is the caller's job: the facade trusts the
 * `user` it is given (taken from a verified token).
 */
export interface SkillsApp {
  readonly skills: SkillResolver;
  /** The store, the bundled layer and the warm catalogue (when configured) every loader of this app reads through. */
  readonly sources: CascadeSources;
  readonly recipes: RecipeLoader;
  readonly processes: ProcessStore;
  readonly requests: RequestStore;
  readonly footInvocations: FootInvocationStore;
  readonly steer: SkillSteerProcessor;
  readonly turns: SkillTurnSupport;
  /** The lane worker's apply (createLaneWorkerHandler(app.applyLaneMessage)). */
  readonly applyLaneMessage: LaneApply;

  /** Validates the payload, records the request QUEUED and enqueues it on the process's lane. */
  enqueue<K extends LaneMessageKind>(
    tenant: string,
    processId: string,
    user: LaneUser | null,
    kind: K,
    payload: LanePayloads[K],
    requestId?: string,
    known?: KnownProcess,
  ): Promise<Accepted>;
  /** API.md ProcessSkillRequest (ACTIVATE / CLEAR / CLEAR_ALL). */
  steerSkill(tenant: string, processId: string, user: LaneUser, request: unknown, known?: KnownProcess): Promise<Accepted>;
  composeTurn(
    tenant: string,
    processId: string,
    user: LaneUser,
    input?: { message?: string | undefined; context?: TurnContext | undefined; requestId?: string | undefined },
    known?: KnownProcess,
  ): Promise<Accepted & { turnId: string }>;
  completeTurn(
    tenant: string,
    processId: string,
    user: LaneUser | null,
    turnId: string,
    input: { output: string; final?: boolean | undefined; requestId?: string | undefined },
    known?: KnownProcess,
  ): Promise<Accepted>;
  /**
   * With `waiter` (the caller's login) the wait takes one of that identity's wait slots for its
   * duration; none free → TooManyRequests (429, Retry-After).
   */
  waitForRequest(
    tenant: string,
    processId: string,
    requestId: string,
    timeoutMs: number,
    options?: { signal?: AbortSignal; waiter?: string },
  ): Promise<RequestRecord | undefined>;
  /** requestIds are scoped to their process (API.md). */
  getRequest(tenant: string, processId: string, requestId: string): Promise<RequestRecord | undefined>;
  /**
   * The Turn a compose produced, as it was answered (API.md GET …/turns/{turnId}): read from its
   * compose request's record (turn-ids.ts), so it lives as long as that record (24 h after it
   * was settled). Undefined when unknown, not composed (yet, or failed) or expired.
   */
  getTurn(tenant: string, processId: string, turnId: string): Promise<Turn | undefined>;

  spawn(tenant: string, user: LaneUser, input: SpawnInput): Promise<Process>;
  /** The caller's own processes of a session (API.md: sessions are per user), oldest first. */
  sessionProcesses(tenant: string, user: LaneUser, sessionId: string): Promise<Process[]>;
  /** ProcessNotFound for an unknown id or another tenant's process. */
  getProcess(tenant: string, processId: string): Promise<Process>;
  activeSkills(tenant: string, processId: string): Promise<ActiveSkillRef[]>;
  previewTurn(tenant: string, processId: string, user: LaneUser | null, message?: string, context?: TurnContext): Promise<Turn>;

  listEffective(tenant: string, user: LaneUser | null, projectId?: string): Promise<ListedSkill[]>;
  /** listEffective plus every skill document an inner level hides, from the same (memoized) scan. */
  listEffectiveWithShadowed(
    tenant: string,
    user: LaneUser | null,
    projectId?: string,
  ): Promise<{ skills: ListedSkill[]; shadowed: CascadeShadowed[] }>;
  /** SkillNotFound when no visible, enabled skill has that name. */
  resolveEffective(tenant: string, user: LaneUser | null, projectId: string | undefined, name: string): Promise<ResolvedSkill>;
  skillProblems(tenant: string, user: LaneUser | null, projectId?: string): Promise<SkillProblem[]>;
  /**
   * API.md "Author's loop": usage counters of a project, newest day first. Authorization is the
   * caller's; `viewer` is the caller's login, and other members' private rows are left out.
   */
  skillUsage(tenant: string, projectId: string, days: number, viewer: string, name?: string): Promise<UsageAnswer>;
  /** A skill's `evals/triggers.yaml` from its own level, run against it and the other visible skills; DOCUMENT_NOT_FOUND without one. */
  skillEvals(tenant: string, user: LaneUser | null, projectId: string | undefined, name: string): Promise<EvalReport>;
  /**
   * API.md "Catalog at scale" `GET …/skills/search`: the caller's effective skills ranked by
   * relevance to `query` (ties by this instance's recent usage, then name), the first `limit`.
   */
  searchSkills(
    tenant: string,
    user: LaneUser | null,
    projectId: string | undefined,
    query: string,
    limit: number,
  ): Promise<SkillSearchAnswer>;
}

export function createSkillsApp(deps: SkillsAppDeps): SkillsApp {
  const {
    clock,
    newId,
    usage,
    sources,
    skills,
    recipes,
    laneRequests,
    spawnDeps,
    steer,
    turns,
    applyLaneMessage,
    footInvocations,
    waitSlots,
    spawnSlots,
    evalSlots,
  } = createSkillsDomain(deps);

  const scope = (tenant: string, user: LaneUser | null, projectId?: string): SkillScopeContext => ({
    tenantId: tenant,
    userId: user?.login,
    projectId,
  });

  const getProcess = async (tenant: string, processId: string): Promise<Process> => {
    const process = await deps.processes.get(tenant, processId);
    if (!process) throw new ProcessNotFound(processId);
    return process;
  };

  const requestIdOf = (requestId: string | undefined): string => {
    if (requestId === undefined) return newId();
    const parsed = RequestId.safeParse(requestId);
    if (!parsed.success) throw new InvalidRequest("requestId must be 1 to 256 printable characters");
    return parsed.data;
  };

  const enqueue: SkillsApp["enqueue"] = async (tenant, processId, user, kind, payload, requestId, known) => {
    // Unknown (or another tenant's) process: answered now, not as a FAILED request later.
    const { projectId } = known ?? (await getProcess(tenant, processId));
    const id = requestIdOf(requestId);
    const record = await laneRequests.enqueue({ tenant, processId, projectId, user, kind, payload, requestId: id });
    return { requestId: id, status: record.status };
  };

  return {
    sources,
    skills,
    recipes,
    processes: deps.processes,
    requests: deps.requests,
    footInvocations,
    steer,
    turns,
    applyLaneMessage,
    enqueue,

    async steerSkill(tenant, processId, user, request, known) {
      const command = toLaneCommand(request);
      return enqueue(tenant, processId, user, command.kind, command.payload as LanePayloads[typeof command.kind], command.requestId, known);
    },

    async composeTurn(tenant, processId, user, input = {}, known) {
      // The turn is known by its compose request (turn-ids.ts): GET …/turns/{turnId} reads that record.
      const requestId = requestIdOf(input.requestId);
      const turnId = turnIdFor(requestId);
      const payload: LanePayloads["turn.compose"] = {
        turnId,
        ...(input.message !== undefined ? { message: input.message } : {}),
        ...(input.context !== undefined ? { context: input.context } : {}),
      };
      return { ...(await enqueue(tenant, processId, user, "turn.compose", payload, requestId, known)), turnId };
    },

    async completeTurn(tenant, processId, user, turnId, input, known) {
      const payload: LanePayloads["turn.complete"] = {
        turnId,
        output: input.output,
        ...(input.final !== undefined ? { final: input.final } : {}),
      };
      return enqueue(tenant, processId, user, "turn.complete", payload, input.requestId, known);
    },

    async waitForRequest(tenant, processId, requestId, timeoutMs, options = {}) {
      const { waiter, ...waitOptions } = options;
      if (waiter === undefined) return deps.requests.waitFor(tenant, processId, requestId, timeoutMs, waitOptions);
      // A wait the lane answers by the first read is short (SettleTimeEstimate's cap): only one
      // that goes on holds a slot, so the usual turn writes no slot at all.
      let release: (() => Promise<void>) | undefined;
      const takeSlot = async (): Promise<void> => {
        release = await waitSlots.acquire(tenant, waiter, timeoutMs + WAIT_LEASE_MARGIN_MS);
        if (!release)
          throw new TooManyRequests(
            `At most ${waitSlots.limit} requests may be waited for at a time per identity; retry later or without Prefer: wait`,
            1,
          );
      };
      try {
        return await deps.requests.waitFor(tenant, processId, requestId, timeoutMs, {
          ...waitOptions,
          firstReadAfterMs: "learned",
          beforeLongWait: takeSlot,
        });
      } finally {
        // A slot that cannot be given back holds its place until its lease ends: say so, never fail the answer for it.
        await release?.().catch((error: unknown) =>
          deps.logger?.warn("slot release failed; it frees itself when its lease ends", {
            reason: error instanceof Error ? error.message : String(error),
          }),
        );
      }
    },
    getRequest: (tenant, processId, requestId) => deps.requests.get(tenant, processId, requestId),
    async getTurn(tenant, processId, turnId) {
      const requestId = composeRequestIdOf(turnId);
      if (requestId === undefined || !RequestId.safeParse(requestId).success) return undefined;
      const record = await deps.requests.get(tenant, processId, requestId);
      if (record?.kind !== "turn.compose" || record.status !== "DONE" || record.processId !== processId) return undefined;
      const turn = record.result as Turn | null;
      // A compose enqueued with a turnId of its own (not through composeTurn) names another turn.
      return turn !== null && typeof turn === "object" && turn.turnId === turnId ? turn : undefined;
    },

    spawn: async (tenant, user, input) => {
      const release = await spawnSlots.acquire(tenant, user.login, SPAWN_LEASE_MS);
      if (!release)
        throw new TooManyRequests(`At most ${spawnSlots.limit} process spawns may be in flight at a time per identity; retry shortly`, 1);
      try {
        const process = await spawnProcess(spawnDeps, {
          tenant,
          sessionId: input.sessionId,
          userId: user.login,
          projectId: input.projectId,
          recipe: input.recipe,
          name: input.name,
        });
        reportActivations(deps.activations, recipeActivations(process.activeSkills), undefined, { tenant, projectId: process.projectId });
        await countUsage(
          { usage, activations: deps.activations, processes: deps.processes, clock, logger: deps.logger ?? console },
          process,
          recipeActivations(process.activeSkills),
        );
        return process;
      } finally {
        // A slot that cannot be given back holds its place until its lease ends: say so, never fail the answer for it.
        await release().catch((error: unknown) =>
          deps.logger?.warn("slot release failed; it frees itself when its lease ends", {
            reason: error instanceof Error ? error.message : String(error),
          }),
        );
      }
    },
    sessionProcesses: (tenant, user, sessionId) => deps.processes.listSession(tenant, user.login, validateSessionId(sessionId)),
    getProcess,
    activeSkills: async (tenant, processId) => (await getProcess(tenant, processId)).activeSkills,
    previewTurn: async (tenant, processId, user, message, context) =>
      turns.preview(await getProcess(tenant, processId), message, context, user),

    listEffective: (tenant, user, projectId) => skills.listAvailable(scope(tenant, user, projectId)),
    listEffectiveWithShadowed: (tenant, user, projectId) => skills.listWithShadowed(scope(tenant, user, projectId)),
    async resolveEffective(tenant, user, projectId, name) {
      const at = scope(tenant, user, projectId);
      const skill = await skills.resolve(at, name);
      if (!skill) throw await skillNotFound(skills, at, name);
      return skill;
    },
    skillProblems: (tenant, user, projectId) => skills.problems(scope(tenant, user, projectId)),
    async skillEvals(tenant, user, projectId, name) {
      const at = scope(tenant, user, projectId);
      const skill = await skills.resolve(at, name);
      if (!skill) throw await skillNotFound(skills, at, name);
      const path = `${skill.location.directory}/${TRIGGER_EVALS_FILE}`;
      const doc = await pinnedLayer(at, sources, skill.location).layer.read(path);
      if (!doc) throw new DocumentNotFound(path);
      // Strict: a lossy decode would report a binary file's replacement characters as a YAML error.
      const evals = parseTriggerEvals(textOrInvalid(path, doc.body), path);
      const listing = await skills.listAvailable(at);
      // Taken last, around the CPU work only: a refused read never holds a slot.
      const release = await evalSlots.acquire(tenant, user?.login ?? "", EVALS_LEASE_MS);
      if (!release) {
        throw new TooManyRequests(
          `At most ${evalSlots.limit} trigger evals run${evalSlots.limit === 1 ? "" : "s"} may be in flight at a time per identity; retry when yours has answered`,
          Math.ceil(ROUTE_EVALS_TIME_BUDGET_MS / 1000),
        );
      }
      try {
        return withRouting(
          await runTriggerEvals(skill, listing, evals, deps.evalsBudget?.() ?? new EvalTimeBudget(ROUTE_EVALS_TIME_BUDGET_MS)),
          listing,
        );
      } finally {
        await release();
      }
    },
    skillUsage: (tenant, projectId, days, viewer, name) => usage.read({ tenant, projectId, days, name, viewer, now: clock() }),

    async searchSkills(tenant, user, projectId, query, limit) {
      const listing = await skills.listAvailable(scope(tenant, user, projectId));
      const recent = projectId === undefined ? undefined : usage.recent(tenant, projectId, user?.login, clock());
      return searchSkillsIn(listing, query, { limit, usage: recent });
    },
  };
}
