import { PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { describe, expect, it } from "vitest";
import { parseIdentity } from "../../shared/auth/identity.js";
import { ApiGatewayConnectionPush } from "../../shared/connections/apigateway-connection-push.js";
import type { ManagementApiClient } from "../../shared/connections/apigateway-connection-push.js";
import { fitFrame, MAX_FRAME_BYTES } from "../../shared/connections/frame-size.js";
import { InMemoryConnectionStore } from "../../shared/connections/in-memory-connection-store.js";
import type { ServerFrame } from "../../shared/connections/server-frames.js";

const ALICE = parseIdentity({ login: "alice", tenant: "acme", projects: ["proj1"], roles: [] });

const awsError = (name: string): Error => Object.assign(new Error(name), { name });

/** Records every PostToConnection; `fail` decides per connection which error (if any) to throw. */
function fakeClient(fail: (connectionId: string, data: string) => Error | undefined = () => undefined) {
  const posted: { connectionId: string; data: string }[] = [];
  const client = {
    async send(command: unknown) {
      if (!(command instanceof PostToConnectionCommand)) throw new Error("unexpected command");
      const connectionId = command.input.ConnectionId ?? "";
      const raw = command.input.Data;
      const data = typeof raw === "string" ? raw : new TextDecoder().decode(raw as Uint8Array);
      const error = fail(connectionId, data);
      if (error) throw error;
      posted.push({ connectionId, data });
      return {};
    },
  } as unknown as ManagementApiClient;
  return { client, posted };
}

async function storeWithSubscriptions() {
  const store = new InMemoryConnectionStore();
  for (const id of ["c1", "c2"]) {
    await store.put({ connectionId: id, identity: ALICE });
    await store.subscribe("acme", id, "p1");
    await store.subscribe("acme", id, "p2");
  }
  return store;
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("ApiGatewayConnectionPush", () => {
  it("posts the frame as UTF-8 JSON to the connection", async () => {
    // Prepare
    const { client, posted } = fakeClient();
    const push = new ApiGatewayConnectionPush(client, new InMemoryConnectionStore());
    const frame: ServerFrame = { type: "process-subscribed", processId: "p1" };

    // Act
    const outcome = await push.send({ tenant: "acme", connectionId: "c1" }, frame);

    // Assess
    expect(outcome).toBe("sent");
    expect(posted).toEqual([{ connectionId: "c1", data: JSON.stringify(frame) }]);
  });

  it("on GoneException removes that connection and all its subscriptions, and only that one", async () => {
    // Prepare
    const store = await storeWithSubscriptions();
    const { client } = fakeClient((id) => (id === "c1" ? awsError("GoneException") : undefined));
    const push = new ApiGatewayConnectionPush(client, store);

    // Act
    const outcome = await push.send({ tenant: "acme", connectionId: "c1" }, { type: "process-subscribed", processId: "p1" });

    // Assess
    expect(outcome).toBe("gone");
    expect(await store.get("acme", "c1")).toBeUndefined();
    expect(await store.subscribers("acme", "p1")).toEqual(["c2"]);
    expect(await store.subscribers("acme", "p2")).toEqual(["c2"]);
  });

  it("rethrows failures other than a gone connection and keeps the connection", async () => {
    // Prepare
    const store = await storeWithSubscriptions();
    const { client } = fakeClient(() => awsError("LimitExceededException"));
    const push = new ApiGatewayConnectionPush(client, store);

    // Act
    const sending = push.send({ tenant: "acme", connectionId: "c1" }, { type: "process-subscribed", processId: "p1" });

    // Assess
    await expect(sending).rejects.toThrow("LimitExceededException");
    expect(await store.get("acme", "c1")).toBeDefined();
  });

  it("never posts more than the message limit: an oversized result goes out without its result, marked truncated", async () => {
    // Prepare
    const { client, posted } = fakeClient();
    const push = new ApiGatewayConnectionPush(client, new InMemoryConnectionStore());
    const frame: ServerFrame = {
      type: "process-skill-result",
      requestId: "r1",
      processId: "p1",
      status: "DONE",
      result: { text: "x".repeat(MAX_FRAME_BYTES) },
    };

    // Act
    await push.send({ tenant: "acme", connectionId: "c1" }, frame);

    // Assess
    expect(posted).toHaveLength(1);
    expect(bytes(posted[0]!.data)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(JSON.parse(posted[0]!.data)).toEqual({
      type: "process-skill-result",
      requestId: "r1",
      processId: "p1",
      status: "DONE",
      truncated: true,
    });
  });

  it("answers a PayloadTooLargeException (a lower limit than assumed) with a small error frame", async () => {
    // Prepare
    const { client, posted } = fakeClient((_id, data) => (bytes(data) > 200 ? awsError("PayloadTooLargeException") : undefined));
    const push = new ApiGatewayConnectionPush(client, new InMemoryConnectionStore());

    // Act
    const outcome = await push.send(
      { tenant: "acme", connectionId: "c1" },
      {
        type: "process-turn-scheduled",
        processId: "p1",
        reason: "action",
        pending: [{ id: "m1", sender: "_skill", text: "y".repeat(500), at: "2025-01-01T00:00:00.000Z" }],
      },
    );

    // Assess
    expect(outcome).toBe("sent");
    expect(JSON.parse(posted[0]!.data)).toMatchObject({ type: "error", error: { code: "INTERNAL" } });
  });
});

describe("fitFrame", () => {
  const skill = (i: number) => ({
    name: `skill-${String(i).padStart(4, "0")}`,
    title: "T",
    description: "d".repeat(400),
    version: "1.0.0",
    tags: [],
    source: "VANCE" as const,
    lifecycle: "sticky" as const,
    triggers: [],
    arguments: false,
    run: { target: "inline" as const },
    disableModelInvocation: false,
    userInvocable: true,
  });

  it("leaves a frame that fits untouched", () => {
    // Prepare
    const frame: ServerFrame = { type: "process-subscribed", processId: "p1" };

    // Act
    const fitted = fitFrame(frame);

    // Assess
    expect(fitted).toEqual({ json: JSON.stringify(frame), frame, altered: false });
  });

  it("sends as many skills of a long list as fit, in order, with the total", () => {
    // Prepare
    const skills = Array.from({ length: 1000 }, (_, i) => skill(i));

    // Act
    const fitted = fitFrame({ type: "skill-list-result", projectId: "proj1", skills, active: [] });
    const sent = JSON.parse(fitted.json) as { skills: { name: string }[]; truncated: boolean; total: number };

    // Assess
    expect(bytes(fitted.json)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(sent.truncated).toBe(true);
    expect(sent.total).toBe(1000);
    expect(sent.skills.length).toBeGreaterThan(100);
    expect(sent.skills.map((s) => s.name)).toEqual(skills.slice(0, sent.skills.length).map((s) => s.name));
    // One more skill would not have fitted.
    expect(bytes(JSON.stringify({ ...fitted.frame, skills: skills.slice(0, sent.skills.length + 1) }))).toBeGreaterThan(MAX_FRAME_BYTES);
  });

  it("cuts pending texts of a scheduled turn rather than dropping the frame", () => {
    // Prepare
    const pending = Array.from({ length: 5 }, (_, i) => ({
      id: `m${i}`,
      sender: "_skill",
      text: `${i}`.repeat(60_000),
      at: "2025-01-01T00:00:00.000Z",
    }));

    // Act
    const fitted = fitFrame({ type: "process-turn-scheduled", processId: "p1", reason: "action", pending });
    const sent = JSON.parse(fitted.json) as { pending: { id: string; text: string }[]; truncated: boolean };

    // Assess
    expect(bytes(fitted.json)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(sent.truncated).toBe(true);
    expect(sent.pending.map((m) => m.id)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expect(sent.pending[1]!.text.startsWith("1111")).toBe(true);
    expect(sent.pending[1]!.text.endsWith("…")).toBe(true);
  });

  it("replaces a frame it cannot shrink by an error frame that keeps the requestId", () => {
    // Prepare
    const frame: ServerFrame = { type: "process-subscribed", processId: "p".repeat(MAX_FRAME_BYTES), requestId: "r7" };

    // Act
    const fitted = fitFrame(frame);

    // Assess
    expect(bytes(fitted.json)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(JSON.parse(fitted.json)).toMatchObject({ type: "error", error: { code: "INTERNAL" }, requestId: "r7" });
  });

  it("counts bytes, not characters: multi-byte text over the limit is shrunk", () => {
    // Prepare
    const text = "€".repeat(50_000); // 150 000 bytes, 50 000 characters

    // Act
    const fitted = fitFrame({ type: "process-skill-result", requestId: "r1", processId: "p1", status: "DONE", result: text });

    // Assess
    expect(fitted.altered).toBe(true);
    expect(bytes(fitted.json)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
  });
});
