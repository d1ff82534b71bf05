import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import type { DocumentRef, DocumentStore, StoredDocument } from "../../shared/documents/document-store.js";
import { DelegatingDocumentStore } from "../support/delegating-document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { toSkillDetail } from "../../shared/skills/skill-detail.js";
import { matchSkillFile, MAX_SKILL_FILES, skillFilesFromListing, type SkillFile } from "../../shared/skills/skill-files.js";
import { SkillLoader } from "../../shared/skills/skill-loader.js";
import { composeSection, filesBlock, MAX_PROMPT_FILES } from "../../shared/skills/skill-prompt-composer.js";
import type { RenderContext, TemplateRenderer } from "../../shared/templates/template-renderer.js";
import { engineConfig } from "../../shared/recipes/engines.js";
import type { Turn } from "../../shared/turns/turn.js";
import { skillMd } from "../support/skill-fixtures.js";
import { EmptyLayer, steeringHarness } from "../support/steering-harness.js";

const TENANT = "acme";
const SCOPE = { tenantId: TENANT, projectId: "web" };

/** Counts the store calls a lookup makes. */
class CountingStore extends DelegatingDocumentStore {
  calls = 0;
  override get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    this.calls++;
    return super.get(tenant, project, path);
  }
  override list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    this.calls++;
    return super.list(tenant, project, prefix);
  }
}

/** `forms` in project `web` with siblings, a shadowed `forms` in `_tenant` with a file of its own. */
async function store(): Promise<InMemoryDocumentStore> {
  const documents = new InMemoryDocumentStore();
  const put = (project: string, path: string, body: string | Uint8Array): Promise<DocumentRef> =>
    documents.put(TENANT, project, path, body);
  await put("web", "_vance/skills/forms/SKILL.md", skillMd({ body: "see references/forms.md" }));
  await put("web", "_vance/skills/forms/references/forms.md", "# Forms");
  await put("web", "_vance/skills/forms/assets/logo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  await put("web", "_vance/skills/forms/nested/SKILL.md", "a nested SKILL.md is a file");
  await put("web", "_vance/skills/forms-extra/other.md", "a sibling directory whose name starts alike");
  await put("web", "_vance/skills/plain/SKILL.md", skillMd());
  await put("_tenant", "_vance/skills/forms/SKILL.md", skillMd({ body: "tenant" }));
  await put("_tenant", "_vance/skills/forms/references/tenant-only.md", "tenant only");
  return documents;
}

const EXPECTED: SkillFile[] = [
  { path: "assets/logo.png", size: 4 },
  { path: "nested/SKILL.md", size: 27 },
  { path: "references/forms.md", size: 7 },
];

const catalogued = (documents: DocumentStore, versions = new InMemoryCatalogueVersions()): SkillLoader =>
  new SkillLoader({
    store: documents,
    bundled: new EmptyLayer(),
    catalogue: new DocumentCatalogue({ store: documents, bundled: new EmptyLayer(), versions, logger: { warn: () => undefined } }),
  });

describe("skill files: the listing", () => {
  it("lists the files of the skill directory in the layer of its SKILL.md, SKILL.md excluded, relative and sorted", async () => {
    // Prepare
    const loader = new SkillLoader({ store: await store(), bundled: new EmptyLayer() });

    // Act
    const loaded = await loader.load(SCOPE, "forms");
    const listed = (await loader.listAvailable(SCOPE)).find((s) => s.name === "forms");
    const plain = await loader.load(SCOPE, "plain");

    // Assess
    expect(loaded?.files).toMatchObject(EXPECTED);
    expect(listed?.files).toMatchObject(EXPECTED);
    expect(plain?.files).toEqual([]);
  });

  it("lists the same files through the warm catalogue, from memory on a steady lookup", async () => {
    // Prepare
    const documents = new CountingStore(await store(), false);
    const loader = catalogued(documents);
    const cold = await loader.load(SCOPE, "forms");
    await loader.listAvailable(SCOPE);
    documents.calls = 0;

    // Act
    const warm = await loader.load(SCOPE, "forms");
    const listed = (await loader.listAvailable(SCOPE)).find((s) => s.name === "forms");

    // Assess
    expect(cold?.files).toMatchObject(EXPECTED);
    expect(warm?.files).toBe(cold?.files);
    expect(listed?.files).toBe(cold?.files);
    expect(documents.calls).toBe(0);
  });

  it("shows a new file on the next lookup after the level's version moved", async () => {
    // Prepare
    const documents = await store();
    const versions = new InMemoryCatalogueVersions();
    const loader = catalogued(documents, versions);
    await loader.load(SCOPE, "forms");
    await documents.put(TENANT, "web", "_vance/skills/forms/references/api.md", "api");
    await versions.bump(TENANT, "web");

    // Act
    const after = await loader.load(SCOPE, "forms");

    // Assess
    expect(after?.files?.map((f) => f.path)).toEqual(["assets/logo.png", "nested/SKILL.md", "references/api.md", "references/forms.md"]);
  });

  it(`caps the listing at ${MAX_SKILL_FILES} files per skill with a warning on the skill`, async () => {
    // Prepare
    const documents = new InMemoryDocumentStore();
    await documents.put(TENANT, "web", "_vance/skills/huge/SKILL.md", skillMd());
    for (let i = 0; i < MAX_SKILL_FILES + 5; i++)
      await documents.put(TENANT, "web", `_vance/skills/huge/f/${String(i).padStart(5, "0")}.md`, "x");
    const loader = catalogued(documents);

    // Act
    const skill = await loader.load(SCOPE, "huge");

    // Assess
    expect(skill?.files).toHaveLength(MAX_SKILL_FILES);
    expect(skill?.files?.[0]?.path).toBe("f/00000.md");
    expect(skill?.warnings.map((w) => w.message)).toContainEqual(expect.stringContaining(`holds ${MAX_SKILL_FILES + 5} files`));
  });

  it("puts the files on the effective detail", async () => {
    // Prepare
    const skill = await new SkillLoader({ store: await store(), bundled: new EmptyLayer() }).load(SCOPE, "forms");

    // Act
    const detail = toSkillDetail(skill!);

    // Assess
    expect(detail.files).toEqual(EXPECTED);
  });

  it("matches exactly, else the single case-insensitive match, and reports two as ambiguous", () => {
    // Prepare
    const files: SkillFile[] = [
      { path: "Notes.md", size: 1 },
      { path: "notes.md", size: 2 },
      { path: "references/forms.md", size: 3 },
    ];

    // Act
    const exact = matchSkillFile(files, "notes.md");
    const folded = matchSkillFile(files, "REFERENCES/Forms.MD");
    const ambiguous = matchSkillFile(files, "NOTES.md");
    const absent = matchSkillFile(files, "missing.md");

    // Assess
    expect(exact).toEqual({ kind: "found", file: { path: "notes.md", size: 2 } });
    expect(folded).toEqual({ kind: "found", file: { path: "references/forms.md", size: 3 } });
    expect(ambiguous).toEqual({ kind: "ambiguous", candidates: ["Notes.md", "notes.md"] });
    expect(absent).toEqual({ kind: "absent" });
  });
});

const plainRenderer: TemplateRenderer = { render: async (template: string) => template };
const CONTEXT = {} as RenderContext;

describe("skill files: the skill section", () => {
  it("ends a skill block that has files with their paths, sizes and the call that reads them", async () => {
    // Prepare
    const skill = resolvedSkill({ name: "forms", description: "Fills forms", body: "See references/forms.md.", files: EXPECTED });

    // Act
    const { section } = await composeSection([{ skill }], CONTEXT, plainRenderer);

    // Assess
    expect(section).toBe(
      [
        "--- Skill: forms ---\nFills forms",
        "See references/forms.md.",
        [
          'Files of this skill — read a text file with skill_read_file {"skill":"forms","path":"<path>"}:',
          "- assets/logo.png (4 bytes)",
          "- nested/SKILL.md (27 bytes)",
          "- references/forms.md (7 bytes)",
        ].join("\n"),
      ].join("\n\n"),
    );
  });

  it(`names at most ${MAX_PROMPT_FILES} files and counts the rest, the same bytes for the same files`, () => {
    // Prepare
    const files = Array.from({ length: MAX_PROMPT_FILES + 7 }, (_, i) => ({ path: `f/${String(i).padStart(3, "0")}.md`, size: i }));

    // Act
    const first = filesBlock("big", files);
    const again = filesBlock(
      "big",
      files.map((f) => ({ ...f })),
    );

    // Assess
    const lines = first.split("\n");
    expect(lines).toHaveLength(1 + MAX_PROMPT_FILES + 1);
    expect(lines.at(-2)).toBe(`- f/0${MAX_PROMPT_FILES - 1}.md (${MAX_PROMPT_FILES - 1} bytes)`);
    expect(lines.at(-1)).toBe("… 7 more");
    expect(again).toBe(first);
  });

  it("adds no listing to a skill without files", async () => {
    // Prepare
    const skill = resolvedSkill({ name: "plain", description: "Plain", body: "Body.", files: [] });

    // Act
    const { section } = await composeSection([{ skill }], CONTEXT, plainRenderer);

    // Assess
    expect(section).toBe("--- Skill: plain ---\nPlain\n\nBody.");
  });
});

describe("skill files: the turn", () => {
  it("includes skill_read_file and its spec when an active skill has files, and not otherwise", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("forms", { description: "Fills forms", body: "See references/forms.md." });
    await h.putFile("_vance/skills/forms/references/forms.md", "# Forms");
    await h.putSkill("plain", { description: "Plain" });
    const withFiles = await h.spawn("open", "with-files");
    const without = await h.spawn("open", "without");
    await h.activate(withFiles.processId, "forms");
    await h.activate(without.processId, "plain");

    // Act
    const turn = (await h.compose(withFiles.processId)).result as Turn;
    const plainTurn = (await h.compose(without.processId)).result as Turn;

    // Assess
    expect(turn.tools).toContain("skill_read_file");
    expect(turn.toolSpecs.find((s) => s.name === "skill_read_file")?.inputSchema).toMatchObject({ required: ["skill", "path"] });
    expect(turn.skillSection).toContain("- references/forms.md (7 bytes)");
    expect(plainTurn.tools).not.toContain("skill_read_file");
    expect(engineConfig("ford")?.allowedTools).not.toContain("skill_read_file");
  });

  it("groups a listing as it did with a substring per entry: only a directory's own SKILL.md is left out", () => {
    // Prepare
    const paths = [
      "_vance/skills/a/SKILL.md",
      "_vance/skills/a/sub/SKILL.md",
      "_vance/skills/a/XSKILL.md",
      "_vance/skills/a/SKILL.mdx",
      "_vance/skills/a/SKILL.m",
      "_vance/skills/a/skill.md",
      "_vance/skills/a/",
      "_vance/skills/a/b/",
      "_vance/skills//orphan.md",
      "_vance/skills/loose.md",
      "_vance/skills/SKILL.md",
      "_vance/skills/b/SKILL.md/inner",
      "_vance/recipes/a/file.md",
      "_vance/skills/b/r.md",
    ];
    const listing = new Map<string, DocumentRef>(paths.map((path, i) => [path, { path, etag: `e${i}`, size: i }]));
    // What groupByDirectory computed before (one slice of the rest per entry).
    const before = (name: string): string[] =>
      paths.flatMap((full) => {
        if (!full.startsWith("_vance/skills/")) return [];
        const rest = full.slice("_vance/skills/".length);
        const slash = rest.indexOf("/");
        if (slash <= 0 || rest.slice(0, slash) !== name) return [];
        const path = rest.slice(slash + 1);
        return path === "SKILL.md" || path === "" ? [] : [path];
      });

    // Act
    const files = (name: string): string[] => skillFilesFromListing(listing, name).files.map((f) => f.path);

    // Assess
    for (const name of ["a", "b", "", "loose.md"]) expect(files(name)).toEqual(before(name).sort());
    expect(files("a")).toEqual(["SKILL.m", "SKILL.mdx", "XSKILL.md", "b/", "skill.md", "sub/SKILL.md"]);
  });
});
