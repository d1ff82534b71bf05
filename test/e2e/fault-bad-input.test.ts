import { readFileSync } from "node:fs";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDBCatalogueVersions } from "../../shared/catalogue/dynamodb-catalogue-versions.js";
import { bumpForS3Event } from "../../shared/catalogue/s3-event-bump.js";
import { isValidDocumentPath } from "../../shared/documents/document-path.js";
import { getDefaultSandboxPool } from "../../shared/sandbox/sandbox-pool.js";
import { ApiClient, errorOf, skillMd } from "./support/api-client.js";
import type { ApiResponse, Process, Turn } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * Hostile input through the real HTTP surface of the local stack, from the corpora in
 * test/fixtures/ (skills-bad/, bad-input/): malformed YAML, alias bombs, `__proto__` keys,
 * 10 MB documents, binary bodies, invalid UTF-8, huge arguments, hostile regexes and templates,
 * path traversal in every path-taking field. Each has its asserted outcome — a typed 4xx, or a
 * skipped skill with its reason in GET …/skills/problems — and none may touch anything else: a
 * control skill and process in the same tenant and a bystander tenant stay exactly as they were.
 */

const TENANT = "hostile";
const OTHER = "bystander";
const PROJECT = "p1";
const WAIT = 20;
const FIXTURES = new URL("../fixtures/", import.meta.url);

interface SkillCase {
  file: string;
  category?: string;
  outcome: "rejected" | "saved" | "left-out";
  error?: string;
  warning?: string;
}
interface PathCase {
  name: string;
  method: string;
  path: string;
  status: number;
  code: string;
}
interface RequestCase {
  name: string;
  kind: string;
  body: unknown;
  status: number;
  code: string | null;
}

const fixture = (path: string): Buffer => readFileSync(new URL(path, FIXTURES));
const manifest = <T>(path: string): T[] => (JSON.parse(fixture(path).toString("utf8")) as { cases: T[] }).cases;

/**
 * The older corpus (parser refusals) names its error per file; every one is a rejected document.
 * Served as a document, its NUL-and-binary file is refused one step earlier, as not UTF-8 text.
 */
const DOCUMENT_LEVEL_ERRORS: Record<string, string> = { "nul-bytes.md": "is not UTF-8 text" };
const legacyCases: (SkillCase & { name: string; body: Buffer })[] = manifest<{ file: string; error: string }>(
  "skills-bad/manifest.json",
).map((c) => ({
  file: c.file,
  outcome: "rejected",
  error: DOCUMENT_LEVEL_ERRORS[c.file] ?? c.error,
  name: `sb-${c.file.replace(/\.md$/, "")}`,
  body: fixture(`skills-bad/${c.file}`),
}));
const hostileCases: (SkillCase & { name: string; body: Buffer })[] = manifest<SkillCase>("bad-input/skills/manifest.json").map((c) => ({
  ...c,
  name: c.file.replace(/\.md$/, ""),
  body: fixture(`bad-input/skills/${c.file}`),
}));
const rejected = [...legacyCases, ...hostileCases].filter((c) => c.outcome === "rejected");
const leftOut = hostileCases.filter((c) => c.outcome === "left-out");
const recipeCases = manifest<{ file: string; error: string }>("bad-input/recipes/manifest.json");
const pathCases = manifest<PathCase>("bad-input/paths.json");
const requestCases = manifest<RequestCase>("bad-input/requests.json");

const CONTROL_SKILL = skillMd(
  "title: Control\ndescription: The skill nothing may touch\nversion: 1.0.0\nmanualPaths: [docs]\nreferenceDocs:\n  - title: Checklist\n    file: references/checklist.md\n    loadMode: ON_DEMAND",
  "Control body.",
);

let stack: LocalStack;
let api: ApiClient;
let other: ApiClient;
let s3: S3Client;
let dynamodb: DynamoDBClient;
let controlProcess: Process;
let otherProcess: Process;
let baseline: unknown;

/** Everything the hostile input must not change. */
async function controls(): Promise<unknown> {
  const read = async (response: Promise<ApiResponse>) => {
    const answer = await response;
    return { status: answer.status, body: answer.json };
  };
  return {
    controlSkill: await read(api.effectiveSkill(TENANT, "ctl", PROJECT)),
    controlDocument: await read(api.getDocument(TENANT, "_tenant", "_vance/skills/ctl/SKILL.md").then((r) => ({ ...r, json: r.text }))),
    controlProcess: await read(api.process(TENANT, controlProcess.processId)),
    otherSkills: await read(other.effective(OTHER, PROJECT)),
    otherProblems: await read(other.problems(OTHER, PROJECT)),
    otherDocuments: await read(other.listDocuments(OTHER, "_tenant")),
    otherProcess: await read(other.process(OTHER, otherProcess.processId)),
  };
}

async function expectControlsUnchanged(): Promise<void> {
  expect(await controls()).toEqual(baseline);
  // The stack runs in this process: a prototype pollution anywhere would show here.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_KEYS);
}
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  stack = await startLocalStack({ lane: { retryDelaySeconds: 0, maxReceiveCount: 3 } });
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "mallory", projects: [PROJECT], roles: ["tenant-admin"] }));
  other = new ApiClient(stack.httpUrl, await stack.token({ tenant: OTHER, login: "bob", projects: [PROJECT], roles: ["tenant-admin"] }));
  s3 = new S3Client({ region: stack.region, endpoint: stack.endpoints.s3, credentials: stack.credentials, forcePathStyle: true });
  dynamodb = new DynamoDBClient({ region: stack.region, endpoint: stack.endpoints.dynamodb, credentials: stack.credentials });
  for (const client of [api, other]) {
    const tenant = client === api ? TENANT : OTHER;
    for (const [path, body] of [
      ["_vance/skills/ctl/SKILL.md", CONTROL_SKILL],
      ["_vance/skills/ctl/references/checklist.md", "# Checklist\n"],
      ["docs/guide.md", "# Guide\n"],
    ] as const) {
      expect((await client.putDocument(tenant, "_tenant", path, body)).status).toBe(200);
    }
  }
  controlProcess = await spawnWithControl(api, TENANT);
  otherProcess = await spawnWithControl(other, OTHER);
  baseline = await controls();
});

afterAll(async () => {
  s3?.destroy();
  dynamodb?.destroy();
  await stack?.close();
  await getDefaultSandboxPool().close();
});

async function spawnWithControl(client: ApiClient, tenant: string): Promise<Process> {
  const spawned = await client.spawn(tenant, `s-${Math.random().toString(36).slice(2, 10)}`, { recipe: "default", projectId: PROJECT });
  expect(spawned.status, spawned.text).toBe(201);
  const activated = await client.steer(tenant, spawned.json.processId, { command: "ACTIVATE", skillName: "ctl" }, WAIT);
  expect(activated.status, activated.text).toBe(200);
  return (await client.process(tenant, spawned.json.processId)).json;
}

/**
 * Writes a document the way a deployment pipeline or the console would: straight into the
 * bucket, followed by the S3 event notification the deployed bucket sends for it (which the local
 * stack does not emulate), so warm catalogues see the write.
 */
async function putInBucket(tenant: string, project: string, path: string, body: Buffer | string): Promise<void> {
  const key = `tenants/${tenant}/projects/${project}/${path}`;
  await s3.send(new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: key, Body: body }));
  await bumpForS3Event(
    { "detail-type": "Object Created", detail: { object: { key } } },
    new DynamoDBCatalogueVersions(dynamodb, stack.resources.tableName),
  );
}

const expectError = (response: ApiResponse, status: number, code: string): void => {
  expect(response.status, response.text.slice(0, 500)).toBe(status);
  expect(errorOf(response)?.code, response.text.slice(0, 500)).toBe(code);
};

describe("bad documents", () => {
  it.each(rejected.map((c) => [c.file, c] as const))(
    "refuses %s over PUT with 422 INVALID_DOCUMENT naming the problem, and saves nothing",
    async (_file, c) => {
      // Prepare
      const path = `_vance/skills/${c.name}/SKILL.md`;

      // Act
      const response = await api.putDocument(TENANT, PROJECT, path, c.body);

      // Assess
      expectError(response, 422, "INVALID_DOCUMENT");
      expect(
        errorOf(response)
          ?.problems?.map((p) => p.message)
          .join("\n"),
      ).toContain(c.error);
      expect((await api.getDocument(TENANT, PROJECT, path)).status).toBe(404);
    },
  );

  it("skips every rejected document written to the bucket directly, with its reason in /skills/problems, and serves the rest", async () => {
    // Prepare
    for (const c of rejected) await putInBucket(TENANT, PROJECT, `_vance/skills/${c.name}/SKILL.md`, c.body);
    const scratch = await spawnWithControl(api, TENANT);

    // Act
    const problems = await api.problems(TENANT, PROJECT);
    const effective = await api.effective(TENANT, PROJECT);
    const activation = await api.steer(TENANT, scratch.processId, { command: "ACTIVATE", skillName: rejected[0]!.name }, WAIT);

    // Assess
    expect(problems.status).toBe(200);
    for (const c of rejected) {
      // One entry per finding: a document may have several (every alias of an alias bomb).
      const found = problems.json.problems.filter((p) => p.name === c.name);
      expect(new Set(found.map((p) => `${p.source} ${p.path}`)), c.file).toEqual(new Set([`PROJECT _vance/skills/${c.name}/SKILL.md`]));
      expect(found.map((p) => p.message).join("\n"), c.file).toContain(c.error);
    }
    const names = effective.json.skills.map((s) => s.name);
    expect(names).toContain("ctl");
    for (const c of rejected) expect(names).not.toContain(c.name);
    expectError(activation, 404, "SKILL_NOT_FOUND");
    await expectControlsUnchanged();
  });

  it.each(recipeCases.map((c) => [c.file, c] as const))(
    "refuses the recipe %s with 422 INVALID_DOCUMENT naming the problem",
    async (_file, c) => {
      // Act
      const response = await api.putDocument(
        TENANT,
        PROJECT,
        `_vance/recipes/${c.file.replace(/\.yaml$/, "")}.yaml`,
        fixture(`bad-input/recipes/${c.file}`),
        "application/yaml",
      );

      // Assess
      expectError(response, 422, "INVALID_DOCUMENT");
      expect(
        errorOf(response)
          ?.problems?.map((p) => p.message)
          .join("\n"),
      ).toContain(c.error);
    },
  );
});

describe("oversized, binary and non-UTF-8 bodies", () => {
  it("refuses a 10 MB upload at the gateway, a 5 MB one in the function, and skips a 10 MB SKILL.md found in the bucket", async () => {
    // Prepare
    const tenMegabytes = Buffer.alloc(10 * 1024 * 1024 + 1, "a");
    const bigSkill = Buffer.concat([
      Buffer.from("---\ntitle: Big\ndescription: big\nversion: 1.0.0\n---\n"),
      Buffer.alloc(10 * 1024 * 1024, "b"),
    ]);
    await putInBucket(TENANT, PROJECT, "_vance/skills/big-skill/SKILL.md", bigSkill);
    const scratch = await spawnWithControl(api, TENANT);

    // Act
    const gateway = await api.putDocument(TENANT, PROJECT, "_vance/skills/huge/SKILL.md", tenMegabytes);
    const fiveMegabytes = await api.putDocument(TENANT, PROJECT, "notes/huge.md", Buffer.alloc(5 * 1024 * 1024, "a"));
    const twoMegabyteSkill = await api.putDocument(
      TENANT,
      PROJECT,
      "_vance/skills/huge/SKILL.md",
      Buffer.concat([bigSkill.subarray(0, 2 * 1024 * 1024)]),
    );
    const steering = await api.send("POST", `/brain/${TENANT}/processes/${scratch.processId}/skill`, {
      body: tenMegabytes,
      headers: { "content-type": "application/json" },
    });
    const problems = await api.problems(TENANT, PROJECT);
    const turn = await api.compose(TENANT, scratch.processId, { message: "hello" }, WAIT);

    // Assess
    expectError(gateway, 413, "PAYLOAD_TOO_LARGE");
    expectError(fiveMegabytes, 400, "INVALID_REQUEST");
    expectError(twoMegabyteSkill, 422, "INVALID_DOCUMENT");
    expect(errorOf(twoMegabyteSkill)?.problems?.[0]?.message).toMatch(/larger than \d+ bytes/);
    expectError(steering, 413, "PAYLOAD_TOO_LARGE");
    expect(problems.json.problems.find((p) => p.name === "big-skill")?.message).toMatch(/larger than \d+ bytes/);
    expect(turn.status, turn.text.slice(0, 300)).toBe(200);
    expect((turn.json.result as Turn).skillSection).toContain("Control body.");
    expect((await api.listDocuments(TENANT, PROJECT, "notes/")).json.documents).toEqual([]);
    await expectControlsUnchanged();
  });

  it("stores a binary asset byte for byte, but refuses binary or invalid UTF-8 where text is required", async () => {
    // Prepare
    const png = fixture("bad-input/skills/binary-png.md");
    const scratch = await spawnWithControl(api, TENANT);
    const invalidJson = Buffer.concat([Buffer.from('{"command":"ACTIVATE","skillName":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);

    // Act
    const asset = await api.putDocument(TENANT, PROJECT, "assets/logo.png", png, "image/png");
    const readBack = await api.getDocument(TENANT, PROJECT, "assets/logo.png");
    const binarySteer = await api.send("POST", `/brain/${TENANT}/processes/${scratch.processId}/skill`, {
      body: png,
      headers: { "content-type": "application/octet-stream" },
    });
    const invalidSteer = await api.send("POST", `/brain/${TENANT}/processes/${scratch.processId}/skill`, {
      body: invalidJson,
      headers: { "content-type": "application/json" },
    });
    const invalidSpawn = await api.send("POST", `/brain/${TENANT}/sessions/s-bin/processes`, {
      body: Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
      headers: { "content-type": "application/json" },
    });

    // Assess
    expect(asset.status).toBe(200);
    expect(readBack.status).toBe(200);
    expect(readBack.body.equals(png)).toBe(true);
    expectError(binarySteer, 400, "INVALID_REQUEST");
    expectError(invalidSteer, 400, "INVALID_REQUEST");
    expect(errorOf(invalidSteer)?.message).toMatch(/not valid UTF-8/);
    expectError(invalidSpawn, 400, "INVALID_REQUEST");
    expect((await api.process(TENANT, scratch.processId)).json.version).toBe(scratch.version);
    await expectControlsUnchanged();
  });
});

describe("huge argument strings", () => {
  it("refuses arguments, messages and outputs beyond their limits with 400, changing nothing", async () => {
    // Prepare
    const scratch = await spawnWithControl(api, TENANT);
    const steer = (args: string) => api.steer(TENANT, scratch.processId, { command: "ACTIVATE", skillName: "ctl", args }, WAIT);

    // Act
    const overBody = await steer("x".repeat(70 * 1024));
    const overPending = await steer("x".repeat(40 * 1024));
    const overMessage = await api.compose(TENANT, scratch.processId, { message: "m".repeat(40 * 1024) }, WAIT);
    const overOutput = await api.send("POST", `/brain/${TENANT}/processes/${scratch.processId}/turns/t-1/complete`, {
      body: { output: "o".repeat(300 * 1024) },
    });
    const overRequestId = await api.steer(TENANT, scratch.processId, { command: "CLEAR_ALL", requestId: "r".repeat(10_000) }, WAIT);

    // Assess
    for (const response of [overBody, overPending, overMessage, overOutput, overRequestId]) expectError(response, 400, "INVALID_REQUEST");
    expect(errorOf(overPending)?.message).toMatch(/cannot take more pending messages/);
    expect((await api.process(TENANT, scratch.processId)).json).toEqual(scratch);
    await expectControlsUnchanged();
  });
});

describe("hostile regexes", () => {
  it("saves patterns that are catastrophic for a backtracking engine and matches adversarial messages promptly", async () => {
    // Prepare
    const saved = hostileCases.filter((c) => c.category === "hostile-regex" && c.outcome === "saved");
    for (const c of saved)
      expect((await api.putDocument(TENANT, PROJECT, `_vance/skills/${c.name}/SKILL.md`, c.body)).status, c.file).toBe(200);
    const scratch = await spawnWithControl(api, TENANT);

    // Act: 20 000 characters that never match (a backtracking engine would not finish), then matching ones
    const adversarial = await api.compose(TENANT, scratch.processId, { message: `${"a".repeat(10_000)}!${"x".repeat(10_000)}` }, WAIT);
    const matching = await api.compose(TENANT, scratch.processId, { message: `${"x".repeat(10_000)}y ${"a".repeat(10_000)}` }, WAIT);

    // Assess: answered within the wait (200, not 202), triggering exactly what matches
    expect(adversarial.status, adversarial.text.slice(0, 300)).toBe(200);
    expect((adversarial.json.result as Turn).activeSkills.map((s) => s.name)).toEqual(["ctl"]);
    expect(matching.status, matching.text.slice(0, 300)).toBe(200);
    expect((matching.json.result as Turn).activeSkills.map((s) => [s.name, s.oneShot])).toEqual([
      ["ctl", false],
      ["regex-catastrophic-nested", true],
      ["regex-catastrophic-overlap", true],
    ]);
    await expectControlsUnchanged();
  });
});

describe("hostile templates", () => {
  it("saves hostile templates, leaves each out of the turn with its reason, and composes the rest", async () => {
    // Prepare
    for (const c of leftOut)
      expect((await api.putDocument(TENANT, PROJECT, `_vance/skills/${c.name}/SKILL.md`, c.body)).status, c.file).toBe(200);
    const scratch = await spawnWithControl(api, TENANT);
    for (const c of leftOut) {
      const activated = await api.steer(TENANT, scratch.processId, { command: "ACTIVATE", skillName: c.name }, WAIT);
      expect(activated.status, `${c.file}: ${activated.text.slice(0, 300)}`).toBe(200);
    }

    // Act: the first turn may spend its render budget on the CPU bombs (a loaded machine skips the
    // rest with the budget's reason); their failures are cached, so the next turn names each reason.
    const first = await api.compose(TENANT, scratch.processId, { message: "go" }, WAIT);
    const turn = await api.compose(TENANT, scratch.processId, { message: "go again" }, WAIT);

    // Assess: both turns are composed (within the wait, CPU bombs included) from the safe skills only
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    for (const c of leftOut) expect((first.json.result as Turn).skillSection, c.file).not.toContain(`--- Skill: ${c.name} ---`);
    expect(turn.status, turn.text.slice(0, 300)).toBe(200);
    const composed = turn.json.result as Turn & { warnings: string[] };
    expect(composed.activeSkills.map((s) => s.name)).toEqual(["ctl", ...leftOut.map((c) => c.name)]);
    expect(composed.skillSection).toContain("Control body.");
    for (const c of leftOut) {
      expect(composed.skillSection, c.file).not.toContain(`--- Skill: ${c.name} ---`);
      expect(
        composed.warnings.find((w) => w.startsWith(`Skill '${c.name}' left out: `)),
        c.file,
      ).toContain(c.warning);
    }
    const everything = JSON.stringify(turn.json);
    for (const secret of [process.env.SKILLS_JWT_SECRET, process.env.AWS_SECRET_ACCESS_KEY, process.env.SKILLS_TABLE_NAME]) {
      if (secret) expect(everything).not.toContain(secret);
    }
    await expectControlsUnchanged();
  });

  it("treats template syntax in arguments as data, never as template source", async () => {
    // Prepare
    await api.putDocument(
      TENANT,
      PROJECT,
      "_vance/skills/echo/SKILL.md",
      skillMd(
        "title: Echo\ndescription: Echoes its arguments\nversion: 1.0.0\narguments: true\naction: 'Do: {{ args.text }}'",
        "Args: {{ args.text }}",
      ),
    );
    const scratch = await spawnWithControl(api, TENANT);
    const args = '{{ 7*7 }} {% for x in range(3) %}y{% endfor %} {{ range.constructor("return process")() }}';

    // Act
    const activated = await api.steer(TENANT, scratch.processId, { command: "ACTIVATE", skillName: "echo", args }, WAIT);
    const turn = await api.compose(TENANT, scratch.processId, {}, WAIT);

    // Assess
    expect(activated.status, activated.text).toBe(200);
    expect(turn.status, turn.text.slice(0, 300)).toBe(200);
    const composed = turn.json.result as Turn;
    expect(composed.messages.map((m) => m.text)).toEqual([`Do: ${args}`]);
    expect(composed.skillSection).toContain(`Args: ${args}`);
    expect(composed.skillSection).not.toContain("49");
    await expectControlsUnchanged();
  });
});

describe("path traversal", () => {
  const fill = (path: string, target: Process): string =>
    path.replaceAll("{tenant}", TENANT).replaceAll("{other}", OTHER).replaceAll("{process}", target.processId);

  it.each(pathCases.map((c) => [c.name, c] as const))("answers %s with its typed 4xx", async (_name, c) => {
    // Act
    const response = await api.send(
      c.method,
      fill(c.path, controlProcess),
      c.method === "GET" ? {} : { body: "# x\n", headers: { "content-type": "text/markdown" } },
    );

    // Assess
    expectError(response, c.status, c.code);
  });

  it.each(requestCases.map((c) => [c.name, c] as const))("answers a body with %s as asserted", async (_name, c) => {
    // Prepare
    const scratch = await spawnWithControl(api, TENANT);

    // Act
    let response: ApiResponse;
    const raw = (path: string) => api.send("POST", path, { body: String(c.body), headers: { "content-type": "application/json" } });
    if (c.kind === "steer")
      response = await api.send("POST", `/brain/${TENANT}/processes/${scratch.processId}/skill`, {
        body: c.body as Record<string, unknown>,
        wait: WAIT,
      });
    else if (c.kind === "steer-raw") response = await raw(`/brain/${TENANT}/processes/${scratch.processId}/skill`);
    else if (c.kind === "spawn-raw") response = await raw(`/brain/${TENANT}/sessions/s-raw/processes`);
    else if (c.kind === "spawn")
      response = await api.send("POST", `/brain/${TENANT}/sessions/s-hostile/processes`, { body: c.body as Record<string, unknown> });
    else response = await api.tool(TENANT, scratch.processId, c.kind.replace(/^tool:/, ""), c.body as Record<string, unknown>);

    // Assess
    if (c.code === null) expect(response.status, response.text.slice(0, 300)).toBe(c.status);
    else expectError(response, c.status, c.code);
    const after = (await api.process(TENANT, scratch.processId)).json;
    expect(after.activeSkills.map((s) => s.name)).toEqual(["ctl"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps every stored object inside its tenant's prefix, under a valid document path", async () => {
    // Prepare
    const keys: string[] = [];
    let token: string | undefined;

    // Act
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: stack.resources.bucketName, ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((o) => o.Key ?? ""));
      token = page.NextContinuationToken;
    } while (token !== undefined);

    // Assess
    expect(keys.length).toBeGreaterThan(0);
    // Level snapshots (issue 27) sit beside the documents, keyed by tenant and level, never inside a level.
    const snapshots = keys.filter((k) => k.startsWith("catalogue-snapshots/"));
    for (const key of snapshots)
      expect(key).toMatch(/^catalogue-snapshots\/(hostile|bystander)\/(_tenant|p1|_user_[a-z0-9-]+)\/\d+-[\w-]+\.json\.gz$/);
    for (const key of keys.filter((k) => !k.startsWith("catalogue-snapshots/"))) {
      const match = /^tenants\/(hostile|bystander)\/projects\/(_tenant|p1)\/(.+)$/.exec(key);
      expect(match, key).not.toBeNull();
      expect(isValidDocumentPath(match![3]!), key).toBe(true);
    }
    expect(keys.filter((k) => k.startsWith(`tenants/${OTHER}/`)).sort()).toEqual(
      ["_vance/skills/ctl/SKILL.md", "_vance/skills/ctl/references/checklist.md", "docs/guide.md"].map(
        (p) => `tenants/${OTHER}/projects/_tenant/${p}`,
      ),
    );
    await expectControlsUnchanged();
  });
});
