import { startLocalStack } from "../infra/local/local-stack.js";
import type { LocalStack } from "../infra/local/local-stack.js";
import { quiet } from "./quiet-stack-logger.js";
import { REPETITIONS } from "./bench-mode.js";
import { percentile, repeated, timeMany } from "./bench-table.js";
import type { BenchRow } from "./bench-table.js";

/**
 * End-to-end HTTP latency on the local stack (`npm start`'s gateway, real handlers, dynalite and
 * fauxqs, the SQS poller as event source): what a caller sees, client to answer, on keep-alive
 * connections. Activate and compose go through the process lane and wait with `Prefer: wait=5`.
 * Each p50 and p99 is taken per batch of calls and reported as the batches' median and spread.
 */

const TENANT = "bench";
const PROJECT = "demo";
const WARMUP = 5;
/** Calls per batch: enough for a p99 of its own (the second-largest of 100). */
const BATCH = 100;
/** A lane call takes 25-60 ms (activate's unmeasured clear as much again): 3 batches, not REPETITIONS, keep the section near 30 s. */
const LANE_RUNS = 3;

class BenchFailure extends Error {}

interface Client {
  call(method: string, path: string, body?: unknown, wait?: number): Promise<unknown>;
}

function client(stack: LocalStack, token: string): Client {
  return {
    async call(method, path, body, wait) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers["content-type"] = "application/json";
      if (wait !== undefined) headers.prefer = `wait=${wait}`;
      const response = await fetch(`${stack.httpUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      // A waited lane call that did not finish in time (202) would measure the wrong thing.
      if (response.status !== 200 && response.status !== 201)
        throw new BenchFailure(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
      return JSON.parse(text) as unknown;
    },
  };
}

const rows = (name: string, batches: readonly number[][], note: string): BenchRow[] => {
  const batchNote = `${note}; ${batches.length} batches of ${BATCH} calls, p50/p99 per batch`;
  return [
    { metric: `${name}_http_p50_ms`, ...repeated(batches.map((b) => percentile(b, 50))), baseline: null, unit: "ms", note: batchNote },
    { metric: `${name}_http_p99_ms`, ...repeated(batches.map((b) => percentile(b, 99))), baseline: null, unit: "ms", note: batchNote },
  ];
};

export async function benchHttp(): Promise<BenchRow[]> {
  process.env.POWERTOOLS_LOG_LEVEL ??= "ERROR";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const stack = await startLocalStack({ port: 0, logger: quiet });
  try {
    const token = await stack.token({ tenant: TENANT, login: "bench", projects: [PROJECT] });
    const api = client(stack, token);
    const spawned = (await api.call("POST", `/brain/${TENANT}/sessions/bench/processes`, { recipe: "default", projectId: PROJECT })) as {
      processId: string;
    };
    const processPath = `/brain/${TENANT}/processes/${spawned.processId}`;

    const list = () => api.call("GET", `/brain/${TENANT}/skills/effective?projectId=${PROJECT}`);
    const activate = () => api.call("POST", `${processPath}/skill`, { command: "ACTIVATE", skillName: "code-review" }, 5);
    const clear = () => api.call("POST", `${processPath}/skill`, { command: "CLEAR", skillName: "code-review" }, 5);
    const compose = () => api.call("POST", `${processPath}/turns`, { message: "please look at the typescript changes" }, 5);

    // Warm every function (module load, sandbox worker, catalogue) before measuring.
    for (let i = 0; i < WARMUP; i++) {
      await list();
      await activate();
      await compose();
      await clear();
    }

    // Batches of the three calls in turn, so the machine's load swings fall on each alike.
    const listBatches: number[][] = [];
    const activateBatches: number[][] = [];
    const composeBatches: number[][] = [];
    for (let r = 0; r < REPETITIONS; r++) {
      listBatches.push(await timeMany(BATCH, list));
      if (r >= LANE_RUNS) continue;
      // A fresh activation each time: the clear in between is not measured.
      const activateSamples: number[] = [];
      for (let i = 0; i < BATCH; i++) {
        activateSamples.push(...(await timeMany(1, activate)));
        await clear();
      }
      activateBatches.push(activateSamples);
      await activate();
      composeBatches.push(await timeMany(BATCH, compose));
      await clear();
    }

    return [
      ...rows("list", listBatches, "GET skills/effective"),
      ...rows("activate", activateBatches, "POST …/skill ACTIVATE with Prefer: wait=5 (lane)"),
      ...rows("compose", composeBatches, "POST …/turns with Prefer: wait=5 (lane; code-review active, trigger hook on the message)"),
    ];
  } finally {
    await stack.close();
  }
}
