import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localClients } from "../../infra/local/local-resources.js";
import { ApiClient, errorOf, skillMd } from "./support/api-client.js";
import type { SkillSummary } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * API.md "Documents (the editor API)" and "Skills" against the real handlers on the local stack,
 * over HTTP only. Each test works in projects of its own, so the order of tests does not matter.
 */

const TENANT = "acme";
const SUMMARY_FIELDS = [
  "name",
  "title",
  "description",
  "version",
  "tags",
  "source",
  "lifecycle",
  "triggers",
  "arguments",
  "run",
  "disableModelInvocation",
  "userInvocable",
];
const DETAIL_FIELDS = [
  ...SUMMARY_FIELDS,
  "body",
  "tools",
  "manualPaths",
  "referenceDocs",
  "activate",
  "deactivate",
  "action",
  "scripts",
  "files",
];
const BUNDLED = ["code-guard", "code-review", "typescript-style"];

let stack: LocalStack;
/** tenant-admin: may write every project, `_tenant` included. */
let admin: ApiClient;
let alice: ApiClient;
let bob: ApiClient;

beforeAll(async () => {
  stack = await startLocalStack();
  const api = new ApiClient(stack.httpUrl);
  const projects = ["docs", "cascade", "sorting", "detail", "problems", "fallthrough"];
  admin = api.as(await stack.token({ tenant: TENANT, login: "admin", roles: ["tenant-admin"] }));
  alice = api.as(await stack.token({ tenant: TENANT, login: "alice", projects }));
  bob = api.as(await stack.token({ tenant: TENANT, login: "bob", projects }));
});

afterAll(async () => {
  await stack?.close();
});

const sorted = (values: readonly string[]): string[] => [...values].sort();
const names = (skills: readonly SkillSummary[]): string[] => skills.map((s) => s.name);
const simpleSkill = (title: string, extra = ""): string =>
  skillMd(`title: ${title}\ndescription: ${title} skill\nversion: 1.0.0\n${extra}`, `${title} body.\n`);

describe("documents", () => {
  it("saves a valid SKILL.md: 200 {path, etag, warnings} with the ETag header, and warns about a reference file not uploaded yet", async () => {
    // Prepare
    const document = simpleSkill("Ref", "referenceDocs:\n  - file: references/guide.md\n    title: Guide\n    loadMode: INLINE");

    // Act
    const first = await admin.putDocument(TENANT, "docs", "_vance/skills/ref/SKILL.md", document);
    await admin.putDocument(TENANT, "docs", "_vance/skills/ref/references/guide.md", "# Guide\n");
    const second = await admin.putDocument(TENANT, "docs", "_vance/skills/ref/SKILL.md", document);

    // Assess
    expect(first.status).toBe(200);
    expect(sorted(Object.keys(first.json))).toEqual(["etag", "path", "warnings"]);
    expect(first.json.path).toBe("_vance/skills/ref/SKILL.md");
    expect(first.headers.etag).toBe(`"${first.json.etag}"`);
    expect(first.json.warnings).toEqual([{ path: "_vance/skills/ref/SKILL.md", message: expect.stringContaining("references/guide.md") }]);
    expect(second.status).toBe(200);
    expect(second.json.warnings).toEqual([]);
  });

  it("refuses an invalid SKILL.md with 422 INVALID_DOCUMENT and problems[{path, line, message}], and saves nothing", async () => {
    // Prepare
    const path = "_vance/skills/broken/SKILL.md";
    const valid = simpleSkill("Broken");
    await admin.putDocument(TENANT, "docs", path, valid);
    const invalid = skillMd("title: Broken\nversion: not-a-version\nlifecycle: forever");

    // Act
    const response = await admin.putDocument(TENANT, "docs", path, invalid);
    const after = await admin.getDocument(TENANT, "docs", path);
    const unsaved = await admin.putDocument(TENANT, "docs", "_vance/skills/never/SKILL.md", invalid);
    const listing = await admin.listDocuments(TENANT, "docs", "_vance/skills/never/");

    // Assess
    expect(response.status).toBe(422);
    const error = errorOf(response);
    expect(error?.code).toBe("INVALID_DOCUMENT");
    expect(error?.message).toEqual(expect.any(String));
    expect(error?.problems?.length).toBeGreaterThanOrEqual(3);
    for (const problem of error?.problems ?? []) {
      expect(problem).toEqual({ path, line: expect.any(Number), message: expect.any(String) });
    }
    expect(error?.problems?.map((p) => p.message).join("\n")).toMatch(/description[\s\S]*version|version[\s\S]*description/);
    expect(after.text).toBe(valid);
    expect(unsaved.status).toBe(422);
    expect(listing.json.documents).toEqual([]);
  });

  it("refuses an invalid recipe with 422 INVALID_DOCUMENT and saves nothing", async () => {
    // Prepare
    const path = "_vance/recipes/bad.yaml";
    const recipe = "engine: ford\ndefaultActiveSkills: [code-review]\nallowedSkills: [typescript-style]\nlocked: maybe\n";

    // Act
    const response = await admin.putDocument(TENANT, "docs", path, recipe, "application/yaml");
    const lookup = await admin.getDocument(TENANT, "docs", path);

    // Assess
    expect(response.status).toBe(422);
    const error = errorOf(response);
    expect(error?.code).toBe("INVALID_DOCUMENT");
    expect(error?.problems).toEqual(expect.arrayContaining([{ path, line: 4, message: expect.stringContaining("locked") }]));
    for (const problem of error?.problems ?? []) expect(problem).toMatchObject({ path, message: expect.any(String) });
    expect(lookup.status).toBe(404);
    expect(errorOf(lookup)?.code).toBe("DOCUMENT_NOT_FOUND");
  });

  it("answers GET with the raw body and its ETag, whatever content type it was uploaded with", async () => {
    // Prepare
    const text = "plain notes\nwith {% template %} syntax kept as is\n";
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x7f]);
    const savedText = await admin.putDocument(TENANT, "docs", "notes/readme.txt", text, "application/x-anything");
    const savedBytes = await admin.putDocument(TENANT, "docs", "assets/blob.bin", bytes, "application/octet-stream");

    // Act
    const gotText = await admin.getDocument(TENANT, "docs", "notes/readme.txt");
    const gotBytes = await admin.getDocument(TENANT, "docs", "assets/blob.bin");

    // Assess
    expect(savedText.status).toBe(200);
    expect(gotText.status).toBe(200);
    expect(gotText.text).toBe(text);
    expect(gotText.headers.etag).toBe(`"${savedText.json.etag}"`);
    expect(savedBytes.status).toBe(200);
    expect(gotBytes.headers.etag).toBe(`"${savedBytes.json.etag}"`);
    expect(gotBytes.body.equals(bytes)).toBe(true);
  });

  it("answers 404 DOCUMENT_NOT_FOUND for GET and DELETE of a document that does not exist", async () => {
    // Act
    const get = await admin.getDocument(TENANT, "docs", "nothing/here.md");
    const del = await admin.deleteDocument(TENANT, "docs", "nothing/here.md");

    // Assess
    expect(get.status).toBe(404);
    expect(get.json).toEqual({ error: { code: "DOCUMENT_NOT_FOUND", message: expect.any(String) } });
    expect(del.status).toBe(404);
    expect(del.json).toEqual({ error: { code: "DOCUMENT_NOT_FOUND", message: expect.any(String) } });
  });

  it("lists {documents: [{path, etag, size}]} below a prefix, with paths relative to the project", async () => {
    // Prepare
    const a = await admin.putDocument(TENANT, "docs", "listing/a.md", "aaa");
    const b = await admin.putDocument(TENANT, "docs", "listing/sub/b.md", "bbbbbb");
    await admin.putDocument(TENANT, "docs", "listing-other/c.md", "c");

    // Act
    const listing = await admin.listDocuments(TENANT, "docs", "listing/");

    // Assess
    expect(listing.status).toBe(200);
    expect(Object.keys(listing.json)).toEqual(["documents"]);
    expect(listing.json.documents).toEqual([
      { path: "listing/a.md", etag: a.json.etag, size: 3 },
      { path: "listing/sub/b.md", etag: b.json.etag, size: 6 },
    ]);
  });

  it("DELETE answers 204 and the next lookup falls through to the next outer level", async () => {
    // Prepare
    const path = "_vance/skills/typescript-style/SKILL.md";
    await admin.putDocument(TENANT, "_tenant", path, simpleSkill("Tenant Style"));
    await admin.putDocument(TENANT, "fallthrough", path, simpleSkill("Project Style"));
    const before = await alice.effectiveSkill(TENANT, "typescript-style", "fallthrough");

    // Act
    const deleteProject = await admin.deleteDocument(TENANT, "fallthrough", path);
    const afterProject = await alice.effectiveSkill(TENANT, "typescript-style", "fallthrough");
    const deleteTenant = await admin.deleteDocument(TENANT, "_tenant", path);
    const afterTenant = await alice.effectiveSkill(TENANT, "typescript-style", "fallthrough");

    // Assess
    expect(before.json).toMatchObject({ title: "Project Style", source: "PROJECT" });
    expect(deleteProject.status).toBe(204);
    expect(deleteProject.text).toBe("");
    expect(afterProject.json).toMatchObject({ title: "Tenant Style", source: "VANCE" });
    expect(deleteTenant.status).toBe(204);
    expect(afterTenant.json).toMatchObject({ title: "TypeScript Style", source: "RESOURCE" });
  });
});

describe("skills", () => {
  it("lists effective skills with exactly the SkillSummary fields, sorted by name in code-point order", async () => {
    // Prepare
    const added = ["zz-last", "a1", "a-b", "ab", "b0", "b-0"];
    for (const name of added) await admin.putDocument(TENANT, "sorting", `_vance/skills/${name}/SKILL.md`, simpleSkill(name));

    // Act
    const response = await alice.effective(TENANT, "sorting");

    // Assess
    expect(response.status).toBe(200);
    expect(Object.keys(response.json)).toEqual(["skills"]);
    const listed = names(response.json.skills);
    // Code-point order, not locale order: '-' (U+002D) < digits < letters.
    expect(listed.filter((name) => added.includes(name))).toEqual(["a-b", "a1", "ab", "b-0", "b0", "zz-last"]);
    expect(listed).toEqual(expect.arrayContaining(BUNDLED));
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const skill of response.json.skills) expect(sorted(Object.keys(skill))).toEqual(sorted(SUMMARY_FIELDS));
    expect(response.json.skills.find((s) => s.name === "code-review")).toEqual({
      name: "code-review",
      title: "Code Review",
      description: "Use when user asks to review PRs, diffs, or code changes",
      version: "1.0.0",
      tags: ["review", "quality"],
      source: "RESOURCE",
      lifecycle: "sticky",
      triggers: expect.arrayContaining([{ type: "KEYWORDS", keywords: ["review", "diff", "PR", "pull request"] }]),
      arguments: false,
      run: { target: "inline" },
      disableModelInvocation: false,
      userInvocable: true,
    });
  });

  it("dedups the cascade by name with the inner level winning (USER > PROJECT > _tenant > bundled) and removes disabled skills", async () => {
    // Prepare
    const path = (name: string) => `_vance/skills/${name}/SKILL.md`;
    await admin.putDocument(TENANT, "_tenant", path("tenant-wide"), simpleSkill("Tenant Wide"));
    await admin.putDocument(TENANT, "_tenant", path("layered"), simpleSkill("Layered Tenant"));
    await admin.putDocument(TENANT, "cascade", path("layered"), simpleSkill("Layered Project"));
    await admin.putDocument(TENANT, "cascade", path("code-review"), simpleSkill("Project Review"));
    await alice.putDocument(TENANT, "_user_alice", path("code-review"), simpleSkill("Alice Review"));
    await admin.putDocument(TENANT, "cascade", path("code-guard"), "---\nenabled: false\n---\n");

    // Act
    const forAlice = await alice.effective(TENANT, "cascade");
    const forBob = await bob.effective(TENANT, "cascade");
    const disabled = await alice.effectiveSkill(TENANT, "code-guard", "cascade");
    const elsewhere = await alice.effective(TENANT, "docs");

    // Assess
    const pick = (skills: SkillSummary[], name: string) =>
      skills.filter((s) => s.name === name).map((s) => ({ title: s.title, source: s.source }));
    expect(pick(forAlice.json.skills, "code-review")).toEqual([{ title: "Alice Review", source: "USER" }]);
    expect(pick(forBob.json.skills, "code-review")).toEqual([{ title: "Project Review", source: "PROJECT" }]);
    expect(pick(forBob.json.skills, "layered")).toEqual([{ title: "Layered Project", source: "PROJECT" }]);
    expect(pick(forBob.json.skills, "tenant-wide")).toEqual([{ title: "Tenant Wide", source: "VANCE" }]);
    expect(names(forBob.json.skills)).not.toContain("code-guard");
    expect(disabled.status).toBe(404);
    expect(disabled.json).toEqual({ error: { code: "SKILL_NOT_FOUND", message: expect.any(String) } });
    expect(pick(elsewhere.json.skills, "layered")).toEqual([{ title: "Layered Tenant", source: "VANCE" }]);
    expect(names(elsewhere.json.skills)).toContain("code-guard");
  });

  it("resolves one skill with the summary plus body, tools, manualPaths, referenceDocs (INLINE with content), activate, deactivate, action and scripts", async () => {
    // Prepare
    const frontmatter = [
      "title: Full",
      "description: Every field",
      "version: 2.1.0",
      "tags: [demo]",
      "tools: [file_read, shell_exec]",
      "manualPaths: [manuals/full]",
      "referenceDocs:",
      "  - file: references/inline.md",
      "    title: Inline Doc",
      "    loadMode: INLINE",
      "  - file: references/later.md",
      "    title: Later Doc",
      "    summary: read when needed",
      "    loadMode: ON_DEMAND",
      "activate: [mode.set focused]",
      "deactivate: [mode.set default]",
      "action: Start now.",
      "arguments:",
      "  - name: scope",
      "    type: string",
      "scripts:",
      "  - name: count",
      "    file: scripts/count.js",
    ].join("\n");
    await admin.putDocument(TENANT, "detail", "_vance/skills/full/references/inline.md", "Inline {% raw %} content\n");
    await admin.putDocument(TENANT, "detail", "_vance/skills/full/references/later.md", "Later content\n");
    await admin.putDocument(TENANT, "detail", "_vance/skills/full/scripts/count.js", "1 + 1");
    const saved = await admin.putDocument(
      TENANT,
      "detail",
      "_vance/skills/full/SKILL.md",
      skillMd(frontmatter, "Full body {{ args.scope }}\n"),
    );

    // Act
    const response = await alice.effectiveSkill(TENANT, "full", "detail");

    // Assess
    expect(saved.status).toBe(200);
    expect(response.status).toBe(200);
    expect(sorted(Object.keys(response.json))).toEqual(sorted(DETAIL_FIELDS));
    expect(response.json).toMatchObject({
      name: "full",
      title: "Full",
      version: "2.1.0",
      source: "PROJECT",
      body: "Full body {{ args.scope }}",
      tools: ["file_read", "shell_exec"],
      manualPaths: ["manuals/full"],
      activate: ["mode.set focused"],
      deactivate: ["mode.set default"],
      action: "Start now.",
      arguments: [{ name: "scope", type: "string", required: false }],
      scripts: [expect.objectContaining({ name: "count", file: "scripts/count.js" })],
    });
    expect(response.json.referenceDocs).toEqual([
      { title: "Inline Doc", file: "references/inline.md", loadMode: "INLINE", content: "Inline {% raw %} content\n" },
      { title: "Later Doc", file: "references/later.md", loadMode: "ON_DEMAND", summary: "read when needed" },
    ]);
  });

  it("answers 404 SKILL_NOT_FOUND for a name no level provides", async () => {
    // Act
    const response = await alice.effectiveSkill(TENANT, "no-such-skill", "detail");

    // Assess
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ error: { code: "SKILL_NOT_FOUND", message: expect.any(String) } });
  });

  it("lists the skill documents the cascade skipped, with {name, source, path, message}", async () => {
    // Prepare: PUT refuses defective skills, so this one is written the way an older release or a
    // bulk import would have left it: straight into the bucket.
    const clients = localClients(stack.endpoints, stack.region, stack.credentials);
    try {
      await clients.s3.send(
        new PutObjectCommand({
          Bucket: stack.resources.bucketName,
          Key: `tenants/${TENANT}/projects/problems/_vance/skills/defective/SKILL.md`,
          Body: "---\ntitle: [unclosed\n---\n",
        }),
      );
    } finally {
      clients.destroy();
    }
    await admin.putDocument(TENANT, "problems", "_vance/skills/fine/SKILL.md", simpleSkill("Fine"));

    // Act
    const problems = await alice.problems(TENANT, "problems");
    const listing = await alice.effective(TENANT, "problems");
    const lookup = await alice.effectiveSkill(TENANT, "defective", "problems");

    // Assess
    expect(problems.status).toBe(200);
    expect(Object.keys(problems.json)).toEqual(["problems"]);
    // Info entries name documents an inner level hides (alice's own code-review hides the bundled one): not skipped documents.
    const skipped = problems.json.problems.filter((p) => p.severity !== "info");
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({
      name: "defective",
      source: "PROJECT",
      path: "_vance/skills/defective/SKILL.md",
      message: expect.any(String),
    });
    expect(names(listing.json.skills)).toEqual(expect.arrayContaining(["fine", ...BUNDLED]));
    expect(names(listing.json.skills)).not.toContain("defective");
    expect(lookup.status).toBe(404);
  });
});
