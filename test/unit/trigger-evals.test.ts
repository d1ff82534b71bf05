import { describe, expect, it } from "vitest";
import { DocumentService } from "../../shared/app/document-service.js";
import { InMemoryDocumentStore } from "../../shared/documents/in-memory-document-store.js";
import { DocumentNotFound, InvalidDocument } from "../../shared/errors.js";
import { MAX_EVAL_MESSAGES, parseTriggerEvals, runTriggerEvals } from "../../shared/skills/evals/trigger-evals.js";
import type { SkillTrigger } from "../../shared/skills/skill-frontmatter.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { skillMd } from "../support/skill-fixtures.js";
import { ALICE, PROJECT, steeringHarness, TENANT } from "../support/steering-harness.js";

const KEYWORDS = (...words: string[]): string => `triggers:\n  - type: KEYWORDS\n    keywords: [${words.join(", ")}]`;
const keywords = (...words: string[]): SkillTrigger[] => [{ type: "KEYWORDS", keywords: words } as SkillTrigger];
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const EVALS = "_vance/skills/deploy/evals/triggers.yaml";

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("trigger evals: parsing and bounds", () => {
  it("reads should and should-not messages", () => {
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
  it("scores the skill and names the other skills that fire on the same message", () => {
    // Prepare
    const deploy = { name: "deploy", triggers: keywords("deploy", "release") };
    const release = { name: "release-notes", triggers: keywords("release") };
    const evals = { should: ["deploy the app", "cut a release", "ship it"], shouldNot: ["release notes please", "hello"] };

    // Act
    const report = runTriggerEvals(deploy, [deploy, release], evals);

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

describe("trigger evals on save: warnings, never a refusal on evals alone", () => {
  it("warns when a saved SKILL.md misses its own evals, and saves it", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", EVALS, "should: [please deploy, ship it]\nshould-not: [hello]\n");

    // Act
    const saved = await service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/deploy/SKILL.md", bytes(skillMd({ extra: KEYWORDS("deploy") })));

    // Assess
    expect(await store.get(TENANT, "_tenant", "_vance/skills/deploy/SKILL.md")).toBeDefined();
    expect(saved.warnings.map((w) => w.message)).toEqual([
      "trigger evals of 'deploy': precision 100%, recall 50% (1 of 3 cases wrong)",
      "should fire but did not: 'ship it'",
    ]);
  });

  it("runs a saved evals file against the skill of its level, and refuses a malformed one with nothing saved", async () => {
    // Prepare
    const store = new InMemoryDocumentStore();
    const service = new DocumentService(store);
    await store.put(TENANT, "_tenant", "_vance/skills/deploy/SKILL.md", skillMd({ extra: KEYWORDS("deploy") }));

    // Act
    const saved = await service.put(IDENTITIES.admin, TENANT, "_tenant", EVALS, bytes("should: [deploy now]\nshould-not: [deploy nothing]\n"));
    const refused = await failure(service.put(IDENTITIES.admin, TENANT, "_tenant", "_vance/skills/deploy/evals/triggers.yaml", bytes("should: 12\n")));

    // Assess
    expect(saved.warnings.map((w) => w.message)).toContain("should not fire but did: 'deploy nothing'");
    expect(refused).toBeInstanceOf(InvalidDocument);
    expect(new TextDecoder().decode((await store.get(TENANT, "_tenant", EVALS))!.body)).toBe("should: [deploy now]\nshould-not: [deploy nothing]\n");
  });
});

describe("GET …/skills/effective/{name}/evals (SkillsApp.skillEvals)", () => {
  it("runs the evals from the skill's own level against every visible skill", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("deploy", { extra: KEYWORDS("deploy") }, PROJECT);
    await h.putSkill("ops", { extra: KEYWORDS("deploy") });
    await h.putFile("_vance/skills/deploy/evals/triggers.yaml", "should: [deploy it]\n", PROJECT);

    // Act
    const report = await h.app.skillEvals(TENANT, ALICE, PROJECT, "deploy");
    const missing = await failure(h.app.skillEvals(TENANT, ALICE, PROJECT, "ops"));

    // Assess
    expect(report).toEqual({ name: "deploy", precision: 1, recall: 1, triggers: 1, cases: [{ message: "deploy it", expected: true, fired: true, alsoFired: ["ops"] }] });
    expect(missing).toBeInstanceOf(DocumentNotFound);
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
    expect((error as InvalidDocument).problems).toEqual([{ path: EVALS, message: "is not UTF-8 text (invalid byte sequence or binary content)", severity: "error" }]);
  });
});
