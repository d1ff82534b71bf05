import { describe, expect, it } from "vitest";
import { Forbidden } from "../../shared/auth/auth-errors.js";
import type { Identity } from "../../shared/auth/identity.js";
import { contentTypeOf } from "../../shared/app/document-content-types.js";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { DocumentNotFound, InvalidDocument, InvalidRequest } from "../../shared/errors.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";
import { catalogueChangeNotifier } from "../../shared/catalogue/document-change-notifier.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";

const TENANT = "acme";
const SKILL = "_vance/skills/reviewer/SKILL.md";
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (body: Uint8Array): string => new TextDecoder().decode(body);

function setup() {
  const store = new InMemoryDocumentStore();
  return { store, service: new DocumentService(store) };
}

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("DocumentService.put: validation with the loader's parsers", () => {
  it("saves a valid SKILL.md and answers path, etag and no warnings", async () => {
    // Prepare
    const { store, service } = setup();

    // Act
    const saved = await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd()), "text/markdown");

    // Assess
    const stored = await store.get(TENANT, "_tenant", SKILL);
    expect(saved).toEqual({ path: SKILL, etag: stored?.etag, warnings: [] });
    expect(text(stored!.body)).toBe(skillMd());
    expect(stored?.contentType).toBe("text/markdown");
  });

  it.each([
    ["no frontmatter", "Just a body.", /frontmatter/],
    ["a missing description and no body paragraph", "---\ntitle: T\nversion: 1.0.0\n---\n## Only a heading\n", /description/],
    ["broken YAML", "---\ntitle: [unclosed\ndescription: d\n---\n", /./],
    ["a YAML alias bomb", "---\na: &a [x]\nb: *a\ndescription: d\ntitle: t\nversion: 1.0.0\n---\n", /alias/i],
  ])("refuses a SKILL.md with %s: InvalidDocument with every problem, nothing saved", async (_label, source, message) => {
    // Prepare
    const { store, service } = setup();

    // Act
    const error = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(source)));

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    const problems = (error as InvalidDocument).problems.filter((p) => p.severity === "error");
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.map((p) => p.message).join("\n")).toMatch(message);
    expect(problems.every((p) => p.path === SKILL)).toBe(true);
    expect(await store.get(TENANT, "_tenant", SKILL)).toBeUndefined();
  });

  it("reports the line of a field error", async () => {
    // Prepare
    const { service } = setup();
    const source = "---\ntitle: T\ndescription: D\nlifecycle: forever\n---\nBody.\n";

    // Act
    const error = (await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(source)))) as InvalidDocument;

    // Assess
    expect(error.problems).toContainEqual(
      expect.objectContaining({ path: SKILL, line: 4, severity: "error", message: expect.stringMatching(/lifecycle/) }),
    );
  });

  it("keeps the previous version when an overwrite does not validate", async () => {
    // Prepare
    const { store, service } = setup();
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd({ title: "Good" })));

    // Act
    await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes("broken")));

    // Assess
    expect(text((await store.get(TENANT, "_tenant", SKILL))!.body)).toContain("Good");
  });

  it("refuses a SKILL.md whose directory is not a valid skill name, and one that is not UTF-8", async () => {
    // Prepare
    const { service } = setup();

    // Act
    const badName = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/-bad-name/SKILL.md", bytes(skillMd())));
    const binary = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, new Uint8Array([0xff, 0xfe, 0x00, 0x41])));

    // Assess
    expect(badName).toBeInstanceOf(InvalidDocument);
    expect(binary).toBeInstanceOf(InvalidDocument);
    expect((binary as InvalidDocument).problems[0]?.message).toMatch(/UTF-8/);
  });

  it("saves with warnings: an unknown field, and referenced files not present yet in this project", async () => {
    // Prepare
    const { store, service } = setup();
    await store.put(TENANT, "_tenant", "_vance/skills/reviewer/references/present.md", "here");
    const source = skillMd({
      extra: [
        "colour: blue",
        "referenceDocs:",
        "  - { title: Present, file: references/present.md }",
        "  - { title: Later, file: references/later.md, loadMode: ON_DEMAND }",
        "scripts:",
        "  - { name: fetch, file: scripts/fetch.js }",
      ].join("\n"),
    });

    // Act
    const saved = await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(source));

    // Assess
    expect(saved.warnings).toEqual([
      { path: SKILL, line: expect.any(Number), message: expect.stringMatching(/unknown field 'colour'/) },
      { path: SKILL, message: expect.stringMatching(/referenceDocs file 'references\/later.md' is not present yet/) },
      { path: SKILL, message: expect.stringMatching(/scripts file 'scripts\/fetch.js' is not present yet/) },
    ]);
    expect(await store.get(TENANT, "_tenant", SKILL)).toBeDefined();
  });

  it("does not count a sibling of another layer as present (layer pinning)", async () => {
    // Prepare
    const { store, service } = setup();
    await store.put(TENANT, "_tenant", "_vance/skills/reviewer/references/checklist.md", "tenant copy");
    const source = skillMd({ extra: "referenceDocs:\n  - { title: C, file: references/checklist.md }" });

    // Act
    const saved = await service.put(IDENTITIES.alice, TENANT, "_user_alice", SKILL, bytes(source));

    // Assess
    expect(saved.warnings).toHaveLength(1);
    expect(saved.warnings[0]?.message).toMatch(/not present yet/);
  });

  it("validates recipes: an unknown engine is refused, a valid recipe saved", async () => {
    // Prepare
    const { store, service } = setup();

    // Act
    const refused = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/recipes/fast.yaml", bytes("engine: warp\n")));
    const saved = await service.put(
      IDENTITIES.admin,
      TENANT,
      "_tenant",
      "_vance/recipes/calm.yaml",
      bytes("engine: ford\npromptPrefix: Calm.\n"),
    );

    // Assess
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect((refused as InvalidDocument).problems[0]).toMatchObject({
      path: "_vance/recipes/fast.yaml",
      line: 1,
      message: expect.stringMatching(/unknown engine/),
    });
    expect(await store.get(TENANT, "_tenant", "_vance/recipes/fast.yaml")).toBeUndefined();
    expect(saved.warnings).toEqual([]);
  });

  it("saves any other document as is, binary included", async () => {
    // Prepare
    const { store, service } = setup();
    const body = new Uint8Array([0, 1, 2, 255]);

    // Act
    await service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/reviewer/assets/logo.png", body, "image/png");

    // Assess
    expect([...(await store.get(TENANT, "_tenant", "_vance/skills/reviewer/assets/logo.png"))!.body]).toEqual([0, 1, 2, 255]);
  });

  it("does not keep curl's default form content type, so a GET answers by file type", async () => {
    // Prepare
    const { store, service } = setup();

    // Act
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd()), "application/x-www-form-urlencoded");

    // Assess
    const stored = await store.get(TENANT, "_tenant", SKILL);
    expect(stored?.contentType).toBeUndefined();
    expect(contentTypeOf(stored!)).toBe("text/markdown; charset=utf-8");
    expect(contentTypeOf({ path: "a/SKILL.md", contentType: "binary/octet-stream" })).toBe("text/markdown; charset=utf-8");
    expect(contentTypeOf({ path: "a/logo.bin", contentType: undefined })).toBe("application/octet-stream");
    expect(contentTypeOf({ path: "a/logo.png", contentType: "image/png" })).toBe("image/png");
  });

  it.each(["../escape.md", "a//b.md", "/abs.md", "a\\b.md", "a/./b.md", "a/%2e%2e/b.md"])(
    "refuses the path %j with InvalidRequest",
    async (path) => {
      // Prepare
      const { service } = setup();

      // Act
      const error = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", path, bytes("x")));

      // Assess
      expect(error).toBeInstanceOf(InvalidRequest);
    },
  );
});

describe("DocumentService get, delete, list", () => {
  it("gets a document, lists it relative to the project, deletes it, then answers DocumentNotFound", async () => {
    // Prepare
    const { service } = setup();
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd()));
    await service.put(IDENTITIES.admin, TENANT, "_tenant", "notes/a.md", bytes("a"));

    // Act
    const doc = await service.get(IDENTITIES.alice, TENANT, "_tenant", SKILL);
    const all = await service.list(IDENTITIES.alice, TENANT, "_tenant");
    const skills = await service.list(IDENTITIES.alice, TENANT, "_tenant", "_vance/");
    await service.delete(IDENTITIES.admin, TENANT, "_tenant", SKILL);
    const afterDelete = await failure(service.get(IDENTITIES.alice, TENANT, "_tenant", SKILL));
    const deleteAgain = await failure(service.delete(IDENTITIES.admin, TENANT, "_tenant", SKILL));

    // Assess
    expect(text(doc.body)).toBe(skillMd());
    expect(all.map((d) => d.path)).toEqual([SKILL, "notes/a.md"]);
    expect(skills).toEqual([{ path: SKILL, etag: doc.etag, size: doc.size }]);
    expect(afterDelete).toBeInstanceOf(DocumentNotFound);
    expect(deleteAgain).toBeInstanceOf(DocumentNotFound);
    expect((deleteAgain as DocumentNotFound).code).toBe("DOCUMENT_NOT_FOUND");
  });
});

describe("DocumentService authorization (API.md table)", () => {
  type Op = "read" | "write";
  const cells: [string, Identity, string, Op, boolean][] = [
    ["any user reads _tenant", IDENTITIES.mallory, "_tenant", "read", true],
    ["a tenant-admin writes _tenant", IDENTITIES.admin, "_tenant", "write", true],
    ["a project admin may not write _tenant", IDENTITIES.padmin, "_tenant", "write", false],
    ["a member may not write _tenant", IDENTITIES.alice, "_tenant", "write", false],
    ["a member reads its project", IDENTITIES.alice, "proj1", "read", true],
    ["a non-member may not read the project", IDENTITIES.mallory, "proj1", "read", false],
    ["a member may not write its project", IDENTITIES.alice, "proj1", "write", false],
    ["the project admin writes the project", IDENTITIES.padmin, "proj1", "write", true],
    ["a tenant-admin writes any project", IDENTITIES.admin, "proj1", "write", true],
    ["a user reads its own documents", IDENTITIES.alice, "_user_alice", "read", true],
    ["a user writes its own documents", IDENTITIES.alice, "_user_alice", "write", true],
    ["another user may not read them", IDENTITIES.bob, "_user_alice", "read", false],
    ["another user may not write them", IDENTITIES.bob, "_user_alice", "write", false],
    ["not even a tenant-admin reads them", IDENTITIES.admin, "_user_alice", "read", false],
    ["a reserved name is nobody's project", IDENTITIES.admin, "_secret", "read", false],
  ];

  it.each(cells)("%s", async (_label, identity, project, op, allowed) => {
    // Prepare
    const { store, service } = setup();
    const storable = project !== "_secret";
    if (storable) await store.put(TENANT, project, "notes/a.md", "a");

    // Act
    const error = await failure(
      op === "read" ? service.list(identity, TENANT, project) : service.put(identity, TENANT, project, "notes/b.md", bytes("b")),
    );

    // Assess
    if (allowed) expect(error).toBeUndefined();
    else expect(error).toBeInstanceOf(Forbidden);
    if (storable && op === "write") expect((await store.get(TENANT, project, "notes/b.md")) !== undefined).toBe(allowed);
  });

  it("refuses every operation in another tenant, whatever the roles there", async () => {
    // Prepare
    const { store, service } = setup();
    await store.put(TENANT, "_tenant", "notes/a.md", "a");

    // Act
    const results = await Promise.all([
      failure(service.get(IDENTITIES.eve, TENANT, "_tenant", "notes/a.md")),
      failure(service.list(IDENTITIES.eve, TENANT, "_tenant")),
      failure(service.put(IDENTITIES.eve, TENANT, "_tenant", "notes/a.md", bytes("pwned"))),
      failure(service.delete(IDENTITIES.eve, TENANT, "_tenant", "notes/a.md")),
    ]);

    // Assess
    for (const error of results) expect(error).toBeInstanceOf(Forbidden);
    expect(text((await store.get(TENANT, "_tenant", "notes/a.md"))!.body)).toBe("a");
  });
});

describe("DocumentService and the warm catalogue", () => {
  it("bumps the level version after a successful write or delete of a catalogue document, never after a refused one", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const versions = new InMemoryCatalogueVersions();
    const service = new DocumentService(store, catalogueChangeNotifier(versions));
    const versionOf = async (): Promise<number> => (await versions.read(TENANT, ["_tenant"])).get("_tenant")?.version ?? 0;

    // Act
    await service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes(skillMd()));
    const afterPut = await versionOf();
    await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", SKILL, bytes("---\ntitle: broken\n---\n")));
    const afterRefusal = await versionOf();
    await service.put(IDENTITIES.admin, TENANT, "_tenant", "notes/readme.md", bytes("not a skill"));
    const afterOtherDocument = await versionOf();
    await service.delete(IDENTITIES.admin, TENANT, "_tenant", SKILL);
    const afterDelete = await versionOf();

    // Assess
    expect([afterPut, afterRefusal, afterOtherDocument, afterDelete]).toEqual([1, 1, 1, 2]);
  });
});

describe("DocumentService.put: trigger caps (a member's level cannot make every turn pay for thousands of patterns)", () => {
  const patterns = (n: number, seed: string): string =>
    `triggers:\n${Array.from({ length: n }, (_, i) => `  - type: PATTERN\n    pattern: '${seed}-${i} (now|later)'`).join("\n")}`;

  it("refuses a skill with more PATTERN triggers than one skill may hold, with a 422 problem saying the cap", async () => {
    // Prepare
    const { store, service } = setup();

    // Act
    const error = await failure(service.put(IDENTITIES.alice, TENANT, "_user_alice", SKILL, bytes(skillMd({ extra: patterns(21, "p") }))));

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect((error as InvalidDocument).problems.map((p) => p.message).join(" ")).toMatch(/21 PATTERN triggers; at most 20 per skill/);
    expect(await store.get(TENANT, "_user_alice", SKILL)).toBeUndefined();
  });

  it("refuses the skill that would take a user level past 100 patterns; keyword-only skills still save", async () => {
    // Prepare: five skills of 20 patterns fill alice's level
    const { store, service } = setup();
    for (let s = 0; s < 5; s++) {
      await service.put(
        IDENTITIES.alice,
        TENANT,
        "_user_alice",
        `_vance/skills/fill-${s}/SKILL.md`,
        bytes(skillMd({ extra: patterns(20, `s${s}`) })),
      );
    }

    // Act
    const error = await failure(
      service.put(IDENTITIES.alice, TENANT, "_user_alice", "_vance/skills/one-more/SKILL.md", bytes(skillMd({ extra: patterns(1, "x") }))),
    );
    const keywords = await service.put(
      IDENTITIES.alice,
      TENANT,
      "_user_alice",
      "_vance/skills/words/SKILL.md",
      bytes(skillMd({ extra: "triggers:\n  - type: KEYWORDS\n    keywords: [deploy]" })),
    );
    const rewrite = await service.put(
      IDENTITIES.alice,
      TENANT,
      "_user_alice",
      "_vance/skills/fill-0/SKILL.md",
      bytes(skillMd({ extra: patterns(20, "again") })),
    );

    // Assess: the level stays at 100, and replacing a skill counts its old patterns out
    expect(error).toBeInstanceOf(InvalidDocument);
    expect((error as InvalidDocument).problems[0]?.message).toMatch(
      /would hold 101 PATTERN triggers; at most 100 are allowed per user level/,
    );
    expect(await store.get(TENANT, "_user_alice", "_vance/skills/one-more/SKILL.md")).toBeUndefined();
    expect(keywords.path).toBe("_vance/skills/words/SKILL.md");
    expect(rewrite.path).toBe("_vance/skills/fill-0/SKILL.md");
  });
});

describe("DocumentService.put: per-level document caps (a member cannot fill a level without bound)", () => {
  const limited = (maxDocumentsPerProject: number, maxProjectBytes = 1_000_000) => {
    const store = new InMemoryDocumentStore();
    return { store, service: new DocumentService(store, undefined, { maxDocumentsPerProject, maxProjectBytes }) };
  };
  const problemsOf = (error: unknown): string[] => (error as InvalidDocument).problems.map((p) => p.message);

  it("refuses a new document past the count cap with a 422 naming the cap, and stores nothing", async () => {
    // Prepare
    const { store, service } = limited(3);
    for (const name of ["a", "b", "c"]) await service.put(IDENTITIES.admin, TENANT, "p1", `notes/${name}.md`, bytes("x"));

    // Act
    const error = await failure(service.put(IDENTITIES.admin, TENANT, "p1", "notes/d.md", bytes("x")));

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect(problemsOf(error)).toEqual(["level 'p1' holds 3 documents, the most allowed (3); delete documents before adding new ones"]);
    expect(await store.get(TENANT, "p1", "notes/d.md")).toBeUndefined();
  });

  it("still overwrites an existing document at the cap, and counts each level apart", async () => {
    // Prepare
    const { store, service } = limited(2);
    await service.put(IDENTITIES.admin, TENANT, "p1", "a.md", bytes("1"));
    await service.put(IDENTITIES.admin, TENANT, "p1", "b.md", bytes("1"));

    // Act
    await service.put(IDENTITIES.admin, TENANT, "p1", "a.md", bytes("2"));
    await service.put(IDENTITIES.admin, TENANT, "p2", "a.md", bytes("1"));

    // Assess
    expect(text((await store.get(TENANT, "p1", "a.md"))!.body)).toBe("2");
    expect(await store.get(TENANT, "p2", "a.md")).toBeDefined();
  });

  it("frees a slot when a document is deleted", async () => {
    // Prepare
    const { service } = limited(1);
    await service.put(IDENTITIES.admin, TENANT, "p1", "a.md", bytes("1"));
    await service.delete(IDENTITIES.admin, TENANT, "p1", "a.md");

    // Act
    const saved = await service.put(IDENTITIES.admin, TENANT, "p1", "b.md", bytes("1"));

    // Assess
    expect(saved.path).toBe("b.md");
  });

  it("refuses a write that would take the level past its byte cap, but lets an oversized level shrink", async () => {
    // Prepare
    const { store, service } = limited(100, 10);
    await service.put(IDENTITIES.admin, TENANT, "p1", "a.bin", new Uint8Array(8));

    // Act
    const grow = await failure(service.put(IDENTITIES.admin, TENANT, "p1", "b.bin", new Uint8Array(3)));
    await store.put(TENANT, "p1", "c.bin", new Uint8Array(20)); // written around the API (a lowered cap, a script)
    const shrunk = await service.put(IDENTITIES.admin, TENANT, "p1", "c.bin", new Uint8Array(5));
    const regrow = await failure(service.put(IDENTITIES.admin, TENANT, "p1", "a.bin", new Uint8Array(9)));

    // Assess
    expect(problemsOf(grow)).toEqual(["level 'p1' would hold 11 bytes, more than the 10 allowed (8 used); delete documents first"]);
    expect(shrunk.path).toBe("c.bin");
    expect(regrow).toBeInstanceOf(InvalidDocument);
  });

  it("checks the caps after validation: an invalid SKILL.md at the cap is refused for what is wrong with it", async () => {
    // Prepare
    const { service } = limited(1);
    await service.put(IDENTITIES.admin, TENANT, "p1", "a.md", bytes("1"));

    // Act
    const error = await failure(service.put(IDENTITIES.admin, TENANT, "p1", SKILL, bytes("---\nname: [\n---\n")));

    // Assess
    expect(problemsOf(error).join(" ")).not.toContain("the most allowed");
  });
});

describe("DocumentService.put: Agent Skills documents", () => {
  it("saves a name + description SKILL.md with its deviations as warnings with lines", async () => {
    // Prepare
    const { service } = setup();

    // Act
    const saved = await service.put(
      IDENTITIES.admin,
      TENANT,
      "_tenant",
      "_vance/skills/ahrefs-automation/SKILL.md",
      bytes("---\nname: Ahrefs Automation\ndescription: Backlinks\nmodel: opus\n---\nBody.\n"),
    );

    // Assess
    expect(saved.warnings).toEqual([
      {
        path: "_vance/skills/ahrefs-automation/SKILL.md",
        line: 4,
        message: "field 'model' (Claude Code) is not used by this service (ignored)",
      },
      expect.objectContaining({ line: 2, message: expect.stringContaining("not the directory name") }),
      expect.objectContaining({ line: 2, message: expect.stringMatching(/^title: is absent/), severity: "info" }),
      expect.objectContaining({ line: 2, message: expect.stringMatching(/^version: is absent/), severity: "info" }),
    ]);
    // A warning keeps the shape API.md gave first (no severity); only an info says so.
    expect(saved.warnings[0]).not.toHaveProperty("severity");
  });

  it("refuses a skill whose name differs only in case from one of the level, naming both and the fix", async () => {
    // Prepare
    const { store, service } = setup();
    await service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/pdf/SKILL.md", bytes("---\nname: pdf\ndescription: d\n---\n"));

    // Act
    const error = await failure(
      service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/PDF/SKILL.md", bytes("---\nname: PDF\ndescription: d\n---\n")),
    );
    const otherLevel = await service.put(
      IDENTITIES.admin,
      TENANT,
      "p1",
      "_vance/skills/PDF/SKILL.md",
      bytes("---\nname: PDF\ndescription: d\n---\n"),
    );

    // Assess
    expect((error as InvalidDocument).problems.map((p) => p.message)).toEqual([
      "skill name 'PDF' collides with the skill 'pdf' of level '_tenant' (names may not differ only in case); rename this folder or delete _vance/skills/pdf/ first",
    ]);
    expect(await store.get(TENANT, "_tenant", "_vance/skills/PDF/SKILL.md")).toBeUndefined();
    expect(otherLevel.path).toBe("_vance/skills/PDF/SKILL.md");
  });

  it.each([
    ["_vance/skills/pdf/skill.md", "the file must be named exactly SKILL.md (not skill.md)"],
    ["_vance/skills/pdf/nested/SKILL.md", "a skill's SKILL.md lies directly in _vance/skills/<name>/, not deeper"],
    ["skills/pdf/SKILL.md", "skills are read only from _vance/skills/<name>/SKILL.md"],
  ])("saves %s but warns that it will never be a skill", async (path, reason) => {
    // Prepare
    const { service } = setup();

    // Act
    const saved = await service.put(IDENTITIES.admin, TENANT, "_tenant", path, bytes("---\nname: pdf\ndescription: d\n---\n"));

    // Assess
    expect(saved.warnings).toEqual([{ path, message: `this ${path.split("/").pop()} will never be loaded as a skill: ${reason}` }]);
  });
});
