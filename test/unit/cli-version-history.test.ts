import { describe, expect, it } from "vitest";
import { historyLines } from "../../cli/version-history.js";

describe("skills history output", () => {
  it("prints one line per version in the order given, with its writer or '-' where unknown, ids padded to one width", () => {
    // Prepare
    const versions = [
      { versionId: "1733250000000-0001-abcdef", etag: "e2", lastModified: "2026-12-03T18:20:00.000Z", size: 1234, writtenBy: "alice" },
      { versionId: "v1", etag: "e1", lastModified: "2026-12-02T09:00:00.000Z", size: 7 },
    ];

    // Act
    const lines = historyLines(versions);

    // Assess
    expect(lines).toEqual([
      "1733250000000-0001-abcdef  2026-12-03T18:20:00.000Z      1234  e2  alice",
      "v1                         2026-12-02T09:00:00.000Z         7  e1  -",
    ]);
  });

  it("prints nothing for a document without versions", () => {
    // Act
    const lines = historyLines([]);

    // Assess
    expect(lines).toEqual([]);
  });
});
