import type { S3Client } from "@aws-sdk/client-s3";
import { GetObjectCommand, HeadObjectCommand, ListObjectVersionsCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { MAX_WRITER_LOOKUPS } from "../../shared/documents/document-store.js";
import { MAX_DOCUMENT_BYTES } from "../../shared/app/document-limits.js";
import { DocumentStoreAccessDenied, DocumentTooLargeToRead } from "../../shared/documents/document-store-errors.js";
import type { DocumentVersion, GetVersionOptions, StoredDocument } from "../../shared/documents/document-store.js";
import { DelegatingDocumentStore } from "../support/delegating-document-store.js";
import { DocumentNotFound, InvalidDocument, InvalidRequest, VersionsUnavailable } from "../../shared/errors.js";
import { errorResponse } from "../../shared/http/error-response.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";

const TENANT = "acme";
const SKILL = "_vance/skills/reviewer/SKILL.md";
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (body: Uint8Array): string => new TextDecoder().decode(body);
const KEY = `tenants/${TENANT}/projects/_tenant/${SKILL}`;
const s3Error = (name: string, httpStatusCode: number): Error => Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });

/** Counts the version calls the service makes, over an in-memory store. */
class CountingStore extends DelegatingDocumentStore {
  readonly calls = { versions: 0, getVersion: 0 };
  override versions(tenant: string, project: string, path: string): Promise<DocumentVersion[] | undefined> {
    this.calls.versions++;
    return super.versions(tenant, project, path);
  }
  override getVersion(
    tenant: string,
    project: string,
    path: string,
    versionId: string,
    options?: GetVersionOptions,
  ): Promise<StoredDocument | undefined> {
    this.calls.getVersion++;
    return super.getVersion(tenant, project, path, versionId, options);
  }
}

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("DocumentService: versions, one version, restore", () => {
  it("lists versions newest first, reads an old one, and restores it as the newest with the catalogue bumped", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const versions = new InMemoryCatalogueVersions();
    const service = new DocumentService(store, catalogueChangeNotifier(versions));
    const first = skillMd({ body: "First body." });
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(first));
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd({ body: "Second body." })));
    const before = (await versions.read(TENANT, ["_tenant"])).get("_tenant");

    // Act
    const listed = await service.versions(IDENTITIES.admin, TENANT, "_tenant", SKILL);
    const old = await service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, listed[1]!.versionId);
    const restored = await service.restore(IDENTITIES.admin, TENANT, "_tenant", SKILL, listed[1]!.versionId);

    // Assess
    expect(listed).toHaveLength(2);
    expect(text(old.body)).toBe(first);
    expect(restored.etag).toBe(listed[1]!.etag);
    expect(text((await store.get(TENANT, "_tenant", SKILL))!.body)).toBe(first);
    expect(await service.versions(IDENTITIES.admin, TENANT, "_tenant", SKILL)).toHaveLength(3);
    expect((await versions.read(TENANT, ["_tenant"])).get("_tenant")).not.toEqual(before);
    expect(before).toBeDefined();
  });

  it("refuses a restore of a version that no longer validates, writing nothing; a missing version is DOCUMENT_NOT_FOUND", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", SKILL, "---\nname: [broken\n---\n");
    const good = skillMd({ body: "Good." });
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(good));
    const [, broken] = (await store.versions(TENANT, "_tenant", SKILL))!;

    // Act
    const refused = await failure(service.restore(IDENTITIES.admin, TENANT, "_tenant", SKILL, broken!.versionId));
    const missing = await failure(service.restore(IDENTITIES.admin, TENANT, "_tenant", SKILL, "no-such-version"));
    const malformed = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "bad id with spaces"));

    // Assess
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect(missing).toBeInstanceOf(DocumentNotFound);
    expect(malformed).toBeInstanceOf(InvalidRequest);
    expect(text((await store.get(TENANT, "_tenant", SKILL))!.body)).toBe(good);
  });

  it("says VERSIONS_UNAVAILABLE for a store that keeps none (the local stack's emulator)", async () => {
    // Prepare
    const s3 = { send: async () => ({}) } as unknown as S3Client;
    const service = new DocumentService(new S3DocumentStore({ client: s3, bucket: "b", versioned: false }));

    // Act
    const listed = await failure(service.versions(IDENTITIES.admin, TENANT, "_tenant", SKILL));
    const one = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "v1"));

    // Assess
    expect(listed).toBeInstanceOf(VersionsUnavailable);
    expect(one).toBeInstanceOf(VersionsUnavailable);
  });
});

describe("DocumentService: what a version that is not there costs", () => {
  it("answers an unknown versionId with one read and no listing", async () => {
    // Prepare
    const store = new CountingStore(new InMemoryDocumentStore());
    const service = new DocumentService(store);
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd({ body: "One." })));

    // Act
    const missing = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "v99999999"));

    // Assess
    expect(missing).toBeInstanceOf(DocumentNotFound);
    expect(store.calls).toEqual({ versions: 0, getVersion: 1 });
  });

  it("answers VERSIONS_UNAVAILABLE from a store that keeps none without asking it anything", async () => {
    // Prepare
    const store = new CountingStore(new InMemoryDocumentStore(), false);
    const service = new DocumentService(store);

    // Act
    const one = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "v1"));
    const listed = await failure(service.versions(IDENTITIES.admin, TENANT, "_tenant", SKILL));

    // Assess
    expect(one).toBeInstanceOf(VersionsUnavailable);
    expect(listed).toBeInstanceOf(VersionsUnavailable);
    expect(store.calls).toEqual({ versions: 0, getVersion: 0 });
  });

  it("on a versioned bucket, a miss is one failed GetObject", async () => {
    // Prepare
    const sent: unknown[] = [];
    const s3 = {
      send: async (command: unknown) => {
        sent.push(command);
        throw s3Error("NoSuchVersion", 404);
      },
    } as unknown as S3Client;
    const service = new DocumentService(new S3DocumentStore({ client: s3, bucket: "docs" }));

    // Act
    const missing = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "v9"));

    // Assess
    expect(missing).toBeInstanceOf(DocumentNotFound);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(GetObjectCommand);
  });
});

describe("DocumentService: restore keeps the documents API's size cap", () => {
  it("refuses a version larger than a PUT may be, as a too-large PUT is refused (400), writing nothing", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    const path = "notes/big.txt";
    await store.put(TENANT, "_tenant", path, new Uint8Array(MAX_DOCUMENT_BYTES + 1));
    await service.put(IDENTITIES.admin, TENANT, "_tenant", path, bytes("small"));
    const [, big] = (await store.versions(TENANT, "_tenant", path))!;

    // Act
    const refused = await failure(service.restore(IDENTITIES.admin, TENANT, "_tenant", path, big!.versionId));

    // Assess
    expect(refused).toBeInstanceOf(InvalidRequest);
    expect(errorResponse(refused).statusCode).toBe(400);
    expect((refused as Error).message).toContain(String(MAX_DOCUMENT_BYTES));
    expect(text((await store.get(TENANT, "_tenant", path))!.body)).toBe("small");
    expect(await store.versions(TENANT, "_tenant", path)).toHaveLength(2);
  });

  it("restores a version of exactly the cap", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    const path = "notes/big.txt";
    await store.put(TENANT, "_tenant", path, new Uint8Array(MAX_DOCUMENT_BYTES));
    await service.put(IDENTITIES.admin, TENANT, "_tenant", path, bytes("small"));
    const [, big] = (await store.versions(TENANT, "_tenant", path))!;

    // Act
    const restored = await service.restore(IDENTITIES.admin, TENANT, "_tenant", path, big!.versionId);

    // Assess
    expect(restored.etag).toBe(big!.etag);
    expect((await store.get(TENANT, "_tenant", path))!.size).toBe(MAX_DOCUMENT_BYTES);
  });
});

describe("S3DocumentStore version calls (AWS and LocalStack; the local emulator has no versioning)", () => {
  it("stops listing at the first key past the document's own (a document next to a large folder of the same name)", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/notes";
    const sent: ListObjectVersionsCommand[] = [];
    const s3 = {
      send: async (command: unknown) => {
        if (command instanceof HeadObjectCommand) return { Metadata: {} };
        if (!(command instanceof ListObjectVersionsCommand)) throw new Error("unexpected");
        sent.push(command);
        return {
          IsTruncated: true,
          NextKeyMarker: `${key}/b.md`,
          NextVersionIdMarker: "f2",
          Versions: [
            { Key: key, VersionId: "n1", ETag: '"n"', LastModified: new Date("2025-01-01"), Size: 1, IsLatest: true },
            { Key: `${key}/a.md`, VersionId: "f1", ETag: '"f"', LastModified: new Date("2025-01-02"), Size: 1, IsLatest: true },
            { Key: `${key}/b.md`, VersionId: "f2", ETag: '"f"', LastModified: new Date("2025-01-02"), Size: 1, IsLatest: true },
          ],
        };
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    const versions = await store.versions("acme", "_tenant", "notes");

    // Assess
    expect(versions!.map((v) => v.versionId)).toEqual(["n1"]);
    expect(sent).toHaveLength(1);
  });

  it("stops after the page whose marker left the key, when the key's last version ended the page before", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/notes";
    const pages = [
      {
        IsTruncated: true,
        NextKeyMarker: key,
        NextVersionIdMarker: "n1",
        Versions: [{ Key: key, VersionId: "n1", LastModified: new Date("2025-01-01"), IsLatest: true }],
      },
      {
        IsTruncated: true,
        NextKeyMarker: `${key}/z.md`,
        NextVersionIdMarker: "z1",
        Versions: [
          { Key: `${key}/a.md`, VersionId: "a1" },
          { Key: `${key}/z.md`, VersionId: "z1" },
        ],
      },
      { IsTruncated: false, Versions: [{ Key: `${key}/zz.md`, VersionId: "zz1" }] },
    ];
    let lists = 0;
    const s3 = {
      send: async (command: unknown) => {
        if (command instanceof ListObjectVersionsCommand) return (lists++, pages.shift());
        if (command instanceof HeadObjectCommand) return { Metadata: {} };
        throw new Error("unexpected");
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    const versions = await store.versions("acme", "_tenant", "notes");

    // Assess
    expect(versions!.map((v) => v.versionId)).toEqual(["n1"]);
    expect(lists).toBe(2);
  });

  it("treats the id of a delete marker (S3 answers 405 MethodNotAllowed) as no such version: 404 from the API", async () => {
    // Prepare
    const s3 = {
      send: async () => {
        throw s3Error("MethodNotAllowed", 405);
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });
    const service = new DocumentService(store);

    // Act
    const direct = await store.getVersion("acme", "_tenant", SKILL, "marker1");
    const viaApi = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "marker1"));

    // Assess
    expect(direct).toBeUndefined();
    expect(viaApi).toBeInstanceOf(DocumentNotFound);
    expect(errorResponse(viaApi)).toMatchObject({ statusCode: 404, body: { error: { code: "DOCUMENT_NOT_FOUND" } } });
  });

  it("refuses a version larger than the cap from its ContentLength, closing the body unread; without a cap it reads", async () => {
    // Prepare
    let destroyed = false;
    let read = false;
    const body = {
      destroy: () => (destroyed = true),
      transformToByteArray: async () => ((read = true), new Uint8Array(0)),
    };
    const s3 = { send: async () => ({ ContentLength: MAX_DOCUMENT_BYTES * 1000, Body: body, ETag: '"e"' }) } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });
    const service = new DocumentService(store);

    // Act
    const viaApi = await failure(service.getVersion(IDENTITIES.admin, TENANT, "_tenant", SKILL, "huge1"));
    const readWhenRefused = read;
    const unbounded = await store.getVersion("acme", "_tenant", SKILL, "huge1");

    // Assess
    expect(viaApi).toBeInstanceOf(DocumentTooLargeToRead);
    expect(errorResponse(viaApi)).toMatchObject({ statusCode: 400, body: { error: { code: "INVALID_REQUEST" } } });
    expect(destroyed).toBe(true);
    expect(readWhenRefused).toBe(false);
    expect(unbounded?.size).toBe(0);
  });

  it.each([
    ["GetObject of a version", "getVersion", "AccessDenied", "s3:GetObjectVersion", `docs/${KEY}`],
    ["ListObjectVersions", "versions", "AccessDenied", "s3:ListBucketVersions", "bucket docs"],
    ["HeadObject of a listed version (no body: named Forbidden)", "versions-head", "Forbidden", "s3:GetObjectVersion", `docs/${KEY}`],
  ])("names the missing permission when S3 denies %s, as a 500 and never a 404", async (_what, call, name, action, resource) => {
    // Prepare
    const s3 = {
      send: async (command: unknown) => {
        if (call === "versions-head" && command instanceof ListObjectVersionsCommand) {
          return { Versions: [{ Key: KEY, VersionId: "v1", LastModified: new Date("2025-01-01"), IsLatest: true }] };
        }
        throw s3Error(name, 403);
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    const error = await failure(
      call === "getVersion" ? store.getVersion(TENANT, "_tenant", SKILL, "v1") : store.versions(TENANT, "_tenant", SKILL),
    );

    // Assess
    expect(error).toBeInstanceOf(DocumentStoreAccessDenied);
    expect(error).toMatchObject({ action, resource });
    expect((error as Error).message).toContain(action);
    expect(errorResponse(error)).toMatchObject({ statusCode: 500, body: { error: { code: "INTERNAL" } } });
  });

  it("lists only the key's own versions across pages, newest first, without delete markers, each with its writer, and reads one by VersionId", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/_vance/skills/reviewer/SKILL.md";
    const sent: unknown[] = [];
    // S3 lists keys in byte order, each key's versions newest first: the key's own come before `….bak`.
    const pages = [
      {
        IsTruncated: true,
        NextKeyMarker: key,
        NextVersionIdMarker: "v3",
        Versions: [{ Key: key, VersionId: "v3", ETag: '"e3"', LastModified: new Date("2025-01-03"), Size: 3, IsLatest: true }],
      },
      {
        IsTruncated: false,
        Versions: [
          { Key: key, VersionId: "v1", ETag: '"e1"', LastModified: new Date("2025-01-01"), Size: 1, IsLatest: false },
          { Key: `${key}.bak`, VersionId: "x1", ETag: '"ex"', LastModified: new Date("2025-01-04"), Size: 9, IsLatest: true },
        ],
        DeleteMarkers: [{ Key: key, VersionId: "d1" }],
      },
    ];
    const s3 = {
      send: async (command: unknown) => {
        sent.push(command);
        if (command instanceof ListObjectVersionsCommand) return pages.shift();
        if (command instanceof HeadObjectCommand)
          return { Metadata: command.input.VersionId === "v3" ? { "written-by": "bob%40example.com" } : {} };
        if (command instanceof GetObjectCommand) {
          if (command.input.VersionId !== "v1") throw Object.assign(new Error("no"), { name: "NoSuchVersion" });
          return { ETag: '"e1"', Body: { transformToByteArray: async () => bytes("one") }, Metadata: { "written-by": "alice" } };
        }
        throw new Error("unexpected");
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    const versions = await store.versions("acme", "_tenant", SKILL);
    const one = await store.getVersion("acme", "_tenant", SKILL, "v1");
    const none = await store.getVersion("acme", "_tenant", SKILL, "v9");

    // Assess
    expect(versions).toEqual([
      { versionId: "v3", etag: "e3", lastModified: "2025-01-03T00:00:00.000Z", size: 3, writtenBy: "bob@example.com" },
      { versionId: "v1", etag: "e1", lastModified: "2025-01-01T00:00:00.000Z", size: 1 },
    ]);
    expect((sent[1] as ListObjectVersionsCommand).input).toMatchObject({
      Bucket: "docs",
      Prefix: key,
      KeyMarker: key,
      VersionIdMarker: "v3",
    });
    const heads = sent.filter((c): c is HeadObjectCommand => c instanceof HeadObjectCommand).map((c) => c.input);
    expect(heads).toEqual([
      { Bucket: "docs", Key: key, VersionId: "v3" },
      { Bucket: "docs", Key: key, VersionId: "v1" },
    ]);
    expect(text(one!.body)).toBe("one");
    expect(one!.writtenBy).toBe("alice");
    expect(sent.find((c): c is GetObjectCommand => c instanceof GetObjectCommand)?.input).toMatchObject({
      Bucket: "docs",
      Key: key,
      VersionId: "v1",
    });
    expect(none).toBeUndefined();
  });

  it("writes the writer as user metadata, percent-encoded and capped, and none when the writer is unknown", async () => {
    // Prepare
    const puts: PutObjectCommand[] = [];
    const s3 = {
      send: async (command: unknown) => {
        if (command instanceof PutObjectCommand) puts.push(command);
        return { ETag: '"e"' };
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    await store.put("acme", "_tenant", SKILL, "a", undefined, { writtenBy: "jürgen@example.com" });
    await store.put("acme", "_tenant", SKILL, "b", undefined, { writtenBy: "x".repeat(300) });
    await store.put("acme", "_tenant", SKILL, "c");

    // Assess
    expect(puts.map((p) => p.input.Metadata)).toEqual([
      { "written-by": "j%C3%BCrgen%40example.com" },
      { "written-by": "x".repeat(256) },
      undefined,
    ]);
  });

  it("leaves the writer out of a version that vanished between the listing and its HeadObject", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/_vance/skills/reviewer/SKILL.md";
    const s3 = {
      send: async (command: unknown) => {
        if (command instanceof ListObjectVersionsCommand)
          return { Versions: [{ Key: key, VersionId: "v1", ETag: '"e1"', LastModified: new Date("2025-01-01"), Size: 1, IsLatest: true }] };
        if (command instanceof HeadObjectCommand)
          throw Object.assign(new Error("gone"), { name: "NotFound", $metadata: { httpStatusCode: 404 } });
        throw new Error("unexpected");
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    const versions = await store.versions("acme", "_tenant", SKILL);

    // Assess
    expect(versions).toEqual([{ versionId: "v1", etag: "e1", lastModified: "2025-01-01T00:00:00.000Z", size: 1 }]);
  });
  it("looks up the writer of the newest MAX_WRITER_LOOKUPS versions only, so a long history costs a bounded number of HeadObjects", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/_vance/skills/reviewer/SKILL.md";
    const listed = Array.from({ length: MAX_WRITER_LOOKUPS + 50 }, (_, i) => ({
      Key: key,
      VersionId: `v${String(i).padStart(4, "0")}`,
      ETag: `"e${i}"`,
      LastModified: new Date(Date.UTC(2025, 0, 1, 0, 0, i)),
      Size: 1,
      IsLatest: i === MAX_WRITER_LOOKUPS + 49,
    }));
    let heads = 0;
    const s3 = {
      send: async (command: unknown) => {
        if (command instanceof ListObjectVersionsCommand) return { Versions: listed };
        if (command instanceof HeadObjectCommand) return (heads++, { Metadata: { "written-by": "alice" } });
        throw new Error("unexpected");
      },
    } as unknown as S3Client;
    const store = new S3DocumentStore({ client: s3, bucket: "docs" });

    // Act
    const versions = (await store.versions("acme", "_tenant", SKILL))!;

    // Assess
    expect(versions).toHaveLength(MAX_WRITER_LOOKUPS + 50);
    expect(heads).toBe(MAX_WRITER_LOOKUPS);
    expect(versions[0]).toMatchObject({ versionId: `v${String(MAX_WRITER_LOOKUPS + 49).padStart(4, "0")}`, writtenBy: "alice" });
    expect(versions[MAX_WRITER_LOOKUPS - 1]!.writtenBy).toBe("alice");
    expect(versions[MAX_WRITER_LOOKUPS]!.writtenBy).toBeUndefined();
  });
});
