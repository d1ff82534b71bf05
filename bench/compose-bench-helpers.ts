import type { Process } from "../shared/processes/process.js";
import type { ResolvedSkill } from "../shared/skills/resolved-skill.js";
import type { SkillTrigger } from "../shared/skills/skill-frontmatter.js";
import { prng } from "../test/support/seeded-random.js";

/**
 * Deterministic synthetic skills and messages for the trigger/compose benchmark (and tests that
 * need a ResolvedSkill). Same n → same skills, so runs are comparable.
 */

/** A valid ResolvedSkill with defaults for every field; override what the case needs. */
export function resolvedSkill(overrides: Partial<ResolvedSkill> & { name: string }): ResolvedSkill {
  return {
    title: overrides.name,
    description: `Synthetic skill ${overrides.name}`,
    version: "1.0.0",
    whenToUse: undefined,
    argumentHint: undefined,
    compatibility: undefined,
    disableModelInvocation: false,
    userInvocable: true,
    triggers: [],
    tools: [],
    allowedToolPatterns: [],
    template: true,
    manualPaths: [],
    referenceDocs: [],
    tags: [],
    enabled: true,
    lifecycle: "sticky",
    run: { target: "inline" },
    arguments: false,
    activate: [],
    deactivate: [],
    scripts: [],
    body: "",
    source: "PROJECT",
    location: { source: "PROJECT", project: "bench", directory: `_vance/skills/${overrides.name}` },
    warnings: [],
    ...overrides,
  };
}

const WORDS = [
  "review",
  "diff",
  "deploy",
  "staging",
  "production",
  "rollback",
  "terraform",
  "kubernetes",
  "docker",
  "invoice",
  "refund",
  "customer",
  "ticket",
  "escalate",
  "database",
  "migration",
  "schema",
  "index",
  "latency",
  "incident",
  "postmortem",
  "budget",
  "forecast",
  "translate",
  "summary",
  "meeting",
  "calendar",
  "security",
  "audit",
  "password",
  "certificate",
  "python",
  "typescript",
  "java",
  "testing",
  "coverage",
  "release",
  "changelog",
  "branch",
  "merge",
  "conflict",
  "performance",
  "profile",
  "memory",
  "leak",
  "design",
  "architecture",
  "diagram",
  "onboarding",
  "contract",
  "invoice",
  "payroll",
  "tax",
  "report",
];

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/**
 * n skills, each with a KEYWORDS trigger; two in three also carry a PATTERN trigger (nearly all
 * unique, so the compile cache sees ~2n/3 patterns), one pattern in ten without a provable
 * literal so the prefilter cannot skip it. Bodies mix plain Markdown and template syntax; some declare
 * arguments, some carry INLINE and ON_DEMAND reference docs.
 */
export function syntheticSkills(n: number): ResolvedSkill[] {
  const random = prng(0x5ca1ab1e);
  return Array.from({ length: n }, (_, i) => {
    const name = `skill-${i}`;
    const topic = pick(random, WORDS);
    // Two common words can occur in any message, but 3 of 5 keywords are needed: a skill fires
    // only when the message names one of its own tokens (kw<i>, alt<i>, <topic>x<i>).
    const triggers: SkillTrigger[] = [
      {
        type: "KEYWORDS",
        keywords: [topic, `${topic}x${i}`, `kw${i}`, `alt${i}`, `${pick(random, WORDS)} ${pick(random, WORDS)}`],
      },
    ];
    if (i % 3 !== 2) {
      const pattern =
        i % 10 === 9
          ? `\\d+[a-z]{${2 + (i % 3)}}\\d+${"[xyz]".repeat(i % 4)}`
          : `${topic}${i}.*(${pick(random, WORDS)}|${pick(random, WORDS)})`;
      triggers.push({ type: "PATTERN", pattern });
    }
    const templated = i % 2 === 0;
    return resolvedSkill({
      name,
      description: `Use when the user talks about ${topic}`,
      triggers,
      tools: [`tool_${topic}`, "file_read"],
      manualPaths: i % 4 === 0 ? [`manuals/${topic}`] : [],
      arguments: i % 5 === 0 ? [{ name: "scope", type: "string", required: false }] : false,
      body: templated
        ? `# ${topic}\n{% if tier == "small" %}Be brief.{% else %}Explain ${topic} step by step.{% endif %}\n{% if args.scope %}Scope: {{ args.scope }}{% endif %}\n`
        : `# ${topic}\nFollow the ${topic} checklist and report findings.\n`,
      referenceDocs:
        i % 6 === 0
          ? [
              { title: `${topic} checklist`, file: "references/checklist.md", loadMode: "INLINE", content: `- check ${topic}\n` },
              { title: `${topic} details`, file: "references/details.md", loadMode: "ON_DEMAND", summary: `Deep dive on ${topic}` },
            ]
          : [],
    });
  });
}

/** A user message of about `length` characters built from the same vocabulary. */
export function syntheticMessage(length = 2048, seed = 7): string {
  const random = prng(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const word = random() < 0.2 ? pick(random, ["the", "and", "please", "could", "you", "with", "for", "a"]) : pick(random, WORDS);
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(" ").slice(0, length);
}

/** What composeTurn reads of a process. */
export type TurnProcess = Pick<Process, "activeSkills" | "allowedSkillsOverride" | "recipe" | "engine" | "mode">;

/** A process with `active` explicitly activated, every other one with args: the compose benches' shared turn. */
export const turnSnapshot = (active: readonly ResolvedSkill[]): TurnProcess => ({
  activeSkills: active.map((skill, i) => ({
    name: skill.name,
    resolvedFromScope: skill.source,
    oneShot: false,
    fromRecipe: false,
    activatedBy: "explicit" as const,
    activatedAt: "2026-01-01T00:00:00.000Z",
    args: i % 2 ? `scope-${i}` : null,
  })),
  allowedSkillsOverride: null,
  recipe: "default",
  engine: "ford",
  mode: undefined,
});
