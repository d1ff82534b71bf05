import { createHash } from "node:crypto";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pulledFileLine, runPull } from "../../cli/pull.js";
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
    expect(summary).toMatchObject({ written: 3, skills: 2, failed: [] });
    // Issue 32: each file with the SHA-256 of the bytes written, by path, as `skills pull` prints it.
    const sha = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex");
    expect(summary.files.map(pulledFileLine)).toEqual([
      `sha256:${sha("---\nname: alpha\n---\n")} 20 alpha/SKILL.md`,
      `sha256:${sha(binary)} ${binary.byteLength} alpha/assets/icon.png`,
      `sha256:${sha("beta")} 4 beta/SKILL.md`,
    ]);
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

  it("never writes a hidden segment, whatever the server lists: a pull into a git work tree leaves .git alone", async () => {
    // Prepare: what a hostile project-admin stored before the service refused it, or a hostile server answers
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/.git/config", Buffer.from("[core]\n\tfsmonitor = touch /tmp/pwned\n"));
    api.documents.set("_vance/skills/.git/HEAD", Buffer.from("ref: refs/heads/evil\n"));
    api.documents.set("_vance/skills/.vscode/tasks.json", Buffer.from("{}"));
    api.documents.set("_vance/skills/alpha/.github/workflows/ci.yml", Buffer.from("on: push"));
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("alpha"));
    const dir = tempDir();
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".git/config"), "[core]\n");

    // Act
    const summary = await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(summary.written).toBe(1);
    expect(summary.failed.map((f) => f.path)).toEqual([
      "_vance/skills/.git/HEAD",
      "_vance/skills/.git/config",
      "_vance/skills/.vscode/tasks.json",
      "_vance/skills/alpha/.github/workflows/ci.yml",
    ]);
    expect(summary.failed.every((f) => f.reason.includes("hidden segment"))).toBe(true);
    expect(readFileSync(join(dir, ".git/config"), "utf8")).toBe("[core]\n");
    expect(existsSync(join(dir, ".git/HEAD"))).toBe(false);
    expect(existsSync(join(dir, ".vscode"))).toBe(false);
    expect(existsSync(join(dir, "alpha/.github"))).toBe(false);
    expect(api.calls.filter((c) => c.startsWith("GET ") && c.includes("/."))).toEqual([]);
  });

  it("refuses a symbolic link at the file itself and leaves its target untouched", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("from the server"));
    const elsewhere = join(tempDir(), "victim.txt");
    writeFileSync(elsewhere, "mine");
    const dir = tempDir();
    mkdirSync(join(dir, "alpha"));
    symlinkSync(elsewhere, join(dir, "alpha/SKILL.md"));

    // Act
    const summary = await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(summary.failed).toEqual([{ path: "_vance/skills/alpha/SKILL.md", reason: expect.stringContaining("is a symbolic link") }]);
    expect(readFileSync(elsewhere, "utf8")).toBe("mine");
    expect(lstatSync(join(dir, "alpha/SKILL.md")).isSymbolicLink()).toBe(true);
  });

  it("replaces a hard-linked file instead of writing through it, and leaves no temporary file behind", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/alpha/SKILL.md", Buffer.from("from the server"));
    const outside = tempDir();
    const dir = tempDir();
    mkdirSync(join(dir, "alpha"));
    writeFileSync(join(outside, "victim.txt"), "mine");
    linkSync(join(outside, "victim.txt"), join(dir, "alpha/SKILL.md"));

    // Act
    const summary = await runPull({ dir, api, io: { err: () => undefined } });

    // Assess
    expect(summary).toMatchObject({ written: 1, skills: 1, failed: [] });
    expect(readFileSync(join(dir, "alpha/SKILL.md"), "utf8")).toBe("from the server");
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("mine");
    expect(readdirSync(join(dir, "alpha"))).toEqual(["SKILL.md"]);
  });
});
