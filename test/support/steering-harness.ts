import { createSkillsApp } from "../../shared/app/skills-app.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import type { SkillsAppDeps } from "../../shared/app/skills-domain.js";
import type { DocumentLayer, DocumentRef, StoredDocument } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import type { LaneDrainResult } from "../../shared/lanes/in-memory-lane.js";
import type { LaneMessage, LaneUser } from "../../shared/lanes/lane-message.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { Process } from "../../shared/processes/process.js";
import type { RequestRecord, RequestStore } from "../../shared/processes/request-store.js";
import { RecordingProcessEvents } from "../../shared/steering/process-events.js";
import { TemplateRenderError } from "../../shared/templates/template-errors.js";
import type { RenderContext, TemplateRenderer } from "../../shared/templates/template-renderer.js";
import { skillMd } from "./skill-fixtures.js";
import type { SkillFixture } from "./skill-fixtures.js";

export const TENANT = "acme";
export const PROJECT = "proj1";
export const SESSION = "s1";
export const ALICE: LaneUser = { login: "alice" };
export const BOB: LaneUser = { login: "bob" };

/** A RESOURCE layer with nothing in it: unit tests put every document where they can see it. */
export class EmptyLayer implements DocumentLayer {
  async read(): Promise<StoredDocument | undefined> {
    return undefined;
  }
  async list(): Promise<DocumentRef[]> {
    return [];
  }
}

/**
 * Stands in for the sandboxed nunjucks renderer: `{{ a.b }}` looks up a dotted path in the
 * context (missing → empty), `{{ fail }}` throws a TemplateRenderError. Records every render.
 */
export class FakeRenderer implements TemplateRenderer {
  readonly calls: { template: string; context: RenderContext }[] = [];

  async render(template: string, context: RenderContext): Promise<string> {
    this.calls.push({ template, context: structuredClone(context) });
    return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_m, path: string) => {
      if (path === "fail") throw new TemplateRenderError("fake render failure");
      let value: unknown = context;
      for (const key of path.split(".")) value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
      return value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
    });
  }
}

/** Recipes every steering test can use (in the `_tenant` layer). */
export const RECIPES: Record<string, string> = {
  open: "engine: ford\npromptPrefix: Open prefix.\n",
  plain: "engine: ford\n",
  overwrite: "engine: ford\npromptPrefix: Only the prefix.\npromptMode: OVERWRITE\n",
  whitelist: "engine: ford\nallowedSkills: [alpha, beta, gamma]\ndefaultActiveSkills: [alpha]\n",
  lockdown: "engine: ford\nallowedSkills: []\n",
  locked: "engine: ford\nlocked: true\ndefaultActiveSkills: [alpha]\n",
  unlocked: "engine: ford\nlocked: false\ndefaultActiveSkills: [alpha]\n",
  reader: "engine: ford\nallowedToolsAdd: [shell_exec]\nallowedToolsRemove: [web_search]\nparams:\n  manualPaths: [manuals/recipe]\n",
  narrow: "engine: ford\nallowedSkills: [alpha]\n",
};

export interface HarnessOptions extends Partial<
  Pick<SkillsAppDeps, "guard" | "dispatcher" | "toolSpecs" | "triggerBudget" | "evalsBudget" | "usage">
> {
  renderer?: TemplateRenderer;
  /** Wraps the in-memory request store (e.g. to fail a call on purpose). */
  wrapRequests?: (store: RequestStore) => RequestStore;
}

export type SteeringHarness = Awaited<ReturnType<typeof steeringHarness>>;

export async function steeringHarness(options: HarnessOptions = {}) {
  const documents = new InMemoryDocumentStore();
  const processes = new InMemoryProcessStore();
  const requests = new InMemoryRequestStore({ sleep: async () => {} });
  const lane = new InMemoryLane();
  const events = new RecordingProcessEvents();
  const renderer = options.renderer ?? new FakeRenderer();
  const applied: { message: LaneMessage; record: RequestRecord }[] = [];
  let ids = 0;
  let clockMs = Date.parse("2025-01-01T00:00:00.000Z");
  const app: SkillsApp = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes,
    requests: options.wrapRequests ? options.wrapRequests(requests) : requests,
    lane,
    renderer,
    events,
    clock: () => new Date((clockMs += 1000)),
    newId: () => `id-${++ids}`,
    logger: { warn: () => undefined },
    onApplied: (message, record) => applied.push({ message, record }),
    ...(options.guard ? { guard: options.guard } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.toolSpecs ? { toolSpecs: options.toolSpecs } : {}),
    ...(options.triggerBudget ? { triggerBudget: options.triggerBudget } : {}),
    ...(options.evalsBudget ? { evalsBudget: options.evalsBudget } : {}),
    ...(options.usage ? { usage: options.usage } : {}),
  });
  for (const [name, yaml] of Object.entries(RECIPES)) await documents.put(TENANT, "_tenant", `_vance/recipes/${name}.yaml`, yaml);

  const drain = (): Promise<LaneDrainResult> =>
    lane.drain((message) => app.applyLaneMessage(message, { messageId: message.requestId, groupId: undefined, receiveCount: 1 }));

  const harness = {
    app,
    documents,
    processes,
    requests,
    lane,
    events,
    renderer,
    applied,
    drain,
    async putSkill(name: string, fixture: SkillFixture = {}, project = "_tenant"): Promise<void> {
      await documents.put(TENANT, project, `_vance/skills/${name}/SKILL.md`, skillMd(fixture));
    },
    async putFile(path: string, body: string, project = "_tenant"): Promise<void> {
      await documents.put(TENANT, project, path, body);
    },
    async spawn(recipe = "open", name?: string): Promise<Process> {
      return app.spawn(TENANT, ALICE, { sessionId: SESSION, recipe, projectId: PROJECT, name });
    },
    async process(processId: string): Promise<Process> {
      return app.getProcess(TENANT, processId);
    },
    /** Enqueues a ProcessSkillRequest, drains the lane, returns the request record. */
    async steer(processId: string, request: Record<string, unknown>, user: LaneUser = ALICE): Promise<RequestRecord> {
      const { requestId } = await app.steerSkill(TENANT, processId, user, request);
      await drain();
      return (await requests.get(TENANT, processId, requestId))!;
    },
    activate(processId: string, skillName: string, extra: Record<string, unknown> = {}, user: LaneUser = ALICE): Promise<RequestRecord> {
      return harness.steer(processId, { command: "ACTIVATE", skillName, ...extra }, user);
    },
    clear(processId: string, skillName: string): Promise<RequestRecord> {
      return harness.steer(processId, { command: "CLEAR", skillName });
    },
    clearAll(processId: string): Promise<RequestRecord> {
      return harness.steer(processId, { command: "CLEAR_ALL" });
    },
    async compose(processId: string, message?: string, user: LaneUser = ALICE): Promise<RequestRecord> {
      const { requestId } = await app.composeTurn(TENANT, processId, user, message === undefined ? {} : { message });
      await drain();
      return (await requests.get(TENANT, processId, requestId))!;
    },
    async complete(processId: string, turnId: string, output: string, final?: boolean): Promise<RequestRecord> {
      const { requestId } = await app.completeTurn(TENANT, processId, ALICE, turnId, { output, ...(final !== undefined ? { final } : {}) });
      await drain();
      return (await requests.get(TENANT, processId, requestId))!;
    },
  };
  return harness;
}

export const names = (process: Pick<Process, "activeSkills">): string[] => process.activeSkills.map((s) => s.name);
