import { describe, expect, it } from "vitest";
import { UNVERSIONED } from "../../shared/catalogue/catalogue-versions.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { bumpForS3Event, documentOfS3Key, objectKeysOfS3Event } from "../../shared/catalogue/s3-event-bump.js";
import { InvalidRequest } from "../../shared/errors.js";

const eventBridge = (key: string) => ({
  version: "0",
  "detail-type": "Object Created",
  source: "aws.s3",
  detail: { bucket: { name: "docs" }, object: { key, size: 5, etag: "e" }, reason: "PutObject" },
});
const notification = (...keys: string[]) => ({
  Records: keys.map((key) => ({
    eventSource: "aws:s3",
    eventName: "ObjectCreated:Put",
    s3: { bucket: { name: "docs" }, object: { key } },
  })),
});

describe("documentOfS3Key", () => {
  it("maps a key of the bucket layout to tenant, project and path", () => {
    // Act
    const doc = documentOfS3Key("tenants/acme/projects/_user_ada@example.com/_vance/skills/alpha/SKILL.md");

    // Assess
    expect(doc).toEqual({ tenant: "acme", project: "_user_ada@example.com", path: "_vance/skills/alpha/SKILL.md" });
  });

  it.each([
    "tenants/acme/_vance/skills/alpha/SKILL.md",
    "other/acme/projects/web/_vance/skills/alpha/SKILL.md",
    "tenants/../projects/web/_vance/x.md",
    "tenants/acme/projects/../_vance/x.md",
    "tenants/acme/projects/web/_vance/../../../etc/passwd",
    "tenants/acme/projects/web/_vance//x.md",
    "tenants/ac me/projects/web/_vance/x.md",
    "tenants/acme/projects/_other/_vance/x.md",
    "tenants/acme/projects/web/",
    "",
  ])("rejects the foreign key %j", (key) => {
    // Act + Assess
    expect(documentOfS3Key(key)).toBeUndefined();
  });
});

describe("objectKeysOfS3Event", () => {
  it("decodes classic notification keys as form-URL-encoded and takes EventBridge keys as they are", () => {
    // Act
    const classic = objectKeysOfS3Event(notification("tenants/acme/projects/_user_a%2Bb%40x.com/_vance/x.md", "a+b"));
    const bridged = objectKeysOfS3Event(eventBridge("tenants/acme/projects/_user_a+b@x.com/_vance/x.md"));
    const bridgedEncoded = objectKeysOfS3Event(eventBridge("tenants/acme/projects/_user_a%2Bb%40x.com/_vance/x.md"));

    // Assess
    expect(classic).toEqual(["tenants/acme/projects/_user_a+b@x.com/_vance/x.md", "a b"]);
    expect(bridged).toEqual(["tenants/acme/projects/_user_a+b@x.com/_vance/x.md"]);
    expect(bridgedEncoded).toEqual(bridged);
  });

  it("finds no key in events of other shapes", () => {
    // Act + Assess
    expect(
      [null, undefined, 42, {}, { detail: {} }, { Records: "x" }, { Records: [{}] }, notification("%E0%A4%A")].map(objectKeysOfS3Event),
    ).toEqual([[], [], [], [], [], [], [], []]);
  });
});

describe("bumpForS3Event", () => {
  it("bumps each level under _vance/ once and ignores other and foreign keys", async () => {
    // Prepare
    const versions = new InMemoryCatalogueVersions();
    const event = notification(
      "tenants/acme/projects/web/_vance/skills/alpha/SKILL.md",
      "tenants/acme/projects/web/_vance/skills/alpha/references/checklist.md",
      "tenants/acme/projects/web/notes/readme.md",
      "tenants/acme/projects/_tenant/_vance/recipes/default.yaml",
      "uploads/tenants/acme/projects/web/_vance/x.md",
    );

    // Act
    const outcome = await bumpForS3Event(event, versions);
    const read = await versions.read("acme", ["web", "_tenant", "_user_bob"]);

    // Assess
    expect(outcome.bumped).toEqual([
      { tenant: "acme", project: "web" },
      { tenant: "acme", project: "_tenant" },
    ]);
    expect(outcome.ignored).toEqual(["tenants/acme/projects/web/notes/readme.md", "uploads/tenants/acme/projects/web/_vance/x.md"]);
    expect([read.get("web")?.version, read.get("_tenant")?.version, read.get("_user_bob")]).toEqual([1, 1, UNVERSIONED]);
  });

  it("bumps the level of an EventBridge deletion", async () => {
    // Prepare
    const versions = new InMemoryCatalogueVersions();
    const event = { ...eventBridge("tenants/umbrella/projects/_tenant/_vance/skills/alpha/SKILL.md"), "detail-type": "Object Deleted" };

    // Act
    await bumpForS3Event(event, versions);

    // Assess
    expect((await versions.read("umbrella", ["_tenant"])).get("_tenant")?.version).toBe(1);
    expect((await versions.read("acme", ["_tenant"])).get("_tenant")?.version).toBe(0);
  });
});

describe("catalogueChangeNotifier", () => {
  it("bumps for _vance/ documents only, keyed by tenant and project", async () => {
    // Prepare
    const versions = new InMemoryCatalogueVersions(() => new Date("2030-01-02T03:04:05Z"));
    const notify = catalogueChangeNotifier(versions);

    // Act
    const skill = await notify({ tenant: "acme", project: "web", path: "_vance/skills/alpha/SKILL.md" });
    const other = await notify({ tenant: "acme", project: "web", path: "docs/readme.md" });
    const read = await versions.read("acme", ["web"]);

    // Assess
    expect([skill, other]).toEqual([true, false]);
    expect(read.get("web")).toEqual({ version: 1, changedAt: "2030-01-02T03:04:05.000Z" });
  });

  it("refuses a malformed tenant, project or path", async () => {
    // Prepare
    const notify = catalogueChangeNotifier(new InMemoryCatalogueVersions());

    // Act + Assess
    await expect(notify({ tenant: "../acme", project: "web", path: "_vance/x.md" })).rejects.toBeInstanceOf(InvalidRequest);
    await expect(notify({ tenant: "acme", project: "_nope", path: "_vance/x.md" })).rejects.toBeInstanceOf(InvalidRequest);
    await expect(notify({ tenant: "acme", project: "web", path: "_vance/../x.md" })).rejects.toBeInstanceOf(InvalidRequest);
  });
});
