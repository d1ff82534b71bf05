import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { createTestBucket, deleteTestBucket, testS3Client } from "../support/aws-clients.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = "acme";
const SCOPE = { tenantId: TENANT, userId: "bob", projectId: "web" };

describe("SkillLoader over S3", () => {
  let s3: S3Client;
  let bucket: string;
  let store: S3DocumentStore;
  let loader: SkillLoader;

  beforeAll(async () => {
    s3 = testS3Client();
    bucket = await createTestBucket(s3, "skill-cascade");
    store = new S3DocumentStore({ client: s3, bucket });
    loader = new SkillLoader({ store, bundled: new BundledDocumentLayer() });
  });

  afterAll(async () => {
    await deleteTestBucket(s3, bucket);
    s3.destroy();
  });

  it("resolves USER → PROJECT → VANCE → RESOURCE and falls outward on delete", async () => {
    // Prepare
    await store.put(TENANT, "_user_bob", skillPath("code-review"), skillMd({ title: "user review" }));
    await store.put(TENANT, "web", skillPath("code-review"), skillMd({ title: "project review" }));
    await store.put(TENANT, "_tenant", skillPath("code-review"), skillMd({ title: "tenant review" }));
    const seen: Array<[string | undefined, string | undefined]> = [];

    // Act
    for (const project of ["_user_bob", "web", "_tenant", null]) {
      const skill = await loader.load(SCOPE, "code-review");
      seen.push([skill?.title, skill?.source]);
      if (project) await store.delete(TENANT, project, skillPath("code-review"));
    }

    // Assess
    expect(seen).toEqual([
      ["user review", "USER"],
      ["project review", "PROJECT"],
      ["tenant review", "VANCE"],
      ["Code Review", "RESOURCE"],
    ]);
  });

  it("lists the union with inner layers winning, disabled and defective ones removed", async () => {
    // Prepare
    await store.put(TENANT, "_user_bob", skillPath("mine"), skillMd({ title: "mine" }));
    await store.put(TENANT, "web", skillPath("typescript-style"), skillMd({ title: "project style" }));
    await store.put(TENANT, "_tenant", skillPath("code-guard"), skillMd({ title: "off", extra: "enabled: false" }));
    await store.put(TENANT, "_tenant", skillPath("broken"), "---\ntitle: [\n---\n");

    // Act
    const listed = await loader.listAvailable(SCOPE);
    const problems = await loader.problems(SCOPE);

    // Assess
    expect(listed.map((s) => [s.name, s.source, s.title])).toEqual([
      ["code-review", "RESOURCE", "Code Review"],
      ["mine", "USER", "mine"],
      ["typescript-style", "PROJECT", "project style"],
    ]);
    // The skipped document is an error; the bundled documents the inner levels hide are info entries.
    expect(problems.map((p) => [p.name, p.source, p.path, p.severity])).toEqual([
      ["broken", "VANCE", skillPath("broken"), "error"],
      ["code-guard", "RESOURCE", skillPath("code-guard"), "info"],
      ["typescript-style", "RESOURCE", skillPath("typescript-style"), "info"],
    ]);
  });

  it("pins INLINE reference files to the layer of SKILL.md", async () => {
    // Prepare
    const extra = ["referenceDocs:", "  - file: references/checklist.md", "    title: Checklist"].join("\n");
    await store.put(TENANT, "_user_bob", skillPath("pinned"), skillMd({ title: "pinned", extra }));
    await store.put(TENANT, "_tenant", "_vance/skills/pinned/references/checklist.md", "from tenant");
    await store.put(TENANT, "web", skillPath("pinned-ok"), skillMd({ title: "ok", extra }));
    await store.put(TENANT, "web", "_vance/skills/pinned-ok/references/checklist.md", "from project");

    // Act
    const pinned = await loader.load(SCOPE, "pinned");
    const ok = await loader.load(SCOPE, "pinned-ok");

    // Assess
    expect(pinned?.referenceDocs[0]?.content).toBeUndefined();
    expect(pinned?.warnings.map((w) => w.message).join()).toMatch(/not found in the USER layer/);
    expect(ok?.referenceDocs[0]?.content).toBe("from project");
    expect(ok?.location.etag).toMatch(/^[0-9a-f]{32}$/);
  });
});
