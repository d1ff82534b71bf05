import { describe, expect, it } from "vitest";
import { resolvedSkill } from "../../bench/compose-bench-helpers.js";
import { MAX_RENDERED_BODY_BYTES, plainBody, substitutePlaceholders } from "../../shared/skills/skill-body.js";
import { bindArguments, MAX_RAW_ARGUMENTS_LENGTH } from "../../shared/skills/skill-argument-binder.js";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { SkillRenderTooLarge } from "../../shared/skills/skill-errors.js";
import { composeSection } from "../../shared/skills/skill-prompt-composer.js";
import { checkSkillDocument } from "../../cli/validate.js";
import { skillTurnPrompt } from "../../shared/steering/skill-turn-prompt.js";
import type { RenderContext, TemplateRenderer } from "../../shared/templates/template-renderer.js";

/**
 * Issue 30 "Bodies reach the model as written" and issue 28 "Placeholder amplification": Claude
 * Code placeholders only in a skill that asks for arguments on purpose, never in a price or a
 * cell reference, and the substituted body capped while it is built.
 */

const parse = (text: string, name = "sheet") => parseSkillDocument(name, text, `_vance/skills/${name}/SKILL.md`);
const definitionOf = (frontmatter: string, body: string, name = "sheet") => {
  const parsed = parse(`---\n${frontmatter}\n---\n${body}\n`, name);
  expect(parsed.definition, JSON.stringify(parsed.problems)).toBeDefined();
  return parsed.definition!;
};
const warningsOf = (frontmatter: string, body: string) =>
  parse(`---\n${frontmatter}\n---\n${body}\n`).problems.filter((p) => p.severity === "warning" && p.message.startsWith("body:"));
const render = (frontmatter: string, body: string, args: string | undefined) => {
  const definition = definitionOf(frontmatter, body);
  return plainBody(definition.name, definition, bindArguments(definition.name, definition.arguments, args));
};

class CountingRenderer implements TemplateRenderer {
  renders: { template: string; context: RenderContext }[] = [];
  async render(template: string, context: RenderContext): Promise<string> {
    this.renders.push({ template, context });
    return template.replace(/\{\{\s*args\.(\w+)\s*\}\}/g, (_m, name: string) =>
      String((context.args as Record<string, unknown> | undefined)?.[name] ?? ""),
    );
  }
}

describe("Claude Code placeholders only in a skill that uses them on purpose", () => {
  it("sends a pricing table and a spreadsheet formula of a skill without $ARGUMENTS as written, and does not consume its arguments", () => {
    // Prepare
    const body = "| plan | price |\n| --- | --- |\n| Pro | $5.00 | $25.00 |\n\nUse =B5*(1+$B$6) and $1,000 and $0.";

    // Act
    const definition = definitionOf("name: xlsx\ndescription: Spreadsheets.", body);
    const text = plainBody(
      definition.name,
      definition,
      bindArguments(definition.name, definition.arguments, "convert sales.csv to a pivot table"),
    );

    // Assess
    expect(definition.arguments).toBe(false);
    expect(text).toBe(body);
  });

  it("substitutes in a skill whose body has $ARGUMENTS, or that declares argument-hint or arguments:", () => {
    // Act
    const byBody = render("name: fix\ndescription: d", "Fix $0 as in: $ARGUMENTS", "42 now");
    const byHint = render("name: fix\ndescription: d\nargument-hint: '[issue]'", "Fix issue $0.", "42");
    const byArguments = render("name: fix\ndescription: d\narguments: true", "Fix issue $0.", "42");
    const hintDefinition = definitionOf("name: fix\ndescription: d\nargument-hint: '[issue]'", "Fix issue $0.");

    // Assess
    expect(byBody).toBe("Fix 42 as in: 42 now");
    expect(byHint).toBe("Fix issue 42.");
    expect(byArguments).toBe("Fix issue 42.");
    expect(hintDefinition.arguments).toBe(true);
  });

  it("never takes a number or a cell reference for a placeholder, even in a skill that asks for arguments", () => {
    // Prepare
    const args = bindArguments("s", true, "a b c d e f g");

    // Act
    const text = substitutePlaceholders("s", "$ARGUMENTS[0]: $5.00 $25.00 $1,000 =B5*(1+$B$6) A$1 $1x $2_ $3. ($4) $6", args);

    // Assess
    expect(text).toBe("a: $5.00 $25.00 $1,000 =B5*(1+$B$6) A$1 $1x $2_ d. (e) g");
  });

  it("leaves a $N past the given words literal", () => {
    // Act
    const text = render("name: fix\ndescription: d\nargument-hint: '[a] [b]'", "first=$0 second=$1 third=$2", "only");

    // Assess
    expect(text).toBe("first=only second=$1 third=$2");
  });

  it("warns at parse (save, validate, problems) about the $N a body will have substituted, and not about a price in a skill without arguments", () => {
    // Act
    const deliberate = warningsOf("name: fix\ndescription: d\nargument-hint: '[issue]'", "Intro.\n\nFix issue $0 then $1.");
    const price = warningsOf("name: xlsx\ndescription: d", "Costs $5.00 or $0.");

    // Assess
    expect(deliberate).toEqual([
      expect.objectContaining({ line: 8, message: expect.stringMatching(/^body: \$0, \$1 will be replaced by words of the \/skill line/) }),
    ]);
    expect(price).toEqual([]);
  });
});

describe("the substituted body is capped while it is built", () => {
  // Spaced: `$0$0` is one placeholder and a literal (a `$` right after a digit is not one).
  const AMPLIFIER = "$0 ".repeat(7_000);

  it("refuses 7 000 × $0 with a 64 KB argument as PAYLOAD_TOO_LARGE naming the skill, without building it", () => {
    // Prepare
    const args = bindArguments("amp", true, "x".repeat(MAX_RAW_ARGUMENTS_LENGTH));
    const heapBefore = process.memoryUsage().heapUsed;

    // Act
    const refused = (() => {
      try {
        return substitutePlaceholders("amp", `$ARGUMENTS[0]${AMPLIFIER}`, args);
      } catch (error) {
        return error;
      }
    })();

    // Assess
    expect(refused).toBeInstanceOf(SkillRenderTooLarge);
    expect(refused).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      limitBytes: MAX_RENDERED_BODY_BYTES,
      message: expect.stringContaining("Skill 'amp'"),
    });
    // 7 000 × 64 KB would be 450 MB; the refusal keeps at most the cap's worth of pieces.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it("keeps a body just under the cap and refuses one byte past it", () => {
    // Prepare
    const args = bindArguments("s", true, "é".repeat(1000));
    const fits = `$ARGUMENTS${" ".repeat(MAX_RENDERED_BODY_BYTES - 2000)}`;

    // Act
    const kept = substitutePlaceholders("s", fits, args);
    const refused = () => substitutePlaceholders("s", `${fits}.`, args);

    // Assess
    expect(Buffer.byteLength(kept)).toBe(MAX_RENDERED_BODY_BYTES);
    expect(refused).toThrow(SkillRenderTooLarge);
  });

  it("leaves an amplifying skill out of a composed section with a warning that names it; the others compose", async () => {
    // Prepare
    const amplifier = resolvedSkill({ ...definitionOf("name: amp\ndescription: d", `$ARGUMENTS${AMPLIFIER}`, "amp") });
    const other = resolvedSkill({ ...definitionOf("name: other\ndescription: fine", "Plain.", "other") });

    // Act
    const section = await composeSection(
      [
        { skill: amplifier, args: "y".repeat(64 * 1024) },
        { skill: other, args: undefined },
      ],
      {},
      new CountingRenderer(),
    );

    // Assess
    expect(section.included).toEqual(["other"]);
    expect(section.warnings).toEqual([
      expect.objectContaining({ skill: "amp", message: expect.stringContaining("more than 262144 bytes") }),
    ]);
  });

  it("refuses an amplifying shot skill's turn prompt the same way", async () => {
    // Prepare
    const shot = resolvedSkill({ ...definitionOf("name: amp\ndescription: d\nlifecycle: shot\narguments: true", AMPLIFIER, "amp") });

    // Act
    const refused = await skillTurnPrompt(
      shot,
      bindArguments("amp", true, "z".repeat(64 * 1024)),
      new CountingRenderer(),
      async () => ({}),
    ).catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(SkillRenderTooLarge);
  });
});

describe("templates of documents written for this service", () => {
  it("renders an Agent Skills form body that reads {{ args.env }} and declares arguments:", async () => {
    // Prepare
    const definition = definitionOf(
      "name: deploy\ndescription: Deploys.\narguments:\n  - name: env\n    required: true",
      "Deploy to {{ args.env }} carefully.",
      "deploy",
    );
    const renderer = new CountingRenderer();

    // Act
    const section = await composeSection([{ skill: resolvedSkill({ ...definition }), args: "staging" }], {}, renderer);

    // Assess
    expect(definition.template).toBe(true);
    expect(section.section).toBe("--- Skill: deploy ---\nDeploys.\n\nDeploy to staging carefully.");
  });

  it("keeps {{ }} as text in a plain Agent Skills document, with a warning that says how to render it", () => {
    // Act
    const definition = definitionOf(
      "name: deploy\ndescription: Deploys.",
      "Deploy to {{ args.env }} carefully.\n\nUse ${{ secrets.TOKEN }}.",
      "deploy",
    );
    const warnings = warningsOf("name: deploy\ndescription: Deploys.", "Deploy to {{ args.env }} carefully.");
    const optedOut = warningsOf("name: deploy\ndescription: Deploys.\ntemplate: false", "Deploy to {{ args.env }} carefully.");

    // Assess
    expect(definition.template).toBe(false);
    expect(warnings).toEqual([expect.objectContaining({ line: 5, message: expect.stringContaining("add 'template: true'") })]);
    expect(optedOut).toEqual([]);
  });

  it("keeps a document with service fields but no template syntax as written, its placeholders substituted", () => {
    // Act
    const text = render("name: greet\ndescription: d\nlifecycle: shot\narguments: true", "Say hello to $ARGUMENTS.", "the team");

    // Assess
    expect(text).toBe("Say hello to the team.");
  });
});

describe("skills validate reports the body warnings", () => {
  it("warns about the $N a deliberate skill will have substituted and about {{ args }} sent as written", async () => {
    // Prepare
    const fix = new TextEncoder().encode("---\nname: fix\ndescription: d\nargument-hint: '[issue]'\n---\nFix issue $0.\n");
    const deploy = new TextEncoder().encode("---\nname: deploy\ndescription: d\n---\nDeploy to {{ args.env }}.\n");
    const xlsx = new TextEncoder().encode("---\nname: xlsx\ndescription: d\n---\n| $5.00 | =B5*(1+$B$6) |\n");

    // Act
    const lines = async (name: string, bytes: Uint8Array) =>
      (await checkSkillDocument(`/nowhere/${name}/SKILL.md`, `${name}/SKILL.md`, bytes))
        .filter((l) => l.message.startsWith("body:"))
        .map((l) => `${l.line}: ${l.message.slice(0, 40)}`);

    // Assess
    expect(await lines("fix", fix)).toEqual(["6: body: $0 will be replaced by words of th"]);
    expect(await lines("deploy", deploy)).toEqual(["5: body: '{{ args… }}' reaches the model as"]);
    expect(await lines("xlsx", xlsx)).toEqual([]);
  });
});
