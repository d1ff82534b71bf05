import { describe, expect, it } from "vitest";
import { FOOT_NOT_AVAILABLE } from "../../shared/scripts/skill-script-runner.js";
import { handlerHarness, PROJECT, TENANT } from "../support/handler-harness.js";

const SCRIPTS = [
  "scripts:",
  "  - name: greet",
  "    file: scripts/greet.js",
  "    params:",
  "      - { name: name, type: string, required: true }",
  "  - name: broken",
  "    file: scripts/broken.js",
  "  - name: local",
  "    target: FOOT",
  "    file: scripts/local.js",
].join("\n");

/** The `tools` function over in-memory adapters with skill `kit` active on a fresh process. */
async function withKit() {
  const h = await handlerHarness();
  await h.putSkill("kit", { extra: SCRIPTS });
  await h.documents.put(
    TENANT,
    "_tenant",
    "_vance/skills/kit/scripts/greet.js",
    "vance.log('debug', 'about to greet'); ({ text: 'Hello, ' + args.name })",
  );
  await h.documents.put(TENANT, "_tenant", "_vance/skills/kit/scripts/broken.js", "const a = 1;\nthrow new RangeError('bad input ' + a);");
  await h.documents.put(TENANT, "_tenant", "_vance/skills/kit/scripts/local.js", "vance.fs.list('')");
  const process = await h.spawn("open");
  const path = (tool: string) => `/brain/acme/processes/${process.processId}/tools/${tool}`;
  return { h, process, path };
}

const activate = (h: Awaited<ReturnType<typeof handlerHarness>>, processId: string) =>
  h.call("steer", {
    method: "POST",
    path: `/brain/acme/processes/${processId}/skill`,
    headers: { prefer: "wait=5" },
    body: { command: "ACTIVATE", skillName: "kit" },
  });

describe("POST …/tools/{toolName} for skill scripts", () => {
  it("answers 200 {result, logs} for a script of an active skill", async () => {
    // Prepare
    const { h, process, path } = await withKit();
    await activate(h, process.processId);

    // Act
    const reply = await h.call("tools", { method: "POST", path: path("skill_kit__greet"), body: { args: { name: "Ada" } } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ result: { text: "Hello, Ada" }, logs: [{ level: "debug", message: "about to greet" }] });
  });

  it("answers 404 TOOL_NOT_FOUND while the skill is not active", async () => {
    // Prepare
    const { h, path } = await withKit();

    // Act
    const reply = await h.call("tools", { method: "POST", path: path("skill_kit__greet"), body: { args: { name: "Ada" } } });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("TOOL_NOT_FOUND");
  });

  it("answers a typed 400 with the script's message for a throwing script and for missing required args", async () => {
    // Prepare
    const { h, process, path } = await withKit();
    await activate(h, process.processId);

    // Act
    const broken = await h.call("tools", { method: "POST", path: path("skill_kit__broken"), body: { args: {} } });
    const missing = await h.call("tools", { method: "POST", path: path("skill_kit__greet"), body: { args: {} } });

    // Assess
    expect(broken.status).toBe(400);
    expect(broken.json.error).toEqual({ code: "INVALID_REQUEST", message: "bad input 1" });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toContain("'name' is required");
  });

  it("answers the FOOT script of a process without a Foot route with the spec's error string", async () => {
    // Prepare
    const { h, process, path } = await withKit();
    await activate(h, process.processId);

    // Act
    const reply = await h.call("tools", { method: "POST", path: path("skill_kit__local"), body: { args: {} } });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ result: FOOT_NOT_AVAILABLE, logs: [] });
    expect(await h.documents.list(TENANT, PROJECT, "")).toEqual([]);
  });
});
