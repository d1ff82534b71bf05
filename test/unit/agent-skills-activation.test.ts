import { describe, expect, it } from "vitest";
import { names, steeringHarness } from "../support/steering-harness.js";

/** API.md "Agent Skills documents": invocation flags, and refusals that say why. */
describe("explicit activation of Agent Skills documents", () => {
  it("activates a name + description skill with a display name under its directory name", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putFile(
      "_vance/skills/zoho_mail-automation/SKILL.md",
      "---\nname: Zoho Mail Automation\ndescription: Send mail with Zoho\n---\nUse the Zoho API.\n",
    );
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "zoho_mail-automation");

    // Assess
    expect(record.status).toBe("DONE");
    expect(names(await h.process(p.processId))).toEqual(["zoho_mail-automation"]);
  });

  it("refuses user-invocable: false with SKILL_NOT_ALLOWED saying only the model may activate it", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putFile(
      "_vance/skills/background/SKILL.md",
      "---\nname: background\ndescription: Context only\nuser-invocable: false\n---\nBackground.\n",
    );
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "background");

    // Assess
    expect(record).toMatchObject({
      status: "FAILED",
      error: {
        code: "SKILL_NOT_ALLOWED",
        message: "Skill 'background' is not user-invocable: it sets user-invocable: false, so only the model may activate it",
      },
    });
    expect(names(await h.process(p.processId))).toEqual([]);
  });

  it("answers SKILL_NOT_FOUND for a defective skill with the document, its level and why it was skipped", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putFile("_vance/skills/broken/SKILL.md", "---\ndescription: d\nlifecycle: forever\n---\n");
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "broken");

    // Assess
    expect(record.status).toBe("FAILED");
    expect(record.error?.code).toBe("SKILL_NOT_FOUND");
    expect(record.error?.message).toBe(
      "Skill 'broken' not found: its document _vance/skills/broken/SKILL.md (VANCE) was skipped: lifecycle: expected one of sticky, shot. GET …/skills/problems lists every skipped document",
    );
  });

  it("keeps the plain SKILL_NOT_FOUND message for a name nobody wrote", async () => {
    // Prepare
    const h = await steeringHarness();
    const p = await h.spawn("open");

    // Act
    const record = await h.activate(p.processId, "nobody");

    // Assess
    expect(record.error).toEqual({ code: "SKILL_NOT_FOUND", message: "Skill 'nobody' not found" });
  });

  it("refuses both skills of a level whose names differ only in case in listings, and reports each", async () => {
    // Prepare
    const h = await steeringHarness();
    await h.putFile("_vance/skills/PDF/SKILL.md", "---\nname: PDF\ndescription: upper\n---\n");
    await h.putFile("_vance/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: lower\n---\n");
    await h.putFile("_vance/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: a project's own\n---\n", "web");

    // Act
    const tenantOnly = await h.app.listEffective("acme", null);
    const withProject = await h.app.listEffective("acme", null, "web");
    const problems = await h.app.skillProblems("acme", null);

    // Assess
    expect(tenantOnly.map((s) => s.name)).toEqual([]);
    expect(withProject.map((s) => [s.name, s.description])).toEqual([["pdf", "a project's own"]]);
    expect(problems.filter((p) => p.severity === "error").map((p) => [p.name, p.message])).toEqual([
      [
        "PDF",
        "name 'PDF' collides with 'pdf' in the same level (names may not differ only in case: they are one folder on macOS and Windows); rename or remove one folder",
      ],
      [
        "pdf",
        "name 'pdf' collides with 'PDF' in the same level (names may not differ only in case: they are one folder on macOS and Windows); rename or remove one folder",
      ],
    ]);
  });
});
