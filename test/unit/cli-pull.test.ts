import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPull } from "../../cli/pull.js";
import type { DocumentsApi } from "../../cli/documents-client.js";
import { FakeDocumentsApi } from "../support/fake-documents-api.js";

const tempDir = (): string => mkdtempSync(join(tmpdir(), "skills-pull-"));

describe("skills pull", () => {
  it("writes every document under _vance/skills/ to <dir>/<name>/… byte for byte, and nothing else of the level", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    const binary = Uint8Array.from([0, 1, 2, 0xff, 0xfe, 0x89]);
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("---\nname: alpha\n---\n"));
    api.documents.set("_vance/skills/alpha/assets/icon.png", binary);
    api.documents.set("_vance/skills/beta/SKILL.md", Buffer.from("beta"));
    api.documents.set("_vance/recipes/r.yaml", Buffer.from("name: r"));
    const dir = tempDir();

    // Act
    const summary = await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(summary).toEqual({ written: 3, skills: 2, failed: [] });
    expect(readFileSync(join(dir, "alpha/SKILL.md"), "utf8")).toBe("---\nname: alpha\n---\n");
    expect(Uint8Array.from(readFileSync(join(dir, "alpha/assets/icon.png")))).toEqual(binary);
    expect(readFileSync(join(dir, "beta/SKILL.md"), "utf8")).toBe("beta");
    expect(existsSync(join(dir, "r.yaml"))).toBe(false);
    expect(api.calls).not.toContain("GET _vance/recipes/r.yaml");
  });

  it("gives each file the mode it was pushed with, also over a file pulled before", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    await api.put("_vance/skills/alpha/SKILL.md", Buffer.from("a"), { mode: 0o644 });
    await api.put("_vance/skills/alpha/scripts/run.sh", Buffer.from("#!/bin/sh\n"), { mode: 0o755 });
    const dir = tempDir();
    mkdirSync(join(dir, "alpha/scripts"), { recursive: true });
    writeFileSync(join(dir, "alpha/scripts/run.sh"), "old", { mode: 0o644 });

    // Act
    const summary = await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(summary.failed).toEqual([]);
    expect(statSync(join(dir, "alpha/scripts/run.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, "alpha/SKILL.md")).mode & 0o777).toBe(0o644);
  });

  it("never writes outside the folder, whatever the listing says", async () => {
    // Prepare
    const hostile: DocumentsApi = {
      list: async () => [
        { path: "_vance/skills/../../escape.md", etag: "x", size: 1 },
        { path: "_vance/skills/a/..%2f..%2fescape.md", etag: "x", size: 1 },
        { path: "_vance/skills/loose.md", etag: "x", size: 1 },
      ],
      get: async () => Buffer.from("x"),
      put: async () => {
        throw new Error("not used");
      },
      delete: async () => undefined,
    };
    const parent = tempDir();
    const dir = join(parent, "out");

    // Act
    const summary = await runPull({ dir, api: hostile, io: { err: () => undefined } });

    // Assess
    expect(summary.written).toBe(0);
    expect(summary.failed.map((f) => f.reason)).toEqual([
      "not a safe document path below _vance/skills/",
      "not a safe document path below _vance/skills/",
      "not inside a skill directory",
    ]);
    expect(existsSync(join(parent, "escape.md"))).toBe(false);
  });

  it("does not write through a symbolic link inside the folder", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("a"));
    const elsewhere = tempDir();
    const dir = tempDir();
    symlinkSync(elsewhere, join(dir, "alpha"));

    // Act
    const summary = await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(summary.failed).toEqual([{ path: "_vance/skills/alpha/SKILL.md", reason: expect.stringContaining("is a symbolic link") }]);
    expect(existsSync(join(elsewhere, "SKILL.md"))).toBe(false);
  });

  it("overwrites files it pulled before and leaves other files of the folder alone", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("new"));
    const dir = tempDir();
    mkdirSync(join(dir, "alpha"));
    writeFileSync(join(dir, "alpha/mine.md"), "local only");
    await runPull({ dir, api, io: { err: () => undefined } });
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("newer"));

    // Act
    await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(readFileSync(join(dir, "alpha/SKILL.md"), "utf8")).toBe("newer");
    expect(readFileSync(join(dir, "alpha/mine.md"), "utf8")).toBe("local only");
  });
});
