import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** The command line as a user runs it: bin/skills.mjs in a child process. */
const BIN = fileURLToPath(new URL("../../bin/skills.mjs", import.meta.url));
const skills = (args: readonly string[], cwd?: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", cwd, env: { ...process.env, SKILLS_URL: "", SKILLS_TOKEN: "", ...env } });

function skillsRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "skills-cmd-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// Title and version: the only findings are the ones each case is about (Agent Skills documents warn about their absence).
const GOOD = "---\nname: good\ntitle: Good\nversion: 1.0.0\ndescription: A good skill.\n---\nBody of good.\n";
const WARNED = "---\nname: warned\ntitle: Warned\nversion: 1.0.0\ndescription: d\nfoo: 1\n---\nBody.\n";
const BROKEN =
  '---\nname: broken\ntitle: Broken\nversion: 1.0.0\ndescription: d\ntriggers:\n  - type: PATTERN\n    pattern: "(x["\n---\nBody.\n';

describe("skills validate (command line)", () => {
  it("says how many skills it checked", () => {
    // Prepare
    const root = skillsRoot({ "good/SKILL.md": GOOD, "warned/SKILL.md": WARNED });

    // Act
    const run = skills(["validate", "."], root);

    // Assess
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("warned/SKILL.md:6: warning: unknown field 'foo' (ignored)\n");
    expect(run.stderr).toContain("2 skill(s) checked: 0 error(s), 1 warning(s)");
  });

  it("treats a folder without any SKILL.md as an error", () => {
    // Prepare
    const root = skillsRoot({ "notes/README.md": "# nothing here\n" });

    // Act
    const run = skills(["validate", "."], root);

    // Assess
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("no SKILL.md found below .");
  });

  it("prints errors only with --errors-only, and exits 1 on an error", () => {
    // Prepare
    const root = skillsRoot({ "warned/SKILL.md": WARNED, "broken/SKILL.md": BROKEN });

    // Act
    const run = skills(["validate", ".", "--errors-only"], root);

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout.trim().split("\n")).toEqual([expect.stringMatching(/^broken\/SKILL\.md:\d+: error: triggers\[0\]\.pattern/)]);
    expect(run.stderr).toContain("2 skill(s) checked: 1 error(s), 1 warning(s)");
  });

  it("prints JSON with --format json: the count and each problem with path, line, severity and message", () => {
    // Prepare
    const root = skillsRoot({ "warned/SKILL.md": WARNED, "good/SKILL.md": GOOD });

    // Act
    const run = skills(["validate", ".", "--format", "json"], root);

    // Assess
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      skills: 2,
      count: 1,
      problems: [{ path: "warned/SKILL.md", line: 6, severity: "warning", message: "unknown field 'foo' (ignored)" }],
      rules: [{ rule: "unknown field '…' (ignored)", severity: "warning", count: 1 }],
    });
  });

  it("has --help per subcommand", () => {
    // Act
    const runs = ["validate", "render", "push", "pull", "token", "usage", "eval", "history", "restore"].map((command) => ({
      command,
      run: skills([command, "--help"]),
    }));

    // Assess
    for (const { command, run } of runs) {
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^usage: skills ${command} `));
    }
    // Nine CLI processes one after the other: seconds each on a loaded 2-core machine.
  }, 120_000);
});

describe("skills render (command line)", () => {
  it("accepts a skill folder and cites paths on disk in its messages", () => {
    // Prepare
    const root = skillsRoot({ "warned/SKILL.md": WARNED });

    // Act
    const run = skills(["render", "warned"], root);

    // Assess
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Body.");
    expect(run.stderr).toContain("warning: warned/SKILL.md:6: unknown field 'foo' (ignored)");
    expect(run.stderr).not.toContain("_vance/");
  });

  it("cites the file on disk when the skill is defective", () => {
    // Prepare
    const root = skillsRoot({ "broken/SKILL.md": BROKEN });

    // Act
    const run = skills(["render", ".", "broken"], root);

    // Assess
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/broken\/SKILL\.md:\d+: triggers\[0\]\.pattern/);
    expect(run.stderr).not.toContain("_vance/");
  });
});

describe("skills push and pull (command line)", () => {
  it("refuses to run without a token for a remote server, and says when no service answers locally", () => {
    // Prepare
    const root = skillsRoot({ "good/SKILL.md": GOOD });

    // Act: a loopback URL gets a dev token signed locally; nothing listens on port 9
    const nobodyLocal = skills(["push", ".", "--to", "acme/alpha"], root, { SKILLS_URL: "http://127.0.0.1:9" });
    const noToken = skills(["push", ".", "--to", "acme/alpha"], root, { SKILLS_URL: "https://skills.invalid" });
    const badLevel = skills(["pull", "--from", "acme/../x", "out"], root, { SKILLS_URL: "http://127.0.0.1:9", SKILLS_TOKEN: "t" });

    // Assess
    expect(nobodyLocal.status).not.toBe(0);
    expect(nobodyLocal.stderr).toContain("cannot reach http://127.0.0.1:9");
    expect(noToken.status).toBe(2);
    expect(noToken.stderr).toContain("no token: set SKILLS_TOKEN (or pass --token)");
    expect(badLevel.status).toBe(2);
    expect(badLevel.stderr).toContain("--from expects <tenant>/<level>");
  });

  it("validates only with --dry-run, without a server", () => {
    // Prepare
    const root = skillsRoot({ "good/SKILL.md": GOOD, "broken/SKILL.md": BROKEN });

    // Act
    const run = skills(["push", ".", "--dry-run"], root);

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("dry run: 2 skill(s) checked; 1 would be uploaded (1 file(s)), 1 refused");
    expect(run.stdout).toMatch(
      /refused \(nothing of these was uploaded\):\n {2}broken \(broken\)\n {4}broken\/SKILL\.md:\d+: triggers\[0\]\.pattern/,
    );
  });
});

describe("skills validate: infos and the summary by rule", () => {
  const agentSkill = (name: string, extra = ""): string => `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\nBody.\n`;

  it("counts the infos of Agent Skills documents (no title:, no version:) without listing them, and sums up by rule", () => {
    // Prepare
    const root = skillsRoot({
      "a/SKILL.md": agentSkill("a"),
      "b/SKILL.md": agentSkill("b"),
      "c/SKILL.md": agentSkill("c", "model: opus\n"),
    });

    // Act
    const run = skills(["validate", "."], root);
    const verbose = skills(["validate", ".", "--verbose"], root);

    // Assess
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("c/SKILL.md:4: warning: field 'model' (Claude Code) is not used by this service (ignored)\n");
    expect(run.stderr).toContain("3 skill(s) checked: 0 error(s), 1 warning(s), 6 info (not listed; --verbose lists them)");
    expect(run.stderr).toContain(
      "by rule:\n  1  warning  field '…' (Claude Code) is not used by this service (ignored)\n  3  info     title: is absent\n  3  info     version: is absent (Agent Skills documents have none)\n",
    );
    expect(verbose.stdout.split("\n").filter((l) => l.includes(": info: "))).toHaveLength(6);
    expect(verbose.stdout).toContain("a/SKILL.md:2: info: title: is absent; the title is 'a'");
  });
});

describe("skills validate: templates", () => {
  it("warns when a template reads a variable the render context never has", () => {
    // Prepare
    const root = skillsRoot({ "query/SKILL.md": "---\ntitle: Q\nversion: 1.0.0\ndescription: d\n---\nWHERE id = {{ user_id }}\n" });

    // Act
    const run = skills(["validate", "."], root);

    // Assess
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^query\/SKILL\.md:6: warning: body: the template reads 'user_id', which the render context never has/);
  });
});
