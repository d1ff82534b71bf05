import { afterAll, describe, expect, it, vi } from "vitest";
import { createS3EventsHandler } from "../../functions/s3-events/handler.js";
import type { CatalogueVersions } from "../../shared/catalogue/catalogue-versions.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";

// The handler module builds an SDK client at import; its Node-version notice is noise here.
vi.hoisted(() => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
});

afterAll(() => {
  vi.unstubAllEnvs();
});

/** Records log lines so a test can see what was reported. */
function recordingLogger() {
  const lines: { level: string; message: string; extra: Record<string, unknown> | undefined }[] = [];
  const at =
    (level: string) =>
    (message: string, ...extra: Record<string, unknown>[]) =>
      void lines.push({ level, message, extra: extra[0] });
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

/** An S3 event as EventBridge delivers it to the rule's target. */
const bridged = (key: unknown, detailType = "Object Created") => ({
  version: "0",
  id: "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
  "detail-type": detailType,
  source: "aws.s3",
  account: "123456789012",
  time: "2030-01-02T03:04:05Z",
  region: "eu-central-1",
  resources: ["arn:aws:s3:::skills-documents"],
  detail: {
    version: "0",
    bucket: { name: "skills-documents" },
    object: { key, size: 120, etag: "b1946ac92492d2347c6235b4d2611184" },
    "request-id": "N4N7GDK58NMKJ12R",
    requester: "123456789012",
    reason: detailType === "Object Deleted" ? "DeleteObject" : "PutObject",
  },
});

const setup = () => {
  const versions = new InMemoryCatalogueVersions();
  const log = recordingLogger();
  return { versions, log, handler: createS3EventsHandler({ versions, logger: log.logger }) };
};

describe("s3-events handler", () => {
  it.each(["Object Created", "Object Deleted"])("bumps the level of a catalogue key on %s", async (detailType) => {
    // Prepare
    const { versions, log, handler } = setup();

    // Act
    const outcome = await handler(bridged("tenants/acme/projects/web/_vance/skills/alpha/SKILL.md", detailType));

    // Assess
    expect(outcome).toEqual({ bumped: [{ tenant: "acme", project: "web" }], ignored: [] });
    expect((await versions.read("acme", ["web"])).get("web")?.version).toBe(1);
    expect(log.lines).toEqual([
      { level: "info", message: "Catalogue levels bumped", extra: { levels: [{ tenant: "acme", project: "web" }] } },
    ]);
  });

  it.each([
    ["tenants/acme/projects/web/_vance/recipes/default.yaml", "acme", "web"],
    ["tenants/acme/projects/_tenant/_vance/skills/alpha/references/guide.md", "acme", "_tenant"],
    ["tenants/umbrella/projects/_user_ada@example.com/_vance/skills/x/SKILL.md", "umbrella", "_user_ada@example.com"],
  ])("maps %s to tenant %s, level %s and no other", async (key, tenant, project) => {
    // Prepare
    const { versions, handler } = setup();

    // Act
    await handler(bridged(key));
    const read = await versions.read(tenant, [project, "web", "_tenant"]);

    // Assess
    expect(read.get(project)?.version).toBe(1);
    expect([...read.values()].filter((v) => v.version > 0)).toHaveLength(1);
    expect((await versions.read(tenant === "acme" ? "umbrella" : "acme", [project])).get(project)?.version).toBe(0);
  });

  it.each([
    "tenants/acme/projects/web/notes/readme.md",
    "tenants/acme/projects/web/workspace/_vance/x.md",
    "tenants/acme/projects/_other/_vance/skills/x/SKILL.md",
    "tenants/acme/projects/web/_vance/../../../_tenant/_vance/x.md",
    "uploads/tenants/acme/projects/web/_vance/x.md",
    "tenants/acme/_vance/skills/x/SKILL.md",
  ])("ignores %s (outside every level's _vance/), bumping nothing", async (key) => {
    // Prepare
    const { versions, log, handler } = setup();

    // Act
    const outcome = await handler(bridged(key));

    // Assess
    expect(outcome).toEqual({ bumped: [], ignored: [key] });
    expect([...(await versions.read("acme", ["web", "_tenant"])).values()].map((v) => v.version)).toEqual([0, 0]);
    expect(log.lines).toEqual([{ level: "info", message: "S3 event keys outside any catalogue: ignored", extra: { keys: [key] } }]);
  });

  it.each([
    ["null", null],
    ["a number", 42],
    ["an empty object", {}],
    ["no detail.object", { "detail-type": "Object Created", source: "aws.s3", detail: { bucket: { name: "b" } } }],
    ["a key that is not a string", bridged(17)],
    ["an undecodable key", bridged("tenants/acme/projects/web/_vance/%E0%A4%A")],
    ["Records that are not a list", { Records: "x" }],
  ])("skips an event with %s: resolves, logs a warning and bumps nothing", async (_what, event) => {
    // Prepare
    const { versions, log, handler } = setup();

    // Act
    const outcome = await handler(event);

    // Assess
    expect(outcome).toEqual({ bumped: [], ignored: [] });
    expect((await versions.read("acme", ["web"])).get("web")?.version).toBe(0);
    expect(log.lines.map((line) => [line.level, line.message])).toEqual([["warn", "S3 event names no object key: skipped"]]);
  });

  it("bumps again on a redelivered event: the version only moves forward", async () => {
    // Prepare
    const { versions, handler } = setup();
    const event = bridged("tenants/acme/projects/web/_vance/skills/alpha/SKILL.md");

    // Act
    await handler(event);
    const first = (await versions.read("acme", ["web"])).get("web");
    await handler(event);
    const second = (await versions.read("acme", ["web"])).get("web");

    // Assess
    expect([first?.version, second?.version]).toEqual([1, 2]);
  });

  it("logs and rethrows a failed bump, so Lambda retries the event", async () => {
    // Prepare
    const outage = new Error("DynamoDB unreachable");
    const versions: CatalogueVersions = { bump: () => Promise.reject(outage), read: () => Promise.reject(outage) };
    const log = recordingLogger();
    const handler = createS3EventsHandler({ versions, logger: log.logger });

    // Act
    const result = handler(bridged("tenants/acme/projects/web/_vance/skills/alpha/SKILL.md"));

    // Assess
    await expect(result).rejects.toBe(outage);
    expect(log.lines).toEqual([
      { level: "error", message: "Catalogue version bump failed; the event will be retried", extra: { error: outage } },
    ]);
  });

  it("logs a bounded excerpt of a long ignored key", async () => {
    // Prepare
    const { log, handler } = setup();
    const key = `tenants/acme/projects/web/${"x".repeat(2000)}`;

    // Act
    await handler(bridged(key));

    // Assess
    const logged = (log.lines[0]?.extra?.keys as string[])[0]!;
    expect(logged.length).toBeLessThanOrEqual(301);
    expect(key.startsWith(logged.slice(0, -1))).toBe(true);
  });
});

describe("s3-events entry point (functions/s3-events/handler.ts)", () => {
  it("loads from the environment and skips a malformed event without reaching DynamoDB", async () => {
    // Prepare: nothing listens on the endpoint, so a bump would fail
    vi.stubEnv("SKILLS_TABLE_NAME", "skills-test");
    vi.stubEnv("AWS_REGION", "eu-central-1");
    vi.stubEnv("AWS_ENDPOINT_URL", "http://127.0.0.1:9");
    vi.stubEnv("AWS_ACCESS_KEY_ID", "test");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "test");
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "SILENT");
    const { handler } = await import("../../functions/s3-events/handler.js");

    // Act
    const outcome = await handler({ "detail-type": "Object Created", detail: {} }, undefined);

    // Assess
    expect(outcome).toEqual({ bumped: [], ignored: [] });
  });
});
