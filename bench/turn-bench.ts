import { availableParallelism } from "node:os";
import { startLocalStack } from "../infra/local/local-stack.js";
import type { LocalStack } from "../infra/local/local-stack.js";
import { quiet } from "./quiet-stack-logger.js";
import { tallySdkRequests } from "../test/support/sdk-request-tally.js";
import { median, percentile, repeated } from "./bench-table.js";
import type { BenchRow } from "./bench-table.js";
import { QUICK } from "./bench-mode.js";

/**
 * A whole turn as a caller pays it (issue 31): `POST …/turns` with `Prefer: wait` on the local
 * stack (the gateway, the real handlers, dynalite and fauxqs, the SQS poller as event source),
 * answered with the composed Turn. Requests are counted at the clients of this process (every
 * function runs in it); the poller's empty long polls are no turn's cost and are left out.
 */

const TENANT = "bench";
const PROJECT = "demo";
const WAIT = 10;
// Three slices or windows even with --quick: fewer is not a spread (bench-table.ts, MIN_RUNS).
const RUNS = 3;
const COUNTED_TURNS = 20;
const LATENCY_TURNS = QUICK ? 40 : 100;
const WINDOW_MS = QUICK ? 1000 : 2000;
const CALLERS_PER_PROCESS = 4;

class BenchFailure extends Error {}

interface Caller {
  call(
    method: string,
    path: string,
    body?: unknown,
    wait?: number,
    accept?: readonly number[],
  ): Promise<{ status: number; json: Record<string, unknown> }>;
}

function caller(stack: LocalStack, token: string): Caller {
  return {
    async call(method, path, body, wait, accept) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers["content-type"] = "application/json";
      if (wait !== undefined) headers.prefer = `wait=${wait}`;
      const response = await fetch(`${stack.httpUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      // A waited call that did not finish in time (202) would measure the wrong thing.
      const expected = accept ?? (wait === undefined ? [200, 201, 202] : [200, 201]);
      if (!expected.includes(response.status))
        throw new BenchFailure(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
      return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
    },
  };
}

interface Owned {
  api: Caller;
  path: string;
}

/** `n` processes, each of its own user (so each has its own `Prefer: wait` slots). */
async function spawnProcesses(stack: LocalStack, n: number, label: string): Promise<Owned[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const api = caller(stack, await stack.token({ tenant: TENANT, login: `${label}-${i}`, projects: [PROJECT] }));
      const spawned = await api.call("POST", `/brain/${TENANT}/sessions/${label}/processes`, { recipe: "default", projectId: PROJECT });
      return { api, path: `/brain/${TENANT}/processes/${String(spawned.json.processId)}` };
    }),
  );
}

const compose = (owned: Owned, i: number) =>
  owned.api.call("POST", `${owned.path}/turns`, { message: `please look at the typescript changes ${i}` }, WAIT);

interface Throughput {
  turnsPerS: number;
  /** CPU of the whole process (every thread) per turn answered, during the window. */
  cpuMsPerTurn: number;
}

/** Turns answered per second while `callers` callers per process compose one turn after another. */
async function turnsPerSecond(processes: readonly Owned[], callers: number): Promise<Throughput> {
  let done = 0;
  const until = performance.now() + WINDOW_MS;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    processes.flatMap((owned) =>
      Array.from({ length: callers }, async () => {
        while (performance.now() < until) {
          await compose(owned, done);
          done += 1;
        }
      }),
    ),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { turnsPerS: done / ((performance.now() - started) / 1000), cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / done };
}

/**
 * Lane applications per second (ACTIVATE and CLEAR alternating, as bench/lane-bench.ts): each
 * process's requests are posted without waiting, the last one with `Prefer: wait` (the lane is
 * FIFO per process, so it answers when all of them are applied).
 */
async function activationsPerSecond(processes: readonly Owned[], total: number): Promise<number> {
  const perProcess = Math.max(2, Math.ceil(total / processes.length));
  const started = performance.now();
  await Promise.all(
    processes.map(async (owned) => {
      for (let i = 0; i < perProcess; i++) {
        const body = { command: i % 2 ? "CLEAR" : "ACTIVATE", skillName: "typescript-style" };
        const last = i === perProcess - 1;
        const answer = await owned.api.call("POST", `${owned.path}/skill`, body, last ? 20 : undefined, last ? [200, 202] : undefined);
        // A lane slower than the wait (a loaded machine) answers 202: read the request until it is settled.
        while (last && answer.json.status === "QUEUED") {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const read = await owned.api.call("GET", `${owned.path}/requests/${String(answer.json.requestId)}`);
          if (read.json.status !== "QUEUED") break;
        }
      }
    }),
  );
  return (perProcess * processes.length) / ((performance.now() - started) / 1000);
}

export async function benchTurns(): Promise<BenchRow[]> {
  process.env.POWERTOOLS_LOG_LEVEL ??= "ERROR";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const tally = tallySdkRequests();
  const stack = await startLocalStack({ port: 0, logger: quiet });
  try {
    const [one] = await spawnProcesses(stack, 1, "one");
    const ten = await spawnProcesses(stack, 10, "ten");
    // Warm every function (module load, sandbox worker, catalogue) and the processes' levels.
    for (let i = 0; i < 5; i++) await compose(one!, i);
    await Promise.all(ten.map((owned) => compose(owned, 0)));

    // Requests: one turn after another, each counted once the lane has deleted its message.
    const dynamodb: number[] = [];
    const sqs: number[] = [];
    for (let i = 0; i < COUNTED_TURNS; i++) {
      await stack.laneIdle();
      tally.reset();
      await compose(one!, i);
      await stack.laneIdle({ pollIntervalMs: 5 });
      const counted = tally.snapshot();
      // laneIdle's own GetQueueAttributes are the bench's, not the turn's.
      sqs.push(tally.total("SQS") - (counted["SQS.GetQueueAttributes"] ?? 0));
      dynamodb.push(tally.total("DynamoDB"));
    }
    const lastTurn = tally.snapshot();

    // CPU and latency: one caller, one turn after another (the whole stack runs in this process),
    // in RUNS slices: each slice's p50 and CPU per turn is one repetition.
    const p50Runs: number[] = [];
    const cpuRuns: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const from = Math.floor((r * LATENCY_TURNS) / RUNS);
      const turns = Math.floor(((r + 1) * LATENCY_TURNS) / RUNS) - from;
      const latencies: number[] = [];
      const cpuBefore = process.cpuUsage();
      for (let i = from; i < from + turns; i++) {
        const start = performance.now();
        await compose(one!, i);
        latencies.push(performance.now() - start);
      }
      const cpu = process.cpuUsage(cpuBefore);
      cpuRuns.push((cpu.user + cpu.system) / 1000 / turns);
      p50Runs.push(percentile(latencies, 50));
    }

    const turns1: number[] = [];
    const turns10: Throughput[] = [];
    for (let r = 0; r < RUNS; r++) {
      turns1.push((await turnsPerSecond([one!], CALLERS_PER_PROCESS)).turnsPerS);
      turns10.push(await turnsPerSecond(ten, CALLERS_PER_PROCESS));
    }
    const cpu10 = turns10.map((run) => run.cpuMsPerTurn);

    const activationRows: BenchRow[] = [];
    for (const n of [1, 10, 100]) {
      const owned = n === 1 ? [one!] : n === 10 ? ten : await spawnProcesses(stack, n, "act");
      const runs: number[] = [];
      for (let r = 0; r < RUNS; r++) runs.push(await activationsPerSecond(owned, n === 100 ? 300 : 200));
      activationRows.push({
        metric: `activations_per_s_${n}`,
        ...repeated(runs),
        baseline: null,
        unit: "1/s",
        note: `${n} process(es) over HTTP, ACTIVATE/CLEAR alternating, posted without waiting; the last waits`,
      });
    }

    return [
      {
        metric: "turn_http_dynamodb_requests",
        ...repeated(dynamodb),
        baseline: null,
        unit: "",
        note: `DynamoDB requests of one turn with Prefer: wait (caller and worker), ${COUNTED_TURNS} turns; last: ${JSON.stringify(lastTurn)}`,
      },
      {
        metric: "turn_http_sqs_requests",
        ...repeated(sqs),
        baseline: null,
        unit: "",
        note: "SQS requests of that turn: send, the receive that got it, the delete (empty long polls left out)",
      },
      {
        metric: "cpu_ms_per_turn",
        ...repeated(cpuRuns),
        baseline: null,
        unit: "ms",
        note: `CPU of the whole local stack (this process: gateway, functions, emulators) per turn, ${LATENCY_TURNS} turns one after another in ${RUNS} slices`,
      },
      {
        metric: "turn_http_p50_ms_1",
        ...repeated(p50Runs),
        baseline: null,
        unit: "ms",
        note: `one caller, one process, turns one after another, ${LATENCY_TURNS} turns in ${RUNS} slices`,
      },
      {
        metric: "turns_per_s_1",
        ...repeated(turns1),
        baseline: null,
        unit: "1/s",
        note: `one process, ${CALLERS_PER_PROCESS} callers each composing with Prefer: wait, ${WINDOW_MS} ms windows`,
      },
      {
        metric: "turns_per_s_10",
        ...repeated(turns10.map((run) => run.turnsPerS)),
        baseline: null,
        unit: "1/s",
        note: `10 processes of 10 users, ${CALLERS_PER_PROCESS} callers each, ${WINDOW_MS} ms windows`,
      },
      {
        metric: "cpu_ms_per_turn_10",
        ...repeated(cpu10),
        baseline: null,
        unit: "ms",
        // A rough ceiling, not a prediction: CPU per turn changes with the load itself.
        note: `CPU of the whole local stack per turn during the turns_per_s_10 windows (every thread); at that cost ${availableParallelism()} cores, all of them busy, would answer at most ~${(
          (availableParallelism() * 1000) /
          median(cpu10)
        ).toFixed(0)} turns/s`,
      },
      ...activationRows,
    ];
  } finally {
    await stack.close();
    tally.restore();
  }
}
