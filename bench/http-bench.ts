import { startLocalStack } from "../infra/local/local-stack.js";
import type { LocalStack } from "../infra/local/local-stack.js";
import { quiet } from "./quiet-stack-logger.js";
import { percentile, timeMany } from "./bench-table.js";
import type { BenchRow } from "./bench-table.js";

/**
 * End-to-end HTTP latency on the local stack (`npm start`'s gateway, real handlers, dynalite and
 * fauxqs, the SQS poller as event source): what a caller sees, client to answer, on keep-alive
 * connections. Activate and compose go through the process lane and wait with `Prefer: wait=5`.
 */

const TENANT = "bench";
const PROJECT = "demo";
const WARMUP = 5;
const LIST_SAMPLES = 200;
const LANE_SAMPLES = 60;

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

const rows = (name: string, samples: readonly number[], note: string): BenchRow[] => [
  { metric: `${name}_http_p50_ms`, ours: percentile(samples, 50), baseline: null, unit: "ms", note },
  { metric: `${name}_http_p99_ms`, ours: percentile(samples, 99), baseline: null, unit: "ms", note },
];

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

    const listSamples = await timeMany(LIST_SAMPLES, list);
    // A fresh activation each time: the clear in between is not measured.
    const activateSamples: number[] = [];
    for (let i = 0; i < LANE_SAMPLES; i++) {
      activateSamples.push(...(await timeMany(1, activate)));
      await clear();
    }
    await activate();
    const composeSamples = await timeMany(LANE_SAMPLES, compose);

    return [
      ...rows("list", listSamples, `GET skills/effective, ${LIST_SAMPLES} calls`),
      ...rows("activate", activateSamples, `POST …/skill ACTIVATE with Prefer: wait=5 (lane), ${LANE_SAMPLES} calls`),
      ...rows(
        "compose",
        composeSamples,
        `POST …/turns with Prefer: wait=5 (lane; code-review active, trigger hook on the message), ${LANE_SAMPLES} calls`,
      ),
    ];
  } finally {
    await stack.close();
  }
}
