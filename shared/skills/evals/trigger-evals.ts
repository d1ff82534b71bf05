import * as z from "zod";
import { InvalidDocument } from "../../errors.js";
import type { DocumentProblem } from "../../errors.js";
import { parseSafeYaml } from "../../yaml/yaml-safety.js";
import { SkillTriggerMatcher } from "../triggers/skill-trigger-matcher.js";
import type { TriggerCandidate } from "../triggers/skill-trigger-index.js";

/** A skill's trigger evals, a sibling of its SKILL.md (issue 17). */
export const TRIGGER_EVALS_FILE = "evals/triggers.yaml";

/** Bounds of one evals file: big enough for a thorough suite, small enough to run on every save. */
export const MAX_EVALS_BYTES = 256 * 1024;
export const MAX_EVAL_MESSAGES = 1000;
export const MAX_EVAL_MESSAGE_CHARS = 4096;

/** `_vance/skills/<name>/evals/triggers.yaml` → `<name>`; undefined for any other path. */
export function evalsSkillNameOf(path: string): string | undefined {
  const match = /^_vance\/skills\/([^/]+)\/evals\/triggers\.yaml$/.exec(path);
  return match?.[1];
}

const message = z.string().min(1).max(MAX_EVAL_MESSAGE_CHARS);
const EvalsSchema = z
  .strictObject({ should: z.array(message).default([]), "should-not": z.array(message).default([]) })
  .refine((e) => e.should.length + e["should-not"].length <= MAX_EVAL_MESSAGES, { message: `at most ${MAX_EVAL_MESSAGES} messages in all (should and should-not)` });

export interface TriggerEvals {
  should: string[];
  shouldNot: string[];
}

/** Parses an evals file; INVALID_DOCUMENT (422) with its problems when it is too big, malformed or over the bounds. */
export function parseTriggerEvals(text: string, path: string): TriggerEvals {
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_EVALS_BYTES) throw new InvalidDocument(path, [{ path, message: `evals file is ${bytes} bytes; at most ${MAX_EVALS_BYTES} are allowed`, severity: "error" }]);
  const parsed = parseSafeYaml(text, path, { maxBytes: MAX_EVALS_BYTES, maxDepth: 4 });
  if (parsed.problems.some((p) => p.severity === "error")) throw new InvalidDocument(path, parsed.problems);
  const checked = EvalsSchema.safeParse(parsed.value ?? {});
  if (!checked.success) {
    const problems: DocumentProblem[] = checked.error.issues.slice(0, 20).map((issue) => {
      const line = parsed.lineOf(issue.path.filter((p): p is string | number => typeof p !== "symbol"));
      return { path, ...(line !== undefined ? { line } : {}), message: `${issue.path.join(".") || "evals"}: ${issue.message}`, severity: "error" };
    });
    throw new InvalidDocument(path, problems);
  }
  return { should: checked.data.should, shouldNot: checked.data["should-not"] };
}

export interface EvalCase {
  message: string;
  expected: boolean;
  fired: boolean;
  /** The other skills whose triggers fire on the same message (the confusion list). */
  alsoFired: string[];
}

/** API.md "Author's loop": `{name, precision, recall, cases}`. */
export interface EvalReport {
  name: string;
  precision: number;
  recall: number;
  /** How many triggers the skill has: 0 means no message can ever activate it, only `/skill` or the model can. */
  triggers: number;
  cases: EvalCase[];
}

const matcher = new SkillTriggerMatcher();

/**
 * Runs a skill's evals through the real trigger matcher, against the skill and the other
 * candidates (to name which of them fire too). Precision and recall are 1 when nothing could be
 * measured (no message fired, no `should` message): there is no evidence against the skill.
 */
export function runTriggerEvals(skill: TriggerCandidate, others: readonly TriggerCandidate[], evals: TriggerEvals): EvalReport {
  const candidates = [skill, ...others.filter((o) => o.name !== skill.name && o.triggers.length > 0)];
  const cases = [...evals.should.map((m) => [m, true] as const), ...evals.shouldNot.map((m) => [m, false] as const)].map(([text, expected]): EvalCase => {
    const matched = matcher.match(candidates, text);
    return { message: text, expected, fired: matched.includes(skill.name), alsoFired: matched.filter((n) => n !== skill.name) };
  });
  const truePositives = cases.filter((c) => c.expected && c.fired).length;
  const firedCount = cases.filter((c) => c.fired).length;
  const shouldCount = cases.filter((c) => c.expected).length;
  return {
    name: skill.name,
    precision: firedCount === 0 ? 1 : truePositives / firedCount,
    recall: shouldCount === 0 ? 1 : truePositives / shouldCount,
    triggers: skill.triggers.length,
    cases,
  };
}

/** A report as save-time warnings: one summary line, then the first misses (never a refusal). */
export function evalWarnings(report: EvalReport, path: string, maxMisses = 5): { path: string; message: string }[] {
  const misses = report.cases.filter((c) => c.expected !== c.fired);
  if (misses.length === 0) return [];
  const pct = (n: number): string => `${Math.round(n * 100)}%`;
  return [
    { path, message: `trigger evals of '${report.name}': precision ${pct(report.precision)}, recall ${pct(report.recall)} (${misses.length} of ${report.cases.length} cases wrong)` },
    ...misses.slice(0, maxMisses).map((c) => ({ path, message: `${c.expected ? "should fire but did not" : "should not fire but did"}: '${c.message.slice(0, 80)}'` })),
  ];
}
