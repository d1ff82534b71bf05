import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { runSkillsCli } from "./support/skills-cli.js";

/**
 * Issue 12 "Done when", over the local stack: the Agent Skills corpus, pushed unchanged with
 * `skills push`, loads whole; its deviations are warnings with lines; three of its skills,
 * activated, reach the model byte for byte with their file listings; the model reads a linked
 * file with `skill_read_file`; `$ARGUMENTS` is substituted.
 */

const TENANT = "acme";
const PROJECT = "agents";
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURES = join(repoRoot, "test/fixtures/agent-skills");

let stack: LocalStack;
let api: ApiClient;
let token: string;

/** Every skill directory of the corpus (at any depth): name → folder. */
const corpus = (): Map<string, string> =>
  new Map(
    readdirSync(FIXTURES, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name === "SKILL.md")
      .map((entry) => [entry.parentPath.split(/[\\/]/).pop()!, entry.parentPath]),
  );

/** The body as the composer sends it: after the frontmatter, leading blank lines and trailing whitespace dropped. */
function bodyOf(file: string): string {
  const text = readFileSync(file, "utf8").replace(/\r\n/g, "\n");
  const end = text.indexOf("\n---", 3);
  return text
    .slice(text.indexOf("\n", end + 1) + 1)
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd();
}

const push = () => runSkillsCli(["push", FIXTURES, "--to", `${TENANT}/${PROJECT}`], { url: stack.httpUrl, token });

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "ada", projects: [PROJECT], roles: [`project-admin:${PROJECT}`] });
  api = new ApiClient(stack.httpUrl, token);
  const pushed = await push();
  expect(pushed.status, `${pushed.stdout}\n${pushed.stderr}`).toBe(0);
});

afterAll(async () => {
  await stack?.close();
});

describe("Agent Skills collections, pushed unchanged", () => {
  it("lists every skill of the corpus under its directory name, with the Agent Skills summary fields", async () => {
    // Act
    const listed = await api.effective(TENANT, PROJECT);

    // Assess
    expect(listed.status, listed.text).toBe(200);
    const project = listed.json.skills.filter((skill) => skill.source === "PROJECT");
    expect(project.map((skill) => skill.name).sort()).toEqual([...corpus().keys()].sort());
    const ahrefs = project.find((skill) => skill.name === "ahrefs-automation") as Record<string, unknown> | undefined;
    expect(ahrefs).toMatchObject({ title: "Ahrefs Automation", disableModelInvocation: false, userInvocable: true });
    expect(ahrefs).not.toHaveProperty("version");
    expect(project.find((skill) => skill.name === "manual-only")).toMatchObject({ disableModelInvocation: true });
    expect(project.find((skill) => skill.name === "background-knowledge")).toMatchObject({ userInvocable: false });
  });

  it("reports each deviation as a warning or, where it changes nothing, an info, with its line, and nothing as an error", async () => {
    // Act
    const problems = await api.problems(TENANT, PROJECT);

    // Assess
    expect(problems.status, problems.text).toBe(200);
    const found = problems.json.problems;
    const project = found.filter((problem) => problem.source === "PROJECT");
    expect(project.filter((problem) => problem.severity === "error")).toEqual([]);
    expect(project).toContainEqual(
      expect.objectContaining({
        name: "ahrefs-automation",
        line: 2,
        severity: "info",
        message: expect.stringMatching(/^title: is absent/),
      }),
    );
    expect(project.filter((problem) => !(typeof problem.line === "number" && problem.line >= 1))).toEqual([]);
    expect(project).toContainEqual(
      expect.objectContaining({
        name: "ahrefs-automation",
        line: 2,
        severity: "warning",
        message: expect.stringContaining("not the directory name: the skill is called 'ahrefs-automation'"),
      }),
    );
    expect(project).toContainEqual(
      expect.objectContaining({
        name: "model-pinned",
        severity: "warning",
        message: "field 'model' (Claude Code) is not used by this service (ignored)",
      }),
    );
  });

  it("composes three activated skills byte for byte with their file listings, reads a linked file, substitutes $ARGUMENTS", async () => {
    // Prepare
    const skills = corpus();
    const spawned = await api.spawn(TENANT, "interop", { recipe: "default", projectId: PROJECT });
    expect(spawned.status, spawned.text).toBe(201);
    const { processId } = spawned.json;
    for (const [skillName, args] of [
      ["sql-braces", undefined],
      ["pdf-forms", undefined],
      ["arguments-placeholder", "Good morning, *world*"],
    ] as const) {
      const activated = await api.steer(
        TENANT,
        processId,
        { command: "ACTIVATE", skillName, ...(args ? { args } : {}), requestId: `activate-${skillName}` },
        LANE_WAIT_SECONDS,
      );
      expect(activated.status, activated.text).toBe(200);
    }

    // Act
    const composed = await api.compose(TENANT, processId, { message: "go" }, LANE_WAIT_SECONDS);
    const read = await api.tool(TENANT, processId, "skill_read_file", { skill: "pdf-forms", path: "forms.md" });

    // Assess
    expect(composed.status, composed.text).toBe(200);
    const section = composed.json.result!.skillSection;
    const sql = bodyOf(join(skills.get("sql-braces")!, "SKILL.md"));
    expect(sql).toContain("{{user_id}}");
    expect(section).toContain(`--- Skill: sql-braces ---\nWrites parameterised SQL for a reporting database.\n\n${sql}`);
    expect(section).toContain(`--- Skill: pdf-forms ---\n`);
    expect(section).toContain(bodyOf(join(skills.get("pdf-forms")!, "SKILL.md")));
    const sizeOf = (file: string) => readFileSync(join(skills.get("pdf-forms")!, file)).byteLength;
    expect(section).toContain(
      [
        'Files of this skill — read a text file with skill_read_file {"skill":"pdf-forms","path":"<path>"}:',
        `- forms.md (${sizeOf("forms.md")} bytes)`,
        `- reference.md (${sizeOf("reference.md")} bytes)`,
        `- scripts/fill_form.py (${sizeOf("scripts/fill_form.py")} bytes)`,
      ].join("\n"),
    );
    expect(section).toContain("Translate the following into German, keeping the formatting: Good morning, *world*");
    expect(section).not.toContain("$ARGUMENTS");
    expect(composed.json.result!.tools).toContain("skill_read_file");
    expect(read.status, read.text).toBe(200);
    expect((read.json.result as { content: string }).content).toBe(readFileSync(join(skills.get("pdf-forms")!, "forms.md"), "utf8"));
  });

  it("refuses /skill for a user-invocable: false skill, saying only the model may activate it", async () => {
    // Prepare
    const spawned = await api.spawn(TENANT, "interop-hidden", { recipe: "default", projectId: PROJECT });
    const { processId } = spawned.json;

    // Act
    const activated = await api.steer(
      TENANT,
      processId,
      { command: "ACTIVATE", skillName: "background-knowledge", requestId: "activate-hidden" },
      LANE_WAIT_SECONDS,
    );

    // Assess
    expect(activated.status).toBe(403);
    expect(activated.json).toMatchObject({
      error: { code: "SKILL_NOT_ALLOWED", message: expect.stringContaining("only the model may activate it") },
    });
  });
});
