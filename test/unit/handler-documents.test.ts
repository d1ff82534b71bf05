import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_BYTES } from "../../shared/app/document-limits.js";
import { IDENTITIES } from "../fixtures/events/http-handler-event.js";
import { handlerHarness, PROJECT, TENANT } from "../support/handler-harness.js";
import { skillMd } from "../support/skill-fixtures.js";

const docs = (project: string, path = ""): string => `/brain/acme/projects/${project}/documents${path === "" ? "" : `/${path}`}`;
const SKILL = "_vance/skills/reviewer/SKILL.md";

describe("PUT …/documents/{path}", () => {
  it("saves the raw body and answers 200 {path, etag, warnings}", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs(PROJECT, SKILL),
      as: IDENTITIES.padmin,
      headers: { "content-type": "text/markdown" },
      body: skillMd(),
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ path: SKILL, etag: expect.stringMatching(/^[0-9a-f]{32}$/), warnings: [] });
    expect(reply.headers.etag).toBe(`"${reply.json.etag}"`);
    expect(new TextDecoder().decode((await h.documents.get(TENANT, PROJECT, SKILL))!.body)).toBe(skillMd());
  });

  it("answers 422 INVALID_DOCUMENT with problems [{path, line?, message}] and saves nothing", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs("_tenant", SKILL),
      as: IDENTITIES.admin,
      body: "---\ntitle: T\ndescription: D\nversion: nope\nlifecycle: forever\n---\nBody\n",
    });

    // Assess
    expect(reply.status).toBe(422);
    expect(reply.json.error.code).toBe("INVALID_DOCUMENT");
    expect(reply.json.error.problems.length).toBeGreaterThanOrEqual(1);
    for (const problem of reply.json.error.problems) {
      expect(Object.keys(problem).every((k) => ["path", "line", "message"].includes(k))).toBe(true);
      expect(problem.path).toBe(SKILL);
    }
    expect(await h.documents.get(TENANT, "_tenant", SKILL)).toBeUndefined();
  });

  it("answers warnings for a referenced file that is not there yet, and saves", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs("_user_alice", SKILL),
      body: skillMd({ extra: "referenceDocs:\n  - { title: C, file: references/c.md }" }),
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.warnings).toEqual([{ path: SKILL, message: expect.stringMatching(/references\/c.md/) }]);
  });

  it("accepts a binary body of any content type (base64 from API Gateway) and serves it back byte for byte", async () => {
    // Prepare
    const h = await handlerHarness();
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    await h.call("documents", {
      method: "PUT",
      path: docs(PROJECT, "assets/logo.png"),
      as: IDENTITIES.padmin,
      headers: { "content-type": "image/png" },
      body: bytes,
      base64: true,
    });

    // Act
    const reply = await h.call("documents", { method: "GET", path: docs(PROJECT, "assets/logo.png") });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("image/png");
    expect([...reply.raw]).toEqual([...bytes]);
  });

  it("answers 400 for a body above the document limit", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs("_user_alice", "big.txt"),
      body: "x".repeat(MAX_DOCUMENT_BYTES + 1),
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(await h.documents.get(TENANT, "_user_alice", "big.txt")).toBeUndefined();
  });

  it("answers a restore of a version above the document limit (written around the API) as it answers such a PUT: 400, nothing written", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.documents.put(TENANT, "_user_alice", "big.txt", "x".repeat(MAX_DOCUMENT_BYTES + 1));
    await h.documents.put(TENANT, "_user_alice", "big.txt", "small");
    const [, big] = (await h.documents.versions(TENANT, "_user_alice", "big.txt"))!;

    // Act
    const put = await h.call("documents", {
      method: "PUT",
      path: docs("_user_alice", "big.txt"),
      body: "x".repeat(MAX_DOCUMENT_BYTES + 1),
    });
    const restore = await h.call("documents", {
      method: "POST",
      path: docs("_user_alice", "big.txt:restore"),
      body: JSON.stringify({ versionId: big!.versionId }),
    });

    // Assess
    expect(restore.status).toBe(put.status);
    expect(restore.json.error.code).toBe(put.json.error.code);
    expect(restore.json.error.code).toBe("INVALID_REQUEST");
    expect(new TextDecoder().decode((await h.documents.get(TENANT, "_user_alice", "big.txt"))!.body)).toBe("small");
  });
});

describe("hidden path segments under _vance/ (issue 28: `skills pull` writes them into a member's folder)", () => {
  it.each([
    "_vance/skills/.git/config",
    "_vance/skills/.git/HEAD",
    "_vance/skills/.vscode/tasks.json",
    "_vance/skills/.github/workflows/ci.yml",
    "_vance/skills/alpha/.env",
    "_vance/.hidden",
  ])("PUT %s is 400 INVALID_REQUEST naming the segment, and nothing is written", async (path) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs(PROJECT, path),
      as: IDENTITIES.padmin,
      body: "[core]\n\tfsmonitor = touch /tmp/pwned\n",
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
    expect(reply.json.error.message).toContain("hidden segment");
    expect(await h.documents.get(TENANT, PROJECT, path)).toBeUndefined();
  });

  it("refuses a restore onto a hidden path too, while such a document stored before stays readable and deletable", async () => {
    // Prepare: written around the API (before this rule existed)
    const h = await handlerHarness();
    const path = "_vance/skills/.git/config";
    await h.documents.put(TENANT, "_user_alice", path, "old");
    await h.documents.put(TENANT, "_user_alice", path, "new");
    const [, old] = (await h.documents.versions(TENANT, "_user_alice", path))!;

    // Act
    const restore = await h.call("documents", {
      method: "POST",
      path: docs("_user_alice", `${path}:restore`),
      body: JSON.stringify({ versionId: old!.versionId }),
    });
    const read = await h.call("documents", { method: "GET", path: docs("_user_alice", path) });
    const removed = await h.call("documents", { method: "DELETE", path: docs("_user_alice", path) });

    // Assess
    expect(restore.status).toBe(400);
    expect(restore.json.error.message).toContain("hidden segment");
    expect(read.status).toBe(200);
    expect(removed.status).toBe(204);
  });

  it("still accepts hidden names outside _vance/ and dots inside names under it", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const outside = await h.call("documents", { method: "PUT", path: docs("_user_alice", ".notes/todo.md"), body: "x" });
    const dotted = await h.call("documents", { method: "PUT", path: docs("_user_alice", "_vance/skills/a.b/notes.v1.md"), body: "x" });

    // Assess
    expect(outside.status).toBe(200);
    expect(dotted.status).toBe(200);
  });
});

describe("documents: file modes (Skills-File-Mode)", () => {
  it("keeps the mode a PUT gives, answers it on GET and keeps it through a restore", async () => {
    // Prepare
    const h = await handlerHarness();
    const path = docs(PROJECT, "_vance/skills/reviewer/scripts/run.sh");
    await h.call("documents", {
      method: "PUT",
      path,
      as: IDENTITIES.padmin,
      headers: { "skills-file-mode": "755" },
      body: "#!/bin/sh\necho 1\n",
    });
    const [first] = (await h.documents.versions(TENANT, PROJECT, "_vance/skills/reviewer/scripts/run.sh"))!;
    await h.call("documents", { method: "PUT", path, as: IDENTITIES.padmin, body: "#!/bin/sh\necho 2\n" });

    // Act
    const plain = await h.call("documents", { method: "GET", path, as: IDENTITIES.padmin });
    await h.call("documents", {
      method: "POST",
      path: `${path}:restore`,
      as: IDENTITIES.padmin,
      body: JSON.stringify({ versionId: first!.versionId }),
    });
    const restored = await h.call("documents", { method: "GET", path, as: IDENTITIES.padmin });

    // Assess
    expect(plain.status).toBe(200);
    expect(plain.headers["skills-file-mode"]).toBeUndefined();
    expect(restored.headers["skills-file-mode"]).toBe("755");
  });

  it("answers 400 INVALID_REQUEST for a mode that is not three octal digits, and saves nothing", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: docs(PROJECT, "_vance/skills/reviewer/run.sh"),
      as: IDENTITIES.padmin,
      headers: { "skills-file-mode": "rwx" },
      body: "x",
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("three octal digits") });
    expect(await h.documents.get(TENANT, PROJECT, "_vance/skills/reviewer/run.sh")).toBeUndefined();
  });
});

describe("GET and DELETE …/documents/{path}", () => {
  it("answers the raw body with its ETag, 304 for a matching If-None-Match, 204 on delete, then 404", async () => {
    // Prepare
    const h = await handlerHarness();
    const put = await h.call("documents", { method: "PUT", path: docs("_tenant", SKILL), as: IDENTITIES.admin, body: skillMd() });

    // Act
    const got = await h.call("documents", { method: "GET", path: docs("_tenant", SKILL), as: IDENTITIES.mallory });
    const unchanged = await h.call("documents", {
      method: "GET",
      path: docs("_tenant", SKILL),
      headers: { "if-none-match": `"${put.json.etag}"` },
    });
    const deleted = await h.call("documents", { method: "DELETE", path: docs("_tenant", SKILL), as: IDENTITIES.admin });
    const gone = await h.call("documents", { method: "GET", path: docs("_tenant", SKILL) });
    const deletedAgain = await h.call("documents", { method: "DELETE", path: docs("_tenant", SKILL), as: IDENTITIES.admin });

    // Assess
    expect(got.status).toBe(200);
    expect(got.raw.toString("utf8")).toBe(skillMd());
    expect(got.headers.etag).toBe(`"${put.json.etag}"`);
    expect(got.headers["content-type"]).toMatch(/^text\/markdown/);
    expect(unchanged.status).toBe(304);
    expect(unchanged.raw.length).toBe(0);
    expect(deleted.status).toBe(204);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ error: { code: "DOCUMENT_NOT_FOUND", message: expect.any(String) } });
    expect(deletedAgain.status).toBe(404);
  });

  it("falls through to the next outer level after a delete", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("reviewer", { title: "Tenant" });
    await h.putSkill("reviewer", { title: "Project" }, PROJECT);

    // Act
    await h.call("documents", { method: "DELETE", path: docs(PROJECT, SKILL), as: IDENTITIES.padmin });
    const skill = await h.call("skills", { method: "GET", path: `/brain/acme/skills/effective/reviewer?projectId=${PROJECT}` });

    // Assess
    expect(skill.json).toMatchObject({ title: "Tenant", source: "VANCE" });
  });
});

describe("GET …/documents?prefix=", () => {
  it("lists {path, etag, size} relative to the project, filtered by prefix", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("reviewer", {}, PROJECT);
    await h.documents.put(TENANT, PROJECT, "notes/todo.md", "todo");

    // Act
    const all = await h.call("documents", { method: "GET", path: docs(PROJECT) });
    const skills = await h.call("documents", { method: "GET", path: `${docs(PROJECT)}?prefix=_vance/skills/` });

    // Assess
    expect(all.json.documents.map((d: { path: string }) => d.path)).toEqual([SKILL, "notes/todo.md"]);
    expect(skills.json).toEqual({ documents: [{ path: SKILL, etag: expect.any(String), size: expect.any(Number) }] });
  });

  it("answers 400 for a prefix with a dot segment", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", { method: "GET", path: `${docs(PROJECT)}?prefix=../_tenant/` });

    // Assess
    expect(reply.status).toBe(400);
  });
});

describe("documents: authorization over HTTP", () => {
  it.each([
    ["a member writing its project (403)", IDENTITIES.alice, "PUT", docs(PROJECT, "a.md"), 403],
    ["a non-admin writing _tenant (403)", IDENTITIES.padmin, "PUT", docs("_tenant", "a.md"), 403],
    ["a non-admin deleting in _tenant (403)", IDENTITIES.alice, "DELETE", docs("_tenant", "a.md"), 403],
    ["a user reading another user's document (403)", IDENTITIES.bob, "GET", docs("_user_alice", "a.md"), 403],
    ["a user writing another user's documents (403)", IDENTITIES.bob, "PUT", docs("_user_alice", "a.md"), 403],
    ["a non-member listing the project (403)", IDENTITIES.mallory, "GET", docs(PROJECT), 403],
    ["another tenant reading (403)", IDENTITIES.eve, "GET", docs("_tenant", "a.md"), 403],
    ["another tenant writing under its own path into this tenant (403)", IDENTITIES.eve, "PUT", docs("_tenant", "a.md"), 403],
  ])("refuses %s and changes nothing", async (_label, as, method, path, status) => {
    // Prepare
    const h = await handlerHarness();
    await h.documents.put(TENANT, "_tenant", "a.md", "tenant");
    await h.documents.put(TENANT, "_user_alice", "a.md", "alice's");

    // Act
    const reply = await h.call("documents", { method, path, as, body: method === "PUT" ? "changed" : undefined });

    // Assess
    expect(reply.status).toBe(status);
    expect(reply.json.error.code).toBe("FORBIDDEN");
    expect(new TextDecoder().decode((await h.documents.get(TENANT, "_tenant", "a.md"))!.body)).toBe("tenant");
    expect(new TextDecoder().decode((await h.documents.get(TENANT, "_user_alice", "a.md"))!.body)).toBe("alice's");
    expect(await h.documents.get(TENANT, PROJECT, "a.md")).toBeUndefined();
  });

  it("writes into the caller's own tenant only: a globex admin's PUT under /brain/globex lands in globex", async () => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", {
      method: "PUT",
      path: "/brain/globex/projects/_tenant/documents/a.md",
      as: IDENTITIES.eve,
      body: "globex",
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(await h.documents.get("globex", "_tenant", "a.md")).toBeDefined();
    expect(await h.documents.get(TENANT, "_tenant", "a.md")).toBeUndefined();
  });

  it.each([
    ["..", `${docs("_user_alice")}/../../_tenant/documents/a.md`],
    ["%2e%2e", `${docs("_user_alice")}/%2e%2e/x.md`],
    ["%252e%252e", `${docs("_user_alice")}/%252e%252e/x.md`],
    [".%2e", `${docs("_user_alice")}/.%2e/x.md`],
    ["a backslash", `${docs("_user_alice")}/a\\..\\x.md`],
    ["an encoded backslash", `${docs("_user_alice")}/a%5c..%5cx.md`],
    ["an encoded slash", `${docs("_user_alice")}/a%2f..%2fx.md`],
    ["a fullwidth dot pair", `${docs("_user_alice")}/%EF%BC%8E%EF%BC%8E/x.md`],
  ])("answers 400 for a document path with %s and writes nothing", async (_label, path) => {
    // Prepare
    const h = await handlerHarness();

    // Act
    const reply = await h.call("documents", { method: "PUT", path, body: "x" });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
    expect(await h.documents.list(TENANT, "_user_alice", "")).toEqual([]);
    expect(await h.documents.list(TENANT, "_tenant", "")).toEqual(expect.not.arrayContaining([expect.objectContaining({ path: "a.md" })]));
  });
});

describe("GET …/documents/{path}: served so a browser never renders a stored document in the API's origin", () => {
  it.each([
    ["page.html", "text/html"],
    ["page.html", "text/html; charset=utf-8"],
    ["logo.svg", "image/svg+xml"],
    ["app.js", "text/javascript"],
    ["app.mjs", "application/javascript"],
    ["feed.xml", "application/xml"],
    ["doc.xhtml", "application/xhtml+xml"],
    ["logo.png", "image/png"],
    ["blob.bin", "application/octet-stream"],
    ["notes.md", "text/markdown, text/html"],
  ])("%s stored as %s is an attachment with nosniff and a sandboxing CSP", async (name, contentType) => {
    // Prepare
    const h = await handlerHarness();
    await h.call("documents", {
      method: "PUT",
      path: docs(PROJECT, `assets/${name}`),
      as: IDENTITIES.padmin,
      headers: { "content-type": contentType },
      body: "<script>alert(1)</script>",
    });

    // Act
    const reply = await h.call("documents", { method: "GET", path: docs(PROJECT, `assets/${name}`) });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.headers["content-disposition"]).toBe(`attachment; filename="${name}"; filename*=UTF-8''${name}`);
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect(reply.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
  });

  it.each([
    ["_vance/skills/reviewer/SKILL.md", "text/markdown"],
    ["notes/readme.txt", "text/plain; charset=utf-8"],
    ["_vance/recipes/r.yaml", "application/yaml"],
    ["data/x.json", "application/json; charset=utf-8"],
    ["data/x.csv", "text/csv"],
  ])("%s as %s is text: served inline, still nosniff", async (path, contentType) => {
    // Prepare
    const h = await handlerHarness();
    await h.documents.put(TENANT, PROJECT, path, '"text"\n', contentType);

    // Act
    const reply = await h.call("documents", { method: "GET", path: docs(PROJECT, path) });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.headers["content-disposition"]).toBeUndefined();
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("names a download by a header-safe file name, the original one percent-encoded", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.documents.put(TENANT, PROJECT, "assets/q+1@2024.pdf", "%PDF", "application/pdf");

    // Act
    const reply = await h.call("documents", { method: "GET", path: docs(PROJECT, "assets/q%2B1%402024.pdf") });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.headers["content-disposition"]).toBe(`attachment; filename="q_1_2024.pdf"; filename*=UTF-8''q%2B1%402024.pdf`);
  });

  it("keeps the headers on a 304", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.documents.put(TENANT, PROJECT, "assets/page.html", "<p>", "text/html");
    const first = await h.call("documents", { method: "GET", path: docs(PROJECT, "assets/page.html") });

    // Act
    const reply = await h.call("documents", {
      method: "GET",
      path: docs(PROJECT, "assets/page.html"),
      headers: { "if-none-match": String(first.headers.etag) },
    });

    // Assess
    expect(reply.status).toBe(304);
    expect(reply.headers["content-disposition"]).toMatch(/^attachment;/);
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
  });
});
