import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { S3Client } from "@aws-sdk/client-s3";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { LaneMessage } from "../../shared/lanes/lane-message.js";
import { getDefaultSandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { connectionRefused } from "../support/fault-injection.js";
import { ApiClient, errorOf, skillMd } from "./support/api-client.js";
import type { Process, Turn } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { waitFor } from "./support/wait-for.js";

/**
 * S3 down while a turn is composed, on the local stack with the real handlers. Every S3 call of
 * every function fails the way an unreachable endpoint does (ECONNREFUSED).
 *
 * - A warm lane worker composes the turn from its warm catalogue, without S3.
 * - A cold one (a fresh container: the real handler module loaded anew for every invocation) has
 *   no catalogue: the lane retries the turn up to the queue's receive limit, then answers the
 *   caller with a typed, retryable 503 SERVICE_UNAVAILABLE. Nothing of the process is consumed,
 *   so the first turn after S3 is back gets it all.
 */

const TENANT = "s3down";
const PROJECT = "work";
const MAX_RECEIVES = 3;
const WAIT = 15;

let stack: LocalStack;
let api: ApiClient;
let sqs: SQSClient;

/** While set, S3 is unreachable for every client in this process (the stack runs in it). */
let outage: { remaining: number } | undefined;
let refused = 0;

type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
const LANE_WORKER_MODULE = new URL("../../functions/lane-worker/handler.ts", import.meta.url).href;
let coldWorkers = false;
let containers = 0;
let warmWorker: Promise<WorkerHandler> | undefined;

const loadWorker = async (href: string): Promise<WorkerHandler> => ((await import(href)) as { handler: WorkerHandler }).handler;

/** The real lane-worker function, from one warm container or from a new container per invocation. */
/** While set, the outage ends when this container starts (S3 is back for a redelivery). */
let outageEndsAtContainer: number | undefined;

async function laneWorker(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  if (coldWorkers) {
    const container = ++containers;
    if (outageEndsAtContainer !== undefined && container >= outageEndsAtContainer) outage = undefined;
    return (await loadWorker(`${LANE_WORKER_MODULE}?container=${container}`))(event, context);
  }
  warmWorker ??= loadWorker(LANE_WORKER_MODULE);
  return (await warmWorker)(event, context);
}

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
  const send = S3Client.prototype.send;
  vi.spyOn(S3Client.prototype, "send").mockImplementation(function (this: S3Client, ...args: Parameters<S3Client["send"]>) {
    if (outage !== undefined && outage.remaining > 0) {
      outage.remaining -= 1;
      refused += 1;
      return Promise.reject(connectionRefused());
    }
    return (send as (...a: unknown[]) => Promise<unknown>).apply(this, args);
  } as S3Client["send"]);
  // No S3 event emulation: its bucket listings would meet the injected outage and skew the counts.
  stack = await startLocalStack({
    handlers: { "lane-worker": laneWorker },
    lane: { retryDelaySeconds: 0, maxReceiveCount: MAX_RECEIVES },
    s3Events: false,
  });
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "ada", projects: [PROJECT], roles: ["tenant-admin"] }));
  sqs = new SQSClient({ region: stack.region, endpoint: stack.endpoints.sqs, credentials: stack.credentials });
  const saved = await api.putDocument(
    TENANT,
    "_tenant",
    "_vance/skills/kick/SKILL.md",
    skillMd("title: Kick\ndescription: Starts the work\nversion: 1.0.0\naction: Kick off.", "Kick-off body."),
  );
  expect(saved.status, saved.text).toBe(200);
});

afterEach(() => {
  outage = undefined;
  outageEndsAtContainer = undefined;
  coldWorkers = false;
});

afterAll(async () => {
  vi.restoreAllMocks();
  sqs?.destroy();
  await stack?.close();
  await getDefaultSandboxPool().close();
});

/** A process with the kick skill active and its action waiting in `pending`. */
async function processWithPendingAction(session: string): Promise<Process> {
  const spawned = await api.spawn(TENANT, session, { recipe: "default", projectId: PROJECT });
  expect(spawned.status, spawned.text).toBe(201);
  const activated = await api.steer(TENANT, spawned.json.processId, { command: "ACTIVATE", skillName: "kick" }, WAIT);
  expect(activated.status, activated.text).toBe(200);
  const process = await api.process(TENANT, spawned.json.processId);
  expect(process.json.pending.map((m) => m.text)).toEqual(["Kick off."]);
  return process.json;
}

async function deadLetters(): Promise<LaneMessage[]> {
  const out = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: stack.resources.deadLetterQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return (out.Messages ?? []).map((m) => JSON.parse(m.Body ?? "{}") as LaneMessage);
}

describe("S3 unavailable during a turn", () => {
  it("composes the turn from a warm lane worker's catalogue, without touching S3", async () => {
    // Prepare
    const before = await processWithPendingAction("warm");
    const refusedBefore = refused;
    outage = { remaining: Number.POSITIVE_INFINITY };

    // Act
    const turn = await api.compose(TENANT, before.processId, { message: "go" }, WAIT);

    // Assess
    expect(turn.status, turn.text.slice(0, 300)).toBe(200);
    expect((turn.json.result as Turn).messages.map((m) => m.text)).toEqual(["Kick off.", "go"]);
    expect((turn.json.result as Turn).skillSection).toContain("Kick-off body.");
    expect(refused).toBe(refusedBefore);
    expect((await api.process(TENANT, before.processId)).json).toMatchObject({ pending: [], version: before.version + 1 });
  });

  it("fails the turn of a cold lane worker with a typed, retryable 503 after the lane's retries, consuming nothing", async () => {
    // Prepare
    const before = await processWithPendingAction("cold");
    const [refusedBefore, containersBefore] = [refused, containers];
    coldWorkers = true;
    outage = { remaining: Number.POSITIVE_INFINITY };

    // Act
    const turn = await api.compose(TENANT, before.processId, { message: "go" }, WAIT);
    outage = undefined;

    // Assess: a clear answer, after the lane tried (each time in a new container) as often as the queue allows
    expect(turn.status, turn.text.slice(0, 300)).toBe(503);
    expect(errorOf(turn)).toEqual({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringMatching(new RegExp(`gave up after ${MAX_RECEIVES} deliveries because a backing service was unavailable`)),
    });
    expect(containers - containersBefore).toBe(MAX_RECEIVES);
    expect(refused - refusedBefore).toBeGreaterThanOrEqual(MAX_RECEIVES);
    const requestId = String(turn.headers["skills-request-id"]);
    const record = await api.requestStatus(TENANT, before.processId, requestId);
    expect(record.json).toMatchObject({ requestId, status: "FAILED", error: { code: "SERVICE_UNAVAILABLE" } });
    // Parked after the request is settled (and, the first time in a container, after the SQS client is loaded): waited for.
    const parked = await waitFor(
      async () => {
        const received = await deadLetters();
        return received.length > 0 && received;
      },
      10_000,
      "the parked record",
    );
    expect(parked.map((m) => m.requestId)).toEqual([requestId]);

    // Assess: nothing consumed or changed
    expect((await api.process(TENANT, before.processId)).json).toEqual(before);

    // Assess: with S3 back, the next turn gets the waiting action, once
    const retried = await api.compose(TENANT, before.processId, { message: "go again" }, WAIT);
    expect(retried.status, retried.text.slice(0, 300)).toBe(200);
    expect((retried.json.result as Turn).messages.map((m) => m.text)).toEqual(["Kick off.", "go again"]);
    expect((await api.process(TENANT, before.processId)).json).toMatchObject({ pending: [], version: before.version + 1 });
  });

  it("composes a cold lane worker's turn on a redelivery when S3 comes back before the lane gives up", async () => {
    // Prepare: S3 fails throughout the first delivery (a snapshot read that fails falls back to a
    // listing, so one refused call is absorbed), then is back for the redelivery
    const before = await processWithPendingAction("blip");
    const [refusedBefore, containersBefore] = [refused, containers];
    coldWorkers = true;
    outage = { remaining: Number.POSITIVE_INFINITY };
    outageEndsAtContainer = containersBefore + 2;

    // Act
    const turn = await api.compose(TENANT, before.processId, { message: "go" }, WAIT);

    // Assess
    expect(refused - refusedBefore).toBeGreaterThanOrEqual(1);
    expect(containers - containersBefore).toBe(2);
    expect(turn.status, turn.text.slice(0, 300)).toBe(200);
    expect((turn.json.result as Turn).messages.map((m) => m.text)).toEqual(["Kick off.", "go"]);
    expect((await api.process(TENANT, before.processId)).json).toMatchObject({ pending: [], version: before.version + 1 });
  });

  it("keeps serving warm reads, answers reads and writes that need S3 with 503, and is as before once S3 is back", async () => {
    // Prepare
    const process = await processWithPendingAction("reads");
    const [listed, preview] = [await api.effective(TENANT, PROJECT), await api.composition(TENANT, process.processId, "peek")];
    outage = { remaining: Number.POSITIVE_INFINITY };

    // Act
    const warm = [await api.effective(TENANT, PROJECT), await api.composition(TENANT, process.processId, "peek")];
    const cold = [
      await api.putDocument(TENANT, "_tenant", "notes/today.md", "# Today\n"),
      await api.getDocument(TENANT, "_tenant", "_vance/skills/kick/SKILL.md"),
    ];
    outage = undefined;

    // Assess
    expect(warm.map((r) => r.status)).toEqual([200, 200]);
    expect(warm[0]!.json).toEqual(listed.json);
    expect((warm[1]!.json as Turn).skillSection).toBe((preview.json as Turn).skillSection);
    for (const answer of cold) {
      expect(answer.status, answer.text).toBe(503);
      expect(errorOf(answer)?.code).toBe("SERVICE_UNAVAILABLE");
    }
    expect((await api.getDocument(TENANT, "_tenant", "notes/today.md")).status).toBe(404);
    expect((await api.effective(TENANT, PROJECT)).json).toEqual(listed.json);
    expect((await api.process(TENANT, process.processId)).json).toEqual(process);
  });
});
