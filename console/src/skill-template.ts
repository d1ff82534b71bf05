/** What "New skill" starts from: every field the service requires, and a trigger to show the shape. */
export function skillTemplate(name: string): string {
  return [
    "---",
    `title: ${name}`,
    "description: What this skill does and when to use it",
    "version: 1.0.0",
    "tags: []",
    "triggers:",
    "  - type: KEYWORDS",
    `    keywords: [${name}]`,
    "---",
    `# ${name}`,
    "",
    "Instructions for the model.",
    "",
  ].join("\n");
}

export const skillPath = (name: string): string => `_vance/skills/${name}/SKILL.md`;
export const skillFolder = (name: string): string => `_vance/skills/${name}/`;

/** The editor's language for a file of a skill's subtree. */
export function languageOf(path: string): "markdown" | "yaml" | "text" {
  if (/\.(md|markdown)$/i.test(path)) return "markdown";
  if (/\.ya?ml$/i.test(path)) return "yaml";
  return "text";
}

/** A skill's trigger evals (a sibling of its SKILL.md), and what "Write one" starts from. */
export const evalsPath = (name: string): string => `${skillFolder(name)}evals/triggers.yaml`;
export const evalsTemplate = (name: string): string =>
  [
    `# Messages that should activate ${name} by its triggers, and messages that should not.`,
    "should:",
    `  - please ${name} this`,
    "should-not:",
    "  - something unrelated",
    "",
  ].join("\n");
