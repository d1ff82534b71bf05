import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillsApiError } from "../../client/index.js";
import { runPush } from "../../cli/push.js";
import type { PushOptions } from "../../cli/push.js";
import { pushExitCode } from "../../cli/push-report.js";
import { DEFAULT_TREE_LIMITS, TreeTooLarge } from "../../cli/skill-tree.js";
import { FakeDocumentsApi } from "../support/fake-documents-api.js";

const skillMd = (name: string, extra = ""): string =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\n\nDo the ${name} thing.\n`;

/** A folder of files, given as relative path → contents. */
function folder(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), "skills-push-"));
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), contents);
  }
  return root;
}

function push(dir: string, api: FakeDocumentsApi | undefined, options: Partial<PushOptions> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const result = runPush({ dir, cwd: dir, io: { out: (l) => out.push(l), err: (l) => err.push(l) }, ...(api ? { api } : {}), ...options });
  return result.then((summary) => ({ summary, out, err }));
}

const text = (bytes: Uint8Array | undefined): string | undefined => (bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8"));

describe("skills push: what is uploaded, in which order", () => {
  it("uploads every skill below the folder to _vance/skills/<directory name>/…, siblings before SKILL.md", async () => {
    // Prepare
    const dir = folder({
      "alpha/SKILL.md": skillMd("alpha"),
      "alpha/references/api.md": "# API\n",
      "alpha/scripts/run.py": "print('hi')\n",
      "nested/deeper/beta/SKILL.md": skillMd("beta"),
      "README.md": "not part of any skill\n",
    });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.uploaded).toEqual([
      { name: "alpha", files: 3 },
      { name: "beta", files: 1 },
    ]);
    expect([...api.documents.keys()].sort()).toEqual([
      "_vance/skills/alpha/SKILL.md",
      "_vance/skills/alpha/references/api.md",
      "_vance/skills/alpha/scripts/run.py",
      "_vance/skills/beta/SKILL.md",
    ]);
    const puts = api.puts();
    expect(puts.indexOf("_vance/skills/alpha/SKILL.md")).toBeGreaterThan(puts.indexOf("_vance/skills/alpha/references/api.md"));
    expect(puts.indexOf("_vance/skills/alpha/SKILL.md")).toBeGreaterThan(puts.indexOf("_vance/skills/alpha/scripts/run.py"));
    expect(api.calls[0]).toBe("LIST _vance/skills/");
    expect(pushExitCode(summary)).toBe(0);
  });

  it("pushes the folder itself when it holds a SKILL.md, and keeps a nested skill's files out of its parent", async () => {
    // Prepare
    const parent = folder({
      "outer/SKILL.md": skillMd("outer"),
      "outer/notes.md": "n\n",
      "outer/inner/SKILL.md": skillMd("inner"),
      "outer/inner/x.md": "x\n",
    });
    const api = new FakeDocumentsApi();

    // Act
    await push(join(parent, "outer"), api);

    // Assess
    expect([...api.documents.keys()].sort()).toEqual([
      "_vance/skills/inner/SKILL.md",
      "_vance/skills/inner/x.md",
      "_vance/skills/outer/SKILL.md",
      "_vance/skills/outer/notes.md",
    ]);
  });

  it("skips files whose ETag already matches, so a second push uploads nothing", async () => {
    // Prepare
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/a.md": "a\n", "beta/SKILL.md": skillMd("beta") });
    const api = new FakeDocumentsApi();
    await push(dir, api);
    writeFileSync(join(dir, "alpha/a.md"), "a, changed\n");
    api.calls.length = 0;

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(api.puts()).toEqual(["_vance/skills/alpha/a.md"]);
    expect(summary.uploaded).toEqual([{ name: "alpha", files: 1 }]);
    expect(summary.unchanged).toEqual(["beta"]);
    expect(text(api.documents.get("_vance/skills/alpha/a.md"))).toBe("a, changed\n");
  });

  it("sends each file's mode, and uploads again an unchanged script whose stored mode differs (pushed before modes were kept)", async () => {
    // Prepare
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/scripts/run.sh": "#!/bin/sh\n", "alpha/notes.md": "n\n" });
    chmodSync(join(dir, "alpha/scripts/run.sh"), 0o755);
    chmodSync(join(dir, "alpha/notes.md"), 0o644);
    const api = new FakeDocumentsApi();
    await push(dir, api);
    const first = { ...Object.fromEntries(api.modes) };
    api.modes.delete("_vance/skills/alpha/scripts/run.sh");
    api.calls.length = 0;

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(first["_vance/skills/alpha/scripts/run.sh"]).toBe(0o755);
    expect(first["_vance/skills/alpha/notes.md"]).toBe(0o644);
    expect(summary.uploaded).toEqual([{ name: "alpha", files: 1 }]);
    expect(api.puts()).toEqual(["_vance/skills/alpha/scripts/run.sh"]);
    expect(api.modes.get("_vance/skills/alpha/scripts/run.sh")).toBe(0o755);
    // Only the executable file was asked about; a non-executable unchanged file costs no request.
    expect(api.calls.filter((c) => c.startsWith("GET "))).toEqual(["GET _vance/skills/alpha/scripts/run.sh"]);
  });

  it("uploads binary files and a .md sibling that is not UTF-8 byte for byte", async () => {
    // Prepare
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
    const latin1 = Buffer.from("caf\xe9\n", "latin1");
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/assets/icon.png": png, "alpha/notes.md": latin1 });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused).toEqual([]);
    expect(api.documents.get("_vance/skills/alpha/assets/icon.png")).toEqual(png);
    expect(Buffer.from(api.documents.get("_vance/skills/alpha/notes.md") ?? [])).toEqual(latin1);
  });

  it("keeps at most the given number of requests in flight", async () => {
    // Prepare
    const files: Record<string, string> = {};
    for (let s = 0; s < 6; s += 1) {
      files[`s${s}/SKILL.md`] = skillMd(`s${s}`);
      for (let f = 0; f < 5; f += 1) files[`s${s}/f${f}.md`] = `${s}-${f}\n`;
    }
    const api = new FakeDocumentsApi();
    // Calls that take a while: one event-loop turn was shorter than the next skill's file reads
    // on a loaded machine, so the calls never overlapped and the test failed there.
    api.latencyMs = 20;

    // Act
    const { summary } = await push(folder(files), api, { concurrency: 3 });

    // Assess
    expect(summary.uploaded).toHaveLength(6);
    expect(api.puts()).toHaveLength(36);
    expect(api.maxInFlight).toBeLessThanOrEqual(3);
    expect(api.maxInFlight).toBeGreaterThan(1);
  });

  it("reports progress on stderr every N skills", async () => {
    // Prepare
    const files: Record<string, string> = {};
    for (let s = 0; s < 5; s += 1) files[`s${s}/SKILL.md`] = skillMd(`s${s}`);

    // Act
    const { err } = await push(folder(files), new FakeDocumentsApi(), { progressEvery: 2 });

    // Assess
    expect(err).toEqual(["progress: 2/5 skills", "progress: 4/5 skills"]);
  });

  it("makes no request at all with dryRun", async () => {
    // Prepare
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/a.md": "a\n" });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api, { dryRun: true });

    // Assess
    expect(api.calls).toEqual([]);
    expect(summary.uploaded).toEqual([{ name: "alpha", files: 2 }]);
  });
});

describe("skills push: refusals (nothing of a refused skill is uploaded)", () => {
  it("refuses a skill whose SKILL.md has a validation error, prints every problem, and still uploads the others", async () => {
    // Prepare
    const dir = folder({
      "bad/SKILL.md": skillMd("bad", 'triggers:\n  - type: PATTERN\n    pattern: "(unclosed["\n'),
      "bad/references/a.md": "a\n",
      "good/SKILL.md": skillMd("good"),
    });
    const api = new FakeDocumentsApi();

    // Act
    const { summary, out } = await push(dir, api);

    // Assess
    expect(summary.refused).toEqual([
      { name: "bad", directory: "bad", reasons: [expect.stringMatching(/^bad\/SKILL\.md:\d+: triggers\[0\]\.pattern: /)] },
    ]);
    expect(out).toContainEqual(expect.stringMatching(/^bad\/SKILL\.md:\d+: error: triggers\[0\]\.pattern/));
    expect(api.puts()).toEqual(["_vance/skills/good/SKILL.md"]);
    expect(pushExitCode(summary)).toBe(1);
  });

  it("refuses a SKILL.md that is not UTF-8, as the server would", async () => {
    // Prepare
    const dir = folder({ "latin/SKILL.md": Buffer.concat([Buffer.from(skillMd("latin")), Buffer.from([0xe9, 0xff])]) });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused[0]?.reasons).toEqual([expect.stringContaining("is not UTF-8 text")]);
    expect(api.puts()).toEqual([]);
  });

  it("refuses both skills whose names collide after case folding", async () => {
    // Prepare
    const dir = folder({
      "a/tools/SKILL.md": skillMd("tools"),
      "b/Tools/SKILL.md": skillMd("tools"),
      "c/other/SKILL.md": skillMd("other"),
    });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused.map((r) => r.name).sort()).toEqual(["Tools", "tools"]);
    for (const refused of summary.refused) expect(refused.reasons).toContainEqual(expect.stringContaining("after case folding"));
    expect(api.puts()).toEqual(["_vance/skills/other/SKILL.md"]);
  });

  it("refuses both skills when two folders at different depths have the same name", async () => {
    // Prepare
    const dir = folder({ "a/tools/SKILL.md": skillMd("tools"), "b/c/tools/SKILL.md": skillMd("tools") });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused.map((r) => r.reasons)).toEqual([
      ["name 'tools' is also the name of 'tools' (b/c/tools); a level holds one skill per name; rename one folder"],
      ["name 'tools' is also the name of 'tools' (a/tools); a level holds one skill per name; rename one folder"],
    ]);
    expect(api.puts()).toEqual([]);
  });

  it("refuses a skill whose name collides after case folding with one already on the level", async () => {
    // Prepare
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/report/SKILL.md", Buffer.from(skillMd("report")));
    const dir = folder({ "Report/SKILL.md": skillMd("report") });

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused).toEqual([
      { name: "Report", directory: "Report", reasons: expect.arrayContaining([expect.stringContaining("'report', already on the level")]) },
    ]);
    expect(api.puts()).toEqual([]);
  });

  it("refuses a skill with a file name that is not a safe document path", async () => {
    // Prepare
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/100% done.md": "x\n", "alpha/ok.md": "ok\n" });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused).toEqual([
      {
        name: "alpha",
        directory: "alpha",
        reasons: [expect.stringMatching(/^alpha\/100% done\.md: not a safe document path: .*forbidden character "%"/)],
      },
    ]);
    expect(api.puts()).toEqual([]);
  });

  it("refuses a skill with more files than the cap, and one with a file larger than the cap", async () => {
    // Prepare
    const files: Record<string, string> = {
      "many/SKILL.md": skillMd("many"),
      "big/SKILL.md": skillMd("big"),
      "big/blob.bin": "x".repeat(101),
    };
    for (let i = 0; i < 5; i += 1) files[`many/f${i}.md`] = `${i}\n`;
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(folder(files), api, { limits: { ...DEFAULT_TREE_LIMITS, maxFilesPerSkill: 4, maxFileBytes: 100 } });

    // Assess
    expect(summary.refused).toEqual([
      {
        name: "big",
        directory: "big",
        reasons: ["big/blob.bin: 101 bytes, more than the 100 a document may hold; remove it or keep it elsewhere"],
      },
      { name: "many", directory: "many", reasons: [expect.stringContaining("holds more than 4 files")] },
    ]);
    expect(api.puts()).toEqual([]);
  });

  it("refuses a skill of 1 001 files with the default caps, without reading them", async () => {
    // Prepare
    const files: Record<string, string> = { "huge/SKILL.md": skillMd("huge"), "small/SKILL.md": skillMd("small") };
    for (let i = 0; i < 1_000; i += 1) files[`huge/pages/p${i}.md`] = "p\n";
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(folder(files), api);

    // Assess
    expect(summary.refused).toEqual([
      {
        name: "huge",
        directory: "huge",
        reasons: ["holds more than 1000 files (the most one push uploads per skill); split it or remove files"],
      },
    ]);
    expect(api.puts()).toEqual(["_vance/skills/small/SKILL.md"]);
  });

  it("stops before any request when the folder holds more entries than the cap", async () => {
    // Prepare
    const dir = folder({ "a/SKILL.md": skillMd("a"), "a/1.md": "1", "a/2.md": "2", "a/3.md": "3" });
    const api = new FakeDocumentsApi();

    // Act
    const failure = await push(dir, api, { limits: { ...DEFAULT_TREE_LIMITS, maxEntries: 3 } }).catch((e: unknown) => e);

    // Assess
    expect(failure).toBeInstanceOf(TreeTooLarge);
    expect(String(failure)).toContain("holds more than 3 entries");
    expect(api.calls).toEqual([]);
  });

  it("refuses a skill whose tree is deeper than the cap", async () => {
    // Prepare
    const dir = folder({ "deep/SKILL.md": skillMd("deep"), "deep/a/b/c/d.md": "d\n" });
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api, { limits: { ...DEFAULT_TREE_LIMITS, maxDepth: 2 } });

    // Assess
    expect(summary.refused[0]).toEqual({ name: "deep", directory: "deep", reasons: [expect.stringContaining("deeper than 2 levels")] });
    expect(api.puts()).toEqual([]);
  });
});

describe("skills push: symbolic links", () => {
  it("uploads a link to a file inside the folder, and skips links that leave it, dangle or point at a directory", async () => {
    // Prepare
    const outside = folder({ "secret.txt": "outside\n" });
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "shared/common.md": "common\n" });
    symlinkSync(join(dir, "shared/common.md"), join(dir, "alpha/common.md"));
    symlinkSync(join(outside, "secret.txt"), join(dir, "alpha/secret.txt"));
    symlinkSync(join(dir, "missing.md"), join(dir, "alpha/dangling.md"));
    symlinkSync(join(dir, "shared"), join(dir, "alpha/shared"));
    const api = new FakeDocumentsApi();

    // Act
    const { summary, err } = await push(dir, api);

    // Assess
    expect(summary.uploaded).toEqual([{ name: "alpha", files: 2 }]);
    expect(text(api.documents.get("_vance/skills/alpha/common.md"))).toBe("common\n");
    expect([...api.documents.keys()].sort()).toEqual(["_vance/skills/alpha/SKILL.md", "_vance/skills/alpha/common.md"]);
    expect(err).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/alpha\/secret\.txt: skipped, a link that points outside/),
        expect.stringMatching(/alpha\/dangling\.md: skipped, a link whose target does not exist/),
        expect.stringMatching(/alpha\/shared: skipped, a link to a directory/),
      ]),
    );
  });

  it("refuses a skill whose SKILL.md is a link out of the folder", async () => {
    // Prepare
    const outside = folder({ "SKILL.md": skillMd("alpha") });
    const dir = folder({ "alpha/a.md": "a\n" });
    symlinkSync(join(outside, "SKILL.md"), join(dir, "alpha/SKILL.md"));
    const api = new FakeDocumentsApi();

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.refused).toEqual([{ name: "alpha", directory: "alpha", reasons: [expect.stringContaining("SKILL.md was skipped")] }]);
    expect(api.puts()).toEqual([]);
  });
});

describe("skills push: server refusals", () => {
  it("reports a 422 on SKILL.md with its problems and deletes the siblings this push created", async () => {
    // Prepare
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/a.md": "a\n", "alpha/b.md": "b\n" });
    const api = new FakeDocumentsApi();
    api.documents.set("_vance/skills/alpha/b.md", Buffer.from("old b\n"));
    api.failPut.set(
      "_vance/skills/alpha/SKILL.md",
      new SkillsApiError(422, "INVALID_DOCUMENT", "_vance/skills/alpha/SKILL.md: too many PATTERN triggers", [
        { path: "_vance/skills/alpha/SKILL.md", message: "level 'p' would hold 201 PATTERN triggers", severity: "error" },
      ]),
    );

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.failed).toEqual([
      {
        name: "alpha",
        reasons: [
          "422 INVALID_DOCUMENT: _vance/skills/alpha/SKILL.md: too many PATTERN triggers",
          "_vance/skills/alpha/SKILL.md: error: level 'p' would hold 201 PATTERN triggers",
          expect.stringContaining("1 file(s) that were already stored now hold the new bytes"),
        ],
      },
    ]);
    expect([...api.documents.keys()]).toEqual(["_vance/skills/alpha/b.md"]);
    expect(api.calls).toContain("DELETE _vance/skills/alpha/a.md");
    expect(pushExitCode(summary)).toBe(1);
  });

  it("never writes SKILL.md after a sibling failed", async () => {
    // Prepare
    const dir = folder({ "alpha/SKILL.md": skillMd("alpha"), "alpha/a.md": "a\n" });
    const api = new FakeDocumentsApi();
    api.failPut.set("_vance/skills/alpha/a.md", new SkillsApiError(413, "PAYLOAD_TOO_LARGE", "too large"));

    // Act
    const { summary } = await push(dir, api);

    // Assess
    expect(summary.failed).toEqual([{ name: "alpha", reasons: ["413 PAYLOAD_TOO_LARGE: too large"] }]);
    expect(api.puts()).toEqual(["_vance/skills/alpha/a.md"]);
    expect(api.documents.size).toBe(0);
  });
});
