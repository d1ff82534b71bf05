import { describe, expect, it } from "vitest";
import { InMemoryDocumentDigests } from "../../shared/catalogue/in-memory-document-digests.js";
import { documentDigest, sha256Hex } from "../../shared/skills/document-digest.js";
import type { ListedSkill } from "../../shared/skills/resolved-skill.js";
import type { SkillFile } from "../../shared/skills/skill-files.js";
import { MAX_SKILL_RESOURCES, MAX_SKILL_TOTAL_BYTES, SkillManifests } from "../../shared/skills/skill-manifests.js";

const TENANT = "acme";
const PROJECT = "p1";
const SCOPE = { tenantId: TENANT, projectId: PROJECT };
const SKILL_MD = Buffer.from("---\ndescription: d\n---\nBody\n");

/** A loader over an in-memory folder that counts its reads (the manifest's only way to the bytes). */
function folder(files: Record<string, Buffer>): { reads: string[]; loader: ConstructorParameters<typeof SkillManifests>[0]["loader"] } {
  const reads: string[] = [];
  return {
    reads,
    loader: {
      readSkillFileDocument: async (_scope, skill, path) => {
        reads.push(path);
        const body = files[path];
        return body === undefined
          ? undefined
          : { path: `${skill.location.directory}/${path}`, etag: `etag-${sha256Hex(body).slice(0, 8)}`, size: body.byteLength, body };
      },
    },
  };
}

const etagOf = (body: Buffer): string => `etag-${sha256Hex(body).slice(0, 8)}`;

const listed = (files: readonly SkillFile[], source: ListedSkill["source"] = "PROJECT"): ListedSkill =>
  ({
    name: "pdf",
    source,
    location: { source, project: PROJECT, directory: "_vance/skills/pdf", etag: etagOf(SKILL_MD) },
    files,
  }) as unknown as ListedSkill;

describe("skill manifests", () => {
  it("uses a stored digest while its ETag is the listing's, and hashes (then stores) one whose file changed", async () => {
    // Prepare
    const fresh = Buffer.from("fresh");
    const changed = Buffer.from("changed around the API");
    const digests = new InMemoryDocumentDigests();
    await digests.remember(
      TENANT,
      PROJECT,
      "_vance/skills/pdf/SKILL.md",
      documentDigest("_vance/skills/pdf/SKILL.md", etagOf(SKILL_MD), SKILL_MD),
    );
    await digests.remember(TENANT, PROJECT, "_vance/skills/pdf/a.md", documentDigest("_vance/skills/pdf/a.md", etagOf(fresh), fresh));
    await digests.remember(
      TENANT,
      PROJECT,
      "_vance/skills/pdf/b.md",
      documentDigest("_vance/skills/pdf/b.md", "etag-before", Buffer.from("before")),
    );
    const { reads, loader } = folder({ "SKILL.md": SKILL_MD, "a.md": fresh, "b.md": changed });
    const skill = listed([
      { path: "a.md", size: fresh.byteLength, etag: etagOf(fresh) },
      { path: "b.md", size: changed.byteLength, etag: etagOf(changed) },
    ]);

    // Act
    const outcome = await new SkillManifests({ loader, digests }).manifest(SCOPE, skill);
    const again = await new SkillManifests({ loader, digests }).manifest(SCOPE, skill);

    // Assess
    expect(reads).toEqual(["b.md"]);
    expect("manifest" in outcome && outcome.manifest.files.slice(1)).toEqual([
      { path: "a.md", size: fresh.byteLength, sha256: sha256Hex(fresh) },
      { path: "b.md", size: changed.byteLength, sha256: sha256Hex(changed) },
    ]);
    expect(again).toEqual(outcome);
  });

  it("keeps digests of the bundled level in memory only, reading each file once per container", async () => {
    // Prepare
    const digests = new InMemoryDocumentDigests();
    const { reads, loader } = folder({ "SKILL.md": SKILL_MD });
    const manifests = new SkillManifests({ loader, digests });

    // Act
    await manifests.manifest(SCOPE, listed([], "RESOURCE"));
    await manifests.manifest(SCOPE, listed([], "RESOURCE"));

    // Assess
    expect(reads).toEqual(["SKILL.md"]);
    expect(await digests.under(TENANT, PROJECT, "")).toEqual(new Map());
  });

  it("refuses a skill beyond the extension's limits before reading anything: 512 files, 16 MiB", async () => {
    // Prepare
    const { reads, loader } = folder({ "SKILL.md": SKILL_MD });
    const manifests = new SkillManifests({ loader });
    const many = Array.from({ length: MAX_SKILL_RESOURCES }, (_, i) => ({ path: `f${i}`, size: 1 }));

    // Act
    const tooMany = await manifests.manifest(SCOPE, listed(many));
    const tooBig = await manifests.manifest(
      SCOPE,
      listed([
        { path: "a.bin", size: MAX_SKILL_TOTAL_BYTES / 2 },
        { path: "b.bin", size: MAX_SKILL_TOTAL_BYTES / 2 + 1 },
      ]),
    );

    // Assess
    expect(tooMany).toEqual({ refusal: expect.stringContaining(`at most ${MAX_SKILL_RESOURCES}`) });
    expect(tooBig).toEqual({ refusal: expect.stringContaining(`at most ${MAX_SKILL_TOTAL_BYTES}`) });
    expect(reads).toEqual([]);
  });
});
