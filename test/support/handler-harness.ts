import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { documentsRoutes } from "../../functions/http-documents/documents-routes.js";
import { processesRoutes } from "../../functions/http-processes/processes-routes.js";
import { skillsRoutes } from "../../functions/http-skills/skills-routes.js";
import { steerRoutes } from "../../functions/http-steer/steer-routes.js";
import { toolsRoutes } from "../../functions/http-tools/tools-routes.js";
import { httpHandler } from "../../functions/_shared/http-handler.js";
import type { LambdaHttpHandler } from "../../functions/_shared/http-handler.js";
import type { SkillActivationPath, SkillActivationSink } from "../../shared/steering/skill-activations.js";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import type { SkillsApp } from "../../shared/app/skills-app.js";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { Process } from "../../shared/processes/process.js";
import { laneModelActivation } from "../../shared/app/lane-model-activation.js";
import { SERVICE_TOOLS } from "../../shared/tools/service-tools.js";
import { ToolInvoker } from "../../shared/tools/tool-invoker.js";
import { httpEvent, IDENTITIES, lambdaContextFixture } from "../fixtures/events/http-handler-event.js";
import type { HttpEventInput } from "../fixtures/events/http-handler-event.js";
import { EmptyLayer, FakeRenderer, RECIPES } from "./steering-harness.js";
import { skillMd } from "./skill-fixtures.js";
import type { SkillFixture } from "./skill-fixtures.js";
import type { Logger } from "../../shared/support/logger.js";

export const TENANT = "acme";
export const PROJECT = "proj1";

export interface LogEntry {
  level: keyof Logger;
  message: string;
  extra: Record<string, unknown>[];
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the reply is JSON, the raw (decoded) text otherwise, undefined when empty. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  raw: Buffer;
}

export type HandlerName = "skills" | "processes" | "steer" | "documents" | "tools";

export interface CallOptions {
  /** Milliseconds Lambda leaves the invocation (for Prefer: wait budgets). */
  remainingMs?: number;
}

function toReply(result: APIGatewayProxyStructuredResultV2): Reply {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const raw = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8");
  let json: unknown;
  if (raw.length > 0)
    json = (headers["content-type"] ?? "").startsWith("application/json") ? JSON.parse(raw.toString("utf8")) : raw.toString("utf8");
  return { status: result.statusCode ?? 200, headers, json, raw };
}

/**
 * Every HTTP function's routes over in-memory adapters, with a controllable clock for
 * `Prefer: wait`: a waiting call's poll interval advances the clock and, when `laneRunsWhileWaiting`
 * is on, lets the lane worker drain — so a wait sees the lane's result, or times out, without real time passing.
 */
export async function handlerHarness() {
  const documents = new InMemoryDocumentStore();
  const processes = new InMemoryProcessStore();
  let nowMs = Date.parse("2026-01-01T00:00:00.000Z");
  const control = { laneRunsWhileWaiting: true, sleeps: 0, waitedMs: 0 };
  // eslint-disable-next-line prefer-const -- assigned once the app exists
  let drain: () => Promise<unknown>;
  const requests = new InMemoryRequestStore({
    now: () => nowMs,
    sleep: async (ms) => {
      nowMs += ms;
      control.sleeps += 1;
      control.waitedMs += ms;
      if (control.laneRunsWhileWaiting) await drain();
    },
  });
  const lane = new InMemoryLane();
  const activations: { name: string; path: SkillActivationPath }[] = [];
  const sink: SkillActivationSink = { skillActivated: (name, path) => activations.push({ name, path }) };
  const logs: LogEntry[] = [];
  const logger: Logger = {
    debug: (message, ...extra) => logs.push({ level: "debug", message, extra }),
    info: (message, ...extra) => logs.push({ level: "info", message, extra }),
    warn: (message, ...extra) => logs.push({ level: "warn", message, extra }),
    error: (message, ...extra) => logs.push({ level: "error", message, extra }),
  };
  let ids = 0;
  let processIds = 0;
  const app: SkillsApp = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes,
    requests,
    lane,
    renderer: new FakeRenderer(),
    clock: () => new Date(nowMs),
    newId: () => `id-${++ids}`,
    newProcessId: () => `p${String(++processIds).padStart(3, "0")}`,
    logger,
    activations: sink,
  });
  drain = () =>
    lane.drain((message) => app.applyLaneMessage(message, { messageId: message.requestId, groupId: undefined, receiveCount: 1 }));

  const tools = new ToolInvoker({
    sources: { store: documents, bundled: new EmptyLayer() },
    preview: (process, user) => app.turns.preview(process, undefined, undefined, user),
    tools: SERVICE_TOOLS,
    activation: laneModelActivation(app),
  });
  const handlers: Record<HandlerName, LambdaHttpHandler> = {
    skills: httpHandler(skillsRoutes({ app }), { logger }),
    processes: httpHandler(processesRoutes({ app }), { logger }),
    steer: httpHandler(steerRoutes({ app }), { logger }),
    documents: httpHandler(documentsRoutes({ documents: new DocumentService(documents) }), { logger }),
    tools: httpHandler(toolsRoutes({ app, tools }), { logger }),
  };

  for (const [name, yaml] of Object.entries(RECIPES)) await documents.put(TENANT, "_tenant", `_vance/recipes/${name}.yaml`, yaml);

  return {
    app,
    documents,
    processes,
    requests,
    lane,
    control,
    activations,
    logs,
    drain,
    handlers,
    /** Invokes one function with an event built from `input` (caller: alice unless `as` says otherwise). */
    async call(handler: HandlerName, input: HttpEventInput, options: CallOptions = {}): Promise<Reply> {
      const result = await handlers[handler](httpEvent(input), lambdaContextFixture(options.remainingMs));
      return toReply(result);
    },
    /** Raw event in, reply out: for malformed events. */
    async invoke(handler: HandlerName, event: unknown): Promise<Reply> {
      return toReply(await handlers[handler](event, lambdaContextFixture()));
    },
    async putSkill(name: string, fixture: SkillFixture = {}, project = "_tenant"): Promise<void> {
      await documents.put(TENANT, project, `_vance/skills/${name}/SKILL.md`, skillMd(fixture));
    },
    async spawn(recipe = "open", projectId = PROJECT): Promise<Process> {
      return app.spawn(TENANT, { login: IDENTITIES.alice.login }, { sessionId: "s1", recipe, projectId });
    },
  };
}

export type HandlerHarness = Awaited<ReturnType<typeof handlerHarness>>;
