import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDefaultSandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { tallySdkRequests } from "../support/sdk-request-tally.js";
import type { SdkRequestTally } from "../support/sdk-request-tally.js";
import { ApiClient } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * What a whole turn costs as a caller pays it (issue 31): `POST …/turns` with `Prefer: wait` on
 * the local stack, through the HTTP function, the lane (SQS FIFO), the lane worker and back.
 * Every DynamoDB and SQS request of the stack's clients is counted (all functions run in this
 * process); the poller's empty polls are no turn's cost.
 */

const TENANT = "turns";
const PROJECT = "work";
const WAIT = 15;
const TURNS = 5;

let stack: LocalStack;
let api: ApiClient;
let tally: SdkRequestTally;

beforeAll(async () => {
  process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
  tally = tallySdkRequests();
  stack = await startLocalStack({ s3Events: false });
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "ada", projects: [PROJECT] }));
});

afterAll(async () => {
  tally?.restore();
  await stack?.close();
  await getDefaultSandboxPool().close();
});

/** The requests of one waited turn, counted once the lane has deleted its message. */
async function turnCost(processId: string, message: string): Promise<Record<string, number>> {
  await stack.laneIdle();
  tally.reset();
  const answer = await api.compose(TENANT, processId, { message }, WAIT);
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  await stack.laneIdle({ pollIntervalMs: 5 });
  const counted = tally.snapshot();
  // laneIdle's own queue reads are the test's.
  delete counted["SQS.GetQueueAttributes"];
  delete counted["SQS.ReceiveMessage(empty)"];
  return counted;
}

const sum = (counted: Record<string, number>, service: string): number =>
  Object.entries(counted)
    .filter(([key]) => key.startsWith(`${service}.`))
    .reduce((n, [, count]) => n + count, 0);

describe("a whole HTTP turn's requests", () => {
  it("a waited compose costs at most 6 DynamoDB and 3 SQS requests", async () => {
    // Prepare: a process and a first turn (cold catalogue, cold poll timing)
    const spawned = await api.spawn(TENANT, "costs", { recipe: "default", projectId: PROJECT });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;
    for (let i = 0; i < 3; i++) await turnCost(processId, `warm up ${i}`);

    // Act
    const costs: Record<string, number>[] = [];
    for (let i = 0; i < TURNS; i++) costs.push(await turnCost(processId, `turn ${i}`));

    // Assess: SQS is the send, the receive that got it and the delete, every time. A caller's
    // read of its request that came too early costs one BatchGetItem more, and a request still
    // queued after the learned first wait takes a wait slot (one PutItem, one DeleteItem): a loaded
    // machine slows the lane. The rest is fixed, and most turns need neither.
    const withoutExtraPolls = costs.map(
      (c) => sum(c, "DynamoDB") - Math.max(0, (c["DynamoDB.BatchGetItem"] ?? 0) - 1) - 2 * (c["DynamoDB.DeleteItem"] ?? 0),
    );
    for (const cost of costs) expect(sum(cost, "SQS"), JSON.stringify(cost)).toBeLessThanOrEqual(3);
    for (const [i, cost] of costs.entries()) expect(withoutExtraPolls[i], JSON.stringify(cost)).toBeLessThanOrEqual(6);
    const withinSix = costs.filter((c) => sum(c, "DynamoDB") <= 6);
    expect(withinSix.length, JSON.stringify(costs)).toBeGreaterThan(TURNS / 2);
  });
});
