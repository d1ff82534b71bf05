import { describe, expect, it } from "vitest";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { InMemoryLevelSnapshotStore } from "../../shared/catalogue/in-memory-level-snapshot-store.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import type { DocumentRef, StoredDocument } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import type { ListedSkill } from "../../shared/skills/resolved-skill.js";
import { SkillLoader, skillDocumentPreparer } from "../../shared/skills/skill-loader.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { EmptyLayer } from "../support/steering-harness.js";

/**
 * A cold instance lists skills from the level snapshots (prepared outcomes, no SKILL.md read):
 * the same entries, problems and shadowed documents as a loader that reads every document, but
 * for what a listing entry leaves out (the body, INLINE reference contents).
 */

const TENANT = "acme";
const SCOPE: SkillScopeContext = { tenantId: TENANT, userId: "bob", projectId: "web" };
const inline = (file: string): string => ["referenceDocs:", `  - file: ${file}`, "    title: Ref", "    loadMode: INLINE"].join("\n");

const LEVELS: Record<string, Record<string, string>> = {
  _user_bob: {
    [skillPath("alpha")]: "---\nenabled: false\n---\n",
    [skillPath("user-only")]: skillMd({ description: "Mine" }),
  },
  web: {
    [skillPath("alpha")]: skillMd({ title: "Alpha" }),
    [skillPath("beta")]: "---\ndescription: No title, no version\n---\nBody.\n",
    [skillPath("gamma")]: skillMd({ extra: inline("references/a.md") }),
    "_vance/skills/gamma/references/a.md": "Inline text",
    [skillPath("delta")]: skillMd({ extra: inline("references/missing.md") }),
    [skillPath("eps")]: skillMd({
      extra: "triggers:\n  - type: KEYWORDS\n    keywords: [deploy, staging]\n  - type: PATTERN\n    pattern: 'release \\d+'",
    }),
    "_vance/skills/eps/scripts/run.py": "print(1)",
    "_vance/skills/eps/assets/logo.png": "png",
    "_vance/skills/eps/sub/SKILL.md": "a nested file",
    [skillPath("Zeta")]: skillMd(),
    [skillPath("zeta")]: skillMd(),
    [skillPath("broken")]: "---\ndescription: [unclosed\n---\n",
    [skillPath("bad__name")]: skillMd(),
    [skillPath("agent")]:
      "---\nname: agent\ndescription: Agent style\nlicense: MIT\nmetadata:\n  owner: team\nallowed-tools: Read, Bash(git add:*)\n---\n# Agent\nRead files.\n",
  },
  _tenant: {
    [skillPath("beta")]: skillMd({ description: "Tenant beta" }),
    [skillPath("tenant-only")]: skillMd({ extra: "action: go now" }),
    [skillPath("broken")]: skillMd({ description: "Tenant copy of broken" }),
  },
};

/** Counts reads and listings of `_vance/`: a cold instance on snapshots makes none. */
class CountingStore extends InMemoryDocumentStore {
  calls = 0;
  override get(tenant: string, project: string, path: string): Promise<StoredDocument | undefined> {
    if (path.startsWith("_vance/")) this.calls++;
    return super.get(tenant, project, path);
  }
  override list(tenant: string, project: string, prefix: string): Promise<DocumentRef[]> {
    if (prefix.startsWith("_vance/")) this.calls++;
    return super.list(tenant, project, prefix);
  }
}

/** A listing entry compared with a skill read in full: what the entry leaves out removed from both. */
const listed = (skill: ListedSkill): unknown => {
  const { body: _body, ...rest } = skill as ListedSkill & { body?: string };
  return {
    ...rest,
    referenceDocs: skill.referenceDocs.map(({ content: _content, ...ref }) => ref),
  };
};

/** The fields an entry carries, in order (JSON leaves out the undefined ones, a parsed document keeps them). */
const definedKeys = (skill: ListedSkill): string[] =>
  Object.entries(skill)
    .filter(([key, value]) => key !== "body" && value !== undefined)
    .map(([key]) => key);

describe("listing from level snapshots", () => {
  it("gives what reading every document gives, without reading one", async () => {
    // Prepare
    const store = new CountingStore();
    for (const [project, docs] of Object.entries(LEVELS))
      for (const [path, body] of Object.entries(docs)) await store.put(TENANT, project, path, body);
    const versions = new InMemoryCatalogueVersions();
    for (const project of Object.keys(LEVELS)) await versions.bump(TENANT, project);
    const snapshots = new InMemoryLevelSnapshotStore();
    const bundled = new EmptyLayer();
    const cold = () =>
      new SkillLoader({
        store,
        bundled,
        catalogue: new DocumentCatalogue({ store, bundled, versions, preparer: skillDocumentPreparer, snapshots }),
      });
    await cold().listAvailable(SCOPE);
    const fresh = new SkillLoader({ store, bundled });
    store.calls = 0;

    // Act
    const loader = cold();
    const { skills, shadowed } = await loader.listWithShadowed(SCOPE);
    const problems = await loader.problems(SCOPE);
    const calls = store.calls;

    // Assess
    expect(snapshots.objects.size).toBe(3);
    expect(calls).toBe(0);
    expect(skills.every((skill) => skill.body === undefined)).toBe(true);
    const read = await fresh.listWithShadowed(SCOPE);
    expect(skills.map(listed)).toEqual(read.skills.map(listed));
    expect(skills.map(definedKeys)).toEqual(read.skills.map(definedKeys));
    expect(shadowed).toEqual(read.shadowed);
    expect(problems).toEqual(await fresh.problems(SCOPE));
    expect(problems.filter((p) => p.message.includes("collides")).map((p) => p.name)).toEqual(["Zeta", "zeta"]);
  });
});
