import { createHash } from "node:crypto";
import type { S3Client } from "@aws-sdk/client-s3";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { textOf } from "../../shared/documents/document-store.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { createTestBucket, deleteTestBucket, testS3Client } from "../support/aws-clients.js";

const md5 = (body: string | Uint8Array) => createHash("md5").update(body).digest("hex");

describe("S3DocumentStore", () => {
  let s3: S3Client;
  let bucket: string;
  let store: S3DocumentStore;

  beforeAll(async () => {
    s3 = testS3Client();
    bucket = await createTestBucket(s3, "document-store");
    store = new S3DocumentStore({ client: s3, bucket });
  });

  afterAll(async () => {
    await deleteTestBucket(s3, bucket);
    s3.destroy();
  });

  it("puts and gets a document under the tenant/project key with a bare md5 ETag", async () => {
    // Prepare
    const body = "---\ntitle: Ä\n---\n";

    // Act
    const ref = await store.put("acme", "_tenant", "_vance/skills/a/SKILL.md", body, "text/markdown");
    const doc = await store.get("acme", "_tenant", "_vance/skills/a/SKILL.md");

    // Assess
    expect(ref).toEqual({ path: "_vance/skills/a/SKILL.md", etag: md5(body), size: Buffer.byteLength(body) });
    expect(doc).toMatchObject({
      path: "_vance/skills/a/SKILL.md",
      etag: md5(body),
      size: Buffer.byteLength(body),
      contentType: "text/markdown",
    });
    expect(textOf(doc!)).toBe(body);
  });

  it("keeps a file's permission bits as object metadata, and leaves them out for a write that gave none", async () => {
    // Act
    await store.put("acme", "p1", "_vance/skills/a/scripts/run.sh", "#!/bin/sh\n", undefined, { mode: 0o755 });
    await store.put("acme", "p1", "_vance/skills/a/notes.md", "notes");
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: "tenants/acme/projects/p1/_vance/skills/a/odd.sh",
        Body: "x",
        Metadata: { mode: "rwxr-xr-x" },
      }),
    );

    // Assess
    expect((await store.get("acme", "p1", "_vance/skills/a/scripts/run.sh"))?.mode).toBe(0o755);
    expect((await store.get("acme", "p1", "_vance/skills/a/notes.md"))?.mode).toBeUndefined();
    // Metadata written around the service that is not three octal digits is no mode.
    expect((await store.get("acme", "p1", "_vance/skills/a/odd.sh"))?.mode).toBeUndefined();
  });

  it("round-trips binary bodies", async () => {
    // Prepare
    const bytes = new Uint8Array(256).map((_, i) => i);

    // Act
    await store.put("acme", "p1", "bin/all-bytes", bytes);
    const doc = await store.get("acme", "p1", "bin/all-bytes");

    // Assess
    expect([...doc!.body]).toEqual([...bytes]);
    expect(doc!.etag).toBe(md5(bytes));
  });

  it("answers undefined for a missing document and false for deleting one", async () => {
    // Act
    const missing = await store.get("acme", "p1", "nope.md");
    const deleted = await store.delete("acme", "p1", "nope.md");

    // Assess
    expect(missing).toBeUndefined();
    expect(deleted).toBe(false);
  });

  it("deletes an existing document", async () => {
    // Prepare
    await store.put("acme", "p1", "gone.md", "x");

    // Act
    const deleted = await store.delete("acme", "p1", "gone.md");
    const after = await store.get("acme", "p1", "gone.md");

    // Assess
    expect(deleted).toBe(true);
    expect(after).toBeUndefined();
  });

  it("changes the ETag when the content changes", async () => {
    // Act
    const first = await store.put("acme", "p1", "etag.md", "one");
    const second = await store.put("acme", "p1", "etag.md", "two");
    const [listed] = await store.list("acme", "p1", "etag.md");

    // Assess
    expect(first.etag).not.toBe(second.etag);
    expect(listed).toEqual({ path: "etag.md", etag: md5("two"), size: 3 });
  });

  it("isolates tenants and projects that share a key prefix", async () => {
    // Prepare
    await store.put("iso", "p1", "doc.md", "p1");
    await store.put("iso", "p10", "doc.md", "p10");
    await store.put("iso2", "p1", "doc.md", "other tenant");

    // Act
    const p1 = await store.list("iso", "p1", "");
    const other = await store.get("iso2", "p1", "doc.md");

    // Assess
    expect(p1.map((r) => r.path)).toEqual(["doc.md"]);
    expect(textOf(other!)).toBe("other tenant");
  });

  it("follows continuation tokens across small pages", async () => {
    // Prepare
    const paged = new S3DocumentStore({ client: s3, bucket, listPageSize: 2 });
    // Lowercase only: fauxqs 1.9.2 orders pages with localeCompare but resumes them by byte order, so a
    // page boundary between `b/SKILL.md` and `b/references/…` loses a key there (real S3 does not).
    const paths = [
      "_vance/skills/a/skill.md",
      "_vance/skills/b/references/r.md",
      "_vance/skills/b/skill.md",
      "_vance/skills/c/skill.md",
      "_vance/skills/d/skill.md",
    ];
    for (const path of paths) await paged.put("paging", "_tenant", path, path);
    await paged.put("paging", "_tenant", "_vance/recipes/x.yaml", "x");

    // Act
    const refs = await paged.list("paging", "_tenant", "_vance/skills/");

    // Assess
    expect(refs.map((r) => r.path)).toEqual(paths);
  });

  it("lists more than one default page (1000 keys)", async () => {
    // Prepare
    const count = 1001;
    const paths = Array.from({ length: count }, (_, i) => `many/doc-${String(i).padStart(4, "0")}.md`);
    for (let i = 0; i < paths.length; i += 50) {
      await Promise.all(paths.slice(i, i + 50).map((path) => store.put("bulk", "p1", path, "x")));
    }

    // Act
    const refs = await store.list("bulk", "p1", "many/");

    // Assess
    expect(refs).toHaveLength(count);
    expect(refs.map((r) => r.path)).toEqual(paths);
  });

  it("leaves keys written around the service that it could not address out of listings", async () => {
    // Prepare
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "tenants/foreign/projects/p1/ok.md", Body: "ok" }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "tenants/foreign/projects/p1/with space.md", Body: "x" }));

    // Act
    const refs = await store.list("foreign", "p1", "");

    // Assess
    expect(refs.map((r) => r.path)).toEqual(["ok.md"]);
  });

  it("rejects invalid paths before any request", async () => {
    // Act + Assess
    await expect(store.get("acme", "p1", "../../x")).rejects.toBeInstanceOf(InvalidRequest);
    await expect(store.put("acme", "p1", "a/%2e%2e/b", "x")).rejects.toBeInstanceOf(InvalidRequest);
    await expect(store.list("acme/..", "p1", "")).rejects.toBeInstanceOf(InvalidRequest);
  });
});
