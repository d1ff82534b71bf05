import { DeleteObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { runtimeFromEnv, skillsAppFromEnv } from "../../shared/wiring/app-from-env.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, skillMd } from "./support/api-client.js";
import type { SkillSummary, Turn } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * Issue 6 / spec §3 hot reload for writes that bypass the documents API: a SKILL.md put straight
 * into the bucket (console, CLI, replication) is seen by the next list and the next turn of warm
 * functions. Locally the bucket's EventBridge notifications are emulated (infra/local/s3-event-emulator.ts);
 * its interval is set far beyond this file's run time, so every event here arrives only when the
 * test waits for it with `s3EventsSettled()` (the local "EventBridge delivered the event"), and the
 * warm catalogues' answers before that show what the bump changes.
 */

const TENANT = "acme";

let stack: LocalStack;
let api: ApiClient;
let s3: S3Client;

beforeAll(async () => {
  stack = await startLocalStack({ s3Events: { intervalMs: 60 * 60_000 } });
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "admin", roles: ["tenant-admin"] }));
  s3 = new S3Client({ region: stack.region, endpoint: stack.endpoints.s3, credentials: stack.credentials, forcePathStyle: true });
});

afterAll(async () => {
  s3?.destroy();
  await stack?.close();
});

const keyOf = (project: string, path: string): string => `tenants/${TENANT}/projects/${project}/${path}`;
const skillOf = (name: string, body: string): string =>
  skillMd(`title: ${name}\ndescription: The ${name} skill\nversion: 1.0.0`, `${body}\n`);
const names = (skills: readonly Pick<SkillSummary, "name">[]): string[] => skills.map((s) => s.name);

async function putStraightToS3(project: string, path: string, body: string): Promise<void> {
  await s3.send(
    new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: keyOf(project, path), Body: body, ContentType: "text/markdown" }),
  );
}

async function effectiveNames(project: string): Promise<string[]> {
  const listed = await api.effective(TENANT, project);
  expect(listed.status, listed.text).toBe(200);
  return names(listed.json.skills);
}

describe("writes that bypass the documents API", () => {
  it("a SKILL.md uploaded straight to S3 is listed by the next request once its event arrived, with no API write", async () => {
    // Prepare: the level is listed once, so the skills function holds it warm
    const project = "bypass-list";
    const saved = await api.putDocument(TENANT, project, "_vance/skills/via-api/SKILL.md", skillOf("via-api", "Through the API."));
    expect(saved.status, saved.text).toBe(200);
    await stack.s3EventsSettled();
    expect(await effectiveNames(project)).toContain("via-api");

    // Act
    await putStraightToS3(project, "_vance/skills/direct/SKILL.md", skillOf("direct", "Straight into the bucket."));
    const beforeEvent = await effectiveNames(project);
    await stack.s3EventsSettled();
    const afterEvent = await effectiveNames(project);
    const detail = await api.effectiveSkill(TENANT, "direct", project);

    // Assess
    expect(beforeEvent).not.toContain("direct");
    expect(afterEvent).toEqual(expect.arrayContaining(["via-api", "direct"]));
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json.body).toContain("Straight into the bucket.");
  });

  it("an overwrite straight in S3 reaches the next turn of a process that has the skill active", async () => {
    // Prepare: a process with the skill active and one turn composed from the first version
    const project = "bypass-turn";
    await putStraightToS3(project, "_vance/skills/tone/SKILL.md", skillOf("tone", "Answer in English."));
    await stack.s3EventsSettled();
    const spawned = await api.spawn(TENANT, "s3-bypass", { recipe: "default", projectId: project });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;
    const activated = await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "tone" }, LANE_WAIT_SECONDS);
    expect(activated.json.status, activated.text).toBe("DONE");
    const first = await api.compose(TENANT, processId, { message: "hello" }, LANE_WAIT_SECONDS);
    expect(first.json.status, first.text).toBe("DONE");

    // Act
    await putStraightToS3(project, "_vance/skills/tone/SKILL.md", skillOf("tone", "Answer in French."));
    await stack.s3EventsSettled();
    const second = await api.compose(TENANT, processId, { message: "again" }, LANE_WAIT_SECONDS);

    // Assess
    expect((first.json.result as Turn).skillSection).toContain("Answer in English.");
    expect(second.json.status, second.text).toBe("DONE");
    expect((second.json.result as Turn).skillSection).toContain("Answer in French.");
    expect((second.json.result as Turn).skillSection).not.toContain("Answer in English.");
  });

  it("a deletion straight in S3 removes the skill from the next listing", async () => {
    // Prepare
    const project = "bypass-delete";
    await putStraightToS3(project, "_vance/skills/gone/SKILL.md", skillOf("gone", "Soon deleted."));
    await stack.s3EventsSettled();
    expect(await effectiveNames(project)).toContain("gone");

    // Act
    await s3.send(new DeleteObjectCommand({ Bucket: stack.resources.bucketName, Key: keyOf(project, "_vance/skills/gone/SKILL.md") }));
    const beforeEvent = await effectiveNames(project);
    await stack.s3EventsSettled();
    const afterEvent = await effectiveNames(project);

    // Assess
    expect(beforeEvent).toContain("gone");
    expect(afterEvent).not.toContain("gone");
  });

  it("a cold instance after direct S3 writes, and again after its snapshot object was corrupted, composes correct turns", async () => {
    // Prepare: skills through the API and straight into the bucket (one that does not parse);
    // once the events arrived, the s3-events function has rebuilt the level snapshot.
    const project = "bypass-cold";
    const saved = await api.putDocument(TENANT, project, "_vance/skills/via-api/SKILL.md", skillOf("via-api", "Through the API."));
    expect(saved.status, saved.text).toBe(200);
    await putStraightToS3(project, "_vance/skills/direct/SKILL.md", skillOf("direct", "Straight into the bucket."));
    await putStraightToS3(project, "_vance/skills/broken/SKILL.md", "---\ndescription: [unclosed\n---\n");
    await stack.s3EventsSettled();
    const spawned = await api.spawn(TENANT, "s3-bypass-cold", { recipe: "default", projectId: project });
    expect(spawned.status, spawned.text).toBe(201);
    const processId = spawned.json.processId;
    const activated = await api.steer(TENANT, processId, { command: "ACTIVATE", skillName: "direct" }, LANE_WAIT_SECONDS);
    expect(activated.json.status, activated.text).toBe("DONE");
    const user = { login: "admin" };
    const levelKey = { pk: { S: `T#${TENANT}#LEVEL#${project}` }, sk: { S: "VERSION" } };
    const dynamodb = runtimeFromEnv(process.env).clients.dynamodb;
    const pointerKey = async (): Promise<string | undefined> =>
      (await dynamodb.send(new GetItemCommand({ TableName: stack.resources.tableName, Key: levelKey, ConsistentRead: true }))).Item
        ?.snapshot?.M?.key?.S;
    const written = await pointerKey();

    // Act: a fresh app is a cold instance (nothing warm), wired as the functions are.
    const cold = skillsAppFromEnv(runtimeFromEnv(process.env));
    const listed = names(await cold.listEffective(TENANT, user, project));
    const problems = await cold.skillProblems(TENANT, user, project);
    const turn = await cold.previewTurn(TENANT, processId, user, "hello");
    await s3.send(new PutObjectCommand({ Bucket: stack.resources.bucketName, Key: written!, Body: "not a snapshot" }));
    const afterCorruption = skillsAppFromEnv(runtimeFromEnv(process.env));
    const listedAgain = names(await afterCorruption.listEffective(TENANT, user, project));
    const turnAgain = await afterCorruption.previewTurn(TENANT, processId, user, "hello");
    const rewritten = await pointerKey();

    // Assess
    expect(written).toMatch(/^catalogue-snapshots\//);
    expect(listed).toEqual(expect.arrayContaining(["via-api", "direct"]));
    expect(listed).not.toContain("broken");
    expect(problems.find((p) => p.name === "broken")?.message).toBeTruthy();
    expect(turn.skillSection).toContain("Straight into the bucket.");
    expect(listedAgain).toEqual(listed);
    expect(turnAgain.skillSection).toContain("Straight into the bucket.");
    expect(rewritten).toMatch(/^catalogue-snapshots\//);
    expect(rewritten).not.toBe(written);
  });
});
