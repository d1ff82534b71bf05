import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { randomUUID } from "node:crypto";
import { stringify } from "yaml";
import { createSkillsApp, type SkillsApp } from "../shared/app/skills-app.js";
import type { SkillsAppDeps } from "../shared/app/skills-domain.js";
import { DynamoDBCatalogueVersions } from "../shared/catalogue/dynamodb-catalogue-versions.js";
import { catalogueChangeNotifier, type DocumentChangeNotifier } from "../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../shared/catalogue/in-memory-catalogue-versions.js";
import { mapWithConcurrency } from "../shared/documents/cascade-layers.js";
import type { DocumentStore } from "../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../shared/documents/in-memory-document-store.js";
import { S3DocumentStore } from "../shared/documents/s3-document-store.js";
import { InMemoryLane } from "../shared/lanes/in-memory-lane.js";
import type { LaneMessage } from "../shared/lanes/lane-message.js";
import { DynamoDBProcessStore } from "../shared/processes/dynamodb-process-store.js";
import { DynamoDBRequestStore } from "../shared/processes/dynamodb-request-store.js";
import { InMemoryProcessStore } from "../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../shared/processes/in-memory-request-store.js";
import { AwsRequestCounter } from "../test/support/aws-request-counter.js";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import { createTemplateRenderer } from "../shared/templates/sandboxed-template-renderer.js";
import { startEmulators } from "../infra/local/local-emulators.js";
import { createLocalResources, localClients } from "../infra/local/local-resources.js";
import { FLAT_SIZES, REPETITIONS } from "./bench-mode.js";
import { batchPercentiles, percentile, repeated, timeMany, type BenchRow } from "./bench-table.js";
import { syntheticSkills } from "./compose-bench-helpers.js";
import { shippedLaneWorker } from "./shipped-lane-worker.js";
import type { ShippedLaneWorker } from "./shipped-lane-worker.js";

const PROJECT = "demo";
const USER = { login: "bench" };
/** The naive loader reads every document every turn: past this size it would take minutes, so it has no baseline there. */
const NAIVE_MAX = 1000;
/** Matches no synthetic trigger, so the process stays the same turn after turn (matching still runs over all). */
const MESSAGE = "please review the deploy to staging and the database migration before the release";
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** SKILL.md (and sibling reference files) of the synthetic skills the compose bench uses. */
function skillFiles(skills: readonly ResolvedSkill[]): [string, string][] {
  return skills.flatMap((skill) => {
    const dir = `_vance/skills/${skill.name}`;
    const frontmatter = {
      title: skill.title,
      description: skill.description,
      version: skill.version,
      triggers: skill.triggers,
      tools: skill.tools,
      ...(skill.manualPaths.length > 0 ? { manualPaths: skill.manualPaths } : {}),
      ...(skill.arguments !== false ? { arguments: skill.arguments } : {}),
      ...(skill.referenceDocs.length > 0
        ? {
            referenceDocs: skill.referenceDocs.map(({ title, file, loadMode, summary }) => ({
              title,
              file,
              loadMode,
              ...(summary ? { summary } : {}),
            })),
          }
        : {}),
    };
    const files: [string, string][] = [[`${dir}/SKILL.md`, `---\n${stringify(frontmatter)}---\n${skill.body}`]];
    for (const ref of skill.referenceDocs) files.push([`${dir}/${ref.file}`, ref.content ?? `# ${ref.title}\n`]);
    return files;
  });
}

/**
 * Agent-Skills-shaped skills as collections ship them (issue 12): `name` + `description`, no
 * triggers, no title or version, a body that links its files, and five siblings, one binary.
 */
function agentSkillFiles(n: number): [string, string | Uint8Array][] {
  const docx = new Uint8Array(4096).map((_, i) => (i * 31) & 0xff);
  return Array.from({ length: n }, (_, i) => {
    const name = `agent-skill-${String(i).padStart(5, "0")}`;
    const dir = `_vance/skills/${name}`;
    const skill = `---\nname: ${name}\ndescription: Handles task family ${i}; use when the user mentions topic ${i}.\nlicense: MIT\nallowed-tools: Read, Grep, Bash(git add:*)\n---\n# Skill ${i}\n\nRead [forms](references/forms.md) and see references/api.md. Run scripts/fill_form.py.\n`;
    return [
      [`${dir}/SKILL.md`, skill],
      [`${dir}/references/forms.md`, `# Forms ${i}\n${"Field description. ".repeat(40)}\n`],
      [`${dir}/references/api.md`, `# API ${i}\n${"Endpoint notes. ".repeat(60)}\n`],
      [`${dir}/scripts/fill_form.py`, `import sys\nprint(sys.argv[1:])  # ${i}\n`],
      [`${dir}/assets/template.docx`, docx],
      [`${dir}/LICENSE.txt`, "MIT License\n"],
    ] as [string, string | Uint8Array][];
  }).flat();
}

export async function seed(store: DocumentStore, tenant: string, n: number): Promise<void> {
  await mapWithConcurrency(skillFiles(syntheticSkills(n)), 32, ([path, body]) => store.put(tenant, PROJECT, path, body));
}

interface Subject {
  app: SkillsApp;
  processId: string;
}

export async function subject(app: SkillsApp, tenant: string, label: string, active: readonly string[]): Promise<Subject> {
  const process = await app.spawn(tenant, USER, { sessionId: `s-${label}`, recipe: "default", projectId: PROJECT, name: label });
  for (const skillName of active) {
    await app.steer.activate({ tenant, processId: process.processId, requestId: randomUUID(), user: USER }, { skillName });
  }
  return { app, processId: process.processId };
}

/** One composed turn as the lane worker runs it for a `turn.compose` message (process and versions read, compose, process write). */
const composeTurn = async ({ app, processId }: Subject, tenant: string): Promise<void> => {
  await app.turns.compose({ tenant, processId, requestId: randomUUID(), user: USER }, { turnId: randomUUID(), message: MESSAGE });
};

/**
 * The whole lane apply of that message: request record read and completion around the turn. The
 * QUEUED record is written by the producer (the HTTP side) before, uncounted.
 */
const laneTurn = (base: SkillsAppDeps, { app, processId }: Subject, tenant: string) => {
  let message: LaneMessage | undefined;
  return {
    prepare: async (): Promise<void> => {
      message = {
        requestId: randomUUID(),
        processId,
        tenant,
        user: USER,
        kind: "turn.compose",
        payload: { turnId: randomUUID(), message: MESSAGE },
        enqueuedAt: new Date().toISOString(),
      };
      await base.requests.putQueued(tenant, processId, message.requestId, message.kind);
    },
    run: (): Promise<void> => app.applyLaneMessage(message!, { messageId: message!.requestId, groupId: undefined, receiveCount: 1 }),
  };
};

interface Counted {
  perTurn: (service?: string) => number;
  breakdown: string;
}

/** Requests of `run` over `turns` turns; `prepare` runs before each turn, uncounted. */
async function counted(
  counter: AwsRequestCounter,
  turns: number,
  run: () => Promise<void>,
  prepare?: () => Promise<void>,
): Promise<Counted> {
  const ops: Record<string, number> = {};
  for (let i = 0; i < turns; i++) {
    await prepare?.();
    counter.reset();
    await run();
    for (const [op, count] of Object.entries(counter.snapshot())) ops[op] = (ops[op] ?? 0) + count;
  }
  return summary(ops, turns);
}

/** Per-turn figures of a counter snapshot taken over `turns` turns. */
function summary(snapshot: Record<string, number>, turns: number): Counted {
  const total = (service?: string): number =>
    Object.entries(snapshot).reduce(
      (sum, [op, count]) => (service === undefined || op === service || op.startsWith(`${service}.`) ? sum + count : sum),
      0,
    );
  return {
    perTurn: (service) => total(service) / turns,
    breakdown: Object.entries(snapshot)
      .map(([op, count]) => `${op.replace(/^(DynamoDB|S3)\./, "")} ${+(count / turns).toFixed(1)}`)
      .join(", "),
  };
}

/**
 * AWS requests per composed turn on the emulators (dynalite + fauxqs S3), ours (warm catalogue,
 * versions in DynamoDB) beside the naive loader (the spec's v1: list and read every level each
 * turn), at 10, 100 and 1 000 available skills, steady and right after an edit of one skill.
 */
/** V8's used heap after a full collection, in MB: what a warm instance keeps, not its garbage. */
function heapUsedMb(): number {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
  return process.memoryUsage().heapUsed / (1024 * 1024);
}

async function requestRows(): Promise<BenchRow[]> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const emulators = await startEmulators({ host: "127.0.0.1" });
  const clients = localClients(emulators.endpoints, "us-east-1", { accessKeyId: "bench", secretAccessKey: "bench" });
  let worker: ShippedLaneWorker | undefined;
  try {
    const resources = await createLocalResources(
      clients,
      { bucketName: "catalogue-bench", tableName: "catalogue-bench", laneQueueBaseName: "catalogue-bench-lane" },
      { region: "us-east-1", laneVisibilityTimeoutSeconds: 30, laneMaxReceiveCount: 5 },
    );
    const counter = new AwsRequestCounter();
    counter.instrument(clients.dynamodb);
    counter.instrument(clients.s3);
    const documents = new S3DocumentStore({ client: clients.s3, bucket: resources.bucketName });
    const versions = new DynamoDBCatalogueVersions(clients.dynamodb, resources.tableName);
    const notify: DocumentChangeNotifier = catalogueChangeNotifier(versions);
    const base: SkillsAppDeps = {
      documents,
      processes: new DynamoDBProcessStore(clients.dynamodb, resources.tableName),
      requests: new DynamoDBRequestStore(clients.dynamodb, resources.tableName),
      lane: new InMemoryLane(),
      renderer: createTemplateRenderer(),
      logger: silent,
    };
    // Ours is the lane-worker function as deployed; naive is the spec's v1 loader, hand-wired as the baseline.
    worker = shippedLaneWorker({
      emulators,
      resources,
      region: "us-east-1",
      credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
      counter,
    });
    const ours = worker.app;
    const naive = createSkillsApp(base);

    const rows: BenchRow[] = [];
    const row = (metric: string, o: number, b: number | null, note: string): void => {
      rows.push({ metric, ours: o, baseline: b, unit: "req", note });
    };
    for (const n of FLAT_SIZES) {
      const tenant = `cat${n}`;
      await seed(documents, tenant, n);
      const heapBefore = heapUsedMb(); // before the processes: activating them fills the catalogue too
      const active = ["skill-0", "skill-1"];
      const o = await subject(ours, tenant, "ours", active);
      const b = await subject(naive, tenant, "naive", active);
      const naiveTurns = n >= 1000 ? 3 : 10;
      await composeTurn(o, tenant); // the first turn fills the catalogue: cold, not steady
      const heapWarm = heapUsedMb();
      const steadyOurs = await counted(counter, 20, () => composeTurn(o, tenant));
      const steadyNaive = n <= NAIVE_MAX ? await counted(counter, naiveTurns, () => composeTurn(b, tenant)) : undefined;

      let edits = 0;
      const edit = async (): Promise<void> => {
        const path = `_vance/skills/skill-${++edits % n}/SKILL.md`;
        const doc = await documents.get(tenant, PROJECT, path);
        await documents.put(tenant, PROJECT, path, `${new TextDecoder().decode(doc!.body)}\nEdit ${edits}.\n`);
        await notify({ tenant, project: PROJECT, path });
      };
      const editedOurs = await counted(counter, 5, () => composeTurn(o, tenant), edit);
      const editedNaive = n <= NAIVE_MAX ? await counted(counter, n >= 1000 ? 2 : 5, () => composeTurn(b, tenant), edit) : undefined;

      row(`turn_aws_requests_steady_${n}`, steadyOurs.perTurn(), steadyNaive?.perTurn() ?? null, `ours: ${steadyOurs.breakdown}`);
      row(`turn_s3_requests_steady_${n}`, steadyOurs.perTurn("S3"), steadyNaive?.perTurn("S3") ?? null, "goal 0");
      row(`turn_dynamodb_requests_steady_${n}`, steadyOurs.perTurn("DynamoDB"), steadyNaive?.perTurn("DynamoDB") ?? null, "goal ≤ 2");
      row(`turn_aws_requests_after_edit_${n}`, editedOurs.perTurn(), editedNaive?.perTurn() ?? null, `ours: ${editedOurs.breakdown}`);
      rows.push({
        metric: `warm_catalogue_heap_mb_${n}`,
        ours: heapWarm - heapBefore,
        baseline: null,
        unit: "MB",
        note: `heap the shipped lane worker's warm catalogue adds for one level of ${n} skills (after GC); whole bench process ${heapWarm.toFixed(0)} MB, emulators' data included; target ≤ 128 MB at 10 000`,
      });
      row(
        `relist_s3_gets_after_edit_${n}`,
        editedOurs.perTurn("S3.GetObject"),
        editedNaive?.perTurn("S3.GetObject") ?? null,
        "goal 1: only the changed document is read",
      );
      if (n === 100) {
        row(
          "turn_s3_requests_after_edit_100",
          editedOurs.perTurn("S3"),
          editedNaive?.perTurn("S3") ?? null,
          "one level re-listed, one changed document read",
        );
        row(
          "turn_dynamodb_requests_after_edit_100",
          editedOurs.perTurn("DynamoDB"),
          editedNaive?.perTurn("DynamoDB") ?? null,
          "as steady: the changed version comes with the process read",
        );
        await composeTurn(o, tenant); // takes in the naive run's edits
        const lane = { ours: laneTurn(base, o, tenant), naive: laneTurn(base, b, tenant) };
        const laneOurs = await counted(counter, 10, lane.ours.run, lane.ours.prepare);
        const laneNaive = await counted(counter, 10, lane.naive.run, lane.naive.prepare);
        row(
          "turn_lane_apply_dynamodb_requests_steady_100",
          laneOurs.perTurn("DynamoDB"),
          laneNaive.perTurn("DynamoDB"),
          `ours (the deployed lane worker, its subscriber lookup included): ${laneOurs.breakdown}; naive: no WebSocket events`,
        );
      }
    }

    // 1 000 Agent-Skills-shaped skills with 5 sibling files each (6 000 documents in the level).
    {
      const tenant = "agents1000";
      await mapWithConcurrency(agentSkillFiles(1000), 32, ([path, body]) => documents.put(tenant, PROJECT, path, body));
      const o = await subject(ours, tenant, "ours", ["agent-skill-00000", "agent-skill-00001"]);
      await composeTurn(o, tenant); // fills the catalogue
      const steady = await counted(counter, 20, () => composeTurn(o, tenant));
      const goal = (metric: string, ours: number, note: string): void => {
        rows.push({ metric, ours, baseline: null, unit: "req", note });
      };
      goal(
        "turn_s3_requests_steady_agent_skills_1000x5",
        steady.perTurn("S3"),
        `goal 0; ours: ${steady.breakdown}; 2 active, their file listings in the turn`,
      );
      goal(
        "turn_dynamodb_requests_steady_agent_skills_1000x5",
        steady.perTurn("DynamoDB"),
        "goal ≤ 2: process + level versions in one BatchGetItem, conditional PutItem",
      );
      const listing = await counted(counter, 5, async () => {
        await ours.listEffective(tenant, USER, PROJECT);
      });
      goal(
        "list_effective_aws_requests_steady_agent_skills_1000x5",
        listing.perTurn(),
        `warm listing: ${listing.breakdown || "no request"}`,
      );
    }
    return rows;
  } finally {
    worker?.restore();
    clients.destroy();
    await emulators.stop();
  }
}

/**
 * In-process compose time (no network: in-memory store, versions and processes): a preview turn,
 * trigger matching over 1 000 available skills included, 10 of them active. Naive lists and
 * parses every level per turn; ours validates the versions and reuses the listing.
 */
export async function composeRows(): Promise<BenchRow[]> {
  const documents = new InMemoryDocumentStore();
  const tenant = "compose";
  await seed(documents, tenant, 1000);
  const base: SkillsAppDeps = {
    documents,
    processes: new InMemoryProcessStore(),
    requests: new InMemoryRequestStore(),
    lane: new InMemoryLane(),
    renderer: createTemplateRenderer(),
    logger: silent,
  };
  const active = syntheticSkills(1000)
    .filter((s) => s.body.includes("{%"))
    .slice(0, 10)
    .map((s) => s.name);
  const ours = await subject(createSkillsApp({ ...base, catalogueVersions: new InMemoryCatalogueVersions() }), tenant, "ours", active);
  const naive = await subject(createSkillsApp(base), tenant, "naive", active);
  const preview = (s: Subject) => () => s.app.previewTurn(tenant, s.processId, USER, MESSAGE);
  // A steady state, not the JIT's first minutes: on 2 cores the optimizing compiler's thread takes
  // the CPU for milliseconds at a time while the code is still warming up.
  // The naive app's first turn (1 000 parses and their garbage) runs before ours warms up, so its
  // old-generation collection does not land in ours' measured turns.
  await preview(naive)();
  await timeMany(WARM_UP_TURNS, preview(ours));
  // Ours: one batch of turns per repetition, its percentiles taken per batch. Naive: one batch of
  // 30 (~0.7 s each: 1 000 documents listed and parsed per turn), the baseline as before.
  const { p50, p99 } = await batchPercentiles(REPETITIONS, TURNS_PER_REPETITION, preview(ours));
  const naiveMs = await timeMany(30, preview(naive));
  return [
    {
      metric: "compose_p50_ms_1000",
      ...repeated(p50),
      baseline: percentile(naiveMs, 50),
      unit: "ms",
      note: `preview turn, 10 active of 1000, in-process; ${TURNS_PER_REPETITION} per repetition after ${WARM_UP_TURNS} warm-up`,
    },
    {
      metric: "compose_p99_ms_1000",
      ...repeated(p99),
      baseline: percentile(naiveMs, 99),
      unit: "ms",
      note: `target ≤ 1 ms; ${TURNS_PER_REPETITION} turns per repetition; baseline: the slowest of 30 naive turns (a p99 of 30)`,
    },
  ];
}

const WARM_UP_TURNS = 2000;
/** p99 is the 5th-slowest turn of a repetition. */
const TURNS_PER_REPETITION = 500;

export async function benchCatalogue(): Promise<BenchRow[]> {
  return [...(await requestRows()), ...(await composeRows())];
}
