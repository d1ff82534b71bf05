import { describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { WaitSlots } from "../../shared/processes/wait-slots.js";
import { EmptyLayer } from "../support/steering-harness.js";

/**
 * `Prefer: wait` slots (wait-slots.ts) are taken only by a wait that goes on past its first read:
 * a request the lane has settled by then costs no slot writes; one still queued needs a slot, and
 * a full identity is 429 as before.
 */
function appWith(waitSlots: WaitSlots, requests: InMemoryRequestStore) {
  return createSkillsApp({
    documents: new InMemoryDocumentStore(),
    bundled: new EmptyLayer(),
    processes: new InMemoryProcessStore(),
    requests,
    lane: new InMemoryLane(),
    renderer: { render: async (template: string) => template },
    waitSlots,
  });
}

function countingSlots(free: boolean): WaitSlots & { taken: number } {
  const slots = {
    limit: 1,
    taken: 0,
    acquire: async () => {
      slots.taken += 1;
      return free ? async () => undefined : undefined;
    },
  };
  return slots;
}

describe("Prefer: wait slots taken lazily", () => {
  it("a request settled by the first read takes no slot", async () => {
    // Prepare
    const requests = new InMemoryRequestStore({ sleep: async () => undefined });
    await requests.putQueued("acme", "p1", "r1", "turn.compose");
    await requests.complete("acme", "p1", "r1", { status: "DONE", result: 1 });
    const slots = countingSlots(true);

    // Act
    const record = await appWith(slots, requests).waitForRequest("acme", "p1", "r1", 5_000, { waiter: "ada" });

    // Assess
    expect(record?.status).toBe("DONE");
    expect(slots.taken).toBe(0);
  });

  it("a request still queued at the first read needs a slot: none free is 429 TOO_MANY_REQUESTS", async () => {
    // Prepare
    const requests = new InMemoryRequestStore({ sleep: async () => undefined });
    await requests.putQueued("acme", "p1", "r1", "turn.compose");
    const slots = countingSlots(false);

    // Act
    const error = await appWith(slots, requests)
      .waitForRequest("acme", "p1", "r1", 5_000, { waiter: "ada" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );

    // Assess
    expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS", retryAfterSeconds: 1 });
    expect(slots.taken).toBe(1);
  });
});
