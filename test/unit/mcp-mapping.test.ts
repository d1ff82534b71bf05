import { describe, expect, it } from "vitest";
import { page } from "../../shared/app/mcp/mcp-protocol.js";
import { completeArgument, rawArguments, toPrompt } from "../../shared/app/mcp/mcp-prompts.js";
import { parseSkillFileUri, resourceContents, skillFileUri, skillResources } from "../../shared/app/mcp/mcp-resources.js";
import { bindArguments } from "../../shared/skills/skill-argument-binder.js";
import type { ResolvedSkill } from "../../shared/skills/resolved-skill.js";
import { checkScriptArgs, scriptParamsSchema } from "../../shared/scripts/script-tool-schema.js";

/** Only the fields the MCP mapping reads. */
const skill = (fields: Partial<ResolvedSkill>): ResolvedSkill =>
  ({ name: "review", title: "Review", description: "Reviews.", arguments: false, files: [], ...fields }) as ResolvedSkill;

const REVIEW = skill({
  arguments: [
    { name: "lang", type: "string", required: true, enum: ["ts", "py", "tsx"] },
    { name: "focus", type: "string", required: false },
  ],
});

describe("MCP mapping", () => {
  it("maps declared arguments to prompt arguments; arguments: true is one optional text argument", () => {
    // Act
    const declared = toPrompt(REVIEW);
    const free = toPrompt(skill({ arguments: true }));

    // Assess
    expect(declared.arguments).toEqual([
      { name: "lang", required: true },
      { name: "focus", required: false },
    ]);
    expect(free.arguments).toEqual([expect.objectContaining({ name: "text", required: false })]);
  });

  it("joins named arguments in declared order for the binder; a gap or a spaced non-last value is refused", () => {
    // Act
    const raw = rawArguments(REVIEW, { focus: "error paths", lang: "ts" });
    const gap = () => rawArguments(REVIEW, { focus: "x" });
    const spaced = () =>
      rawArguments(
        skill({
          arguments: [
            { name: "a", type: "string", required: false },
            { name: "b", type: "string", required: false },
          ],
        }),
        { a: "two words", b: "x" },
      );

    // Assess
    expect(raw).toBe("ts error paths");
    expect(bindArguments("review", REVIEW.arguments, raw)).toMatchObject({ lang: "ts", focus: "error paths" });
    expect(gap).toThrow(/needs 'lang' before it/);
    expect(spaced).toThrow(/must be one word/);
    expect(() => bindArguments("review", REVIEW.arguments, rawArguments(REVIEW, {}))).toThrow("Skill 'review' requires argument 'lang'");
  });

  it("completes from the enum by prefix, at most 100 values with hasMore", () => {
    // Prepare
    const many = skill({
      arguments: [{ name: "n", type: "string", required: false, enum: Array.from({ length: 100 }, (_, i) => `v${i}`) }],
    });

    // Act
    const ts = completeArgument(REVIEW, "lang", "T");
    const all = completeArgument(many, "n", "v");
    const boolean = completeArgument(skill({ arguments: [{ name: "b", type: "boolean", required: false }] }), "b", "");

    // Assess
    expect(ts).toEqual({ values: ["ts", "tsx"], total: 2, hasMore: false });
    expect(all).toMatchObject({ total: 100, hasMore: false });
    expect(all.values).toHaveLength(100);
    expect(boolean.values).toEqual(["true", "false"]);
  });

  it("pages with an opaque cursor and refuses a forged one", () => {
    // Prepare
    const items = Array.from({ length: 250 }, (_, i) => i);

    // Act
    const first = page(items, undefined);
    const second = page(items, first.nextCursor);
    const third = page(items, second.nextCursor);

    // Assess
    expect(first.items).toHaveLength(100);
    expect(second.items[0]).toBe(100);
    expect(third.items).toHaveLength(50);
    expect(third.nextCursor).toBeUndefined();
    expect(() => page(items, "not-a-cursor!")).toThrow(/Invalid cursor/);
  });

  it("names files skill://{name}/{path} with a mime type, round-trips encoded paths, and answers text or a base64 blob", () => {
    // Prepare
    const withFiles = skill({ files: [{ path: "assets/a b.png", size: 3 }] });

    // Act
    const resources = skillResources(withFiles);
    const parsed = parseSkillFileUri(skillFileUri("review", "assets/a b.png"));
    const text = resourceContents("skill://review/SKILL.md", "SKILL.md", Buffer.from("# hi"));
    const blob = resourceContents("skill://review/x.bin", "x.bin", Buffer.from([0xff, 0xfe]));

    // Assess
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ["skill://review/SKILL.md", "text/markdown"],
      ["skill://review/assets/a%20b.png", "image/png"],
    ]);
    expect(parsed).toEqual({ skill: "review", path: "assets/a b.png" });
    expect(text).toEqual({ uri: "skill://review/SKILL.md", mimeType: "text/markdown", text: "# hi" });
    expect(blob).toEqual({ uri: "skill://review/x.bin", mimeType: "application/octet-stream", blob: "//4=" });
    expect(() => parseSkillFileUri("file:///etc/passwd")).toThrow(/skill:\/\//);
  });

  it("an enum is one schema for arguments and script params: published, checked, and refused by the binder", () => {
    // Prepare
    const params = [{ name: "mode", type: "string" as const, required: true, enum: ["fast", "slow"] }];

    // Act
    const schema = scriptParamsSchema(params);

    // Assess
    expect(schema.properties.mode).toEqual({ type: "string", enum: ["fast", "slow"] });
    expect(() => checkScriptArgs({ name: "run", params }, { mode: "medium" })).toThrow(/must be one of "fast", "slow"/);
    expect(() => bindArguments("review", REVIEW.arguments, "rust")).toThrow(/must be one of/);
  });
});
