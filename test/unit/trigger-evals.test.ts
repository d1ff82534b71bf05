import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { DocumentNotFound, InvalidDocument } from "../../shared/errors.js";
import { EvalTimeBudget, OFFLINE_EVALS_TIME_BUDGET_MS } from "../../shared/skills/evals/eval-time-budget.js";
import { MAX_EVAL_MESSAGES, evalWarnings, parseTriggerEvals, runTriggerEvals } from "../../shared/skills/evals/trigger-evals.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd, skillPath } from "../support/skill-fixtures.js";
import { ALICE, PROJECT, steeringHarness, TENANT } from "../support/steering-harness.js";

const KEYWORDS = (...words: string[]): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${words.join(", ")}]`;
const SPAWN = "run:\n  target: spawn\n  recipe: open\naction: Go.";
const SHOT = "lifecycle: shot";
const DISABLED = "enabled: false";
const REQUIRED_ARGUMENT = "arguments:\n  - name: target\n    required: true";
const NO_LIMIT = (): EvalTimeBudget => new EvalTimeBudget(OFFLINE_EVALS_TIME_BUDGET_MS);
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const EVALS = "_vance/skills/deploy/evals/triggers.yaml";

/** A skill as the turn sees it: a parsed SKILL.md at the PROJECT level. */
type EvalSkill = Pick<ResolvedSkill, "name" | "triggers" | "enabled" | "source" | "run" | "lifecycle" | "arguments">;
function skill(name: string, ...extra: string[]): EvalSkill {
  const { definition } = parseSkillDocument(name, skillMd({ extra: extra.join("\n") }), skillPath(name));
  if (!definition) throw new Error(`fixture ${name} does not parse`);
  return { ...definition, source: "PROJECT" };
}

/** A clock that stands still for its first `reads` reads, then jumps far ahead: a budget that expires after N checks. */
function clockExpiringAfter(reads: number): () => number {
  let read = 0;
  return () => (read++ < reads ? 0 : 1_000_000);
}

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("trigger evals: parsing and bounds", () => {
  it("reads should and should-not messages", async () => {
    // Prepare
    const text = "should:\n  - please deploy now\nshould-not:\n  - what is a deployment\n";

    // Act
    const evals = parseTriggerEvals(text, EVALS);

    // Assess
    expect(evals).toEqual({ should: ["please deploy now"], shouldNot: ["what is a deployment"] });
  });

  it.each([
    ["an unknown key", "shuold: [x]\n"],
    ["a message that is not a string", "should:\n  - {a: 1}\n"],
    ["an over-long message", `should:\n  - '${"x".repeat(5000)}'\n`],
    ["too many messages", `should:\n${Array.from({ length: MAX_EVAL_MESSAGES * 10 }, (_, i) => `  - m${i}`).join("\n")}\n`],
    ["a huge file", `should:\n  - '${"x".repeat(300 * 1024)}'\n`],
    ["broken YAML", "should: [unclosed\n"],
  ])("refuses %s as INVALID_DOCUMENT", (_label, text) => {
    // Prepare
    const parse = (): unknown => parseTriggerEvals(text, EVALS);

    // Act
    const error = (() => {
      try {
        parse();
        return undefined;
      } catch (e) {
        return e;
      }
    })();

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect((error as InvalidDocument).problems.length).toBeGreaterThan(0);
  });
});

describe("trigger evals: precision, recall and confusion through the real matcher", () => {
  it("scores the skill and names the other skills that fire on the same message", async () => {
    // Prepare
    const deploy = skill("deploy", KEYWORDS("deploy", "release"));
    const release = skill("release-notes", KEYWORDS("release"));
    const evals = { should: ["deploy the app", "cut a release", "ship it"], shouldNot: ["release notes please", "hello"] };

    // Act
    const report = await runTriggerEvals(deploy, [deploy, release], evals, NO_LIMIT());

    // Assess
    expect(report.recall).toBeCloseTo(2 / 3);
    expect(report.precision).toBeCloseTo(2 / 3);
    expect(report.cases).toEqual([
      { message: "deploy the app", expected: true, fired: true, alsoFired: [] },
      { message: "cut a release", expected: true, fired: true, alsoFired: ["release-notes"] },
      { message: "ship it", expected: true, fired: false, alsoFired: [] },
      { message: "release notes please", expected: false, fired: true, alsoFired: ["release-notes"] },
      { message: "hello", expected: false, fired: false, alsoFired: [] },
    ]);
  });
});

describe("trigger evals say what a turn would do", () => {
  it.each([
    ["a spawn-target skill", "spawn-only", SPAWN],
    ["a shot skill", "shot", SHOT],
    ["a disabled skill", "disabled", DISABLED],
    ["a skill with a required argument", "argument-missing", REQUIRED_ARGUMENT],
  ])("%s whose trigger matches has not fired, and the case says why (%s)", async (_label, reason, extra) => {
    // Prepare
    const blocked = skill("deploy", KEYWORDS("deploy"), extra);
    const ops = skill("ops", KEYWORDS("deploy"));
    const evals = { should: ["deploy now"], shouldNot: ["deploy nothing"] };

    // Act
    const report = await runTriggerEvals(blocked, [blocked, ops], evals, NO_LIMIT());

    // Assess
    expect(report.recall).toBe(0);
    expect(report.precision).toBe(1);
    expect(report.cases).toEqual([
      { message: "deploy now", expected: true, fired: false, blocked: reason, alsoFired: ["ops"] },
      { message: "deploy nothing", expected: false, fired: false, blocked: reason, alsoFired: ["ops"] },
    ]);
  });

  it("leaves skills a turn would not activate out of the confusion list", async () => {
    // Prepare
    const deploy = skill("deploy", KEYWORDS("deploy"));
    const listing = [
      deploy,
      skill("spawner", KEYWORDS("deploy"), SPAWN),
      skill("macro", KEYWORDS("deploy"), SHOT),
      skill("off", KEYWORDS("deploy"), DISABLED),
      skill("needs-arg", KEYWORDS("deploy"), REQUIRED_ARGUMENT),
      skill("ops", KEYWORDS("deploy")),
    ];

    // Act
    const report = await runTriggerEvals(deploy, listing, { should: ["deploy now"], shouldNot: [] }, NO_LIMIT());

    // Assess
    expect(report.cases).toEqual([{ message: "deploy now", expected: true, fired: true, alsoFired: ["ops"] }]);
  });

  it("drops the patterns of a skill over the pattern cap, as a turn does", async () => {
    // Prepare
    const patterns = Array.from({ length: 21 }, (_, i): SkillTrigger => ({ type: "PATTERN", pattern: `deploy${i}` }) as SkillTrigger);
    const overCap = { ...skill("deploy"), triggers: patterns };

    // Act
    const report = await runTriggerEvals(overCap, [overCap], { should: ["deploy0 now"], shouldNot: [] }, NO_LIMIT());

    // Assess
    expect(report.cases).toEqual([{ message: "deploy0 now", expected: true, fired: false, alsoFired: [] }]);
  });
});

describe("trigger evals under a time budget", () => {
  it("stops when the budget is spent and reports the run incomplete, counting only the cases that ran", async () => {
    // Prepare
    const deploy = skill("deploy", KEYWORDS("deploy"));
    const should = Array.from({ length: 10 }, (_, i) => `deploy ${i}`);
    const budget = new EvalTimeBudget(1_000, clockExpiringAfter(7));

    // Act
    const report = await runTriggerEvals(deploy, [deploy], { should, shouldNot: ["ship it"] }, budget);

    // Assess
    expect(report.incomplete).toBe(true);
    expect(report.totalCases).toBe(11);
    expect(report.cases.length).toBeGreaterThan(0);
    expect(report.cases.length).toBeLessThan(11);
    expect(report.cases.map((c) => c.message)).toEqual(should.slice(0, report.cases.length));
    expect(report.recall).toBe(1);
  });

  it("does not count a message whose patterns the budget cut", async () => {
    // Prepare
    const deploy = { ...skill("deploy"), triggers: [{ type: "PATTERN", pattern: "dep.oy" } as SkillTrigger] };
    const budget = new EvalTimeBudget(1_000, clockExpiringAfter(4));

    // Act
    const report = await runTriggerEvals(deploy, [deploy], { should: ["deploy now"], shouldNot: [] }, budget);

    // Assess
    expect(report).toMatchObject({ incomplete: true, totalCases: 1, cases: [], recall: 1 });
  });

  it("runs every case within the budget, and says the run is complete", async () => {
    // Prepare
    const deploy = skill("deploy", KEYWORDS("deploy"));

    // Act
    const report = await runTriggerEvals(
      deploy,
      [deploy],
      { should: ["deploy now"], shouldNot: ["hello"] },
      new EvalTimeBudget(1_000, () => 0),
    );

    // Assess
    expect(report).toMatchObject({ incomplete: false, totalCases: 2, precision: 1, recall: 1 });
  });

  it("says in the save-time warnings that the evals were cut short", async () => {
    // Prepare
    const deploy = skill("deploy", KEYWORDS("deploy"));
    const report = await runTriggerEvals(
      deploy,
      [deploy],
      { should: ["deploy 1", "deploy 2", "deploy 3"], shouldNot: [] },
      new EvalTimeBudget(1_000, clockExpiringAfter(4)),
    );

    // Act
    const warnings = evalWarnings(report, EVALS);

    // Assess
    expect(warnings.map((w) => w.message)).toEqual([
      `trigger evals of 'deploy' were cut short by their time budget: ${report.cases.length} of 3 cases ran (skills eval runs the whole suite offline)`,
    ]);
  });
});

describe("trigger evals on save: warnings, never a refusal on evals alone", () => {
  it("warns when a saved SKILL.md misses its own evals, and saves it", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", EVALS, "should: [please deploy, ship it]\nshould-not: [hello]\n");

    // Act
    const saved = await service.put(
      IDENTITIES.admin,
      TENANT,
      "_tenant",
      "_vance/skills/deploy/SKILL.md",
      bytes(skillMd({ extra: KEYWORDS("deploy") })),
    );

    // Assess
    expect(await store.get(TENANT, "_tenant", "_vance/skills/deploy/SKILL.md")).toBeDefined();
    expect(saved.warnings.map((w) => w.message)).toEqual([
      "trigger evals of 'deploy': precision 100%, recall 50% (1 of 3 cases wrong)",
      "should fire but did not: 'ship it'",
    ]);
  });

  it("says on save that a matching should message would not activate a spawn-only skill", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", EVALS, "should: [please deploy]\n");

    // Act
    const saved = await service.put(
      IDENTITIES.admin,
      TENANT,
      "_tenant",
      "_vance/skills/deploy/SKILL.md",
      bytes(skillMd({ extra: `${KEYWORDS("deploy")}\n${SPAWN}` })),
    );

    // Assess
    expect(saved.warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining([
        "trigger evals of 'deploy': precision 100%, recall 0% (1 of 1 cases wrong)",
        "should fire but did not: 'please deploy' (its trigger matches, but a turn would not activate it: spawn-only)",
      ]),
    );
  });

  it("runs a saved evals file against the skill of its level, and refuses a malformed one with nothing saved", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", "_vance/skills/deploy/SKILL.md", skillMd({ extra: KEYWORDS("deploy") }));

    // Act
    const saved = await service.put(
      IDENTITIES.admin,
      TENANT,
      "_tenant",
      EVALS,
      bytes("should: [deploy now]\nshould-not: [deploy nothing]\n"),
    );
    const refused = await failure(
      service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/deploy/evals/triggers.yaml", bytes("should: 12\n")),
    );

    // Assess
    expect(saved.warnings.map((w) => w.message)).toContain("should not fire but did: 'deploy nothing'");
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect(new TextDecoder().decode((await store.get(TENANT, "_tenant", EVALS))!.body)).toBe(
      "should: [deploy now]\nshould-not: [deploy nothing]\n",
    );
  });
});

describe("GET …/skills/effective/{name}/evals (SkillsApp.skillEvals)", () => {
  it("runs the evals from the skill's own level against every visible skill a turn would activate", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") }, PROJECT);
    await h.putSkill("ops", { extra: KEYWORDS("deploy") });
    await h.putSkill("spawner", { extra: `${KEYWORDS("deploy")}\n${SPAWN}` });
    await h.putFile("_vance/skills/deploy/evals/triggers.yaml", "should: [deploy it]\n", PROJECT);
    await h.putFile("_vance/skills/spawner/evals/triggers.yaml", "should: [deploy it]\n");

    // Act
    const report = await h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy");
    const spawner = await h.app.skillEvals(TENANT, ALICE, PROJECT, "spawner");
    const missing = await failure(h.app.skillEvals(TENANT, ALICE, PROJECT, "ops"));

    // Assess
    expect(report).toEqual({
      name: "deploy",
      precision: 1,
      recall: 1,
      triggers: 1,
      cases: [{ message: "deploy it", expected: true, fired: true, alsoFired: ["ops"], listed: true, searchRank: 1 }],
      totalCases: 1,
      incomplete: false,
    });
    // Listed (three skills fit any budget) but not found by search: "deploy" is only its trigger keyword.
    expect(spawner.cases).toEqual([
      {
        message: "deploy it",
        expected: true,
        fired: false,
        blocked: "spawn-only",
        alsoFired: ["deploy", "ops"],
        listed: true,
        searchRank: null,
      },
    ]);
    expect(missing).toBeInstanceOf(DocumentNotFound);
  });

  it("answers a run its time budget cut short as incomplete, not as an error", async () => {
    // Prepare
    const h = await steeringHarness({ evalsBudget: () => new EvalTimeBudget(1_000, clockExpiringAfter(1)) });
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") }, PROJECT);
    await h.putFile("_vance/skills/deploy/evals/triggers.yaml", "should: [deploy it, deploy that]\n", PROJECT);

    // Act
    const report = await h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy");

    // Assess
    expect(report).toMatchObject({ name: "deploy", incomplete: true, totalCases: 2, cases: [] });
  });

  it("says an evals file that is not UTF-8 (written around the API) is not text, rather than a YAML error", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") }, PROJECT);
    await h.documents.put(TENANT, PROJECT, EVALS, new Uint8Array([0x73, 0x68, 0x6f, 0x75, 0x6c, 0x64, 0x3a, 0x20, 0xff, 0xfe]));

    // Act
    const error = await failure(h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy"));

    // Assess
    expect(error).toBeInstanceOf(InvalidDocument);
    expect((error as InvalidDocument).problems).toEqual([
      { path: EVALS, message: "is not UTF-8 text (invalid byte sequence or binary content)", severity: "error" },
    ]);
  });
});

describe("evals share the event loop (issue 28)", () => {
  const patterns = (count: number): string =>
    `triggers:\n${Array.from({ length: count }, (_, i) => `  - type: PATTERN\n    pattern: '[a-z]{2,4}\\d{${1 + (i % 7)}}[q-z]{${1 + (i % 4)}}-${i}'`).join("\n")}`;

  it("yields the event loop while a long run matches: other work runs before it answers", async () => {
    // Prepare
    const heavy = skill("heavy", patterns(20));
    const message = "zz9 qq 42 lorem ".repeat(256);
    const evals = { should: Array.from({ length: 400 }, (_, i) => `${message}${i}`), shouldNot: [] };
    let ticks = 0;
    let running = true;
    const ticker = (): void => {
      ticks += 1;
      if (running) setImmediate(ticker);
    };
    setImmediate(ticker);

    // Act
    const report = await runTriggerEvals(heavy, [heavy], evals, NO_LIMIT());
    running = false;

    // Assess
    expect(report.cases).toHaveLength(400);
    expect(ticks).toBeGreaterThan(1);
  });

  it("runs one evals per identity at a time: a second concurrent run is 429 with Retry-After, another identity's runs", async () => {
    // Prepare
    const h = await steeringHarness();
    // Heavy enough to run past one slice, so the first run is still matching when the second asks.
    await h.putSkill("deploy", { extra: patterns(20) }, PROJECT);
    await h.putFile(
      "_vance/skills/deploy/evals/triggers.yaml",
      `should:\n${Array.from({ length: 200 }, (_, i) => `  - ${"zz9 qq 42 lorem ".repeat(60)}${i}`).join("\n")}\n`,
      PROJECT,
    );
    const other = { ...ALICE, login: "carol" };

    // Act
    const first = h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy");
    const second = await failure(h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy"));
    const otherIdentity = await h.app.skillEvals(TENANT, other, PROJECT, "deploy");
    const afterwards = await first.then(() => h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy"));

    // Assess
    expect(second).toMatchObject({ code: "TOO_MANY_REQUESTS", retryAfterSeconds: 5 });
    expect(otherIdentity.cases).toHaveLength(200);
    expect(afterwards.cases).toHaveLength(200);
  });
});
