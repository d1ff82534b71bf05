import { describe, expect, it } from "vitest";
import { createS3EventsHandler } from "../../functions/s3-events/handler.js";
import { InMemoryCatalogueVersions } from "../../shared/catalogue/in-memory-catalogue-versions.js";
import { InMemoryLevelSnapshotStore } from "../../shared/catalogue/in-memory-level-snapshot-store.js";
import { InMemoryLevelUsage } from "../../shared/catalogue/in-memory-level-usage.js";
import { decodeLevelSnapshot } from "../../shared/catalogue/level-snapshot-codec.js";
import { EMPTY_LEVEL_SNAPSHOT } from "../../shared/catalogue/catalogue-versions.js";
import { followS3EventBump } from "../../shared/catalogue/s3-event-follow-up.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { skillDocumentPreparer } from "../../shared/skills/skill-loader.js";
import { memoizedRequiredLiterals } from "../../shared/skills/triggers/pattern-prefilter.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";

const TENANT = "acme";
const PROJECT = "web";
const keyOf = (path: string): string => `tenants/${TENANT}/projects/${PROJECT}/${path}`;
const created = (...paths: string[]) => ({ Records: paths.map((path) => ({ s3: { object: { key: keyOf(path) } } })) });
const withPatterns = (n: number): string =>
  skillMd({ extra: `triggers:\n${Array.from({ length: n }, (_, i) => `  - type: PATTERN\n    pattern: 'p${i} (now|later)'`).join("\n")}` });

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function setup() {
  const store = new InMemoryDocumentStore();
  const versions = new InMemoryCatalogueVersions();
  const usage = new InMemoryLevelUsage();
  const snapshots = new InMemoryLevelSnapshotStore();
  const warnings: string[] = [];
  const logger = { ...quiet, warn: (message: string) => void warnings.push(message) };
  const handler = createS3EventsHandler({
    versions,
    logger,
    followUp: { store, snapshots, versions, usage, preparer: skillDocumentPreparer, logger },
  });
  const seeded = () => usage.seed(TENANT, PROJECT, new Map(), []);
  const counts = async () => (await usage.read(TENANT, PROJECT, "x"))?.counts;
  const snapshot = async () => {
    const pointer = (await versions.read(TENANT, [PROJECT])).get(PROJECT)!.snapshot;
    return (
      pointer && {
        pointer,
        content: pointer.key === EMPTY_LEVEL_SNAPSHOT ? undefined : decodeLevelSnapshot(snapshots.objects.get(pointer.key)!),
      }
    );
  };
  return { store, versions, usage, snapshots, warnings, handler, seeded, counts, snapshot };
}

describe("s3-events follow-up (writes around the API, issue 27)", () => {
  it("records a SKILL.md copied into the bucket in the counters, its PATTERN triggers included, and claims its name", async () => {
    // Prepare
    const { store, usage, handler, seeded, counts } = setup();
    await seeded();
    const body = withPatterns(2);
    await store.put(TENANT, PROJECT, skillPath("Alpha"), body);

    // Act
    const outcome = await handler(created(skillPath("Alpha")));

    // Assess
    expect(outcome.followedUp).toEqual([{ tenant: TENANT, project: PROJECT, counted: 1, snapshot: "rebuilt" }]);
    expect(await counts()).toEqual({ documents: 1, bytes: new TextEncoder().encode(body).byteLength, patterns: 2 });
    expect(await usage.claimName(TENANT, PROJECT, "alpha", "alpha")).toBe("Alpha");
  });

  it("records a deletion, frees the name, and is harmless when delivered twice", async () => {
    // Prepare
    const { store, usage, handler, seeded, counts } = setup();
    await seeded();
    await store.put(TENANT, PROJECT, skillPath("alpha"), withPatterns(1));
    await store.put(TENANT, PROJECT, "_vance/skills/alpha/references/a.md", "12345");
    await handler(created(skillPath("alpha"), "_vance/skills/alpha/references/a.md"));
    await store.delete(TENANT, PROJECT, skillPath("alpha"));

    // Act
    await handler(created(skillPath("alpha")));
    await handler(created(skillPath("alpha")));

    // Assess
    expect(await counts()).toEqual({ documents: 1, bytes: 5, patterns: 0 });
    expect(await usage.claimName(TENANT, PROJECT, "alpha", "other")).toBeUndefined();
  });

  it("leaves a never-counted level uncounted (the documents API seeds it from a listing) but still rebuilds its snapshot", async () => {
    // Prepare
    const { store, handler, counts, snapshot } = setup();
    await store.put(TENANT, PROJECT, skillPath("alpha"), skillMd());

    // Act
    const outcome = await handler(created(skillPath("alpha")));

    // Assess
    expect(outcome.followedUp).toEqual([{ tenant: TENANT, project: PROJECT, counted: 0, snapshot: "rebuilt" }]);
    expect(await counts()).toBeUndefined();
    const written = await snapshot();
    expect(written?.pointer.version).toBe(1);
    expect(written?.content?.refs.map((ref) => ref.path)).toEqual([skillPath("alpha")]);
    expect(written?.content?.prepared.get(skillPath("alpha"))?.outcome.ok).toBe(true);
  });

  it("rebuilds from the listing, so a write whose event was lost is in the snapshot after the next event", async () => {
    // Prepare
    const { store, handler, snapshot } = setup();
    await store.put(TENANT, PROJECT, skillPath("alpha"), skillMd());
    await handler(created(skillPath("alpha")));
    await store.put(TENANT, PROJECT, skillPath("lost"), skillMd()); // its event never arrives

    // Act
    await store.put(TENANT, PROJECT, skillPath("beta"), skillMd());
    await handler(created(skillPath("beta")));

    // Assess
    const written = await snapshot();
    expect(written?.pointer.version).toBe(2);
    expect(written?.content?.refs.map((ref) => ref.path)).toEqual([skillPath("alpha"), skillPath("beta"), skillPath("lost")]);
  });

  it("keeps a SKILL.md that does not parse in the snapshot as defective, with its reason", async () => {
    // Prepare
    const { store, handler, snapshot } = setup();
    await store.put(TENANT, PROJECT, skillPath("broken"), "---\ntitle: [unclosed\n---\nbody\n");

    // Act
    await handler(created(skillPath("broken")));

    // Assess
    const outcome = (await snapshot())?.content?.prepared.get(skillPath("broken"))?.outcome;
    expect(outcome?.ok).toBe(false);
    expect(outcome && !outcome.ok ? outcome.findings[0]?.message : "").not.toBe("");
  });

  it("leaves the rebuild to the newer event when the version moved past its bump (a burst of uploads rebuilds about once)", async () => {
    // Prepare
    const { store, versions, usage, snapshots, snapshot } = setup();
    await store.put(TENANT, PROJECT, skillPath("alpha"), skillMd());
    const first = await versions.bump(TENANT, PROJECT);
    await store.put(TENANT, PROJECT, skillPath("beta"), skillMd());
    await versions.bump(TENANT, PROJECT);
    const deps = { store, snapshots, versions, usage, preparer: skillDocumentPreparer, logger: quiet };

    // Act
    const stale = await followS3EventBump(deps, TENANT, PROJECT, first, [skillPath("alpha")]);
    const before = await snapshot();
    const latest = await followS3EventBump(deps, TENANT, PROJECT, (await versions.read(TENANT, [PROJECT])).get(PROJECT)!, [
      skillPath("beta"),
    ]);

    // Assess
    expect(stale.snapshot).toBe("superseded");
    expect(before).toBeUndefined();
    expect(latest.snapshot).toBe("rebuilt");
    expect((await snapshot())?.content?.refs.map((ref) => ref.path)).toEqual([skillPath("alpha"), skillPath("beta")]);
  });

  it("points an emptied level at no object, deleting the one it replaces", async () => {
    // Prepare
    const { store, snapshots, handler, snapshot } = setup();
    await store.put(TENANT, PROJECT, skillPath("alpha"), skillMd());
    await handler(created(skillPath("alpha")));
    expect(snapshots.objects.size).toBe(1);
    await store.delete(TENANT, PROJECT, skillPath("alpha"));

    // Act
    await handler(created(skillPath("alpha")));

    // Assess
    expect((await snapshot())?.pointer).toMatchObject({ version: 2, key: EMPTY_LEVEL_SNAPSHOT });
    expect(snapshots.objects.size).toBe(0);
  });
});

describe("level snapshot extras: PATTERN literals", () => {
  it("stores the required literals of the level's PATTERN triggers in the snapshot, and ignores a tree of the wrong shape", async () => {
    // Prepare
    const { store, handler, snapshot } = setup();
    await store.put(TENANT, PROJECT, skillPath("alpha"), withPatterns(2));

    // Act
    await handler(created(skillPath("alpha")));
    const extras = (await snapshot())?.content?.extras as { patternLiterals: [string, unknown][] };

    // Assess
    expect(extras.patternLiterals.map(([pattern]) => pattern)).toEqual(["p0 (now|later)", "p1 (now|later)"]);
    expect(extras.patternLiterals[0]![1]).toMatchObject({ kind: "all" });
    const bogus = "q9 (never|seen)";
    skillDocumentPreparer.levelExtras!.use(
      { patternLiterals: [[bogus, { kind: "literal", text: "NOT LOWER" }]] },
      { refs: [], prepared: new Map() },
    );
    expect(memoizedRequiredLiterals(bogus)).not.toEqual({ kind: "literal", text: "NOT LOWER" });
  });
});
