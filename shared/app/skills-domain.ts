// The construction of the domain objects from the ports: loaders and resolver over the cascade
// (with the warm catalogue when configured), the steering processor, the turn support and the lane
// applier, all sharing one clock, one lane-request writer and one usage tally. Split from
// skills-app.ts (issue 29) so the facade reads as the API it offers, not as the wiring behind it.
import { randomUUID } from "node:crypto";
import type { LevelSnapshotStore } from "../catalogue/level-snapshot-store.js";
import type { CatalogueVersions } from "../catalogue/catalogue-versions.js";
import { DocumentCatalogue } from "../catalogue/document-catalogue.js";
import type { ProcessVersionsReader } from "../catalogue/process-versions-reader.js";
import { SeparateProcessVersionsReader } from "../catalogue/separate-process-versions-reader.js";
import { BundledDocumentLayer } from "../documents/bundled-document-layer.js";
import type { CascadeSources } from "../documents/cascade-layers.js";
import type { DocumentLayer, DocumentStore } from "../documents/document-store.js";
import type { FootInvocationStore } from "../foot/foot-invocation-store.js";
import { InMemoryFootInvocationStore } from "../foot/in-memory-foot-invocation-store.js";
import type { Lane } from "../lanes/lane.js";
import type { LaneMessage } from "../lanes/lane-message.js";
import type { LaneApply } from "../lanes/lane-worker.js";
import type { SpawnDeps } from "../processes/process-spawn.js";
import type { ProcessStore } from "../processes/process-store.js";
import type { RequestRecord, RequestStore } from "../processes/request-store.js";
import {
  DEFAULT_MAX_CONCURRENT_EVALS_PER_IDENTITY,
  DEFAULT_MAX_CONCURRENT_SPAWNS_PER_IDENTITY,
  InMemoryWaitSlots,
} from "../processes/wait-slots.js";
import type { WaitSlots } from "../processes/wait-slots.js";
import { engineConfig } from "../recipes/engines.js";
import type { EngineConfig } from "../recipes/engines.js";
import { RecipeLoader } from "../recipes/recipe-loader.js";
import type { EvalTimeBudget } from "../skills/evals/eval-time-budget.js";
import { SkillLoader } from "../skills/skill-loader.js";
import { catalogueDocumentPreparer } from "../recipes/catalogue-document-preparer.js";
import { SkillResolver } from "../skills/skill-resolver.js";
import { SkillTriggerMatcher } from "../skills/triggers/skill-trigger-matcher.js";
import type { TriggerTimeBudget } from "../skills/triggers/trigger-time-budget.js";
import { ChildReportReceiver } from "../steering/child-report-receiver.js";
import { EngineCommandDispatcher } from "../steering/engine-command-dispatcher.js";
import { LaneRequests } from "../steering/lane-requests.js";
import { NoopProcessEvents } from "../steering/process-events.js";
import type { ProcessEvents } from "../steering/process-events.js";
import type { SkillActivationSink } from "../steering/skill-activations.js";
import { SkillCommandRunner } from "../steering/skill-command-runner.js";
import type { EngineCommandPort } from "../steering/skill-command-runner.js";
import { SkillSpawnRunner } from "../steering/skill-spawn-runner.js";
import { SkillSteerProcessor } from "../steering/skill-steer-processor.js";
import type { TemplateRenderer } from "../templates/template-renderer.js";
import { NoopGuardRunner } from "../turns/guard-runner.js";
import type { GuardRunner } from "../turns/guard-runner.js";
import { ServiceToolSpecs } from "../turns/service-tool-specs.js";
import type { ToolSpecProvider } from "../turns/service-tool-specs.js";
import { SkillTurnSupport } from "../turns/skill-turn-support.js";
import { WarmTurnStates } from "../turns/turn-state.js";
import { InMemorySkillUsageStore } from "../usage/in-memory-skill-usage-store.js";
import { RecentUsageTally } from "../usage/recent-usage.js";
import type { SkillUsageStore } from "../usage/skill-usage.js";
import { createLaneApplier } from "./lane-applier.js";
import type { Logger } from "../support/logger.js";

/** Every port the service runs on; the composition root builds the domain services from them. */
export interface SkillsAppDeps {
  documents: DocumentStore;
  /** The RESOURCE layer; default: the bundled documents shipped with the package. */
  bundled?: DocumentLayer;
  /**
   * Opt-in warm catalogue (shared/catalogue): skill and recipe lookups validate the level versions
   * with one read instead of listing and reading every level. Document writes must then bump them
   * (catalogueChangeNotifier, bumpForS3Event).
   */
  catalogueVersions?: CatalogueVersions;
  /**
   * With the warm catalogue: where level snapshots live (issue 27). A cold instance then reads one
   * object per level instead of listing it and reading every SKILL.md; without it, it lists.
   */
  levelSnapshots?: LevelSnapshotStore;
  /** False: snapshots are read, never written (a function granted GetObject on them only). */
  levelSnapshotWrites?: boolean;
  /**
   * With the warm catalogue: reads a turn's process and its level versions in one round trip
   * (DynamoDBProcessVersionsReader: both live in the table). Default: `processes` and
   * `catalogueVersions` read side by side.
   */
  processVersions?: ProcessVersionsReader;
  processes: ProcessStore;
  requests: RequestStore;
  lane: Lane;
  renderer: TemplateRenderer;
  events?: ProcessEvents;
  guard?: GuardRunner;
  toolSpecs?: ToolSpecProvider;
  dispatcher?: EngineCommandPort;
  engines?: (name: string) => EngineConfig | undefined;
  clock?: () => Date;
  /** requestIds and turnIds the service chooses itself. */
  newId?: () => string;
  /** Process ids of spawned processes (default: time-ordered random ids). */
  newProcessId?: () => string;
  logger?: Pick<Logger, "warn">;
  /** See LaneApplierDeps.onApplied. */
  onApplied?: (message: LaneMessage, record: RequestRecord) => void;
  /** A fresh time budget per message for regex triggers (tests inject a clock; default: real time). */
  triggerBudget?: () => TriggerTimeBudget;
  /** The time budget of one `GET …/evals` run (tests inject a clock; default: ROUTE_EVALS_TIME_BUDGET_MS of real time). */
  evalsBudget?: () => EvalTimeBudget;
  /** Per-identity `Prefer: wait` slots (default: this container's count, InMemoryWaitSlots). */
  waitSlots?: WaitSlots;
  /** Spawns in flight per identity (default: this container's count, DEFAULT_MAX_CONCURRENT_SPAWNS_PER_IDENTITY). */
  spawnSlots?: WaitSlots;
  /** Trigger evals runs in flight per identity (default: this container's count, DEFAULT_MAX_CONCURRENT_EVALS_PER_IDENTITY). */
  evalSlots?: WaitSlots;
  /** Counts skill activations by path where they happen (recipe defaults at spawn, the lane's requests). */
  activations?: SkillActivationSink;
  /** Usage counters per project, level, skill, path and UTC day (issue 17); default: in memory. */
  usage?: SkillUsageStore;
  /**
   * Where Foot clients' answers to FOOT scripts wait for the invoking function (shared between
   * functions on AWS: DynamoDB). Default: in memory, enough when everything runs in one process.
   */
  footInvocations?: FootInvocationStore;
}

/** The domain objects the facade delegates to, built once per app. */
export interface SkillsDomain {
  clock: () => Date;
  newId: () => string;
  /** Usage counters behind this instance's recent-usage tally (ties of the HTTP search). */
  usage: RecentUsageTally;
  sources: CascadeSources;
  skills: SkillResolver;
  recipes: RecipeLoader;
  laneRequests: LaneRequests;
  spawnDeps: SpawnDeps;
  steer: SkillSteerProcessor;
  turns: SkillTurnSupport;
  applyLaneMessage: LaneApply;
  footInvocations: FootInvocationStore;
  waitSlots: WaitSlots;
  spawnSlots: WaitSlots;
  evalSlots: WaitSlots;
}

export function createSkillsDomain(deps: SkillsAppDeps): SkillsDomain {
  const clock = deps.clock ?? (() => new Date());
  // Counting through the tally lets a turn rank ties by recent usage without a request of its own.
  const usage = new RecentUsageTally(deps.usage ?? new InMemorySkillUsageStore());
  const newId = deps.newId ?? randomUUID;
  const events = deps.events ?? new NoopProcessEvents();
  const bundled = deps.bundled ?? new BundledDocumentLayer();
  const catalogue = deps.catalogueVersions
    ? new DocumentCatalogue({
        store: deps.documents,
        bundled,
        versions: deps.catalogueVersions,
        preparer: catalogueDocumentPreparer,
        ...(deps.levelSnapshots ? { snapshots: deps.levelSnapshots, snapshotWrites: deps.levelSnapshotWrites !== false } : {}),
        ...(deps.logger ? { logger: deps.logger } : {}),
      })
    : undefined;
  const sources = { store: deps.documents, bundled, catalogue };
  const skills = new SkillResolver(new SkillLoader(sources));
  const recipes = new RecipeLoader(sources);
  const commands = new SkillCommandRunner(deps.dispatcher ?? new EngineCommandDispatcher());
  const laneRequests = new LaneRequests(deps.requests, deps.lane, clock);
  const spawnDeps: SpawnDeps = {
    processes: deps.processes,
    recipes,
    skills,
    now: clock,
    ...(deps.newProcessId ? { ids: { newProcessId: deps.newProcessId } } : {}),
  };

  const steer = new SkillSteerProcessor({
    store: deps.processes,
    skills,
    recipes,
    renderer: deps.renderer,
    commands,
    spawner: new SkillSpawnRunner({ spawn: spawnDeps, requests: laneRequests }),
    clock,
  });
  const turnStates =
    catalogue && deps.catalogueVersions
      ? new WarmTurnStates(deps.processVersions ?? new SeparateProcessVersionsReader(deps.processes, deps.catalogueVersions))
      : undefined;
  const turns = new SkillTurnSupport({
    store: deps.processes,
    ...(turnStates ? { states: turnStates } : {}),
    skills,
    recipes,
    renderer: deps.renderer,
    commands,
    matcher: new SkillTriggerMatcher(),
    ...(deps.triggerBudget ? { triggerBudget: deps.triggerBudget } : {}),
    toolSpecs: deps.toolSpecs ?? new ServiceToolSpecs(),
    guard: deps.guard ?? new NoopGuardRunner(),
    requests: laneRequests,
    engines: deps.engines ?? engineConfig,
    clock,
    // Takes no usage: this instance's tally differs from the next instance's, and a turn composed
    // again (a redelivery, a replay) must give the same catalog bytes. Catalog ties go by name
    // until a usage snapshot every instance shares exists (docs/decisions.md, issue 26).
  });
  const applyLaneMessage = createLaneApplier({
    steer,
    turns,
    reports: new ChildReportReceiver(deps.processes, clock),
    processes: deps.processes,
    requests: deps.requests,
    laneRequests,
    events,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.onApplied ? { onApplied: deps.onApplied } : {}),
    ...(deps.activations ? { activations: deps.activations } : {}),
    usage,
    clock,
    // A compose reads its request and the subscription marker with its process (issue 31).
    ...(turnStates
      ? { readTurn: (tenant: string, processId: string, requestId: string) => turnStates.loadForLane(tenant, processId, { requestId }) }
      : {}),
  });

  return {
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
    footInvocations: deps.footInvocations ?? new InMemoryFootInvocationStore(),
    waitSlots: deps.waitSlots ?? new InMemoryWaitSlots(),
    spawnSlots: deps.spawnSlots ?? new InMemoryWaitSlots(DEFAULT_MAX_CONCURRENT_SPAWNS_PER_IDENTITY),
    evalSlots: deps.evalSlots ?? new InMemoryWaitSlots(DEFAULT_MAX_CONCURRENT_EVALS_PER_IDENTITY),
  };
}
