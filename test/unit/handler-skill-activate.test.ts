import { describe, expect, it } from "vitest";
import { handlerHarness } from "../support/handler-harness.js";
import type { HandlerHarness } from "../support/handler-harness.js";

/** A process of recipe `open` with two model-activatable skills and one only users may activate. */
async function withCatalog(): Promise<{ h: HandlerHarness; processId: string; tool: string }> {
  const h = await handlerHarness();
  await h.putSkill("alpha", { description: "Alpha skill", body: "Alpha body." });
  await h.putSkill("beta", { description: "Beta skill", body: "Beta body." });
  await h.putSkill("manual-only", { description: "Users only", extra: "disable-model-invocation: true" });
  const process = await h.spawn("open");
  return { h, processId: process.processId, tool: `/brain/acme/processes/${process.processId}/tools/skill_activate` };
}

describe("POST …/tools/skill_activate", () => {
  it("answers the new active set and the skill's block, counted as a model activation", async () => {
    // Prepare
    const { h, tool } = await withCatalog();

    // Act
    const reply = await h.call("tools", { method: "POST", path: tool, body: { args: { name: "beta" } } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      result: {
        activeSkills: [expect.objectContaining({ name: "beta", activatedBy: "model" })],
        turnScheduled: false,
        skill: { name: "beta", content: "--- Skill: beta ---\nBeta skill\n\nBeta body." },
      },
    });
    expect(h.activations).toContainEqual({ name: "beta", path: "model" });
  });

  it("refuses with ACTIVATE's errors and bad args with INVALID_REQUEST", async () => {
    // Prepare
    const { h, tool } = await withCatalog();

    // Act
    const unknown = await h.call("tools", { method: "POST", path: tool, body: { args: { name: "gamma" } } });
    const userOnly = await h.call("tools", { method: "POST", path: tool, body: { args: { name: "manual-only" } } });
    const noName = await h.call("tools", { method: "POST", path: tool, body: { args: {} } });

    // Assess
    expect([unknown.status, unknown.json.error.code]).toEqual([404, "SKILL_NOT_FOUND"]);
    expect([userOnly.status, userOnly.json.error.code]).toEqual([403, "SKILL_NOT_ALLOWED"]);
    expect([noName.status, noName.json.error.code]).toEqual([400, "INVALID_REQUEST"]);
  });

  it("answers 503 naming the request when the lane has not applied it within the wait, and applies it later", async () => {
    // Prepare
    const { h, processId, tool } = await withCatalog();
    h.control.laneRunsWhileWaiting = false;

    // Act
    const reply = await h.call("tools", { method: "POST", path: tool, body: { args: { name: "alpha" } } });
    await h.drain();

    // Assess
    expect(reply.status).toBe(503);
    expect(reply.json.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(reply.json.error.message).toContain("will be applied in lane order");
    expect((await h.app.getProcess("acme", processId)).activeSkills).toEqual([
      expect.objectContaining({ name: "alpha", activatedBy: "model" }),
    ]);
  });

  it("is not the process's tool when the catalog is empty", async () => {
    // Prepare
    const { h, processId, tool } = await withCatalog();
    for (const name of ["alpha", "beta"]) {
      await h.call("steer", {
        method: "POST",
        path: `/brain/acme/processes/${processId}/skill`,
        headers: { prefer: "wait=5" },
        body: { command: "ACTIVATE", skillName: name },
      });
    }

    // Act
    const reply = await h.call("tools", { method: "POST", path: tool, body: { args: { name: "alpha" } } });

    // Assess
    expect([reply.status, reply.json.error.code]).toEqual([404, "TOOL_NOT_FOUND"]);
  });
});
