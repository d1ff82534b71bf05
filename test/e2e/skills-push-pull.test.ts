import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";
import { runSkillsCli } from "./support/skills-cli.js";
import type { CliRun } from "./support/skills-cli.js";

/**
 * `skills push` and `skills pull` as a user runs them (bin/skills.mjs in a child process, server
 * and token from SKILLS_URL / SKILLS_TOKEN) against the local stack, with the Agent Skills
 * fixture corpus. The child runs asynchronously: the stack answers from this very process.
 */

const TENANT = "acme";
const PROJECT = "interop";
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURES = join(repoRoot, "test/fixtures/agent-skills");
const BROKEN = join(repoRoot, "test/fixtures/agent-skills-broken");

let stack: LocalStack;
let token: string;

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({
    tenant: TENANT,
    login: "ada",
    projects: [PROJECT, "broken", "modes"],
    roles: [`project-admin:${PROJECT}`, "project-admin:broken", "project-admin:modes"],
  });
});

afterAll(async () => {
  await stack?.close();
});

const skills = (args: readonly string[]): Promise<CliRun> => runSkillsCli(args, { url: stack.httpUrl, token });

/** Every file below `dir`, relative, `/`-separated. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split("\\").join("/"))
    .sort();
}

/** The fixture skills: directory name → folder. */
function fixtureSkills(root: string): Map<string, string> {
  return new Map(
    filesBelow(root)
      .filter((f) => basename(f) === "SKILL.md")
      .map((f) => [basename(dirname(join(root, f))), dirname(join(root, f))]),
  );
}

/** The names under "refused" in the summary, each with its reason lines. */
function refusedOf(stdout: string): Map<string, string[]> {
  const refused = new Map<string, string[]>();
  const section = stdout.split("refused (nothing of these was uploaded):\n")[1]?.split(/\n(?=\S)/)[0] ?? "";
  let current: string[] | undefined;
  for (const line of section.split("\n")) {
    const skill = /^ {2}(\S+) \(.+\)$/.exec(line);
    if (skill?.[1]) refused.set(skill[1], (current = []));
    else if (line.startsWith("    ")) current?.push(line.trim());
  }
  return refused;
}

async function listLevel(project: string): Promise<{ path: string; etag: string; size: number }[]> {
  const response = await fetch(`${stack.httpUrl}/brain/${TENANT}/projects/${project}/documents?prefix=_vance/skills/`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { documents: { path: string; etag: string; size: number }[] }).documents;
}

describe("skills push / pull with the Agent Skills corpus", () => {
  it("pushes the corpus, then finds everything unchanged, then pulls back exactly the uploaded bytes", async () => {
    // Prepare
    const fixtures = fixtureSkills(FIXTURES);
    const pulled = mkdtempSync(join(tmpdir(), "skills-pull-e2e-"));

    // Act
    const first = await skills(["push", FIXTURES, "--to", `${TENANT}/${PROJECT}`]);
    const second = await skills(["push", FIXTURES, "--to", `${TENANT}/${PROJECT}`]);
    const pull = await skills(["pull", `${TENANT}/${PROJECT}`, pulled]);
    const stored = await listLevel(PROJECT);
    const effective = await fetch(`${stack.httpUrl}/brain/${TENANT}/skills/effective?projectId=${PROJECT}`, {
      headers: { authorization: `Bearer ${token}` },
    });

    // Assess
    // Every fixture is a skill other hosts load: all of them load here (deviations are warnings).
    const refused = refusedOf(first.stdout);
    const uploadedNames = [...fixtures.keys()].sort();
    expect(fixtures.size).toBeGreaterThanOrEqual(40);
    expect([...refused.keys()]).toEqual([]);
    expect(first.stderr).not.toContain("error:");
    expect(first.stdout).toContain(`pushed to ${TENANT}/${PROJECT}: ${fixtures.size} skill(s): ${uploadedNames.length} uploaded (`);
    expect(first.stdout).toContain(`, 0 unchanged, ${refused.size} refused, 0 failed`);
    expect(first.status).toBe(refused.size > 0 ? 1 : 0);

    const expectedPaths = uploadedNames
      .flatMap((name) => filesBelow(fixtures.get(name) ?? "").map((f) => `_vance/skills/${name}/${f}`))
      .sort();
    expect(stored.map((d) => d.path)).toEqual(expectedPaths);

    // Every uploaded skill loads: the server validated each SKILL.md with the same parser.
    const listed = ((await effective.json()) as { skills: { name: string; source: string }[] }).skills
      .filter((s) => s.source === "PROJECT")
      .map((s) => s.name);
    expect(listed.sort()).toEqual(uploadedNames);

    expect(second.stdout).toContain(`: 0 uploaded (0 file(s)), ${uploadedNames.length} unchanged, ${refused.size} refused, 0 failed`);
    expect(second.status).toBe(first.status);

    expect(pull.status).toBe(0);
    expect(pull.stdout).toContain(`pulled ${expectedPaths.length} file(s) of ${uploadedNames.length} skill(s)`);
    expect(filesBelow(pulled)).toEqual(expectedPaths.map((p) => p.slice("_vance/skills/".length)));
    for (const name of uploadedNames) {
      for (const file of filesBelow(fixtures.get(name) ?? "")) {
        const uploaded = readFileSync(join(fixtures.get(name) ?? "", file));
        expect(readFileSync(join(pulled, name, file)).equals(uploaded), `${name}/${file} byte for byte`).toBe(true);
        // Issue 32: one line per file, the digest a host or CI job compares with the service's.
        expect(pull.stdout).toContain(
          `sha256:${createHash("sha256").update(uploaded).digest("hex")} ${uploaded.byteLength} ${name}/${file}\n`,
        );
      }
    }
  });

  it("refuses every broken fixture and stores nothing of them", async () => {
    // Act
    const run = await skills(["push", BROKEN, "--to", `${TENANT}/broken`]);

    // Assess
    const refused = refusedOf(run.stdout);
    expect([...refused.keys()].sort()).toEqual(["-21risk-automation", "PDF-Tools", "bad-regex-trigger", "invalid-yaml", "pdf-tools"]);
    expect(refused.get("pdf-tools")).toContainEqual(expect.stringContaining("after case folding"));
    expect(refused.get("PDF-Tools")).toContainEqual(expect.stringContaining("after case folding"));
    expect(refused.get("bad-regex-trigger")).toContainEqual(expect.stringContaining("triggers[0].pattern"));
    expect(run.stdout).toContain("0 uploaded (0 file(s)), 0 unchanged, 5 refused, 0 failed");
    expect(run.status).toBe(1);
    expect(await listLevel("broken")).toEqual([]);
  });

  it("keeps executable bits through push, storage and pull, and re-uploads a file whose mode alone changed", async () => {
    // Prepare
    const source = mkdtempSync(join(tmpdir(), "skills-modes-"));
    const skill = join(source, "tooling");
    mkdirSync(join(skill, "scripts"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: tooling\ndescription: Runs the build scripts of this repository.\n---\nRun scripts/build.sh.\n",
    );
    writeFileSync(join(skill, "scripts/build.sh"), "#!/bin/sh\necho build\n");
    writeFileSync(join(skill, "scripts/notes.txt"), "not a script\n");
    chmodSync(join(skill, "scripts/build.sh"), 0o755);
    chmodSync(join(skill, "scripts/notes.txt"), 0o644);
    const pulled = mkdtempSync(join(tmpdir(), "skills-modes-pull-"));

    // Act
    const push = await skills(["push", source, "--to", `${TENANT}/modes`]);
    chmodSync(join(skill, "scripts/notes.txt"), 0o755);
    const again = await skills(["push", source, "--to", `${TENANT}/modes`]);
    const pull = await skills(["pull", `${TENANT}/modes`, pulled]);
    const stored = await fetch(`${stack.httpUrl}/brain/${TENANT}/projects/modes/documents/_vance/skills/tooling/scripts/build.sh`, {
      headers: { authorization: `Bearer ${token}` },
    });

    // Assess
    expect(push.status).toBe(0);
    expect(stored.headers.get("skills-file-mode")).toBe("755");
    // Only the file whose mode changed is sent again; its bytes did not change.
    expect(again.stdout).toContain(": 1 uploaded (1 file(s)), 0 unchanged");
    expect(pull.status).toBe(0);
    expect(statSync(join(pulled, "tooling/scripts/build.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(join(pulled, "tooling/scripts/notes.txt")).mode & 0o777).toBe(0o755);
    expect(statSync(join(pulled, "tooling/SKILL.md")).mode & 0o111).toBe(0);
  });

  it("a push with a member's (read-only) token says which role is missing and how to get it", async () => {
    // Prepare
    const source = mkdtempSync(join(tmpdir(), "skills-readonly-"));
    mkdirSync(join(source, "notes"));
    writeFileSync(join(source, "notes/SKILL.md"), "---\nname: notes\ndescription: Takes notes.\n---\nTake notes.\n");
    const member = await stack.token({ tenant: TENANT, login: "mia", projects: ["modes"], roles: [] });

    // Act
    const run = await runSkillsCli(["push", source, "--to", `${TENANT}/modes`], { url: stack.httpUrl, token: member });

    // Assess
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`).toContain(
      "403 FORBIDDEN: Not allowed to write documents of 'modes' as 'mia': writing needs the role 'project-admin:modes'",
    );
    expect(`${run.stdout}${run.stderr}`).toContain("--roles project-admin:modes");
  });
});
