import { describe, expect, it } from "vitest";
import { parseSkillDocument } from "../../shared/skills/skill-document-parser.js";
import { freeTemplateVariables, templateVariableWarnings } from "../../shared/skills/skill-template-lint.js";

const PATH = "_vance/skills/s/SKILL.md";
const lint = (text: string) => templateVariableWarnings(parseSkillDocument("s", text, PATH).definition!, PATH, text);

describe("template variables the render context never has", () => {
  it("finds free variables, not the ones a template defines itself or nunjucks provides", async () => {
    // Act
    const names = await freeTemplateVariables(
      "{% set x = 1 %}{{ x }}{% for item in args.words %}{{ item }}{{ loop.index }}{% endfor %}{% if tier == 'a' %}{{ user_id }}{% endif %}{{ range(3) }}{{ params.depth }}{% macro m(a) %}{{ a }}{{ b }}{% endmacro %}",
    );

    // Assess
    expect(names.sort()).toEqual(["args", "b", "params", "tier", "user_id"]);
  });

  it("warns at the line where a template body reads an unknown variable, suggesting template: false", async () => {
    // Act
    const warnings = await lint(
      "---\ntitle: T\nversion: 1.0.0\ndescription: d\n---\nHello\n{% if tier %}x{% endif %}\nWHERE id = {{user_id}}\n",
    );

    // Assess
    expect(warnings).toEqual([
      {
        path: PATH,
        line: 8,
        message:
          "body: the template reads 'user_id', which the render context never has (it renders empty); the context has args, engine, lang, mode, model, params, profile, provider, recipe, tier. If the text is meant for the model, set template: false",
        severity: "warning",
      },
    ]);
  });

  it("says nothing for a body that is not a template, or one that reads only known keys", async () => {
    // Act / Assess
    expect(await lint("---\nname: s\ndescription: d\n---\nWHERE id = {{user_id}}\n")).toEqual([]);
    expect(await lint("---\ntitle: T\nversion: 1.0.0\ndescription: d\n---\n{{ args.text }} {{ params.depth }} {{ tier }}\n")).toEqual([]);
  });

  it("checks action: too, and survives a template that does not compile", async () => {
    // Act / Assess
    expect((await lint("---\ntitle: T\nversion: 1.0.0\ndescription: d\naction: 'Go {{ target }}'\n---\n")).map((w) => w.message)).toEqual([
      expect.stringMatching(/^action: the template reads 'target'/),
    ]);
    expect(await lint("---\ntitle: T\nversion: 1.0.0\ndescription: d\n---\n{% if %}\n")).toEqual([]);
  });
});
