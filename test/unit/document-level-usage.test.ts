import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryLevelUsage } from "../../shared/catalogue/in-memory-level-usage.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InvalidDocument } from "../../shared/errors.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = IDENTITIES.admin.tenant;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const patterns = (seed: string, n: number): string =>
  skillMd({
    extra: `triggers:\n${Array.from({ length: n }, (_, i) => `  - type: PATTERN\n    pattern: '${seed}-${i} (now|later)'`).join("\n")}`,
  });

/** A store that counts what the service asks of it. */
function counted(): { store: InMemoryDocumentStore; lists: string[]; gets: string[] } {
  const store = new InMemoryDocumentStore();
  const lists: string[] = [];
  const gets: string[] = [];
  const list = store.list.bind(store);
  const get = store.get.bind(store);
  store.list = (tenant, project, prefix) => (lists.push(prefix), list(tenant, project, prefix));
  store.get = (tenant, project, path) => (gets.push(path), get(tenant, project, path));
  return { store, lists, gets };
}

describe("DocumentService with level usage counters", () => {
  it("lists the level once to seed the counters, then neither lists it nor reads other skills", async () => {
    const { store, lists, gets } = counted();
    for (let i = 0; i < 5; i++) await store.put(TENANT, "_tenant", skillPath(`s-${i}`), patterns(`s${i}`, 1));
    const service = new DocumentService(store, undefined, undefined, new InMemoryLevelUsage());
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("first"), bytes(skillMd()));
    expect(lists).toContain("");
    lists.length = 0;
    gets.length = 0;
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("second"), bytes(patterns("second", 2)));
    expect(lists).toEqual([]);
    expect(gets.filter((path) => !path.startsWith("_vance/skills/second/"))).toEqual([]);
  });

  it("refuses the PATTERN cap from the counters, and an edit that lowers its own count is allowed", async () => {
    const { store } = counted();
    const service = new DocumentService(store, undefined, undefined, new InMemoryLevelUsage());
    // A user level holds at most 100 PATTERN triggers (trigger-caps.ts); 20 per skill.
    for (let i = 0; i < 5; i++)
      await service.put(IDENTITIES.alice, TENANT, "_user_alice", skillPath(`p-${i}`), bytes(patterns(`p${i}`, 20)));
    const refused = await service
      .put(IDENTITIES.alice, TENANT, "_user_alice", skillPath("more"), bytes(patterns("more", 1)))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect((refused as InvalidDocument).problems[0]?.message).toMatch(/would hold 101 PATTERN triggers/);
    await service.put(IDENTITIES.alice, TENANT, "_user_alice", skillPath("p-0"), bytes(patterns("p0", 19)));
    await expect(
      service.put(IDENTITIES.alice, TENANT, "_user_alice", skillPath("more"), bytes(patterns("more", 1))),
    ).resolves.toMatchObject({ path: skillPath("more") });
  });

  it("refuses a case-colliding name until the other skill is deleted, also when it was deleted around the API", async () => {
    const { store } = counted();
    const service = new DocumentService(store, undefined, undefined, new InMemoryLevelUsage());
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("Review"), bytes(skillMd()));
    await expect(service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("review"), bytes(skillMd()))).rejects.toThrow(
      /collides with the skill 'Review'/,
    );
    await store.delete(TENANT, "_tenant", skillPath("Review"));
    await expect(service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("review"), bytes(skillMd()))).resolves.toMatchObject({
      path: skillPath("review"),
    });
  });

  it("seeds a never-counted level's PATTERN counts from the level snapshot, reading only the SKILL.md files whose ETag it does not know", async () => {
    const { store, gets } = counted();
    for (let i = 0; i < 5; i++) await store.put(TENANT, "_tenant", skillPath(`s-${i}`), patterns(`s${i}`, 2));
    const listed = await store.list(TENANT, "_tenant", "");
    // The snapshot parsed s-0…s-3 at their current ETags; s-4 changed since (another ETag).
    const hints = new Map(listed.map((ref) => [ref.path, { etag: ref.path.includes("s-4") ? "older" : ref.etag, patterns: 2 }]));
    const usage = new InMemoryLevelUsage();
    const service = new DocumentService(store, undefined, undefined, usage, async () => hints);
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("first"), bytes(skillMd()));
    expect(gets.filter((path) => path.startsWith("_vance/skills/s-"))).toEqual([skillPath("s-4")]);
    expect((await usage.read(TENANT, "_tenant", "x"))?.counts).toMatchObject({ documents: 6, patterns: 10 });
  });

  it("seeds by reading every SKILL.md when the snapshot cannot be had", async () => {
    const { store, gets } = counted();
    for (let i = 0; i < 3; i++) await store.put(TENANT, "_tenant", skillPath(`s-${i}`), patterns(`s${i}`, 1));
    const usage = new InMemoryLevelUsage();
    const service = new DocumentService(store, undefined, undefined, usage, () => Promise.reject(new Error("AccessDenied")));
    await service.put(IDENTITIES.admin, TENANT, "_tenant", skillPath("first"), bytes(skillMd()));
    expect(gets.filter((path) => path.startsWith("_vance/skills/s-")).sort()).toEqual([0, 1, 2].map((i) => skillPath(`s-${i}`)));
    expect((await usage.read(TENANT, "_tenant", "x"))?.counts).toMatchObject({ documents: 4, patterns: 3 });
  });
});
