/** SKILL.md texts for tests: valid by default, every frontmatter line overridable. */
export interface SkillFixture {
  title?: string;
  description?: string;
  version?: string;
  /** Extra raw YAML lines appended to the frontmatter. */
  extra?: string;
  body?: string;
}

export function skillMd(fixture: SkillFixture = {}): string {
  const lines = [
    "---",
    `title: ${JSON.stringify(fixture.title ?? "A Skill")}`,
    `description: ${JSON.stringify(fixture.description ?? "Does one thing well")}`,
    `version: ${fixture.version ?? "1.0.0"}`,
    ...(fixture.extra ? [fixture.extra.trimEnd()] : []),
    "---",
    fixture.body ?? "Skill body.",
    "",
  ];
  return lines.join("\n");
}

export const skillPath = (name: string): string => `_vance/skills/${name}/SKILL.md`;
