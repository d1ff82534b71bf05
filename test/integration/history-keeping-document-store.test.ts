import type { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { textOf } from "../../shared/documents/document-store.js";
import { HistoryKeepingDocumentStore } from "../../shared/documents/history-keeping-document-store.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { DocumentNotFound, InvalidDocument } from "../../shared/errors.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";
import { createTestBucket, deleteTestBucket, testS3Client } from "../support/aws-clients.js";

/**
 * The local stack's version history: two S3DocumentStores on two buckets of the emulator (which
 * keeps no versions itself), the second holding a copy of every write.
 */

const TENANT = "acme";
const SKILL = "_vance/skills/reviewer/SKILL.md";
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("HistoryKeepingDocumentStore over two emulator buckets", () => {
  let s3: S3Client;
  let documentsBucket: string;
  let historyBucket: string;
  let documents: S3DocumentStore;
  let store: HistoryKeepingDocumentStore;

  beforeAll(async () => {
    s3 = testS3Client();
    documentsBucket = await createTestBucket(s3, "history-documents");
    historyBucket = await createTestBucket(s3, "history-copies");
    documents = new S3DocumentStore({ client: s3, bucket: documentsBucket, versioned: false });
    store = new HistoryKeepingDocumentStore(documents, new S3DocumentStore({ client: s3, bucket: historyBucket, versioned: false }));
  });

  afterAll(async () => {
    await deleteTestBucket(s3, documentsBucket);
    await deleteTestBucket(s3, historyBucket);
    s3.destroy();
  });

  it("lists every write newest first with its writer, reads each one back, and keeps the history after a delete", async () => {
    // Prepare
    const path = "notes/plan.md";
    await store.put(TENANT, "p1", path, "one", "text/markdown", { writtenBy: "alice" });
    await store.put(TENANT, "p1", path, "two", "text/markdown", { writtenBy: "bob@example.com" });
    await store.put(TENANT, "p1", path, "three");
    // Another path that starts with this one has a history of its own.
    await store.put(TENANT, "p1", `${path}.bak`, "other", undefined, { writtenBy: "alice" });

    // Act
    const listed = await store.versions(TENANT, "p1", path);
    const oldest = await store.getVersion(TENANT, "p1", path, listed[2]!.versionId);
    const deleted = await store.delete(TENANT, "p1", path);
    const afterDelete = await store.versions(TENANT, "p1", path);
    const current = await store.get(TENANT, "p1", path);

    // Assess
    expect(listed.map((v) => [v.size, v.writtenBy])).toEqual([
      [5, undefined],
      [3, "bob@example.com"],
      [3, "alice"],
    ]);
    expect(listed.map((v) => v.versionId)).toEqual([...listed.map((v) => v.versionId)].sort().reverse());
    expect(new Set(listed.map((v) => v.versionId)).size).toBe(3);
    expect(Date.parse(listed[0]!.lastModified)).toBeGreaterThanOrEqual(Date.parse(listed[2]!.lastModified));
    expect(listed[1]!.etag).toMatch(/^[0-9a-f]{32}$/);
    expect(oldest).toMatchObject({ path, etag: listed[2]!.etag, contentType: "text/markdown", writtenBy: "alice" });
    expect(textOf(oldest!)).toBe("one");
    expect(deleted).toBe(true);
    expect(current).toBeUndefined();
    expect(afterDelete).toEqual(listed);
  });

  it("keeps history copies out of the documents bucket, so listings and limits see documents only", async () => {
    // Prepare
    await store.put(TENANT, "p2", "a.md", "a");
    await store.put(TENANT, "p2", "a.md", "b");

    // Act
    const listing = await store.list(TENANT, "p2", "");
    const inner = await documents.list(TENANT, "p2", "");

    // Assess
    expect(listing.map((ref) => ref.path)).toEqual(["a.md"]);
    expect(inner).toEqual(listing);
  });

  it("answers undefined for a version id it never made (malformed or unknown), without touching the history store's paths", async () => {
    // Prepare
    await store.put(TENANT, "p3", "x.md", "x");

    // Act
    const unknown = await store.getVersion(TENANT, "p3", "x.md", "0000000000001-0000-abcdef");
    const foreign = await store.getVersion(TENANT, "p3", "x.md", "v00000001");
    const escaping = await store.getVersion(TENANT, "p3", "x.md", "../other");

    // Assess
    expect(unknown).toBeUndefined();
    expect(foreign).toBeUndefined();
    expect(escaping).toBeUndefined();
  });

  it("lets the document service restore an old version (after a delete too) as the newest, recording the restorer", async () => {
    // Prepare
    const service = new DocumentService(store);
    const first = skillMd({ body: "First body." });
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(first));
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd({ body: "Second body." })));
    const [, older] = await service.versions(IDENTITIES.admin, TENANT, "_tenant", SKILL);
    await service.delete(IDENTITIES.admin, TENANT, "_tenant", SKILL);

    // Act
    const restored = await service.restore(IDENTITIES.admin, TENANT, "_tenant", SKILL, older!.versionId);
    const missing = await failure(service.restore(IDENTITIES.admin, TENANT, "_tenant", SKILL, "9999999999999-0000-000000"));
    const listed = await service.versions(IDENTITIES.admin, TENANT, "_tenant", SKILL);

    // Assess
    expect(restored.etag).toBe(older!.etag);
    expect(textOf((await store.get(TENANT, "_tenant", SKILL))!)).toBe(first);
    expect(missing).toBeInstanceOf(DocumentNotFound);
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({ etag: older!.etag, writtenBy: IDENTITIES.admin.login });
  });

  it("refuses a restore of a history copy that no longer validates, leaving the current document as it was", async () => {
    // Prepare
    const service = new DocumentService(store);
    // Written around the service (as a console or an old release could), so it was never validated.
    await store.put(TENANT, "_tenant", "_vance/skills/broken/SKILL.md", "---\nname: [broken\n---\n");
    const good = skillMd({ body: "Good." });
    await service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/broken/SKILL.md", bytes(good));
    const [, broken] = await service.versions(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/broken/SKILL.md");

    // Act
    const refused = await failure(service.restore(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/broken/SKILL.md", broken!.versionId));

    // Assess
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect(textOf((await store.get(TENANT, "_tenant", "_vance/skills/broken/SKILL.md"))!)).toBe(good);
    expect(await service.versions(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/broken/SKILL.md")).toHaveLength(2);
  });
});
