import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { MAX_LISTED_VERSIONS } from "../../shared/documents/document-store.js";
import { HistoryKeepingDocumentStore } from "../../shared/documents/history-keeping-document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { VersionsUnavailable } from "../../shared/errors.js";
import { runtimeFromEnv } from "../../shared/wiring/app-from-env.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";

// Set before any client is built: the SDK emits its Node-version notice at construction.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const TENANT = "acme";
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** Two in-memory stores standing in for the local stack's two buckets. */
function stores(clock?: () => number) {
  const inner = new InMemoryDocumentStore();
  const history = new InMemoryDocumentStore();
  return { inner, history, store: new HistoryKeepingDocumentStore(inner, history, clock) };
}

describe("HistoryKeepingDocumentStore", () => {
  it("keeps versions in write order when many land in one millisecond and when the clock steps back", async () => {
    // Prepare
    const times = [5000, 5000, 5000, 4000, 6000];
    const { store } = stores(() => times.shift() ?? 6000);

    // Act
    for (const body of ["a", "b", "c", "d", "e"]) await store.put(TENANT, "p1", "x.md", body);
    const listed = await store.versions(TENANT, "p1", "x.md");
    const bodies = await Promise.all(
      listed.map(async (v) => new TextDecoder().decode((await store.getVersion(TENANT, "p1", "x.md", v.versionId))!.body)),
    );

    // Assess
    expect(bodies).toEqual(["e", "d", "c", "b", "a"]);
    expect(listed.map((v) => v.versionId.slice(0, 18))).toEqual([
      "0000000006000-0000",
      "0000000005000-0003",
      "0000000005000-0002",
      "0000000005000-0001",
      "0000000005000-0000",
    ]);
    expect(listed.map((v) => v.lastModified)).toContain(new Date(5000).toISOString());
  });

  it("lists at most MAX_LISTED_VERSIONS, the newest ones", async () => {
    // Prepare
    let now = 1_000_000;
    const { store } = stores(() => now++);
    for (let i = 0; i < MAX_LISTED_VERSIONS + 5; i++) await store.put(TENANT, "p1", "x.md", String(i));

    // Act
    const listed = await store.versions(TENANT, "p1", "x.md");
    const newest = await store.getVersion(TENANT, "p1", "x.md", listed[0]!.versionId);

    // Assess
    expect(listed).toHaveLength(MAX_LISTED_VERSIONS);
    expect(new TextDecoder().decode(newest!.body)).toBe(String(MAX_LISTED_VERSIONS + 4));
  });

  it("keeps the writer the document service passes (the caller's login) on each version", async () => {
    // Prepare
    const { store, inner } = stores();
    const service = new DocumentService(store);
    const path = "_vance/skills/reviewer/SKILL.md";

    // Act
    await service.put(IDENTITIES.admin, TENANT, "_tenant", path, bytes(skillMd({ body: "One." })));
    await store.put(TENANT, "_tenant", path, skillMd({ body: "Around the API." }));
    const listed = await service.versions(IDENTITIES.admin, TENANT, "_tenant", path);

    // Assess
    expect(listed.map((v) => v.writtenBy)).toEqual([undefined, IDENTITIES.admin.login]);
    expect("writtenBy" in listed[0]!).toBe(false);
    expect((await inner.versions(TENANT, "_tenant", path))?.map((v) => v.writtenBy)).toEqual([undefined, IDENTITIES.admin.login]);
  });
});

describe("document store wiring: the bucket's own versions, a history bucket, or none", () => {
  /** The runtime's documents, with every S3 call recorded and answered empty before it leaves the client. */
  function recordedDocuments(env: Record<string, string>) {
    const sent: string[] = [];
    const resources = runtimeFromEnv({ SKILLS_BUCKET_NAME: "docs", AWS_REGION: "eu-west-1", ...env });
    resources.clients.s3.middlewareStack.add(
      (_next, context) => async (args) => {
        sent.push(`${context.commandName} ${String((args.input as { Bucket?: string }).Bucket)}`);
        return { output: { $metadata: {} }, response: {} } as never;
      },
      { step: "initialize" },
    );
    return { sent, documents: resources.documents, destroy: () => resources.clients.s3.destroy() };
  }

  it("copies every write into SKILLS_HISTORY_BUCKET_NAME and lists versions from there when it is set (the local stack)", async () => {
    // Prepare
    const { sent, documents, destroy } = recordedDocuments({ SKILLS_LOCAL_MODE: "1", SKILLS_HISTORY_BUCKET_NAME: "history" });

    // Act
    await documents.put(TENANT, "p1", "x.md", "x");
    await documents.versions!(TENANT, "p1", "x.md");
    destroy();

    // Assess
    expect(sent).toEqual(["PutObjectCommand docs", "PutObjectCommand history", "ListObjectsV2Command history"]);
  });

  it("lists the bucket's own versions when deployed, and none in local mode without a history bucket (501, no call)", async () => {
    // Prepare
    const deployed = recordedDocuments({});
    const local = recordedDocuments({ SKILLS_LOCAL_MODE: "1" });

    // Act
    await deployed.documents.versions!(TENANT, "p1", "x.md");
    const unavailable = await failure(new DocumentService(local.documents).versions(IDENTITIES.admin, TENANT, "_tenant", "x.md"));
    deployed.destroy();
    local.destroy();

    // Assess
    expect(deployed.sent).toEqual(["ListObjectVersionsCommand docs"]);
    expect(unavailable).toBeInstanceOf(VersionsUnavailable);
    expect(local.sent).toEqual([]);
  });
});
