import { afterAll, describe, expect, it } from "vitest";
import { InvalidDocument, InvalidRequest } from "../../shared/errors.js";
import type { DocumentRef, StoredDocument } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { MAX_SKILL_TEXT_BYTES } from "../../shared/skills/skill-document-parser.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { SkillResolver } from "../../shared/skills/skill-resolver.js";
import type { SkillScope, SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import { bundledFixture, removeBundledFixtures } from "../support/bundled-fixture.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = "acme";
const FULL: SkillScopeContext = { tenantId: TENANT, userId: "bob", projectId: "web" };

/** Records which project/path pairs were read and listed. */
class CountingStore extends InMemoryDocumentStore {
  reads: string[] = [];
  lists: string[] = [];
  override get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    this.reads.push(`${project}:${path}`);
    return super.get(tenant, project, path);
  }
  override list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    this.lists.push(`${project}:${prefix}`);
    return super.list(tenant, project, prefix);
  }
}

type Files = Record<string, string | Uint8Array>;

async function setup(layers: { user?: Files; project?: Files; tenant?: Files; bundled?: Files; otherProjects?: Record<string, Files> }) {
  const store = new CountingStore();
  const put = async (project: string, files: Files = {}) => {
    for (const [path, body] of Object.entries(files)) await store.put(TENANT, project, path, body);
  };
  await put("_user_bob", layers.user);
  await put("web", layers.project);
  await put("_tenant", layers.tenant);
  for (const [project, files] of Object.entries(layers.otherProjects ?? {})) await put(project, files);
  const bundled = await bundledFixture(layers.bundled ?? {});
  const loader = new SkillLoader({ store, bundled });
  store.reads = [];
  store.lists = [];
  return { store, loader };
}

const titled = (title: string, extra?: string) => skillMd({ title, extra });

afterAll(removeBundledFixtures);

describe("SkillLoader cascade", () => {
  it("prefers USER over PROJECT over VANCE over RESOURCE, falling outward as inner documents are deleted", async () => {
    // Prepare
    const { store, loader } = await setup({
      user: { [skillPath("alpha")]: titled("user") },
      project: { [skillPath("alpha")]: titled("project") },
      tenant: { [skillPath("alpha")]: titled("tenant") },
      bundled: { [skillPath("alpha")]: titled("bundled") },
    });
    const seen: Array<[string | undefined, SkillScope | undefined]> = [];
    const listed: Array<[string | undefined, SkillScope | undefined]> = [];

    // Act
    for (const project of ["_user_bob", "web", "_tenant", null]) {
      const skill = await loader.load(FULL, "alpha");
      seen.push([skill?.title, skill?.source]);
      const [first] = await loader.listAvailable(FULL);
      listed.push([first?.title, first?.source]);
      if (project) await store.delete(TENANT, project, skillPath("alpha"));
    }

    // Assess
    const expected = [
      ["user", "USER"],
      ["project", "PROJECT"],
      ["tenant", "VANCE"],
      ["bundled", "RESOURCE"],
    ];
    expect(seen).toEqual(expected);
    expect(listed).toEqual(expected);
  });

  it("records where the winner came from", async () => {
    // Prepare
    const { loader } = await setup({ project: { [skillPath("alpha")]: titled("project") }, bundled: { [skillPath("beta")]: titled("b") } });

    // Act
    const alpha = await loader.load(FULL, "alpha");
    const beta = await loader.load(FULL, "beta");

    // Assess
    expect(alpha?.location).toMatchObject({ source: "PROJECT", project: "web", directory: "_vance/skills/alpha" });
    expect(alpha?.location.etag).toMatch(/^[0-9a-f]{32}$/);
    expect(beta?.location).toMatchObject({ source: "RESOURCE", project: "bundled", directory: "_vance/skills/beta" });
    expect(alpha?.name).toBe("alpha");
  });

  it("materializes every skill with the definition's fields in one order, optional ones only when set", async () => {
    // Prepare
    const { loader } = await setup({
      project: {
        [skillPath("plain")]: titled("plain"),
        [skillPath("full")]: titled("full", "action: go now\nlicense: MIT\nmetadata:\n  owner: team"),
      },
    });
    const common = [
      "name",
      "title",
      "description",
      "version",
      "whenToUse",
      "argumentHint",
      "compatibility",
      "disableModelInvocation",
      "userInvocable",
      "triggers",
      "tools",
      "allowedToolPatterns",
      "template",
      "manualPaths",
      "tags",
      "enabled",
      "lifecycle",
      "run",
      "arguments",
      "activate",
      "deactivate",
    ];
    const placed = ["body", "referenceDocs", "source", "location", "warnings", "files"];

    // Act
    const [full, plain] = await loader.listAvailable(FULL);

    // Assess
    // searchText (issue 26): headings, tool names and the body's first words, for the relevance index.
    expect(Object.keys(plain ?? {})).toEqual([...common, "scripts", "searchText", ...placed]);
    expect(Object.keys(full ?? {})).toEqual([...common, "action", "scripts", "license", "metadata", "searchText", ...placed]);
    expect(full).toMatchObject({ action: "go now", license: "MIT", metadata: { owner: "team" }, title: "full", source: "PROJECT" });
  });

  it("skips the USER layer when there is no user", async () => {
    // Prepare
    const { loader, store } = await setup({
      user: { [skillPath("alpha")]: titled("user"), [skillPath("only-user")]: titled("mine") },
      project: { [skillPath("alpha")]: titled("project") },
    });

    // Act
    const skill = await loader.load({ tenantId: TENANT, projectId: "web" }, "alpha");
    const names = (await loader.listAvailable({ tenantId: TENANT, projectId: "web" })).map((s) => s.name);

    // Assess
    expect(skill?.source).toBe("PROJECT");
    expect(names).toEqual(["alpha"]);
    expect(store.reads.some((r) => r.startsWith("_user_"))).toBe(false);
    expect(store.lists.some((r) => r.startsWith("_user_"))).toBe(false);
  });

  it("reads another user's layer never", async () => {
    // Prepare
    const { loader } = await setup({ user: { [skillPath("alpha")]: titled("bob's") }, tenant: { [skillPath("alpha")]: titled("tenant") } });

    // Act
    const skill = await loader.load({ tenantId: TENANT, userId: "alice", projectId: "web" }, "alpha");

    // Assess
    expect(skill?.title).toBe("tenant");
  });

  it("uses _tenant and no project layer when there is no project", async () => {
    // Prepare
    const { loader, store } = await setup({
      project: { [skillPath("alpha")]: titled("project") },
      tenant: { [skillPath("alpha")]: titled("tenant") },
    });

    // Act
    const skill = await loader.load({ tenantId: TENANT, userId: "bob" }, "alpha");
    const listed = await loader.listAvailable({ tenantId: TENANT, userId: "bob" });

    // Assess
    expect(skill).toMatchObject({ title: "tenant", source: "VANCE" });
    expect(listed.map((s) => [s.name, s.source])).toEqual([["alpha", "VANCE"]]);
    // A plain-store load lists the found skill's directory for its files (no catalogue listing to use).
    expect(store.lists.sort()).toEqual(["_tenant:_vance/skills/", "_tenant:_vance/skills/alpha/", "_user_bob:_vance/skills/"]);
  });

  it("does not see skills of a project outside the scope", async () => {
    // Prepare
    const { loader } = await setup({ otherProjects: { secret: { [skillPath("hidden")]: titled("secret") } } });

    // Act
    const skill = await loader.load(FULL, "hidden");
    const listed = await loader.listAvailable(FULL);

    // Assess
    expect(skill).toBeUndefined();
    expect(listed).toEqual([]);
  });
});

describe("enabled: false", () => {
  // The disabled document sits at `disabledAt`; every layer outward provides an enabled one.
  const layerFiles = (disabledAt: "user" | "project" | "tenant" | "bundled") => {
    const order = ["user", "project", "tenant", "bundled"] as const;
    const files: Record<string, Files> = {};
    for (const layer of order.slice(order.indexOf(disabledAt))) {
      files[layer] = { [skillPath("alpha")]: titled(layer, layer === disabledAt ? "enabled: false" : undefined) };
    }
    return files;
  };

  it.each(["user", "project", "tenant", "bundled"] as const)(
    "at the %s layer hides the skill from that layer outward",
    async (disabledAt) => {
      // Prepare
      const { loader } = await setup(layerFiles(disabledAt));

      // Act
      const loaded = await loader.load(FULL, "alpha");
      const listed = await loader.listAvailable(FULL);

      // Assess
      expect(loaded).toBeUndefined();
      expect(listed).toEqual([]);
    },
  );

  it("in an outer layer does not hide an enabled inner override", async () => {
    // Prepare
    const { loader } = await setup({
      project: { [skillPath("alpha")]: titled("project") },
      tenant: { [skillPath("alpha")]: titled("tenant", "enabled: false") },
    });

    // Act
    const loaded = await loader.load(FULL, "alpha");

    // Assess
    expect(loaded).toMatchObject({ title: "project", source: "PROJECT", enabled: true });
  });
});

describe("reference file layer pinning", () => {
  const withReference = titled(
    "user",
    ["referenceDocs:", "  - file: references/checklist.md", "    title: Checklist", "    loadMode: INLINE"].join("\n"),
  );

  it("does not pick up a reference file from another layer, and warns instead", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [skillPath("alpha")]: withReference },
      tenant: { "_vance/skills/alpha/references/checklist.md": "TENANT CHECKLIST" },
    });

    // Act
    const loaded = await loader.load(FULL, "alpha");
    const [listed] = await loader.listAvailable(FULL);

    // Assess
    for (const skill of [loaded, listed]) {
      expect(skill?.source).toBe("USER");
      expect(skill?.referenceDocs).toHaveLength(1);
      expect(skill?.referenceDocs[0]?.content).toBeUndefined();
      expect(skill?.warnings.map((w) => w.message).join("\n")).toMatch(/references\/checklist\.md.*not found in the USER layer/);
      expect(skill?.warnings.every((w) => w.severity === "warning")).toBe(true);
    }
  });

  it("loads INLINE references from the layer of SKILL.md and leaves ON_DEMAND ones unread", async () => {
    // Prepare
    const frontmatter = [
      "referenceDocs:",
      "  - file: references/checklist.md",
      "    title: Checklist",
      "  - file: references/deep.md",
      "    title: Deep dive",
      "    loadMode: ON_DEMAND",
    ].join("\n");
    const { loader, store } = await setup({
      project: {
        [skillPath("alpha")]: titled("project", frontmatter),
        "_vance/skills/alpha/references/checklist.md": "{% raw %} PROJECT CHECKLIST",
        "_vance/skills/alpha/references/deep.md": "deep",
      },
      tenant: { "_vance/skills/alpha/references/checklist.md": "TENANT CHECKLIST" },
    });

    // Act
    const loaded = await loader.load(FULL, "alpha");

    // Assess
    expect(loaded?.referenceDocs.map((d) => [d.title, d.loadMode, d.content])).toEqual([
      ["Checklist", "INLINE", "{% raw %} PROJECT CHECKLIST"],
      ["Deep dive", "ON_DEMAND", undefined],
    ]);
    expect(loaded?.warnings).toEqual([]);
    expect(store.reads).not.toContain("web:_vance/skills/alpha/references/deep.md");
    expect(store.reads.some((r) => r.startsWith("_tenant:"))).toBe(false);
  });

  it("reads sibling files on demand from the pinned layer only", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [skillPath("alpha")]: titled("user"), "_vance/skills/alpha/scripts/run.js": "1 + 1" },
      tenant: { "_vance/skills/alpha/references/other.md": "tenant only" },
    });
    const skill = (await loader.load(FULL, "alpha"))!;

    // Act
    const script = await loader.readSkillFile(FULL, skill, "scripts/run.js");
    const notInLayer = await loader.readSkillFile(FULL, skill, "references/other.md");

    // Assess
    expect(script).toBe("1 + 1");
    expect(notInLayer).toBeUndefined();
  });

  it.each(["../beta/SKILL.md", "/etc/passwd", "references\\..\\..\\x", "%2e%2e/x", "references/./x.md", ""])(
    "refuses the sibling path %j",
    async (relative) => {
      // Prepare
      const { loader } = await setup({ user: { [skillPath("alpha")]: titled("user") } });
      const skill = (await loader.load(FULL, "alpha"))!;

      // Act + Assess
      await expect(loader.readSkillFile(FULL, skill, relative)).rejects.toBeInstanceOf(InvalidRequest);
    },
  );

  it("refuses a location outside the caller's scope", async () => {
    // Prepare
    const { loader } = await setup({ user: { [skillPath("alpha")]: titled("user"), "_vance/skills/alpha/x.md": "x" } });
    const skill = (await loader.load(FULL, "alpha"))!;

    // Act + Assess
    await expect(loader.readSkillFile({ tenantId: TENANT, userId: "alice" }, skill, "x.md")).rejects.toBeInstanceOf(InvalidRequest);
  });

  it("reports a binary sibling as an invalid document", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [skillPath("alpha")]: titled("user"), "_vance/skills/alpha/x.bin": new Uint8Array([0xff, 0]) },
    });
    const skill = (await loader.load(FULL, "alpha"))!;

    // Act + Assess
    await expect(loader.readSkillFile(FULL, skill, "x.bin")).rejects.toBeInstanceOf(InvalidDocument);
  });

  it("never reads a reference path that leaves the skill directory; such a skill is reported", async () => {
    // Prepare
    const frontmatter = ["referenceDocs:", "  - file: ../beta/SKILL.md", "    title: Sneaky"].join("\n");
    const { loader, store } = await setup({
      tenant: { [skillPath("alpha")]: titled("t", frontmatter), [skillPath("beta")]: titled("beta") },
    });

    // Act
    const skill = await loader.load(FULL, "alpha");
    const problems = await loader.problems(FULL);

    // Assess
    expect(skill).toBeUndefined();
    expect(problems.map((p) => [p.name, p.source])).toEqual([["alpha", "VANCE"]]);
    expect(problems[0]?.message).toMatch(/referenceDocs/);
    expect(store.reads.filter((r) => r.includes("beta"))).toEqual(["_tenant:_vance/skills/beta/SKILL.md"]);
  });
});

describe("defective skills", () => {
  const broken = "---\ntitle: [unclosed\n---\nbody\n";
  const noDescription = "---\ntitle: T\nversion: 1.0.0\n---\n# Heading, no paragraph\n";

  it("are left out of the listing and reported by problems()", async () => {
    // Prepare
    const { loader } = await setup({
      tenant: { [skillPath("good")]: titled("good"), [skillPath("broken")]: broken, [skillPath("no-desc")]: noDescription },
    });

    // Act
    const listed = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(listed.map((s) => s.name)).toEqual(["good"]);
    expect(problems.map((p) => [p.name, p.source, p.path])).toEqual(
      expect.arrayContaining([
        ["broken", "VANCE", skillPath("broken")],
        ["no-desc", "VANCE", skillPath("no-desc")],
      ]),
    );
    expect(new Set(problems.map((p) => p.name))).toEqual(new Set(["broken", "no-desc"]));
    expect(problems.every((p) => p.message.length > 0)).toBe(true);
    expect(problems.find((p) => p.name === "no-desc")?.message).toMatch(/description/i);
  });

  it.each([
    ["invalid UTF-8", new Uint8Array([...new TextEncoder().encode("---\ntitle: T\n"), 0xc3, 0x28, 0x0a])],
    ["binary content", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00])],
    ["NUL bytes in otherwise valid text", new TextEncoder().encode(skillMd().replace("Skill body.", "a\u0000b"))],
  ])("with %s are a problem, not a crash", async (_label, bytes) => {
    // Prepare
    const { loader } = await setup({ project: { [skillPath("bad")]: bytes, [skillPath("good")]: titled("good") } });

    // Act
    const loaded = await loader.load(FULL, "bad");
    const listed = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(loaded).toBeUndefined();
    expect(listed.map((s) => s.name)).toEqual(["good"]);
    expect(problems).toEqual([
      { name: "bad", source: "PROJECT", path: skillPath("bad"), message: expect.stringMatching(/UTF-8/), severity: "error" },
    ]);
  });

  it("fall through to the next outer layer when the innermost hit is defective", async () => {
    // Prepare
    const { loader } = await setup({
      user: { [skillPath("alpha")]: broken },
      project: { [skillPath("alpha")]: new Uint8Array([0xff]) },
      tenant: { [skillPath("alpha")]: titled("tenant") },
    });

    // Act
    const loaded = await loader.load(FULL, "alpha");
    const listed = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(loaded).toMatchObject({ title: "tenant", source: "VANCE" });
    expect(listed.map((s) => [s.name, s.source])).toEqual([["alpha", "VANCE"]]);
    expect(problems.map((p) => p.source)).toEqual(expect.arrayContaining(["USER", "PROJECT"]));
    expect(new Set(problems.map((p) => p.source))).toEqual(new Set(["USER", "PROJECT"]));
  });

  it("that cannot be read are skipped and reported, the next layer answers", async () => {
    // Prepare
    const { loader, store } = await setup({
      project: { [skillPath("alpha")]: titled("project") },
      tenant: { [skillPath("alpha")]: titled("tenant") },
    });
    const realGet = store.get.bind(store);
    store.get = async (tenant, project, path) => {
      if (project === "web") throw new Error("AccessDenied");
      return realGet(tenant, project, path);
    };

    // Act
    const loaded = await loader.load(FULL, "alpha");
    const problems = await loader.problems(FULL);

    // Assess
    expect(loaded?.source).toBe("VANCE");
    expect(problems).toEqual([
      {
        name: "alpha",
        source: "PROJECT",
        path: skillPath("alpha"),
        message: expect.stringMatching(/could not be read: AccessDenied/),
        severity: "error",
      },
    ]);
  });

  it("that are too large are skipped without being parsed", async () => {
    // Prepare
    const huge = skillMd({ body: "x".repeat(MAX_SKILL_TEXT_BYTES) });
    const { loader } = await setup({ tenant: { [skillPath("huge")]: huge } });

    // Act
    const loaded = await loader.load(FULL, "huge");
    const problems = await loader.problems(FULL);

    // Assess
    expect(loaded).toBeUndefined();
    expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/larger than/)]);
  });

  it("report an invalid directory name and keep it out of the listing", async () => {
    // Prepare
    const { loader } = await setup({ tenant: { "_vance/skills/-code-review/SKILL.md": titled("x"), [skillPath("ok")]: titled("ok") } });

    // Act
    const listed = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(listed.map((s) => s.name)).toEqual(["ok"]);
    expect(problems).toEqual([
      {
        name: "-code-review",
        source: "VANCE",
        path: "_vance/skills/-code-review/SKILL.md",
        message: "skill name '-code-review': a name may not start with '-'; rename the folder",
        severity: "error",
      },
    ]);
  });

  it("keeps a skill usable when only an INLINE reference is missing", async () => {
    // Prepare
    const frontmatter = ["referenceDocs:", "  - file: references/missing.md", "    title: Missing"].join("\n");
    const { loader } = await setup({ tenant: { [skillPath("alpha")]: titled("t", frontmatter) } });

    // Act
    const listed = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(listed.map((s) => s.name)).toEqual(["alpha"]);
    expect(listed[0]?.warnings.map((w) => w.message).join()).toMatch(/references\/missing\.md/);
    expect(problems).toEqual([
      expect.objectContaining({ name: "alpha", severity: "warning", message: expect.stringMatching(/references\/missing\.md/) }),
    ]);
  });
});

describe("listing", () => {
  it("is sorted by code point, not by locale", async () => {
    // Prepare
    const names = ["ab", "a-b", "a1", "a0b", "b", "0x"];
    const { loader } = await setup({ tenant: Object.fromEntries(names.map((n) => [skillPath(n), titled(n)])) });

    // Act
    const listed = (await loader.listAvailable(FULL)).map((s) => s.name);

    // Assess
    expect(listed).toEqual(["0x", "a-b", "a0b", "a1", "ab", "b"]);
  });

  it("lists each layer once and reads only the winning documents", async () => {
    // Prepare
    const { loader, store } = await setup({
      user: { [skillPath("alpha")]: titled("user") },
      project: { [skillPath("alpha")]: titled("project"), [skillPath("beta")]: titled("project beta") },
      tenant: { [skillPath("alpha")]: titled("tenant"), [skillPath("beta")]: titled("tenant beta"), [skillPath("gamma")]: titled("g") },
    });

    // Act
    const listed = await loader.listAvailable(FULL);

    // Assess
    expect(listed.map((s) => [s.name, s.source])).toEqual([
      ["alpha", "USER"],
      ["beta", "PROJECT"],
      ["gamma", "VANCE"],
    ]);
    expect(store.lists.sort()).toEqual(["_tenant:_vance/skills/", "_user_bob:_vance/skills/", "web:_vance/skills/"]);
    expect(store.reads.sort()).toEqual([
      "_tenant:_vance/skills/gamma/SKILL.md",
      "_user_bob:_vance/skills/alpha/SKILL.md",
      "web:_vance/skills/beta/SKILL.md",
    ]);
  });

  it("ignores files that are not a top-level SKILL.md", async () => {
    // Prepare
    const { loader } = await setup({
      tenant: {
        "_vance/skills/alpha/references/SKILL.md": titled("nested"),
        "_vance/skills/SKILL.md": titled("loose"),
        "_vance/skills/beta/skill.md": titled("lowercase"),
      },
    });

    // Act
    const listed = await loader.listAvailable(FULL);
    const problems = await loader.problems(FULL);

    // Assess
    expect(listed).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe("names and scopes", () => {
  it.each(["../alpha", "al pha", "a__b", "alpha/SKILL.md", "", "-a", "a".repeat(65)])(
    "loads nothing for the impossible name %j",
    async (name) => {
      // Prepare
      const { loader, store } = await setup({ tenant: { [skillPath("alpha")]: titled("t") } });

      // Act
      const skill = await loader.load(FULL, name);

      // Assess
      expect(skill).toBeUndefined();
      expect(store.reads).toEqual([]);
    },
  );

  it.each([
    { tenantId: "../acme" },
    { tenantId: TENANT, userId: "../bob" },
    { tenantId: TENANT, projectId: "_tenant" },
    { tenantId: TENANT, projectId: "_user_bob" },
    { tenantId: TENANT, projectId: "a/b" },
  ])("rejects the malformed scope %j", async (scope) => {
    // Prepare
    const { loader } = await setup({});

    // Act + Assess
    await expect(loader.load(scope, "alpha")).rejects.toBeInstanceOf(InvalidRequest);
    await expect(loader.listAvailable(scope)).rejects.toBeInstanceOf(InvalidRequest);
  });
});

describe("SkillResolver", () => {
  it("resolves names in order, dropping the ones not visible", async () => {
    // Prepare
    const { loader } = await setup({
      tenant: { [skillPath("alpha")]: titled("a"), [skillPath("gamma")]: titled("g", "enabled: false") },
      bundled: { [skillPath("beta")]: titled("b") },
    });
    const resolver = new SkillResolver(loader);

    // Act
    const all = await resolver.resolveAll(FULL, ["beta", "missing", "alpha", "gamma", "beta"]);
    const one = await resolver.resolve(FULL, "alpha");
    const available = await resolver.listAvailable(FULL);

    // Assess
    expect(all.map((s) => s.name)).toEqual(["beta", "alpha"]);
    expect(one?.source).toBe("VANCE");
    expect(available.map((s) => s.name)).toEqual(["alpha", "beta"]);
  });
});

describe("a minimal disabling override", () => {
  it("hides the outer skill with nothing but `enabled: false`", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    await store.put(
      "acme",
      "_tenant",
      "_vance/skills/shared-skill/SKILL.md",
      "---\ntitle: Shared\nversion: 1.0.0\ndescription: d\n---\nbody\n",
    );
    await store.put("acme", "_user_ada", "_vance/skills/shared-skill/SKILL.md", "---\nenabled: false\n---\n");
    const loader = new SkillLoader({ store, bundled: await bundledFixture({}) });

    // Act
    const forAda = await loader.load({ tenantId: "acme", userId: "ada" }, "shared-skill");
    const forBob = await loader.load({ tenantId: "acme", userId: "bob" }, "shared-skill");

    // Assess
    expect(forAda).toBeUndefined();
    expect(forBob?.source).toBe("VANCE");
    expect(await loader.problems({ tenantId: "acme", userId: "ada" })).toEqual([
      {
        name: "shared-skill",
        source: "VANCE",
        path: "_vance/skills/shared-skill/SKILL.md",
        message: "hidden by the USER level's enabled: false override of the same name (_vance/skills/shared-skill/SKILL.md)",
        severity: "info",
      },
    ]);
  });
});

describe("a store that is briefly unavailable", () => {
  it("makes a lookup fail retryably instead of falling through to an outer layer", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    await store.put(
      "acme",
      "_tenant",
      "_vance/skills/shared-skill/SKILL.md",
      "---\ntitle: Shared\nversion: 1.0.0\ndescription: d\n---\nbody\n",
    );
    await store.put(
      "acme",
      "_user_ada",
      "_vance/skills/shared-skill/SKILL.md",
      "---\ntitle: Mine\nversion: 1.0.0\ndescription: d\n---\nbody\n",
    );
    const throttled = Object.assign(new Error("Rate exceeded"), { name: "SlowDown", $metadata: { httpStatusCode: 503 } });
    const flaky = Object.assign(Object.create(store) as InMemoryDocumentStore, {
      get: async (tenant: string, project: string, path: string) => {
        if (project === "_user_ada") throw throttled;
        return store.get(tenant, project, path);
      },
    });
    const loader = new SkillLoader({ store: flaky, bundled: await bundledFixture({}) });

    // Act
    const outcome = loader.load({ tenantId: "acme", userId: "ada" }, "shared-skill");

    // Assess
    await expect(outcome).rejects.toBe(throttled);
  });
});
