import * as z from "zod/mini";
import "../../../contract/locale.js";
import { InvalidDocument } from "../../errors.js";
import type { DocumentProblem } from "../../errors.js";
import { parseSafeYaml } from "../../yaml/yaml-safety.js";
import { SkillTriggerMatcher } from "../triggers/skill-trigger-matcher.js";
import { matchTriggersForTurn } from "../triggers/trigger-activation.js";
import type { TriggerActivatable, TriggerBlockReason, TriggerProcessFilter } from "../triggers/trigger-activation.js";
import type { EvalTimeBudget } from "./eval-time-budget.js";

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

const message = z.string().check(z.minLength(1), z.maxLength(MAX_EVAL_MESSAGE_CHARS));
const EvalsSchema = z.strictObject({ should: z._default(z.array(message), []), "should-not": z._default(z.array(message), []) }).check(
  z.refine((e) => e.should.length + e["should-not"].length <= MAX_EVAL_MESSAGES, {
    message: `at most ${MAX_EVAL_MESSAGES} messages in all (should and should-not)`,
  }),
);

export interface TriggerEvals {
  should: string[];
  shouldNot: string[];
}

/** Parses an evals file; INVALID_DOCUMENT (422) with its problems when it is too big, malformed or over the bounds. */
export function parseTriggerEvals(text: string, path: string): TriggerEvals {
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_EVALS_BYTES)
    throw new InvalidDocument(path, [
      { path, message: `evals file is ${bytes} bytes; at most ${MAX_EVALS_BYTES} are allowed`, severity: "error" },
    ]);
  const parsed = parseSafeYaml(text, path, { maxBytes: MAX_EVALS_BYTES, maxDepth: 4 });
  if (parsed.problems.some((p) => p.severity === "error")) throw new InvalidDocument(path, parsed.problems);
  const checked = EvalsSchema.safeParse(parsed.value ?? {});
  if (!checked.success) {
    const problems: DocumentProblem[] = checked.error.issues.slice(0, 20).map((issue) => {
      const line = parsed.lineOf(issue.path.filter((p): p is string | number => typeof p !== "symbol"));
      return {
        path,
        ...(line !== undefined ? { line } : {}),
        message: `${issue.path.join(".") || "evals"}: ${issue.message}`,
        severity: "error",
      };
    });
    throw new InvalidDocument(path, problems);
  }
  return { should: checked.data.should, shouldNot: checked.data["should-not"] };
}

export interface EvalCase {
  message: string;
  expected: boolean;
  /** Whether a turn would activate the skill on this message. */
  fired: boolean;
  /** The skill's trigger matches, but a turn would not activate it, and why (the activation ledger's reason). */
  blocked?: TriggerBlockReason;
  /** The other skills a turn would activate on the same message (the confusion list). */
  alsoFired: string[];
  /** `should` cases (routing-evals.ts): whether the turn's catalog would list the skill for this message. */
  listed?: boolean;
  /** `should` cases: the skill's 1-based rank in skill_search for this message, null past 20. */
  searchRank?: number | null;
}

/** API.md "Author's loop": `{name, precision, recall, cases}`. */
export interface EvalReport {
  name: string;
  precision: number;
  recall: number;
  /** How many triggers the skill has: 0 means no message can ever activate it, only `/skill` or the model can. */
  triggers: number;
  /** The cases that ran, in file order (`should` first); all of them unless `incomplete`. */
  cases: EvalCase[];
  /** Cases in the evals file. */
  totalCases: number;
  /** The time budget ran out: only the first `cases.length` of `totalCases` ran, and precision and recall are theirs. */
  incomplete: boolean;
}

const matcher = new SkillTriggerMatcher();

/** How long an evals run matches before it lets other work of the event loop run. */
export const EVAL_SLICE_MS = 4;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Evals run outside any process: nothing is active, and no recipe whitelist applies. */
const NO_PROCESS: TriggerProcessFilter = Object.freeze({ activeNames: [], allowedSkills: null });

/**
 * Runs a skill's evals through the turn's trigger rule (matchTriggersForTurn: pattern caps,
 * `enabled`, spawn/shot/required arguments), against the listing the skill is part of, so an
 * eval says what a turn would do: a message whose trigger matches a skill a turn would not
 * activate has not fired, and its case says why (`blocked`); the confusion list names only
 * skills a turn would activate. Precision and recall are 1 when nothing could be measured (no
 * message fired, no `should` message): there is no evidence against the skill. The run stops
 * when `budget` is spent, and says so; a message whose matching the budget cut is not counted.
 * It yields the event loop every EVAL_SLICE_MS (issue 28: a 5 s run held the loop for 5 s, and
 * another tenant's request waited that long), so other requests interleave with it.
 */
export async function runTriggerEvals<T extends TriggerActivatable>(
  skill: T,
  listing: readonly T[],
  evals: TriggerEvals,
  budget: EvalTimeBudget,
): Promise<EvalReport> {
  const at = listing.findIndex((s) => s.name === skill.name);
  // The listing itself where it holds this very skill: its trigger index is cached already.
  const candidates = listing[at] === skill ? listing : at >= 0 ? listing.map((s, i) => (i === at ? skill : s)) : [...listing, skill];
  const planned = [...evals.should.map((m) => [m, true] as const), ...evals.shouldNot.map((m) => [m, false] as const)];
  const cases: EvalCase[] = [];
  let slice = performance.now();
  for (const [text, expected] of planned) {
    if (performance.now() - slice >= EVAL_SLICE_MS) {
      await yieldToEventLoop();
      slice = performance.now();
    }
    if (budget.spent()) break;
    // One message's matching is bounded by what is left of the run, and at most a slice's worth of
    // regex work runs before the next yield check (the matcher checks the budget before each regex).
    const messageBudget = budget.forMessage();
    const { matched, blocked } = matchTriggersForTurn(candidates, text, matcher, NO_PROCESS, messageBudget, "matched");
    if (messageBudget.skipped.size > 0) break;
    const fired = matched.fired.some((s) => s.name === skill.name);
    const reason = blocked.find((b) => b.candidate.name === skill.name)?.reason;
    cases.push({
      message: text,
      expected,
      fired,
      ...(reason !== undefined ? { blocked: reason } : {}),
      alsoFired: matched.fired.filter((s) => s.name !== skill.name).map((s) => s.name),
    });
  }
  const truePositives = cases.filter((c) => c.expected && c.fired).length;
  const firedCount = cases.filter((c) => c.fired).length;
  const shouldCount = cases.filter((c) => c.expected).length;
  return {
    name: skill.name,
    precision: firedCount === 0 ? 1 : truePositives / firedCount,
    recall: shouldCount === 0 ? 1 : truePositives / shouldCount,
    triggers: skill.triggers.length,
    cases,
    totalCases: planned.length,
    incomplete: cases.length < planned.length,
  };
}

/** A report as save-time warnings: one summary line, whether the run was cut short, then the first misses (never a refusal). */
export function evalWarnings(report: EvalReport, path: string, maxMisses = 5): { path: string; message: string }[] {
  const misses = report.cases.filter((c) => c.expected !== c.fired);
  const pct = (n: number): string => `${Math.round(n * 100)}%`;
  const cut = report.incomplete
    ? [
        {
          path,
          message: `trigger evals of '${report.name}' were cut short by their time budget: ${report.cases.length} of ${report.totalCases} cases ran (skills eval runs the whole suite offline)`,
        },
      ]
    : [];
  if (misses.length === 0) return cut;
  return [
    {
      path,
      message: `trigger evals of '${report.name}': precision ${pct(report.precision)}, recall ${pct(report.recall)} (${misses.length} of ${report.cases.length} cases wrong)`,
    },
    ...cut,
    ...misses.slice(0, maxMisses).map((c) => ({
      path,
      message: `${c.expected ? "should fire but did not" : "should not fire but did"}: '${c.message.slice(0, 80)}'${blockedNote(c)}`,
    })),
  ];
}

const blockedNote = (c: EvalCase): string =>
  c.blocked === undefined ? "" : ` (its trigger matches, but a turn would not activate it: ${c.blocked})`;
