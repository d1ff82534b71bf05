import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { MAX_TOOL_NAME_LENGTH, scriptToolName, TOOL_NAME_PATTERN } from "../../shared/scripts/script-tool-name.js";
import { checkScriptArgs, scriptParamsSchema } from "../../shared/scripts/script-tool-schema.js";
import type { Turn } from "../../shared/turns/turn.js";
import { steeringHarness } from "../support/steering-harness.js";

const turnOf = (result: unknown): Turn => result as Turn;

const LONG_SKILL = `review-${"a".repeat(50)}`;
const SCRIPTS = [
  "scripts:",
  "  - name: fetch-diff",
  "    file: scripts/fetch-diff.js",
  "    description: Fetch the diff of a git range.",
  "    params:",
  "      - name: range",
  "        type: string",
  "        description: Git range for the diff.",
  "        required: true",
  "      - name: context",
  "        type: integer",
  "  - name: post-comment",
  "    target: FOOT",
  "    file: scripts/post-comment.js",
].join("\n");

describe("script tool names (spec §13.2)", () => {
  it("are skill_<skill>__<script> with the hyphens kept", () => {
    // Act
    const name = scriptToolName("code-review", "fetch-diff");

    // Assess
    expect(name).toBe("skill_code-review__fetch-diff");
    expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it("are shortened deterministically past 64 characters, keep the tool-name rule, and stay distinct", () => {
    // Act
    const first = scriptToolName(LONG_SKILL, "fetch-diff");
    const again = scriptToolName(LONG_SKILL, "fetch-diff");
    const other = scriptToolName(LONG_SKILL, "fetch-difg");

    // Assess
    expect(first).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(first).toMatch(TOOL_NAME_PATTERN);
    expect(first).toBe(again);
    expect(first.startsWith(`skill_${LONG_SKILL}`.slice(0, 55))).toBe(true);
    expect(first).toMatch(/_[0-9a-f]{8}$/);
    expect(other).not.toBe(first);
  });

  it("keep a name of exactly 64 characters as it is", () => {
    // Prepare
    const skill = "s".repeat(64 - "skill___x".length);

    // Act
    const name = scriptToolName(skill, "x");

    // Assess
    expect(name).toBe(`skill_${skill}__x`);
    expect(name).toHaveLength(64);
  });
});

describe("script params schema (spec §13.7)", () => {
  it("renders declared params as properties, required ones in required, additionalProperties true", () => {
    // Act
    const schema = scriptParamsSchema([
      { name: "range", type: "string", description: "Git range for the diff.", required: true },
      { name: "limit", type: "integer", required: false },
    ]);

    // Assess
    expect(schema).toEqual({
      type: "object",
      properties: { range: { type: "string", description: "Git range for the diff." }, limit: { type: "integer" } },
      required: ["range"],
      additionalProperties: true,
    });
  });

  it("is free-form without params", () => {
    // Act
    const schema = scriptParamsSchema(undefined);

    // Assess
    expect(schema).toEqual({ type: "object", properties: {}, additionalProperties: true });
  });

  it("refuses missing required args and declared args of the wrong type, and lets undeclared args through", () => {
    // Prepare
    const script = {
      name: "greet",
      params: [
        { name: "name", type: "string" as const, required: true },
        { name: "times", type: "integer" as const, required: false },
        { name: "ratio", type: "number" as const, required: false },
      ],
    };

    // Act
    const missing = () => checkScriptArgs(script, { times: 2 });
    const wrong = () => checkScriptArgs(script, { name: "x", times: 1.5 });
    const fine = () => checkScriptArgs(script, { name: "x", times: 3, ratio: 2, extra: [1] });

    // Assess
    expect(missing).toThrow(InvalidRequest);
    expect(missing).toThrow("'name' is required");
    expect(wrong).toThrow("'times' must be an integer, got number");
    expect(fine).not.toThrow();
  });
});

describe("script tools in composed turns", () => {
  it("appear in tools and toolSpecs while the skill is active, with the §13.7 schema", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("code-review", { extra: SCRIPTS });
    const p = await h.spawn("open");
    await h.activate(p.processId, "code-review");

    // Act
    const turn = turnOf((await h.compose(p.processId, "go")).result);

    // Assess
    expect(turn.tools).toEqual(expect.arrayContaining(["skill_code-review__fetch-diff", "skill_code-review__post-comment"]));
    const specs = Object.fromEntries(turn.toolSpecs.map((spec) => [spec.name, spec]));
    expect(specs["skill_code-review__fetch-diff"]).toEqual({
      name: "skill_code-review__fetch-diff",
      description: "Fetch the diff of a git range.",
      inputSchema: {
        type: "object",
        properties: { range: { type: "string", description: "Git range for the diff." }, context: { type: "integer" } },
        required: ["range"],
        additionalProperties: true,
      },
    });
    expect(specs["skill_code-review__post-comment"]?.inputSchema).toEqual({ type: "object", properties: {}, additionalProperties: true });
    expect(specs["skill_code-review__post-comment"]?.description).toContain("user's machine");
  });

  it("advertise the shortened name for long skill names", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill(LONG_SKILL, { extra: SCRIPTS });
    const p = await h.spawn("open");
    await h.activate(p.processId, LONG_SKILL);

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    const scriptTools = turn.tools.filter((name) => name.startsWith("skill_"));
    expect(scriptTools).toEqual([scriptToolName(LONG_SKILL, "fetch-diff"), scriptToolName(LONG_SKILL, "post-comment")]);
    expect(scriptTools.every((name) => name.length <= 64 && TOOL_NAME_PATTERN.test(name))).toBe(true);
    expect(turn.toolSpecs.map((spec) => spec.name)).toEqual(expect.arrayContaining(scriptTools));
  });

  it("disappear when the skill is cleared, and a shot skill never brings any", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("code-review", { extra: SCRIPTS });
    await h.putSkill("macro", { extra: `lifecycle: shot\n${SCRIPTS}`, body: "Do it now." });
    const p = await h.spawn("open");
    await h.activate(p.processId, "code-review");
    await h.activate(p.processId, "macro");
    await h.clear(p.processId, "code-review");

    // Act
    const turn = turnOf((await h.compose(p.processId)).result);

    // Assess
    // skill_activate is a service tool (present while the catalog lists skills): only script tools count here.
    expect(turn.tools.filter((name) => name.startsWith("skill_") && name.includes("__"))).toEqual([]);
    expect(turn.toolSpecs.filter((spec) => spec.name.startsWith("skill_") && spec.name.includes("__"))).toEqual([]);
  });

  it("come with a triggered (oneShot) skill for that turn only", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putSkill("code-review", { extra: `triggers:\n  - type: KEYWORDS\n    keywords: [review]\n${SCRIPTS}` });
    const p = await h.spawn("open");

    // Act
    const triggered = turnOf((await h.compose(p.processId, "please review this")).result);
    await h.complete(p.processId, triggered.turnId, "done");
    const next = turnOf((await h.compose(p.processId, "thanks")).result);

    // Assess
    expect(triggered.tools).toContain("skill_code-review__fetch-diff");
    expect(next.tools).not.toContain("skill_code-review__fetch-diff");
  });
});
