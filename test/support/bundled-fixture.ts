import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BundledDocumentLayer } from "../../shared/documents/bundled-document-layer.js";

/** Temporary directories standing in for the bundled resources folder. */
const created: string[] = [];

export async function writeBundledFixture(files: Record<string, string | Uint8Array>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "skills-bundled-"));
  created.push(root);
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), body);
  }
  return root;
}

export async function bundledFixture(files: Record<string, string | Uint8Array>): Promise<BundledDocumentLayer> {
  return new BundledDocumentLayer(await writeBundledFixture(files));
}

export async function removeBundledFixtures(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
