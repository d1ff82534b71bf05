import { describe, expect, it } from "vitest";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness, PROJECT, TENANT } from "../support/handler-harness.js";

const SUMMARY_FIELDS = [
  "arguments",
  "description",
  "disableModelInvocation",
  "lifecycle",
  "name",
  "run",
  "source",
  "tags",
  "title",
  "triggers",
  "userInvocable",
  "version",
];

describe("GET /health", () => {
  it("answers 200 {status: ok} without a token", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("skills", { method: "GET", path: "/health", as: "none" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: "ok" });
  });
});

describe("GET /brain/{tenant}/skills/effective", () => {
  it("lists the union of the visible levels, inner wins, sorted by name, as SkillSummary", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("zeta", { title: "Zeta" });
    await h.putSkill("alpha", { title: "Tenant alpha" });
    await h.putSkill("alpha", { title: "Project alpha" }, PROJECT);
    await h.putSkill("mine", { title: "Alice's own" }, "_user_alice");
    await h.putSkill("theirs", { title: "Bob's own" }, "_user_bob");

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective?projectId=${PROJECT}` });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.skills.map((s: { name: string }) => s.name)).toEqual(["alpha", "mine", "zeta"]);
    expect(reply.json.skills[0]).toMatchObject({
      name: "alpha",
      title: "Project alpha",
      source: "PROJECT",
      version: "1.0.0",
      lifecycle: "sticky",
    });
    expect(Object.keys(reply.json.skills[0]).sort()).toEqual(SUMMARY_FIELDS);
    expect(reply.json.skills[1]).toMatchObject({ name: "mine", source: "USER" });
  });

  it("leaves the project layer out without projectId", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("project-only", {}, PROJECT);
    await h.putSkill("tenant-wide");

    // Act
    const reply = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective" });

    // Assess
    expect(reply.json.skills.map((s: { name: string }) => s.name)).toEqual(["tenant-wide"]);
  });

  it.each([
    ["403 to a non-member", IDENTITIES.mallory, 403],
    ["200 to a member", IDENTITIES.alice, 200],
    ["200 to the project's admin", IDENTITIES.padmin, 200],
    ["200 to a tenant-admin", IDENTITIES.admin, 200],
  ])("answers projectId=proj1 with %s", async (_label, as, status) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective?projectId=${PROJECT}`, as });

    // Assess
    expect(reply.status).toBe(status);
    if (status === 403) expect(reply.json.error.code).toBe("FORBIDDEN");
  });

  it("refuses another tenant's path with 403 even for a tenant-admin there", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("secret");

    // Act
    const reply = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective", as: IDENTITIES.eve });

    // Assess
    expect(reply.status).toBe(403);
    expect(JSON.stringify(reply.json)).not.toContain("secret");
  });

  it("never lists the skills of the token's tenant under another tenant's project of the same id", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("acme-project-skill", {}, PROJECT);

    // Act
    const reply = await h.call("skills", {
      method: "GET",
      path: `/brain/globex/skills/effective?projectId=${PROJECT}`,
      as: IDENTITIES.eve,
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.skills).toEqual([]);
  });

  it("answers 400 for an empty projectId", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective?projectId=" });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
  });
});

describe("GET /brain/{tenant}/skills/effective/{name}", () => {
  it("answers the resolved skill: summary plus body, tools, references with INLINE content, commands, scripts", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("reviewer", {
      extra: [
        "tools: [file_read]",
        "manualPaths: [manuals/review]",
        "referenceDocs:",
        "  - { title: Checklist, file: references/checklist.md, loadMode: INLINE }",
        "  - { title: Patterns, file: references/patterns.md, loadMode: ON_DEMAND }",
        "action: Review now.",
      ].join("\n"),
      body: "Review carefully.",
    });
    await h.documents.put(TENANT, "_tenant", "_vance/skills/reviewer/references/checklist.md", "- check one");

    // Act
    const reply = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective/reviewer" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      name: "reviewer",
      source: "VANCE",
      body: "Review carefully.",
      tools: ["file_read"],
      manualPaths: ["manuals/review"],
      activate: [],
      deactivate: [],
      action: "Review now.",
      scripts: [],
    });
    expect(reply.json.referenceDocs).toEqual([
      { title: "Checklist", file: "references/checklist.md", loadMode: "INLINE", content: "- check one" },
      { title: "Patterns", file: "references/patterns.md", loadMode: "ON_DEMAND" },
    ]);
    expect(reply.json).not.toHaveProperty("location");
    expect(reply.json).not.toHaveProperty("warnings");
  });

  it.each([
    ["an unknown name", "nope"],
    ["a name that cannot be a skill", "Not_A_Skill"],
  ])("answers 404 SKILL_NOT_FOUND for %s", async (_label, name) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective/${name}` });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: { code: "SKILL_NOT_FOUND", message: `Skill '${name}' not found` } });
  });

  it("answers 404 for a disabled skill and for another user's personal skill", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("off", { extra: "enabled: false" });
    await h.putSkill("bobs", {}, "_user_bob");

    // Act
    const disabled = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective/off" });
    const foreign = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective/bobs", as: IDENTITIES.alice });
    const own = await h.call("skills", { method: "GET", path: "/brain/acme/skills/effective/bobs", as: IDENTITIES.bob });

    // Assess
    expect(disabled.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(own.status).toBe(200);
  });
});

describe("GET /brain/{tenant}/skills/problems", () => {
  it("lists every skill document the cascade skipped, and why", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.documents.put(TENANT, "_tenant", "_vance/skills/broken/SKILL.md", "no frontmatter here");
    await h.putSkill("fine");

    // Act
    const reply = await h.call("skills", { method: "GET", path: "/brain/acme/skills/problems" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.problems).toEqual([
      {
        name: "broken",
        source: "VANCE",
        path: "_vance/skills/broken/SKILL.md",
        line: 1,
        message: expect.stringMatching(/frontmatter/),
        severity: "error",
      },
    ]);
  });
});

describe("GET /brain/{tenant}/skills/effective?includeShadowed", () => {
  it("adds the documents an inner level hides, with the level that wins, and keeps the listing as without it", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha", { title: "Tenant alpha" });
    await h.putSkill("alpha", { title: "Project alpha" }, PROJECT);
    await h.putSkill("beta", { title: "Tenant beta" });
    await h.documents.put(TENANT, PROJECT, "_vance/skills/beta/SKILL.md", "---\nenabled: false\n---\n");
    const plain = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective?projectId=${PROJECT}` });

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective?projectId=${PROJECT}&includeShadowed=true` });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.skills).toEqual(plain.json.skills);
    expect(reply.json.shadowed).toEqual([
      { name: "alpha", source: "VANCE", path: "_vance/skills/alpha/SKILL.md", shadowedBy: "PROJECT", reason: "overridden" },
      { name: "beta", source: "VANCE", path: "_vance/skills/beta/SKILL.md", shadowedBy: "PROJECT", reason: "disabled" },
    ]);
  });

  it.each([
    ["absent", ""],
    ["false", "&includeShadowed=false"],
  ])("answers exactly the plain listing when includeShadowed is %s", async (_label, query) => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    await h.putSkill("alpha", {}, PROJECT);

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective?projectId=${PROJECT}${query}` });

    // Assess
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json)).toEqual(["skills"]);
  });

  it.each([["yes"], ["1"], ["TRUE"], [""]])("refuses includeShadowed=%s with 400 INVALID_REQUEST", async (value) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective?includeShadowed=${value}` });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
  });
});

describe("GET /brain/{tenant}/skills/problems: shadowed documents", () => {
  it("lists a shadowed document with severity info, naming what shadows it", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    await h.putSkill("alpha", {}, PROJECT);

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/problems?projectId=${PROJECT}` });
    const withoutProject = await h.call("skills", { method: "GET", path: "/brain/acme/skills/problems" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.problems).toEqual([
      {
        name: "alpha",
        source: "VANCE",
        path: "_vance/skills/alpha/SKILL.md",
        message: "shadowed by the PROJECT level's skill of the same name (_vance/skills/alpha/SKILL.md)",
        severity: "info",
      },
    ]);
    expect(withoutProject.json.problems).toEqual([]);
  });
});

describe("GET /brain/{tenant}/skills/active", () => {
  it("answers the process's ActiveSkillRefs", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("alpha");
    const process = await h.spawn("locked");

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/acme/skills/active?processId=${process.processId}` });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.activeSkills).toEqual([
      {
        name: "alpha",
        resolvedFromScope: "VANCE",
        oneShot: false,
        fromRecipe: true,
        activatedAt: expect.any(String),
        args: null,
        activatedBy: "recipe",
      },
    ]);
  });

  it.each([
    ["another tenant's caller (404, as if unknown)", IDENTITIES.eve, "globex", 404, "PROCESS_NOT_FOUND"],
    ["a non-member of the process's project", IDENTITIES.mallory, "acme", 403, "FORBIDDEN"],
  ])("refuses %s", async (_label, as, tenant, status, code) => {
    // Prepare
    const h = await handlerHarness();
    const process = await h.spawn();

    // Act
    const reply = await h.call("skills", { method: "GET", path: `/brain/${tenant}/skills/active?processId=${process.processId}`, as });

    // Assess
    expect(reply.status).toBe(status);
    expect(reply.json.error.code).toBe(code);
  });

  it("answers 400 without processId and 404 for an unknown one", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const missing = await h.call("skills", { method: "GET", path: "/brain/acme/skills/active" });
    const unknown = await h.call("skills", { method: "GET", path: "/brain/acme/skills/active?processId=nope" });

    // Assess
    expect(missing.status).toBe(400);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("PROCESS_NOT_FOUND");
  });
});
