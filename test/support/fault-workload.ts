import { createSkillsApp } from "../../shared/app/skills-app.js";
import type { DocumentLayer } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { Process } from "../../shared/processes/process.js";
import type { RequestRecord } from "../../shared/processes/request-store.js";
import type { TemplateRenderer } from "../../shared/templates/template-renderer.js";
import { EmptyLayer, FakeRenderer } from "./steering-harness.js";
import { skillMd } from "./skill-fixtures.js";

/**
 * The request mix the fault tests throw at the lane, and the yardstick they measure against: a
 * serial replay of the same lane messages, in the order the lane applied them, on in-memory
 * stores. Same messages, same order → same state, version included; anything lost, doubled or
 * half-written shows up as a difference.
 */

/** Skills of the mix: plain text (no template syntax), so no sandbox is involved. */
export const WORKLOAD_SKILLS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ["s0", "s1", "s2", "s3"].map((name) => [
      name,
      skillMd({
        title: `Skill ${name}`,
        extra: `arguments: true\nactivate:\n  - status.set ${name} on\ndeactivate:\n  - status.set ${name} off\naction: '${name} starts.'`,
        body: `Body of ${name}.`,
      }),
    ]),
  ),
  // A required argument: an ACTIVATE without args is a typed FAILED (SKILL_ARGUMENT_MISSING).
  needy: skillMd({
    title: "Needs an argument",
    extra: "arguments:\n  - name: target\n    required: true",
    body: "Needs a target.",
  }),
  // Shot lifecycle: never stays active, queues its body as a turn prompt instead.
  shot: skillMd({ title: "One shot", extra: "lifecycle: shot", body: "Shot body." }),
  // Auto-activated (oneShot) by a compose whose message mentions "deploy".
  trig: skillMd({
    title: "Triggered",
    extra: "triggers:\n  - type: KEYWORDS\n    keywords: [deploy]",
    body: "Deploy checklist.",
  }),
};

export const WORKLOAD_RECIPES: Readonly<Record<string, string>> = {
  open: "engine: ford\npromptPrefix: Open prefix.\n",
};

/** An in-memory document store holding the mix's skills and recipes in `_tenant` of `tenant`. */
export async function workloadDocuments(tenant: string): Promise<InMemoryDocumentStore> {
  const documents = new InMemoryDocumentStore();
  for (const [name, yaml] of Object.entries(WORKLOAD_RECIPES)) await documents.put(tenant, "_tenant", `_vance/recipes/${name}.yaml`, yaml);
  for (const [name, text] of Object.entries(WORKLOAD_SKILLS))
    await documents.put(tenant, "_tenant", `_vance/skills/${name}/SKILL.md`, text);
  return documents;
}

/** One caller request of the mix; `requestId`s are unique across processes. */
export type WorkloadStep =
  | {
      kind: "steer";
      requestId: string;
      body: { command: "ACTIVATE" | "CLEAR" | "CLEAR_ALL"; skillName?: string; args?: string; oneShot?: boolean; requestId: string };
    }
  | { kind: "compose"; requestId: string; message: string }
  | {
      kind: "complete";
      requestId: string;
      output: string;
      final: boolean;
      /** The compose whose turn this completes. */ composeRequestId: string;
    };

const STICKY = ["s0", "s1", "s2", "s3"];

/**
 * A seeded sequence of `count` requests for one process: activations (sticky, oneShot, shot,
 * missing argument), clears, turns and turn completions (some of a stale turn, which FAIL).
 */
export function workloadSteps(random: () => number, label: string, count: number): WorkloadStep[] {
  const steps: WorkloadStep[] = [];
  let lastCompose: string | undefined;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  for (let i = 0; i < count; i++) {
    const requestId = `${label}-r${i}`;
    const roll = random();
    if (roll < 0.3) {
      steps.push({ kind: "steer", requestId, body: { command: "ACTIVATE", skillName: pick(STICKY), args: `v${i}`, requestId } });
    } else if (roll < 0.38) {
      steps.push({ kind: "steer", requestId, body: { command: "ACTIVATE", skillName: pick(STICKY), oneShot: true, requestId } });
    } else if (roll < 0.43) {
      steps.push({ kind: "steer", requestId, body: { command: "ACTIVATE", skillName: "shot", requestId } });
    } else if (roll < 0.47) {
      steps.push({
        kind: "steer",
        requestId,
        body: { command: "ACTIVATE", skillName: "needy", ...(random() < 0.5 ? { args: "prod" } : {}), requestId },
      });
    } else if (roll < 0.62) {
      steps.push({ kind: "steer", requestId, body: { command: "CLEAR", skillName: pick(STICKY), requestId } });
    } else if (roll < 0.65) {
      steps.push({ kind: "steer", requestId, body: { command: "CLEAR_ALL", requestId } });
    } else if (roll < 0.87 || lastCompose === undefined) {
      steps.push({ kind: "compose", requestId, message: random() < 0.3 ? `please deploy ${i}` : `message ${i}` });
      lastCompose = requestId;
    } else {
      steps.push({ kind: "complete", requestId, output: `output ${i}`, final: false, composeRequestId: lastCompose });
    }
  }
  return steps;
}

const TIMESTAMP_KEYS = new Set(["activatedAt", "at", "createdAt", "updatedAt"]);

/** A JSON value with its timestamps blanked: the replay runs at another time. */
export function withoutTimestamps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimestamps);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, TIMESTAMP_KEYS.has(k) ? "<time>" : withoutTimestamps(v)]));
  }
  return value;
}

/** The state that matters, without clocks: everything a lost, doubled or torn write would change. */
export const comparableProcess = (p: Process): unknown =>
  withoutTimestamps({
    activeSkills: p.activeSkills,
    pending: p.pending,
    status: p.status,
    statusText: p.statusText,
    mode: p.mode,
    lastOutput: p.lastOutput,
    turn: p.turn ?? null,
    appliedRequests: p.appliedRequests,
    version: p.version,
  });

export const comparableRecord = (r: RequestRecord): unknown =>
  withoutTimestamps({ requestId: r.requestId, status: r.status, result: r.result, error: r.error });

export interface ReplayOptions {
  documents: InMemoryDocumentStore;
  bundled?: DocumentLayer;
  renderer?: TemplateRenderer;
}

/**
 * Applies `messages` one at a time, in order, to a fresh copy of `initial` on in-memory stores,
 * as a lane that never fails would.
 */
export async function serialReplay(
  initial: Process,
  messages: readonly LaneMessage[],
  options: ReplayOptions,
): Promise<{ process: Process; records: Map<string, RequestRecord> }> {
  const processes = new InMemoryProcessStore();
  const requests = new InMemoryRequestStore({ sleep: async () => {} });
  const app = createSkillsApp({
    documents: options.documents,
    bundled: options.bundled ?? new EmptyLayer(),
    processes,
    requests,
    lane: new InMemoryLane(),
    renderer: options.renderer ?? new FakeRenderer(),
    logger: { warn: () => undefined },
  });
  await processes.create(structuredClone(initial));
  const records = new Map<string, RequestRecord>();
  for (const message of messages) {
    await requests.putQueued(message.tenant, message.processId, message.requestId, message.kind);
    await app.applyLaneMessage(message, { messageId: message.requestId, groupId: undefined, receiveCount: 1 });
    const record = await requests.get(message.tenant, message.processId, message.requestId);
    if (record) records.set(message.requestId, record);
  }
  const process = await processes.get(initial.tenant, initial.processId);
  if (!process) throw new Error(`Replay lost process ${initial.processId}`);
  return { process, records };
}
