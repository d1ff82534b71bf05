import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatValidationLine } from "../../cli/validate.js";
import { LevelRootError, parseLevelRoots, validateLevelReport } from "../../cli/validate-levels.js";

/** The command line as a user runs it: bin/skills.mjs in a child process. */
const BIN = fileURLToPath(new URL("../../bin/skills.mjs", import.meta.url));
const skills = (args: readonly string[], cwd: string) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", cwd, env: { ...process.env, SKILLS_URL: "", SKILLS_TOKEN: "" } });

/** One temporary folder holding a subfolder per level, e.g. `{ u: {"alpha/SKILL.md": …} }`. */
function levelsRoot(levels: Record<string, Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), "skills-levels-"));
  for (const [level, files] of Object.entries(levels)) {
    mkdirSync(join(root, level), { recursive: true });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, level, path, ".."), { recursive: true });
      writeFileSync(join(root, level, path), text);
    }
  }
  return root;
}

const good = (title: string): string => `---\ntitle: ${title}\nversion: 1.0.0\ndescription: A good skill.\n---\nBody.\n`;
const DISABLED = "---\nenabled: false\n---\n";
const BROKEN = "---\ntitle: Broken\nversion: 1.0.0\n---\nno description\n";

describe("skills validate --level (cross-level shadowing)", () => {
  it("reports what each inner document shadows, USER > PROJECT > TENANT, as info lines on the one the service uses", async () => {
    // Prepare
    const root = levelsRoot({
      u: { "alpha/SKILL.md": good("user") },
      p: { "alpha/SKILL.md": good("project"), "beta/SKILL.md": good("project") },
      t: { "alpha/SKILL.md": good("tenant"), "beta/SKILL.md": good("tenant"), "gamma/SKILL.md": good("tenant") },
    });
    const levels = parseLevelRoots(["user=u", "project=p", "tenant=t"].map((v) => v.replace("=", `=${root}/`)));

    // Act
    const report = await validateLevelReport(levels, root);

    // Assess
    expect(report.skills).toBe(6);
    expect(report.lines.map(formatValidationLine)).toEqual([
      "p/beta/SKILL.md:1: info: shadows tenant/beta/SKILL.md",
      "u/alpha/SKILL.md:1: info: shadows project/alpha/SKILL.md",
      "u/alpha/SKILL.md:1: info: shadows tenant/alpha/SKILL.md",
    ]);
  });

  it("says an `enabled: false` override hides the outer ones, and a defective inner document shadows nothing", async () => {
    // Prepare
    const root = levelsRoot({
      p: { "off/SKILL.md": DISABLED, "broken/SKILL.md": BROKEN },
      t: { "off/SKILL.md": good("tenant"), "broken/SKILL.md": good("tenant") },
      r: { "broken/SKILL.md": good("resource") },
    });

    // Act
    const report = await validateLevelReport(
      [
        { name: "project", dir: join(root, "p") },
        { name: "tenant", dir: join(root, "t") },
        { name: "resource", dir: join(root, "r") },
      ],
      root,
    );

    // Assess
    const shown = report.lines.map(formatValidationLine);
    expect(shown).toContain(
      "p/off/SKILL.md:1: info: hides tenant/off/SKILL.md (enabled: false here removes the skill from every outer level)",
    );
    expect(shown).toContain(
      "p/broken/SKILL.md:1: info: does not shadow tenant/broken/SKILL.md: this document has errors, so the service skips it and falls through",
    );
    expect(shown).toContain("t/broken/SKILL.md:1: info: shadows resource/broken/SKILL.md");
    expect(report.lines.filter((l) => l.severity === "error").map((l) => l.file)).toEqual(["p/broken/SKILL.md"]);
  });

  it("prints info lines and counts them in text, lists them in --format json, and exits 0 without errors", () => {
    // Prepare
    const root = levelsRoot({
      p: { "alpha/SKILL.md": good("project") },
      t: { "alpha/SKILL.md": good("tenant"), "solo/SKILL.md": good("solo") },
    });

    // Act
    const text = skills(["validate", "--level", "project=p", "--level", "tenant=t"], root);
    const json = skills(["validate", "--level", "project=p", "--level", "tenant=t", "--format", "json"], root);

    // Assess
    expect(text.status).toBe(0);
    expect(text.stdout).toBe("p/alpha/SKILL.md:1: info: shadows tenant/alpha/SKILL.md\n");
    expect(text.stderr).toContain("3 skill(s) checked in 2 level(s): 0 error(s), 0 warning(s), 1 info");
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      skills: 3,
      count: 1,
      problems: [{ path: "p/alpha/SKILL.md", line: 1, severity: "info", message: "shadows tenant/alpha/SKILL.md" }],
      rules: [{ rule: "shadows …", severity: "info", count: 1 }],
    });
  });

  it("leaves validate without --level as it was: the same folders give no info lines", () => {
    // Prepare
    const root = levelsRoot({ p: { "alpha/SKILL.md": good("project") }, t: { "alpha/SKILL.md": good("tenant") } });

    // Act
    const run = skills(["validate", "p", "t"], root);

    // Assess
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("2 skill(s) checked: 0 error(s), 0 warning(s), 0 info");
    expect(run.stderr).not.toContain("shadows");
  });

  it.each([
    ["a value without '='", ["--level", "project"]],
    ["an empty directory", ["--level", "project="]],
    ["a repeated level", ["--level", "project=p", "--level", "project=t"]],
    ["known levels outer first", ["--level", "tenant=t", "--level", "project=p"]],
    ["directories and --level together", ["p", "--level", "tenant=t"]],
  ])("refuses %s as a usage error (exit 2)", (_label, args) => {
    // Prepare
    const root = levelsRoot({ p: { "alpha/SKILL.md": good("p") }, t: { "alpha/SKILL.md": good("t") } });

    // Act
    const run = skills(["validate", ...args], root);

    // Assess
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: skills validate");
  });

  it("accepts free level names in command-line order", () => {
    // Act
    const levels = parseLevelRoots(["mine=./a", "team=./b", "tenant=./c"]);

    // Assess
    expect(levels).toEqual([
      { name: "mine", dir: "./a" },
      { name: "team", dir: "./b" },
      { name: "tenant", dir: "./c" },
    ]);
    expect(() => parseLevelRoots(["resource=./r", "user=./u"])).toThrow(LevelRootError);
  });
});
