import { describe, expect, it } from "vitest";
import { completeChatLine, missesSkillName } from "../../cli/chat-completer.js";
import { parseChatLine } from "../../cli/chat-line.js";
import { formatTurn, parseShow, promptLine } from "../../cli/chat-view.js";
import type { ActiveSkillRef, SkillSummary, Turn } from "../../client/index.js";

/** `skills chat`: the §6a slash grammar, completion, the prompt line and what a turn prints. */

const summary = (name: string, extra: Partial<SkillSummary> = {}): SkillSummary => ({
  name,
  title: name,
  description: `${name} skill`,
  version: "1.0.0",
  tags: [],
  source: "PROJECT",
  lifecycle: "sticky",
  triggers: [],
  arguments: false,
  run: { target: "inline" },
  ...extra,
});

const activeRef = (name: string, activatedBy: ActiveSkillRef["activatedBy"], oneShot = false): ActiveSkillRef => ({
  name,
  resolvedFromScope: "PROJECT",
  oneShot,
  fromRecipe: activatedBy === "recipe",
  activatedAt: "2026-12-03T16:00:00Z",
  args: null,
  activatedBy,
});

const state = {
  skills: [
    summary("forms", { arguments: [{ name: "strict", type: "boolean", required: false }] }),
    summary("format"),
    summary("tone", { arguments: [{ name: "level", type: "string", required: true, enum: ["formal", "friendly", "fun"] }] }),
    summary("hidden", { userInvocable: false }),
  ],
  active: [activeRef("forms", "explicit")],
};

describe("parseChatLine", () => {
  it.each([
    ["/skill forms", { kind: "activate", name: "forms", once: false }],
    ["/skill forms --once a  b", { kind: "activate", name: "forms", once: true, args: "a  b" }],
    ["/skill forms a --once", { kind: "activate", name: "forms", once: false, args: "a --once" }],
    ["/skill list", { kind: "list" }],
    ["/skill clear", { kind: "clear" }],
    ["/skill clear forms", { kind: "clear", name: "forms" }],
    ["/turn", { kind: "turn" }],
    ["/exit", { kind: "exit" }],
    ["  hello there ", { kind: "message", text: "hello there" }],
    ["", { kind: "empty" }],
  ])("%j → %j", (line, expected) => {
    // Act
    const parsed = parseChatLine(line);

    // Assess
    expect(parsed).toEqual(expected);
  });

  it.each(["/skill", "/skill clear a b", "/skill list x", "/nope"])("refuses %j with a message", (line) => {
    // Act
    const parsed = parseChatLine(line);

    // Assess
    expect(parsed).toMatchObject({ kind: "invalid", message: expect.any(String) });
  });
});

describe("completeChatLine", () => {
  it.each([
    ["/sk", ["/skill "], "/sk"],
    ["/skill fo", ["forms", "format"], "fo"],
    ["/skill h", [], "h"],
    ["/skill form", ["forms", "format"], "form"],
    ["/skill forms", ["forms "], "forms"],
    ["/skill cl", ["clear "], "cl"],
    ["/skill clear ", ["forms "], ""],
    ["/skill forms ", ["--once", "true", "false"], ""],
    ["/skill forms --once t", ["true "], "t"],
    ["/skill format ", ["--once "], ""],
    ["/skill tone f", ["formal", "friendly", "fun"], "f"],
    ["/skill tone fr", ["friendly "], "fr"],
    ["hello", [], "hello"],
  ])("%j → %j", (line, candidates, word) => {
    // Act
    const completed = completeChatLine(line, state);

    // Assess
    expect(completed).toEqual([candidates, word]);
  });
});

describe("missesSkillName", () => {
  it.each([
    ["/skill fo", false],
    ["/skill late", true],
    ["/skill late-skill arg", true],
    ["/skill forms ", false],
    ["/skill hidden ", false],
    ["/skill clear x", false],
    ["/skill list", false],
    ["/show s", false],
    ["hello", false],
  ])("%j → %s", (line, missed) => {
    // Act
    const result = missesSkillName(line, state);

    // Assess
    expect(result).toBe(missed);
  });
});

describe("chat view", () => {
  it("shows the active skills with activatedBy in the prompt line", () => {
    // Act
    const prompt = promptLine("main", [activeRef("forms", "explicit"), activeRef("lint", "trigger", true)]);

    // Assess
    expect(prompt).toBe("[forms(explicit) lint(trigger,once)] main> ");
  });

  it("parses --show and names an unknown part", () => {
    // Act
    const all = parseShow(["all"]);
    const some = parseShow(["tools,catalog"]);
    const bad = parseShow(["tool"]);

    // Assess
    expect(all).toEqual({ parts: ["section", "tools", "catalog", "prompt", "messages"] });
    expect(some).toEqual({ parts: ["tools", "catalog"] });
    expect(bad).toMatchObject({ error: expect.stringContaining("unknown --show part 'tool'") });
  });

  it("prints only the parts asked for", () => {
    // Prepare
    const turn = {
      turnId: "t1",
      systemPrompt: [{ role: "system", content: "You are helpful." }],
      skillSection: "## forms\nFill in forms.",
      tools: ["skill_activate"],
      toolSpecs: [],
      manualPaths: [],
      messages: [{ id: "m1", sender: "carol", text: "hi", role: "user" }],
      activeSkills: [],
      catalog: {
        entries: [{ name: "format", description: "d", source: "PROJECT" }],
        omitted: [],
        omittedCount: 0,
        budgetChars: 8000,
        usedChars: 20,
        approxTokens: 5,
      },
      activation: [],
    } satisfies Turn;

    // Act
    const lines = formatTurn(turn, ["tools", "catalog"]);

    // Assess
    expect(lines).toEqual([
      "turn t1: 1 message(s), 0 active skill(s)",
      "tools: skill_activate",
      "catalog: 1 entry (format), 0 omitted, 20/8000 chars",
    ]);
  });
});
