import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { encodeBundledLevel } from "../../shared/catalogue/bundled-level-outcomes.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { encodeLevelSnapshot } from "../../shared/catalogue/level-snapshot-codec.js";
import { BundledDocumentLayer, bundledPreparedFile, readBundledDocuments } from "../../shared/documents/bundled-document-layer.js";
import type { CascadeLayer, DocumentPreparer, PreparedDocument } from "../../shared/documents/cascade-layers.js";
import type { SkillScopeContext } from "../../shared/documents/cascade-scope.js";
import type { DocumentRef } from "../../shared/documents/document-store.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { SkillLoader, skillDocumentPreparer } from "../../shared/skills/skill-loader.js";
import { memoizedRequiredLiterals } from "../../shared/skills/triggers/pattern-prefilter.js";
import { removeBundledFixtures, writeBundledFixture } from "../support/bundled-fixture.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

afterAll(removeBundledFixtures);

const SKILLS = ["alpha", "beta", "broken"].map(skillPath);

/** A bundled folder of two usable skills (one with a PATTERN trigger), one defective, a reference and a recipe. */
async function bundledFolder(pattern = `\\bzebra${randomUUID().slice(0, 8)}\\b`): Promise<{ root: string; pattern: string }> {
  const root = await writeBundledFixture({
    [skillPath("alpha")]: skillMd({ title: "Alpha", extra: `triggers:\n  - type: PATTERN\n    pattern: ${JSON.stringify(pattern)}` }),
    "_vance/skills/alpha/references/notes.md": "notes",
    [skillPath("beta")]: skillMd({ title: "Beta", extra: "tags: [one, two]" }),
    [skillPath("broken")]: "---\ntitle: [unclosed\n---\nbody\n",
    "_vance/recipes/default.yaml": "engine: ford\ndescription: bundled\n",
  });
  return { root, pattern };
}

/** What the asset build writes (infra/write-lambda-asset.ts writeBundledPrepared), for a fixture folder. */
const writePrepared = (root: string): void =>
  writeFileSync(bundledPreparedFile(root), encodeBundledLevel(readBundledDocuments(root), skillDocumentPreparer));

/** The skill preparer, counting what it parses; a fresh object per test, so the process-wide outcomes are its own. */
function countingPreparer(): { preparer: DocumentPreparer; parsed: string[] } {
  const parsed: string[] = [];
  const preparer: DocumentPreparer = {
    handles: skillDocumentPreparer.handles,
    levelExtras: skillDocumentPreparer.levelExtras!,
    prepare: (path, doc) => {
      parsed.push(path);
      return skillDocumentPreparer.prepare(path, doc);
    },
  };
  return { preparer, parsed };
}

function catalogueOver(bundled: BundledDocumentLayer, preparer: DocumentPreparer) {
  const warnings: string[] = [];
  const store = new InMemoryDocumentStore();
  const catalogue = new DocumentCatalogue({
    store,
    bundled,
    versions: new InMemoryCatalogueVersions(),
    preparer,
    logger: { warn: (message) => void warnings.push(message) },
  });
  return { catalogue, store, warnings, skills: new SkillLoader({ store, bundled, catalogue }) };
}

const scopeOf = (tenantId: string): SkillScopeContext => ({ tenantId });
const resourceLayer = async (catalogue: DocumentCatalogue, tenant = "acme"): Promise<CascadeLayer> =>
  (await catalogue.view(scopeOf(tenant))).layers.find((layer) => layer.source === "RESOURCE")!;

/** Every SKILL.md of the folder as a cold instance parses it today. */
async function parsedAtRunTime(root: string): Promise<Map<string, PreparedDocument>> {
  const layer = new BundledDocumentLayer(root);
  const outcomes = new Map<string, PreparedDocument>();
  for (const ref of await layer.list("_vance/")) {
    if (!skillDocumentPreparer.handles(ref.path)) continue;
    const doc = (await layer.read(ref.path))!;
    outcomes.set(ref.path, { etag: doc.etag, outcome: skillDocumentPreparer.prepare(ref.path, doc) });
  }
  return outcomes;
}

/** What a scope sees through a catalogue over the same folder without the build's file. */
async function answersWithoutFile(root: string) {
  const { skills } = catalogueOver(new NoBuildFile(root), countingPreparer().preparer);
  return { listed: await skills.listAvailable(scopeOf("acme")), problems: await skills.problems(scopeOf("acme")) };
}

/** The bundled layer as running from source: no build file, whatever lies beside the folder. */
class NoBuildFile extends BundledDocumentLayer {
  override async readPrepared(): Promise<Uint8Array | undefined> {
    return undefined;
  }
}

/** Fails the listings whose number (from 1) is in `failing`. */
class FlakyBundled extends BundledDocumentLayer {
  lists = 0;
  constructor(
    root: string,
    private readonly failing: ReadonlySet<number>,
  ) {
    super(root);
  }
  override async list(prefix: string): Promise<DocumentRef[]> {
    this.lists++;
    if (this.failing.has(this.lists)) throw new Error("EIO: bundled folder unreadable");
    return super.list(prefix);
  }
}

describe("the bundled level prepared at build time", () => {
  it("takes every outcome from the build's file when the ETags match: nothing parsed, the same outcomes and answers as a parse", async () => {
    // Prepare
    const { root } = await bundledFolder();
    writePrepared(root);
    const { preparer, parsed } = countingPreparer();
    const { catalogue, skills, warnings } = catalogueOver(new BundledDocumentLayer(root), preparer);

    // Act
    const layer = await resourceLayer(catalogue);
    const listed = await skills.listAvailable(scopeOf("acme"));
    const problems = await skills.problems(scopeOf("acme"));

    // Assess
    expect(parsed).toEqual([]);
    expect(warnings).toEqual([]);
    expect([...layer.prepared!.keys()].sort()).toEqual(SKILLS);
    expect(new Map(layer.prepared)).toEqual(await parsedAtRunTime(root));
    expect({ listed, problems }).toEqual(await answersWithoutFile(root));
    expect(listed.map((skill) => skill.name)).toEqual(["alpha", "beta"]);
  });

  it("hands the file's pattern literals to the trigger index's memo (no compile for them)", async () => {
    // Prepare
    const { root, pattern } = await bundledFolder();
    const refs = await new BundledDocumentLayer(root).list("_vance/");
    // Literals the analysis would not give (it gives the whole word): proof that the file's were taken.
    const fromFile = { kind: "literal", text: "zebra" };
    const extras = { patternLiterals: [[pattern, fromFile]] };
    writeFileSync(
      bundledPreparedFile(root),
      encodeLevelSnapshot({ version: 0, changedAt: null, refs, prepared: await parsedAtRunTime(root), extras }),
    );
    const { catalogue } = catalogueOver(new BundledDocumentLayer(root), countingPreparer().preparer);

    // Act
    await resourceLayer(catalogue);

    // Assess
    expect(memoizedRequiredLiterals(pattern)).toEqual(fromFile);
  });

  it("parses a document whose ETag the file does not hold, with a warning, and keeps the others", async () => {
    // Prepare
    const { root } = await bundledFolder();
    writePrepared(root);
    await writeFile(join(root, skillPath("beta")), skillMd({ title: "Beta changed after the build" }));
    const { preparer, parsed } = countingPreparer();
    const { catalogue, skills, warnings } = catalogueOver(new BundledDocumentLayer(root), preparer);

    // Act
    const layer = await resourceLayer(catalogue);
    const beta = (await skills.listAvailable(scopeOf("acme"))).find((skill) => skill.name === "beta");

    // Assess
    expect(parsed).toEqual([skillPath("beta")]);
    expect(warnings).toEqual(["Bundled prepared outcomes do not match these bundled documents: they are parsed"]);
    expect(new Map(layer.prepared)).toEqual(await parsedAtRunTime(root));
    expect(beta?.title).toBe("Beta changed after the build");
  });

  it.each([
    ["not gzip", () => new TextEncoder().encode("garbage")],
    ["truncated", (bytes: Uint8Array) => bytes.subarray(0, bytes.length >> 1)],
    ["another format", () => gzipSync(JSON.stringify({ format: 99, version: 0, changedAt: null, refs: [], prepared: [] }))],
    ["a malformed entry", () => gzipSync(JSON.stringify({ format: 1, version: 0, changedAt: null, refs: [], prepared: [[1, 2, 3]] }))],
  ])("parses every document, with a warning, when the file is %s", async (_case, corrupt) => {
    // Prepare
    const { root } = await bundledFolder();
    const file = bundledPreparedFile(root);
    writeFileSync(file, corrupt(encodeBundledLevel(readBundledDocuments(root), skillDocumentPreparer)));
    const { preparer, parsed } = countingPreparer();
    const { catalogue, skills, warnings } = catalogueOver(new BundledDocumentLayer(root), preparer);

    // Act
    const layer = await resourceLayer(catalogue);
    const listed = await skills.listAvailable(scopeOf("acme"));
    const problems = await skills.problems(scopeOf("acme"));

    // Assess
    expect(parsed.sort()).toEqual(SKILLS);
    expect(warnings).toEqual(["Bundled prepared outcomes unreadable: the bundled documents are parsed"]);
    expect(new Map(layer.prepared)).toEqual(await parsedAtRunTime(root));
    expect({ listed, problems }).toEqual(await answersWithoutFile(root));
  });

  it("parses as before, without a warning, when there is no file (running from source)", async () => {
    // Prepare
    const { root } = await bundledFolder();
    const { preparer, parsed } = countingPreparer();
    const { catalogue, warnings } = catalogueOver(new BundledDocumentLayer(root), preparer);

    // Act
    const layer = await resourceLayer(catalogue);

    // Assess
    expect(parsed.sort()).toEqual(SKILLS);
    expect(warnings).toEqual([]);
    expect(new Map(layer.prepared)).toEqual(await parsedAtRunTime(root));
  });
});

describe("the bundled level's outcomes across tenants", () => {
  it("parses each bundled document once per process, for every tenant and catalogue, sharing only the outcomes", async () => {
    // Prepare
    const { root } = await bundledFolder();
    const bundled = new BundledDocumentLayer(root);
    const { preparer, parsed } = countingPreparer();
    const first = catalogueOver(bundled, preparer);
    const second = catalogueOver(bundled, preparer);

    // Act
    const acme = await resourceLayer(first.catalogue, "acme");
    const umbrella = await resourceLayer(first.catalogue, "umbrella");
    const other = await resourceLayer(second.catalogue, "acme");

    // Assess
    expect(parsed.sort()).toEqual(SKILLS);
    for (const path of SKILLS) {
      expect(umbrella.prepared!.get(path)).toBe(acme.prepared!.get(path));
      expect(other.prepared!.get(path)).toBe(acme.prepared!.get(path));
    }
    // Each tenant keeps its own level: listing, layer and map of outcomes are its own objects.
    expect(umbrella).not.toBe(acme);
    expect(umbrella.layer).not.toBe(acme.layer);
    expect(umbrella.listing).not.toBe(acme.listing);
    expect(umbrella.prepared).not.toBe(acme.prepared);
  });

  it("parses once when several tenants' first lookups arrive together", async () => {
    // Prepare
    const { root } = await bundledFolder();
    const { preparer, parsed } = countingPreparer();
    const { catalogue } = catalogueOver(new BundledDocumentLayer(root), preparer);

    // Act
    const layers = await Promise.all(["a", "b", "c", "d"].map((tenant) => resourceLayer(catalogue, tenant)));

    // Assess
    expect(parsed.sort()).toEqual(SKILLS);
    expect(new Set(layers.map((layer) => layer.prepared!.get(skillPath("alpha"))))).toHaveProperty("size", 1);
  });

  it("keeps no failed preparation: that tenant parses for itself, the next ones share one new preparation", async () => {
    // Prepare
    const { root } = await bundledFolder();
    // Listing 1 is acme's own, listing 2 the shared preparation's.
    const bundled = new FlakyBundled(root, new Set([2]));
    const { preparer, parsed } = countingPreparer();
    const { catalogue } = catalogueOver(bundled, preparer);

    // Act
    const acme = await resourceLayer(catalogue, "acme");
    const umbrella = await resourceLayer(catalogue, "umbrella");
    const initech = await resourceLayer(catalogue, "initech");

    // Assess
    expect(parsed.sort()).toEqual([...SKILLS, ...SKILLS].sort());
    expect([...acme.prepared!.keys()].sort()).toEqual(SKILLS);
    expect(initech.prepared!.get(skillPath("alpha"))).toBe(umbrella.prepared!.get(skillPath("alpha")));
  });
});
