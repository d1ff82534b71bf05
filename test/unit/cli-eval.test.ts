import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evalExitCode, formatEvalReport, runEvals } from "../../cli/eval.js";
import { skillMd } from "../support/skill-fixtures.js";

const KEYWORDS = (...words: string[]): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${words.join(", ")}]`;
const dirs: string[] = [];

async function tree(skills: Record<string, { extra?: string; evals?: string }>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "skills-eval-"));
  dirs.push(root);
  for (const [name, { extra, evals }] of Object.entries(skills)) {
    await mkdir(join(root, name, "evals"), { recursive: true });
    await writeFile(join(root, name, "SKILL.md"), skillMd(extra ? { extra } : {}));
    if (evals !== undefined) await writeFile(join(root, name, "evals", "triggers.yaml"), evals);
  }
  return root;
}

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("skills eval: offline trigger evals over a skills folder", () => {
  it("prints precision, recall, misses and the confusion list, and exits 1 below --min-recall", async () => {
    // Prepare
    const root = await tree({
      deploy: { extra: KEYWORDS("deploy"), evals: "should: [deploy now, ship it]\nshould-not: [hello]\n" },
      ops: { extra: KEYWORDS("deploy") },
    });

    // Act
    const run = await runEvals(root);

    // Assess
    expect(run.failures).toEqual([]);
    expect(formatEvalReport(run.reports[0]!)).toEqual([
      "deploy: precision 100.0%, recall 50.0% (3 case(s)); catalog: listed; listed 2/2, in search top 5 1/2",
      '  confusion: "deploy now" also fires ops',
      '  missed: "ship it"',
    ]);
    expect(evalExitCode(run, { minRecall: 0.5, minPrecision: 1 })).toBe(0);
    expect(evalExitCode(run, { minRecall: 0.9, minPrecision: 0 })).toBe(1);
  });

  it("says whether the model could still reach a skill through its catalog", async () => {
    // Prepare
    const root = await tree({
      deploy: { extra: KEYWORDS("deploy"), evals: "should: [deploy now]\n" },
      hidden: { extra: `disable-model-invocation: true\n${KEYWORDS("hide")}`, evals: "should: [hide it]\n" },
    });

    // Act
    const run = await runEvals(root);

    // Assess
    expect(run.failures).toEqual([]);
    expect(Object.fromEntries(run.reports.map((r) => [r.name, r.catalog]))).toEqual({ deploy: "listed", hidden: "not a candidate" });
  });

  it("counts a matching message a turn would block as a miss, says why, and leaves the blocked skill out of the confusion list", async () => {
    // Prepare
    const root = await tree({
      macro: { extra: `${KEYWORDS("deploy")}\nlifecycle: shot`, evals: "should: [deploy now]\n" },
      deploy: { extra: KEYWORDS("deploy"), evals: "should: [deploy now]\n" },
    });

    // Act
    const run = await runEvals(root);

    // Assess
    const byName = Object.fromEntries(run.reports.map((r) => [r.name, formatEvalReport(r)]));
    expect(byName.macro).toEqual([
      "macro: precision 100.0%, recall 0.0% (1 case(s)); catalog: listed; listed 1/1, in search top 5 0/1",
      '  missed: "deploy now" (matches, but a turn would not activate it: shot)',
      '  confusion: "deploy now" also fires deploy',
    ]);
    expect(byName.deploy).toEqual([
      "deploy: precision 100.0%, recall 100.0% (1 case(s)); catalog: listed; listed 1/1, in search top 5 1/1",
    ]);
  });

  it("reports an invalid evals file and a missing skill as failures (exit 1)", async () => {
    // Prepare
    const root = await tree({ deploy: { extra: KEYWORDS("deploy"), evals: "should: nope\n" } });

    // Act
    const bad = await runEvals(root, "deploy");
    const missing = await runEvals(root, "absent");

    // Assess
    expect(bad.failures.map((f) => f.name)).toEqual(["deploy"]);
    expect(missing.failures).toEqual([{ name: "absent", message: `no skill 'absent' below ${root}` }]);
    expect(evalExitCode(bad, { minRecall: 0, minPrecision: 0 })).toBe(1);
  });
});
