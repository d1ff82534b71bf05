import type { S3Client } from "@aws-sdk/client-s3";
import { GetObjectCommand, HeadObjectCommand, ListObjectVersionsCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { S3DocumentStore } from "../../shared/documents/s3-document-store.js";
import { MAX_WRITER_LOOKUPS } from "../../shared/documents/document-store.js";
import { DocumentNotFound, InvalidDocument, InvalidRequest, VersionsUnavailable } from "../../shared/errors.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";

const TENANT = "acme";
const SKILL = "_vance/skills/reviewer/SKILL.md";
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (body: Uint8Array): string => new TextDecoder().decode(body);
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

describe("S3DocumentStore version calls (AWS and LocalStack; the local emulator has no versioning)", () => {
  it("lists only the key's own versions across pages, newest first, without delete markers, each with its writer, and reads one by VersionId", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/_vance/skills/reviewer/SKILL.md";
    const sent: unknown[] = [];
    const pages = [
      {
        IsTruncated: true,
        NextKeyMarker: key,
        NextVersionIdMarker: "v2",
        Versions: [
          { Key: key, VersionId: "v3", ETag: '"e3"', LastModified: new Date("2025-01-03"), Size: 3, IsLatest: true },
          { Key: `${key}.bak`, VersionId: "x1", ETag: '"ex"', LastModified: new Date("2025-01-04"), Size: 9, IsLatest: true },
        ],
      },
      { IsTruncated: false, Versions: [{ Key: key, VersionId: "v1", ETag: '"e1"', LastModified: new Date("2025-01-01"), Size: 1, IsLatest: false }], DeleteMarkers: [{ Key: key, VersionId: "d1" }] },
    ];
    const s3 = {
      send: async (command: unknown) => {
        sent.push(command);
        if (command instanceof ListObjectVersionsCommand) return pages.shift();
        if (command instanceof HeadObjectCommand) return { Metadata: command.input.VersionId === "v3" ? { "written-by": "bob%40example.com" } : {} };
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
    expect((sent[1] as ListObjectVersionsCommand).input).toMatchObject({ Bucket: "docs", Prefix: key, KeyMarker: key, VersionIdMarker: "v2" });
    const heads = sent.filter((c): c is HeadObjectCommand => c instanceof HeadObjectCommand).map((c) => c.input);
    expect(heads).toEqual([
      { Bucket: "docs", Key: key, VersionId: "v3" },
      { Bucket: "docs", Key: key, VersionId: "v1" },
    ]);
    expect(text(one!.body)).toBe("one");
    expect(one!.writtenBy).toBe("alice");
    expect(sent.find((c): c is GetObjectCommand => c instanceof GetObjectCommand)?.input).toMatchObject({ Bucket: "docs", Key: key, VersionId: "v1" });
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
    expect(puts.map((p) => p.input.Metadata)).toEqual([{ "written-by": "j%C3%BCrgen%40example.com" }, { "written-by": "x".repeat(256) }, undefined]);
  });

  it("leaves the writer out of a version that vanished between the listing and its HeadObject", async () => {
    // Prepare
    const key = "tenants/acme/projects/_tenant/_vance/skills/reviewer/SKILL.md";
    const s3 = {
      send: async (command: unknown) => {
        if (command instanceof ListObjectVersionsCommand) return { Versions: [{ Key: key, VersionId: "v1", ETag: '"e1"', LastModified: new Date("2025-01-01"), Size: 1, IsLatest: true }] };
        if (command instanceof HeadObjectCommand) throw Object.assign(new Error("gone"), { name: "NotFound", $metadata: { httpStatusCode: 404 } });
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
