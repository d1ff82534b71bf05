import { describe, expect, it } from "vitest";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness, TENANT } from "../support/handler-harness.js";
import type { HandlerHarness } from "../support/handler-harness.js";

const GUIDE = [
  "manualPaths: [manuals/review]",
  "referenceDocs:",
  "  - { title: Checklist, file: references/checklist.md, loadMode: ON_DEMAND, summary: What to check }",
].join("\n");

/** A process of recipe `reader` (manual folder manuals/recipe, engine ford) with the `guide` skill active. */
async function withGuide(): Promise<{ h: HandlerHarness; tool: (name: string) => string }> {
  const h = await handlerHarness();
  await h.putSkill("guide", { extra: GUIDE });
  await h.documents.put(TENANT, "_tenant", "_vance/skills/guide/references/checklist.md", "1. Read the diff.");
  await h.documents.put(TENANT, "_tenant", "manuals/review/style.md", "tenant style");
  await h.documents.put(TENANT, "proj1", "manuals/review/style.md", "project style");
  await h.documents.put(TENANT, "_tenant", "manuals/recipe/intro.md", "intro");
  await h.documents.put(TENANT, "_tenant", "secrets/keys.md", "not a manual");
  const process = await h.spawn("reader");
  await h.call("steer", {
    method: "POST",
    path: `/brain/acme/processes/${process.processId}/skill`,
    headers: { prefer: "wait=5" },
    body: { command: "ACTIVATE", skillName: "guide" },
  });
  return { h, tool: (name) => `/brain/acme/processes/${process.processId}/tools/${name}` };
}

describe("POST …/tools/{toolName}", () => {
  it("manual_list lists the manual folders of recipe and active skills, inner layers first, and the on-demand references", async () => {
    // Prepare
    const { h, tool } = await withGuide();

    // Act
    const reply = await h.call("tools", { method: "POST", path: tool("manual_list"), body: { args: {} } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.result).toEqual({
      folders: ["manuals/recipe", "manuals/review"],
      documents: [
        { path: "manuals/recipe/intro.md", source: "VANCE", size: 5 },
        { path: "manuals/review/style.md", source: "PROJECT", size: 13 },
      ],
      references: [{ skill: "guide", title: "Checklist", summary: "What to check" }],
    });
  });

  it("manual_read reads a manual through the cascade, and an on-demand reference by its title", async () => {
    // Prepare
    const { h, tool } = await withGuide();

    // Act
    const manual = await h.call("tools", {
      method: "POST",
      path: tool("manual_read"),
      body: { args: { path: "manuals/review/style.md" } },
    });
    const byTitle = await h.call("tools", { method: "POST", path: tool("manual_read"), body: { args: { path: "Checklist" } } });

    // Assess
    expect(manual.json).toEqual({ result: { path: "manuals/review/style.md", source: "PROJECT", content: "project style" } });
    expect(byTitle.json).toEqual({ result: { skill: "guide", title: "Checklist", content: "1. Read the diff." } });
  });

  it.each([
    ["a document outside the manual folders", "secrets/keys.md", 400],
    ["a traversal out of a manual folder", "manuals/review/../../secrets/keys.md", 400],
    ["a missing manual", "manuals/review/missing.md", 404],
  ])("manual_read refuses %s", async (_label, path, status) => {
    // Prepare
    const { h, tool } = await withGuide();

    // Act
    const reply = await h.call("tools", { method: "POST", path: tool("manual_read"), body: { args: { path } } });

    // Assess
    expect(reply.status).toBe(status);
    expect(JSON.stringify(reply.json)).not.toContain("not a manual");
  });

  it("skill_reference_doc loads an on-demand reference of an active skill (the tool comes with the reference)", async () => {
    // Prepare
    const { h, tool } = await withGuide();

    // Act
    const reply = await h.call("tools", {
      method: "POST",
      path: tool("skill_reference_doc"),
      body: { args: { skill: "guide", title: "Checklist" } },
    });
    const unknown = await h.call("tools", {
      method: "POST",
      path: tool("skill_reference_doc"),
      body: { args: { skill: "guide", title: "Nope" } },
    });

    // Assess
    expect(reply.json).toEqual({ result: { skill: "guide", title: "Checklist", content: "1. Read the diff." } });
    expect(unknown.status).toBe(404);
  });

  it.each([
    ["a tool of nobody", "launch_rockets"],
    ["an engine tool the service does not serve", "web_search"],
    ["a service tool the process does not have now", "skill_reference_doc"],
  ])("answers 404 TOOL_NOT_FOUND for %s", async (_label, name) => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn("reader");

    // Act
    const reply = await h.call("tools", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/tools/${name}`,
      body: { args: {} },
    });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("TOOL_NOT_FOUND");
  });

  it.each([
    ["args that are not an object", { args: [1] }],
    ["an unknown top-level field", { args: {}, turnId: "t" }],
    ["args the tool does not take", { args: { path: "manuals/review/style.md", evil: true } }],
    ["a body that is not JSON", "args="],
  ])("answers 400 for %s", async (_label, body) => {
    // Prepare
    const { h, tool } = await withGuide();

    // Act
    const reply = await h.call("tools", { method: "POST", path: tool("manual_read"), body });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
  });

  it.each([
    ["404 PROCESS_NOT_FOUND to another tenant", IDENTITIES.eve, "globex", 404],
    ["403 FORBIDDEN to a non-member", IDENTITIES.mallory, "acme", 403],
  ])("answers %s", async (_label, as, tenant, status) => {
    // Prepare
    const { h, tool } = await withGuide();

    // Act
    const reply = await h.call("tools", {
      method: "POST",
      path: tool("manual_read").replace("/brain/acme/", `/brain/${tenant}/`),
      as,
      body: { args: { path: "Checklist" } },
    });

    // Assess
    expect(reply.status).toBe(status);
    expect(JSON.stringify(reply.json)).not.toContain("Read the diff");
  });
});
