import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../shared/auth/identity.js";
import { CONNECTION_TTL_SECONDS } from "../../shared/connections/connection-store.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";

const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });
const MALLORY = parseIdentity({ login: "mallory", tenant: "evil", projects: ["proj1"], roles: ["tenant-admin"] });
const START = Date.parse("2025-03-01T12:00:00.000Z");

const clockAt = () => {
  let now = START;
  return { clock: () => new Date(now), advance: (seconds: number) => (now += seconds * 1000) };
};

describe("InMemoryConnectionStore", () => {
  it("stores a connection with the identity snapshot and an expiry past API Gateway's 2 h connection limit", async () => {
    // Prepare
    const { clock } = clockAt();
    const store = new InMemoryConnectionStore({ clock });

    // Act
    await store.put({ connectionId: "c1", identity: ALICE });
    const record = await store.get("acme", "c1");

    // Assess
    expect(record).toEqual({
      connectionId: "c1",
      identity: { login: "alice", tenant: "acme", projects: ["proj1"], roles: [] },
      connectedAt: "2025-03-01T12:00:00.000Z",
      expiresAt: START / 1000 + CONNECTION_TTL_SECONDS,
    });
    expect(CONNECTION_TTL_SECONDS).toBeGreaterThan(2 * 3600);
  });

  it("does not return an expired connection or subscription (TTL deletion is lazy)", async () => {
    // Prepare
    const { clock, advance } = clockAt();
    const store = new InMemoryConnectionStore({ clock, ttlSeconds: 60 });
    await store.put({ connectionId: "c1", identity: ALICE });
    await store.subscribe("acme", "c1", "p1");

    // Act
    advance(61);

    // Assess
    expect(await store.get("acme", "c1")).toBeUndefined();
    expect(await store.subscribers("acme", "p1")).toEqual([]);
    expect(await store.subscriptionsOf("acme", "c1")).toEqual([]);
  });

  it("lists a process's subscribers and a connection's subscriptions; subscribing twice is one subscription", async () => {
    // Prepare
    const store = new InMemoryConnectionStore();
    await store.put({ connectionId: "c1", identity: ALICE });
    await store.put({ connectionId: "c2", identity: ALICE });

    // Act
    await store.subscribe("acme", "c1", "p1");
    await store.subscribe("acme", "c1", "p1");
    await store.subscribe("acme", "c1", "p2");
    await store.subscribe("acme", "c2", "p1");

    // Assess
    expect((await store.subscribers("acme", "p1")).sort()).toEqual(["c1", "c2"]);
    expect(await store.subscribers("acme", "p2")).toEqual(["c1"]);
    expect((await store.subscriptionsOf("acme", "c1")).sort()).toEqual(["p1", "p2"]);
  });

  it("removes a connection together with all of its subscriptions, leaving other connections alone", async () => {
    // Prepare
    const store = new InMemoryConnectionStore();
    await store.put({ connectionId: "c1", identity: ALICE });
    await store.put({ connectionId: "c2", identity: ALICE });
    await store.subscribe("acme", "c1", "p1");
    await store.subscribe("acme", "c1", "p2");
    await store.subscribe("acme", "c2", "p1");

    // Act
    await store.remove("acme", "c1");

    // Assess
    expect(await store.get("acme", "c1")).toBeUndefined();
    expect(await store.subscribers("acme", "p1")).toEqual(["c2"]);
    expect(await store.subscribers("acme", "p2")).toEqual([]);
    expect(await store.get("acme", "c2")).toBeDefined();
  });

  it("keeps tenants apart: same connection and process ids in another tenant are different entries", async () => {
    // Prepare
    const store = new InMemoryConnectionStore();
    await store.put({ connectionId: "c1", identity: ALICE });
    await store.subscribe("acme", "c1", "p1");

    // Act
    const crossRead = await store.get("evil", "c1");
    const crossSubscribers = await store.subscribers("evil", "p1");
    await store.put({ connectionId: "c9", identity: MALLORY });
    await store.subscribe("evil", "c9", "p1");
    await store.remove("evil", "c1");

    // Assess
    expect(crossRead).toBeUndefined();
    expect(crossSubscribers).toEqual([]);
    expect(await store.subscribers("acme", "p1")).toEqual(["c1"]);
    expect(await store.subscribers("evil", "p1")).toEqual(["c9"]);
    expect(await store.get("acme", "c1")).toBeDefined();
  });

  it("returns copies: changing a returned record does not change the store", async () => {
    // Prepare
    const store = new InMemoryConnectionStore();
    await store.put({ connectionId: "c1", identity: ALICE });
    const record = await store.get("acme", "c1");

    // Act
    (record!.identity.projects as string[]).push("stolen");

    // Assess
    expect((await store.get("acme", "c1"))!.identity.projects).toEqual(["proj1"]);
  });
});
