import { execFile } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { HANDLER_FILE } from "../infra/lambda-bundle.js";
import { FUNCTION_SETTINGS } from "../infra/skills-stack.js";
import { writeLambdaAsset } from "../infra/write-lambda-asset.js";
import { startEmulators } from "../infra/local/local-emulators.js";
import { localEnvironment } from "../infra/local/local-environment.js";
import { createLocalResources, localClients } from "../infra/local/local-resources.js";
import { S3DocumentStore } from "../shared/documents/s3-document-store.js";
import { laneGroupIdOf } from "../shared/lanes/lane-identity.js";
import type { LaneMessage } from "../shared/lanes/lane-message.js";
import { DynamoDBRequestStore } from "../shared/processes/dynamodb-request-store.js";
import { AwsRequestCounter } from "../test/support/aws-request-counter.js";
import { REPETITIONS } from "./bench-mode.js";
import { repeated, type BenchRow } from "./bench-table.js";
import { seed, subject } from "./catalogue-bench.js";
import { shippedLaneWorker } from "./shipped-lane-worker.js";

const execFileAsync = promisify(execFile);
/** Catalogue sizes measured (issue 27: flat cost at any size); COLD_TURN_SKILLS=1000 runs one. */
const SIZES = (process.env.COLD_TURN_SKILLS ?? "100,1000,10000").split(",").map(Number);
const TENANT = "coldturn";
const USER = { login: "bench" };
const credentials = { accessKeyId: "bench", secretAccessKey: "bench" };

/**
 * The lane-worker bundle as deployed, in a fresh Node process each time, against the emulators:
 * import (cold init) and then its first `turn.compose` record, whose catalogue (1 000 skills) is
 * listed and read from S3. Reported: import → first turn applied.
 */
export async function benchColdTurn(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const size of SIZES) rows.push(...(await benchColdTurnAt(size)));
  return rows;
}

/**
 * A pass-through HTTP proxy in front of the S3 emulator that counts requests: the cold instance is
 * another process, so the SDK middleware counter cannot see its requests.
 */
async function countingS3Proxy(
  target: string,
): Promise<{ url: string; count: () => number; reset: () => void; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", (error) => res.destroy(error));
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => requests,
    reset: () => void (requests = 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function benchColdTurnAt(SKILLS: number): Promise<BenchRow[]> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const emulators = await startEmulators({ host: "127.0.0.1" });
  const clients = localClients(emulators.endpoints, "us-east-1", credentials);
  const dir = mkdtempSync(join(tmpdir(), "skills-cold-turn-"));
  const s3Proxy = await countingS3Proxy(emulators.endpoints.s3);
  try {
    const resources = await createLocalResources(
      clients,
      { bucketName: "cold-turn", tableName: "cold-turn", laneQueueBaseName: "cold-turn-lane" },
      { region: "us-east-1", laneVisibilityTimeoutSeconds: 30, laneMaxReceiveCount: 5 },
    );
    await seed(new S3DocumentStore({ client: clients.s3, bucket: resources.bucketName }), TENANT, SKILLS);
    const worker = shippedLaneWorker({ emulators, resources, region: "us-east-1", credentials, counter: new AwsRequestCounter() });
    const { processId } = await subject(worker.app, TENANT, "cold", []);
    worker.restore();
    const requests = new DynamoDBRequestStore(clients.dynamodb, resources.tableName);
    writeLambdaAsset("lane-worker", dir, FUNCTION_SETTINGS["lane-worker"]);
    const outfile = join(dir, HANDLER_FILE);
    const env = {
      ...process.env,
      ...localEnvironment({
        emulators: { ...emulators, endpoints: { ...emulators.endpoints, s3: s3Proxy.url } },
        resources,
        region: "us-east-1",
        credentials,
        managementEndpoint: "http://127.0.0.1:9",
        jwtSecret: "bench-secret",
      }),
      SKILLS_BUNDLED_DIR: join(dir, "bundled"),
      POWERTOOLS_LOG_LEVEL: process.env.COLD_TURN_LOG_LEVEL ?? "SILENT",
      // As deployed: no Node flags (a bundle maps its stack traces itself); nothing inherited from tsx.
      NODE_OPTIONS: "",
    };
    // COLD_TURN_CPU_PROF=<dir>: one V8 CPU profile per cold process (what the first turn spends its time on);
    // with SKILLS_PROFILE_BUILD=1 the bundle is not minified, so the profile names our functions.
    const profiling = process.env.COLD_TURN_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.COLD_TURN_CPU_PROF}`] : [];
    const samples: number[] = [];
    const s3Requests: number[] = [];
    for (let run = 0; run < REPETITIONS; run++) {
      const message: LaneMessage = {
        requestId: randomUUID(),
        processId,
        tenant: TENANT,
        user: USER,
        kind: "turn.compose",
        payload: { turnId: randomUUID(), message: "please review the deploy to staging" },
        enqueuedAt: new Date().toISOString(),
      };
      await requests.putQueued(TENANT, processId, message.requestId, message.kind);
      const record = {
        messageId: message.requestId,
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: "1", MessageGroupId: laneGroupIdOf(message) },
      };
      const probe = [
        "const started = performance.now();",
        `const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)});`,
        `const response = await handler({ Records: [${JSON.stringify(record)}] }, { functionName: "lane-worker", getRemainingTimeInMillis: () => 60000 });`,
        "const elapsed = performance.now() - started;",
        "if (response.batchItemFailures.length > 0) { console.error(JSON.stringify(response)); process.exit(2); }",
        "process.stdout.write(String(elapsed)); process.exit(0);",
      ].join(" ");
      s3Proxy.reset();
      // Asynchronously: the emulators answer from this process's event loop.
      const result = await execFileAsync(process.execPath, [...profiling, "--input-type=module", "-e", probe], {
        cwd: dir,
        env,
        encoding: "utf8",
        timeout: 120_000,
      });
      const elapsed = Number.parseFloat(result.stdout);
      if (!Number.isFinite(elapsed)) throw new Error(`cold turn printed no time: ${result.stderr.slice(0, 2000)}`);
      if (process.env.COLD_TURN_LOG_LEVEL) console.error(result.stderr.slice(0, 3000), result.stdout.slice(0, 3000));
      samples.push(elapsed);
      s3Requests.push(s3Proxy.count());
    }
    return [
      {
        metric: `cold_first_turn_ms_lane-worker_${SKILLS}`,
        ...repeated(samples),
        baseline: null,
        unit: "ms",
        note: `lane-worker bundle, fresh node: import + first turn.compose, catalogue of ${SKILLS} skills from the level snapshot (the first run lists, reads and writes it)`,
      },
      {
        metric: `cold_first_turn_s3_requests_${SKILLS}`,
        ...repeated(s3Requests),
        baseline: null,
        unit: "",
        note: `S3 requests of that cold first turn at ${SKILLS} skills (counted by a proxy in front of the emulator; the first run lists and writes the snapshot)`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await s3Proxy.close();
    clients.destroy();
    await emulators.stop();
  }
}
