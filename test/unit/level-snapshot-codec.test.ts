import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  LEVEL_SNAPSHOT_FORMAT,
  LevelSnapshotUnreadable,
  decodeLevelSnapshot,
  encodeLevelSnapshot,
  type LevelSnapshotContent,
} from "../../shared/catalogue/level-snapshot-codec.js";
import type { PreparedDocument } from "../../shared/documents/cascade-layers.js";
import type { DocumentRef } from "../../shared/documents/document-store.js";

const refs: DocumentRef[] = [
  { path: "_vance/skills/alpha/SKILL.md", etag: "a1", size: 120 },
  { path: "_vance/skills/alpha/references/r.md", etag: "r1", size: 7 },
  { path: "_vance/skills/broken/SKILL.md", etag: "b1", size: 30 },
  { path: "_vance/skills/beta/SKILL.md", etag: "c1", size: 99 },
];

const prepared = new Map<string, PreparedDocument>([
  [
    "_vance/skills/alpha/SKILL.md",
    {
      etag: "a1",
      outcome: {
        ok: true,
        definition: { name: "alpha", description: 'ä ✓ \u2028 "quoted"', triggers: [{ type: "KEYWORDS", keywords: ["x"] }] },
        warnings: [{ path: "_vance/skills/alpha/SKILL.md", line: 2, message: "title: is absent", severity: "info" }],
      },
    },
  ],
  [
    "_vance/skills/broken/SKILL.md",
    { etag: "b1", outcome: { ok: false, findings: [{ line: 2, message: "invalid YAML" }, { message: "no description" }] } },
  ],
  ["_vance/skills/beta/SKILL.md", { etag: "c1", outcome: { ok: true, definition: { name: "beta", tags: [] }, warnings: [] } }],
]);

const content: LevelSnapshotContent = {
  version: 7,
  changedAt: "2026-01-02T03:04:05.000Z",
  refs,
  prepared,
  extras: { patternLiterals: [["a.*b", { kind: "literal", text: "a" }]] },
};

const gzipJson = (value: unknown): Uint8Array => gzipSync(JSON.stringify(value));

describe("level snapshot codec", () => {
  it("gives back the listing, every outcome under its path and ETag, and the extras", () => {
    // Act
    const decoded = decodeLevelSnapshot(encodeLevelSnapshot(content));

    // Assess
    expect(decoded.version).toBe(7);
    expect(decoded.changedAt).toBe("2026-01-02T03:04:05.000Z");
    expect(decoded.refs).toEqual(refs);
    expect([...decoded.prepared]).toEqual([...prepared]);
    expect(decoded.extras).toEqual(content.extras);
  });

  it("hands out the listing frozen, so a level installs it without copying", () => {
    // Act
    const decoded = decodeLevelSnapshot(encodeLevelSnapshot(content));

    // Assess
    expect(Object.isFrozen(decoded.refs)).toBe(true);
    expect(decoded.refs.every((ref) => Object.isFrozen(ref))).toBe(true);
  });

  it("keeps no outcome the listing would never serve: a path it does not hold, or another ETag", () => {
    // Prepare
    const stray = new Map(prepared);
    stray.set("_vance/skills/gone/SKILL.md", { etag: "g1", outcome: { ok: true, definition: { name: "gone" }, warnings: [] } });
    stray.set("_vance/skills/beta/SKILL.md", { etag: "older", outcome: { ok: true, definition: { name: "beta" }, warnings: [] } });

    // Act
    const decoded = decodeLevelSnapshot(encodeLevelSnapshot({ ...content, prepared: stray }));

    // Assess
    expect([...decoded.prepared.keys()]).toEqual(["_vance/skills/alpha/SKILL.md", "_vance/skills/broken/SKILL.md"]);
  });

  it("treats a snapshot written by the previous version (format 1) as unreadable, so the level is listed and written anew", () => {
    // Prepare
    const formatOne = gzipJson({
      format: 1,
      version: 7,
      changedAt: null,
      refs: refs.map((ref) => [ref.path, ref.etag, ref.size]),
      prepared: [...prepared].map(([path, p]) => [path, p.etag, p.outcome]),
    });

    // Act
    const decoding = () => decodeLevelSnapshot(formatOne);

    // Assess
    expect(LEVEL_SNAPSHOT_FORMAT).toBeGreaterThan(1);
    expect(decoding).toThrow(LevelSnapshotUnreadable);
    expect(decoding).toThrow(/format 1/);
  });

  it.each([
    ["an entry that names no listing entry", [[9, { name: "x" }, []]]],
    ["a negative index", [[-1, { name: "x" }, []]]],
    ["an index that is no number", [["0", { name: "x" }, []]]],
    ["a definition that is no object", [[0, "alpha", []]]],
    ["warnings that are no array", [[0, { name: "x" }, "none"]]],
    ["an entry that is no array", [{ index: 0 }]],
  ])("refuses %s", (_label, entries) => {
    // Prepare
    const bytes = gzipJson({
      format: LEVEL_SNAPSHOT_FORMAT,
      version: 1,
      changedAt: null,
      refs: [["_vance/skills/alpha/SKILL.md", "a1", 1]],
      prepared: entries,
    });

    // Act
    const decoding = () => decodeLevelSnapshot(bytes);

    // Assess
    expect(decoding).toThrow(LevelSnapshotUnreadable);
  });

  it.each([
    ["a path that is no string", [[1, "a1", 1]]],
    ["a size that is no number", [["_vance/skills/alpha/SKILL.md", "a1", "1"]]],
    ["an entry that is no array", [{ path: "_vance/skills/alpha/SKILL.md" }]],
  ])("refuses a listing entry with %s", (_label, entries) => {
    // Prepare
    const bytes = gzipJson({ format: LEVEL_SNAPSHOT_FORMAT, version: 1, changedAt: null, refs: entries, prepared: [] });

    // Act
    const decoding = () => decodeLevelSnapshot(bytes);

    // Assess
    expect(decoding).toThrow(LevelSnapshotUnreadable);
  });

  it("is smaller than the previous format for the same level", () => {
    // Prepare
    const many: DocumentRef[] = Array.from({ length: 200 }, (_, i) => ({
      path: `_vance/skills/s-${i}/SKILL.md`,
      etag: `e${i}`.padEnd(32, "0"),
      size: 100,
    }));
    const outcomes = new Map<string, PreparedDocument>(
      many.map((ref, i) => [
        ref.path,
        { etag: ref.etag, outcome: { ok: true, definition: { name: `s-${i}`, description: `Skill ${i}` }, warnings: [] } },
      ]),
    );
    const formatOne = gzipSync(
      JSON.stringify({
        format: 1,
        version: 1,
        changedAt: null,
        refs: many.map((ref) => [ref.path, ref.etag, ref.size]),
        prepared: [...outcomes].map(([path, p]) => [path, p.etag, p.outcome]),
      }),
      { level: 1 },
    );

    // Act
    const encoded = encodeLevelSnapshot({ version: 1, changedAt: null, refs: many, prepared: outcomes });

    // Assess
    expect(encoded.byteLength).toBeLessThan(formatOne.byteLength);
  });
});
