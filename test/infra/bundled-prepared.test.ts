import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNCTION_SETTINGS } from "../../infra/skills-stack.js";
import { BUNDLED_TARGET, writeLambdaAsset } from "../../infra/write-lambda-asset.js";
import { DocumentCatalogue } from "../../shared/catalogue/document-catalogue.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { decodeLevelSnapshot } from "../../shared/catalogue/level-snapshot-codec.js";
import { BundledDocumentLayer, bundledPreparedFile } from "../../shared/documents/bundled-document-layer.js";
import type { DocumentPreparer, PreparedDocument } from "../../shared/documents/cascade-layers.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { catalogueDocumentPreparer } from "../../shared/recipes/catalogue-document-preparer.js";

/** The lane worker's asset as the deployment writes it: the bundled folder and its prepared outcomes beside it. */
let outDir: string;

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), "skills-bundled-prepared-"));
  writeLambdaAsset("lane-worker", outDir, FUNCTION_SETTINGS["lane-worker"]);
});

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** The bundled SKILL.md and recipe documents of the asset as a cold instance without the file parses them. */
async function parsedAtRunTime(layer: BundledDocumentLayer): Promise<Map<string, PreparedDocument>> {
  const outcomes = new Map<string, PreparedDocument>();
  for (const ref of await layer.list("_vance/")) {
    if (!catalogueDocumentPreparer.handles(ref.path)) continue;
    const doc = (await layer.read(ref.path))!;
    outcomes.set(ref.path, { etag: doc.etag, outcome: catalogueDocumentPreparer.prepare(ref.path, doc) });
  }
  return outcomes;
}

describe("the asset's bundled level, prepared at build time", () => {
  it("writes the outcomes beside the bundled folder, equal to a run-time parse of the shipped documents", async () => {
    // Prepare
    const file = bundledPreparedFile(join(outDir, BUNDLED_TARGET));
    const layer = new BundledDocumentLayer(join(outDir, BUNDLED_TARGET));

    // Act
    const content = decodeLevelSnapshot(readFileSync(file));
    const atRunTime = await parsedAtRunTime(layer);

    // Assess
    expect(file).toBe(join(outDir, `${BUNDLED_TARGET}.prepared.json.gz`));
    expect(atRunTime.size).toBeGreaterThan(0);
    expect(content.prepared).toEqual(atRunTime);
    expect(content.refs).toEqual(await layer.list("_vance/"));
    expect(content.extras).toEqual(
      JSON.parse(JSON.stringify(catalogueDocumentPreparer.levelExtras!.of({ refs: content.refs, prepared: atRunTime }))),
    );
    expect([...atRunTime.values()].every((prepared) => prepared.outcome.ok)).toBe(true);
    // The bundled recipe is prepared whole: a cold turn's recipe lookup parses no YAML.
    expect(content.prepared.get("_vance/recipes/default.yaml")?.outcome).toMatchObject({ ok: true, definition: { name: "default" } });
  });

  it("is taken whole by a cold catalogue over the asset's folder: no bundled document parsed, no warning", async () => {
    // Prepare
    const parsed: string[] = [];
    const warnings: string[] = [];
    const preparer: DocumentPreparer = {
      ...catalogueDocumentPreparer,
      prepare: (path, doc) => {
        parsed.push(path);
        return catalogueDocumentPreparer.prepare(path, doc);
      },
    };
    const bundled = new BundledDocumentLayer(join(outDir, BUNDLED_TARGET));
    const catalogue = new DocumentCatalogue({
      store: new InMemoryDocumentStore(),
      bundled,
      versions: new InMemoryCatalogueVersions(),
      preparer,
      logger: { warn: (message) => void warnings.push(message) },
    });

    // Act
    const view = await catalogue.view({ tenantId: "acme" });

    // Assess
    const resource = view.layers.find((layer) => layer.source === "RESOURCE")!;
    expect(parsed).toEqual([]);
    expect(warnings).toEqual([]);
    expect(new Map(resource.prepared)).toEqual(await parsedAtRunTime(bundled));
  });

  it("is not written for a function that loads no skills, nor into the source tree", () => {
    // Prepare
    const other = mkdtempSync(join(tmpdir(), "skills-no-bundled-"));

    // Act
    try {
      writeLambdaAsset("authorizer", other, FUNCTION_SETTINGS.authorizer);

      // Assess
      expect(existsSync(bundledPreparedFile(join(other, BUNDLED_TARGET)))).toBe(false);
      expect(existsSync(bundledPreparedFile(new BundledDocumentLayer().root))).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
