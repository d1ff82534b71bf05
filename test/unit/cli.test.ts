import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { contextFromSettings, renderSkill, renderTarget } from "../../cli/render.js";
import { SkillArgumentMissing } from "../../shared/errors.js";
import { formatValidationLine, validateSkillReport, validateSkillTrees } from "../../cli/validate.js";

function skillsRoot(skills: Record<string, Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), "skills-cli-"));
  for (const [name, files] of Object.entries(skills)) {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(root, name, file, ".."), { recursive: true });
      writeFileSync(join(root, name, file), text);
    }
  }
  return root;
}

const GREET = `---
title: Greeter
description: Greets someone
version: 1.0.0
arguments:
  - name: who
    required: true
referenceDocs:
  - title: Tone
    file: references/tone.md
---
Say hello to {{ args.who }}{% if tier == "small" %} briefly{% endif %}.
`;

describe("skills validate", () => {
  it("prints each problem as path:line and flags errors, sorted by path then line", async () => {
    // Prepare
    const root = skillsRoot({
      good: { "SKILL.md": GREET, "references/tone.md": "Warm." },
      bad: { "SKILL.md": "---\ntitle: Bad\nversion: 1.0.0\ndescription: d\nfoo: 1\nlifecycle: forever\n---\n" },
    });

    // Act
    const lines = await validateSkillTrees([root], root);

    // Assess
    expect(lines.map(formatValidationLine)).toEqual([
      "bad/SKILL.md:5: warning: unknown field 'foo' (ignored)",
      "bad/SKILL.md:6: error: lifecycle: expected one of sticky, shot",
    ]);
  });

  it("warns when a referenced file is missing from the skill's own directory", async () => {
    // Prepare
    const root = skillsRoot({ good: { "SKILL.md": GREET } });

    // Act
    const lines = await validateSkillTrees([root], root);

    // Assess
    expect(lines).toEqual([expect.objectContaining({ severity: "warning", message: expect.stringContaining("references/tone.md") })]);
  });

  it("refuses a SKILL.md that is not UTF-8, as the service does", async () => {
    // Prepare
    const root = skillsRoot({});
    mkdirSync(join(root, "latin"));
    writeFileSync(join(root, "latin/SKILL.md"), Buffer.concat([Buffer.from(GREET), Buffer.from([0xe9])]));

    // Act
    const report = await validateSkillReport([root], root);

    // Assess
    expect(report).toEqual({
      skills: 1,
      lines: [
        expect.objectContaining({ file: "latin/SKILL.md", severity: "error", message: expect.stringContaining("is not UTF-8 text") }),
      ],
    });
  });

  it("accepts the bundled skills", async () => {
    // Act
    const lines = await validateSkillTrees(["shared/bundled"]);

    // Assess
    expect(lines.filter((l) => l.severity === "error")).toEqual([]);
  });
});

describe("skills render", () => {
  it("composes one skill with its arguments, context and inline references", async () => {
    // Prepare
    const root = skillsRoot({ greet: { "SKILL.md": GREET, "references/tone.md": "Warm {{ not rendered }}." } });

    // Act
    const { section } = await renderSkill({ root, name: "greet", args: "Ada Lovelace", set: ["tier=small"] });

    // Assess
    expect(section).toBe(
      [
        "--- Skill: greet ---",
        "Greets someone",
        "",
        "Say hello to Ada Lovelace briefly.",
        "",
        "--- Reference Doc: Tone ---",
        "Warm {{ not rendered }}.",
        "",
        'Files of this skill — read a text file with skill_read_file {"skill":"greet","path":"<path>"}:',
        "- references/tone.md (24 bytes)",
      ].join("\n"),
    );
  });

  it("renders a skill folder on its own: its parent is never read, so a broken or unreadable sibling changes nothing", async () => {
    // Prepare
    const root = skillsRoot({
      greet: { "SKILL.md": GREET, "references/tone.md": "Warm." },
      broken: { "SKILL.md": "---\nlifecycle: forever\n---\n" },
    });
    // A sibling the old walk of the parent failed on (ENOENT through a dangling link).
    symlinkSync(join(root, "does-not-exist"), join(root, "broken", "dangling.md"));
    const target = renderTarget([join(root, "greet")]);

    // Act
    const { section, warnings } = await renderSkill({ ...target!, args: "Ada", set: [] });

    // Assess
    expect(target).toEqual({ folder: join(root, "greet"), name: "greet" });
    expect(section).toContain("Say hello to Ada.");
    expect(section).toContain("- references/tone.md (5 bytes)");
    expect(warnings).toEqual([]);
  });

  it("refuses a skill whose required argument is missing, as activation does", async () => {
    // Prepare
    const root = skillsRoot({ greet: { "SKILL.md": GREET, "references/tone.md": "Warm." } });

    // Act / Assess
    await expect(renderSkill({ root, name: "greet", set: [] })).rejects.toThrow(SkillArgumentMissing);
  });

  it("exits non-zero with the SkillArgumentMissing message from the command line", () => {
    // Prepare
    const root = skillsRoot({ greet: { "SKILL.md": GREET, "references/tone.md": "Warm." } });

    // Act
    const run = spawnSync(process.execPath, [fileURLToPath(new URL("../../bin/skills.mjs", import.meta.url)), "render", root, "greet"], {
      encoding: "utf8",
    });

    // Assess
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(new SkillArgumentMissing("greet", "who").message);
    expect(run.stdout).toBe("");
  });

  it("refuses an unknown skill and explains a defective one", async () => {
    // Prepare
    const root = skillsRoot({ broken: { "SKILL.md": "---\ndescription: bad lifecycle\nlifecycle: forever\n---\n" } });

    // Act / Assess
    await expect(renderSkill({ root, name: "nope", set: [] })).rejects.toThrow("Skill 'nope' not found");
    await expect(renderSkill({ root, name: "broken", set: [] })).rejects.toThrow(/lifecycle/);
  });

  it("parses --set into the render context", () => {
    // Act / Assess
    expect(contextFromSettings(["tier=small", "params.depth=3"])).toEqual({ tier: "small", params: { depth: "3" } });
    expect(() => contextFromSettings(["colour=red"])).toThrow(/unknown context key/);
  });
});
