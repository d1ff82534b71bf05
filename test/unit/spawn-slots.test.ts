import { describe, expect, it } from "vitest";
import { createSkillsApp } from "../../shared/app/skills-app.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { InMemoryLane } from "../../shared/lanes/in-memory-lane.js";
import { InMemoryProcessStore } from "../../shared/processes/in-memory-process-store.js";
import { InMemoryRequestStore } from "../../shared/processes/in-memory-request-store.js";
import type { WaitSlots } from "../../shared/processes/wait-slots.js";
import { EmptyLayer } from "../support/steering-harness.js";

/** The per-identity spawn cap around SkillsApp.spawn: a full identity is 429, a slot that cannot be given back never fails the spawn. */
async function appWith(spawnSlots: WaitSlots) {
  const documents = new InMemoryDocumentStore();
  await documents.put("acme", "_tenant", "_vance/recipes/open.yaml", "engine: ford\n");
  const warnings: { message: string; extra: Record<string, unknown>[] }[] = [];
  const app = createSkillsApp({
    documents,
    bundled: new EmptyLayer(),
    processes: new InMemoryProcessStore(),
    requests: new InMemoryRequestStore(),
    lane: new InMemoryLane(),
    renderer: { render: async (template: string) => template },
    spawnSlots,
    logger: { warn: (message: string, ...extra: Record<string, unknown>[]) => warnings.push({ message, extra }) },
  });
  return { app, warnings };
}

const spawnInput = { sessionId: "s1", recipe: "open", projectId: "p1" };

describe("per-identity spawn slots", () => {
  it("answers 429 TOO_MANY_REQUESTS with Retry-After 1 when the identity holds every slot", async () => {
    // Prepare
    const { app } = await appWith({ limit: 4, acquire: async () => undefined });

    // Act
    const error = await app.spawn("acme", { login: "ada" }, spawnInput).then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS", retryAfterSeconds: 1 });
  });

  it("spawns although the slot cannot be given back, and says so in a warning with the reason", async () => {
    // Prepare
    const { app, warnings } = await appWith({ limit: 4, acquire: async () => () => Promise.reject(new Error("table busy")) });

    // Act
    const process = await app.spawn("acme", { login: "ada" }, spawnInput);

    // Assess
    expect(process.processId).toEqual(expect.any(String));
    expect(warnings).toEqual([{ message: "slot release failed; it frees itself when its lease ends", extra: [{ reason: "table busy" }] }]);
  });
});
