import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpDocumentsApi } from "../cli/documents-client.js";
import { runPush } from "../cli/push.js";
import { startLocalStack } from "../infra/local/local-stack.js";
import { quiet } from "./quiet-stack-logger.js";
import { localClients } from "../infra/local/local-resources.js";
import { DocumentService } from "../shared/app/document-service.js";
import { DynamoDBLevelUsage } from "../shared/catalogue/dynamodb-level-usage.js";
import { mapWithConcurrency } from "../shared/documents/cascade-layers.js";
import { S3DocumentStore } from "../shared/documents/s3-document-store.js";
import { skillMd, skillPath } from "../test/support/skill-fixtures.js";
import { QUICK, REPETITIONS } from "./bench-mode.js";
import { median, repeated, type BenchRow } from "./bench-table.js";

/** Level sizes measured (issue 27: a write costs the same at any size); PUT_LEVEL_SIZES=10,1000 runs fewer. */
const SIZES = (process.env.PUT_LEVEL_SIZES ?? "10,1000,10000").split(",").map(Number);
const PUSH_SKILLS = Number(process.env.PUSH_SKILLS ?? (QUICK ? 100 : 1000));
const TENANT = "writes";
const PUTS = Math.max(REPETITIONS * 4, 20);
/** One push of 1 000 skills takes 11-20 s on a shared machine: 3 runs (not REPETITIONS) give its spread. */
const PUSH_RUNS = 3;

/**
 * Through the shipped wiring (the local stack's http-documents function over the emulators): the
 * p50 of a SKILL.md PUT into a level already holding N documents (seeded straight into the bucket;
 * the first PUT seeds the level's counters and is not timed), and `skills push` of a folder of
 * skills (the CLI's own push, 8 at a time) into an empty level.
 */
export async function benchDocumentWrites(): Promise<BenchRow[]> {
  process.env.POWERTOOLS_LOG_LEVEL ??= "ERROR";
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const stack = await startLocalStack({ port: 0, logger: quiet, s3Events: false });
  const clients = localClients(stack.endpoints, stack.region, stack.credentials);
  const store = new S3DocumentStore({ client: clients.s3, bucket: stack.resources.bucketName });
  const dir = mkdtempSync(join(tmpdir(), "skills-push-bench-"));
  const rows: BenchRow[] = [];
  try {
    // Every level is seeded and warmed first, then PUTs go round the levels in turn: the stack's
    // warm-up and the machine's load swings fall on every size alike, not on the one measured first.
    const levels: SeededLevel[] = [];
    for (const size of SIZES) levels.push(await seededLevel(stack, store, clients, size));
    for (const level of levels) for (let i = 0; i < 5; i++) await level.put(i);
    const samples = new Map<number, number[]>(SIZES.map((size) => [size, []]));
    for (let round = 0; round < PUTS; round++) {
      for (let k = 0; k < levels.length; k++) {
        const level = levels[(round + k) % levels.length]!;
        const started = performance.now();
        await level.put(round + 1);
        samples.get(level.size)!.push(performance.now() - started);
      }
    }
    for (const size of SIZES) {
      rows.push({
        metric: `put_skill_p50_ms_level_${size}`,
        ...repeated(samples.get(size)!),
        baseline: null,
        unit: "ms",
        note: `HTTP PUT of a SKILL.md with a PATTERN trigger into a level of ${size} documents (an edit of one of them; local stack, per-level counters; levels measured in turn)`,
      });
    }
    const smallest = Math.min(...SIZES);
    const largest = Math.max(...SIZES);
    if (largest > smallest) {
      const ratios = samplesRatio(samples.get(largest)!, samples.get(smallest)!);
      rows.push({
        metric: `put_skill_p50_ratio_${largest}_to_${smallest}`,
        ...repeated(ratios),
        baseline: null,
        unit: "x",
        note: `p50 of a PUT into ${largest} documents ÷ p50 into ${smallest}, over rounds of ${Math.max(4, Math.floor(PUTS / 4))} PUTs each (issue 27: ≤ 1.5)`,
      });
    }
    const skillsDir = join(dir, "skills");
    for (let i = 0; i < PUSH_SKILLS; i++) {
      mkdirSync(join(skillsDir, `pushed-${i}`), { recursive: true });
      writeFileSync(join(skillsDir, `pushed-${i}`, "SKILL.md"), skillMd({ description: `Pushed skill ${i}` }));
    }
    const pushSeconds: number[] = [];
    for (let r = 0; r < PUSH_RUNS; r++) {
      const level = `pushed-${r}`;
      const token = await stack.token({ tenant: TENANT, login: "bench", projects: [level], roles: ["tenant-admin"] });
      const api = httpDocumentsApi({ baseUrl: new URL(stack.httpUrl), token, tenant: TENANT, level });
      const started = performance.now();
      const summary = await runPush({ dir: skillsDir, api, io: { out: () => undefined, err: () => undefined } });
      pushSeconds.push((performance.now() - started) / 1000);
      if (summary.failed.length + summary.refused.length > 0 || summary.uploaded.length !== PUSH_SKILLS)
        throw new Error(`push did not upload every skill: ${JSON.stringify({ failed: summary.failed[0], refused: summary.refused[0] })}`);
    }
    rows.push({
      metric: `push_s_${PUSH_SKILLS}`,
      ...repeated(pushSeconds),
      baseline: null,
      unit: "s",
      note: `skills push of ${PUSH_SKILLS} skills into an empty level (local stack, 8 at a time; ${PUSH_RUNS} runs, a fresh level each)`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    clients.destroy();
    await stack.close();
  }
  return rows;
}

interface SeededLevel {
  size: number;
  /** Times nothing: an edit of seeded skill `i mod size`, now with a PATTERN trigger. */
  put(i: number): Promise<void>;
}

/**
 * A level holding exactly `size` documents: seeded straight into the bucket, its counters seeded
 * by one PUT in process. Edits keep the count, so 10 000 stays within the default cap per level.
 * Seeding a never-counted level lists it and reads every SKILL.md once: at 10 000 documents on a
 * loaded machine that outlasts the function's 30 s timeout, so it is done here, with the same
 * adapters (docs/decisions.md: the seed is a known one-time cost).
 */
async function seededLevel(
  stack: Awaited<ReturnType<typeof startLocalStack>>,
  store: S3DocumentStore,
  clients: ReturnType<typeof localClients>,
  size: number,
): Promise<SeededLevel> {
  const project = `level-${size}`;
  const token = await stack.token({ tenant: TENANT, login: "bench", projects: [project], roles: ["tenant-admin"] });
  await mapWithConcurrency(
    Array.from({ length: size }, (_, i) => i),
    32,
    (i) => store.put(TENANT, project, skillPath(`seeded-${i}`), skillMd()),
  );
  await new DocumentService(store, undefined, undefined, new DynamoDBLevelUsage(clients.dynamodb, stack.resources.tableName)).put(
    { login: "bench", tenant: TENANT, projects: [project], roles: ["tenant-admin"] },
    TENANT,
    project,
    skillPath("seeded-0"),
    new TextEncoder().encode(skillMd()),
  );
  return {
    size,
    put: async (i) => {
      const name = `seeded-${i % size}`;
      const response = await fetch(`${stack.httpUrl}/brain/${TENANT}/projects/${project}/documents/${skillPath(name)}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "text/markdown" },
        body: skillMd({ extra: `triggers:\n  - type: PATTERN\n    pattern: '${name} (now|later)'` }),
      });
      if (!response.ok) throw new Error(`PUT ${name}: ${response.status} ${await response.text()}`);
    },
  };
}

/** Ratios of the p50s of `a` and `b` over consecutive rounds (at least 4 samples each): the ratio's own spread. */
function samplesRatio(a: readonly number[], b: readonly number[]): number[] {
  const chunk = Math.max(4, Math.floor(a.length / 4));
  const ratios: number[] = [];
  for (let start = 0; start + chunk <= Math.min(a.length, b.length); start += chunk)
    ratios.push(median(a.slice(start, start + chunk)) / median(b.slice(start, start + chunk)));
  return ratios;
}
