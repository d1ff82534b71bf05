import { describe, expect, it } from "vitest";
import { formatScheduled, formatSkillList, formatTurn } from "../../cli/chat-view.js";
import { inert } from "../../cli/terminal-text.js";

/** Issue 28: every text from the service is inert before it reaches a terminal. */
describe("inert", () => {
  it.each([
    ["OSC 52 clipboard write", "\u001b]52;c;ZWNobw==\u0007", "\\u001b]52;c;ZWNobw==\\u0007"],
    ["OSC 2 window title", "\u001b]2;owned\u0007", "\\u001b]2;owned\\u0007"],
    ["clear screen", "\u001b[2J", "\\u001b[2J"],
    ["a one-byte C1 CSI", "\u009b2J", "\\u009b2J"],
    ["carriage return overwriting a line", "ok\rFAKE", "ok\\u000dFAKE"],
    ["backspace and DEL", "a\u0008\u007f", "a\\u0008\\u007f"],
    ["a bidirectional override", "abc\u202edcb", "abc\\u202edcb"],
  ])("shows %s visibly", (_label, raw, shown) => {
    // Act
    const text = inert(raw);

    // Assess
    expect(text).toBe(shown);
  });

  it("keeps line feeds, tabs and ordinary Unicode, and keeps JSON parseable", () => {
    // Prepare
    const json = JSON.stringify({ d: "caf\u00e9 \u2713\u009b" });

    // Act
    const text = inert(json);

    // Assess
    expect(inert("line one\n\tline two caf\u00e9 \u2713")).toBe("line one\n\tline two caf\u00e9 \u2713");
    expect(JSON.parse(text)).toEqual({ d: "caf\u00e9 \u2713\u009b" });
  });

  it("leaves nothing raw in what the chat formats from a hostile service answer", () => {
    // Prepare
    const evil = "\u001b]8;;https://evil.example\u001b\\docs\u001b]8;;\u001b\\";

    // Act
    const lines = [
      ...formatSkillList([{ name: "x", source: "PROJECT", description: evil } as never], []),
      ...formatScheduled({
        type: "process-turn-scheduled",
        processId: "p",
        reason: "action",
        pending: [{ id: "1", sender: "_skill", text: evil }],
      } as never),
      ...formatTurn(
        {
          turnId: "t",
          messages: [],
          activeSkills: [],
          systemPrompt: [],
          skillSection: evil,
          tools: [evil],
          catalog: { entries: [], omitted: [], usedChars: 0, budgetChars: 0 },
        } as never,
        ["section", "tools", "catalog"],
      ),
    ].map(inert);

    // Assess
    // eslint-disable-next-line no-control-regex
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
