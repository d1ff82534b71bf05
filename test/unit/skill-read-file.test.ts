import { describe, expect, it } from "vitest";
import { handlerHarness, PROJECT, TENANT } from "../support/handler-harness.js";
import type { HandlerHarness, Reply } from "../support/handler-harness.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe]);

interface Rig {
  h: HandlerHarness;
  read(args: Record<string, unknown>): Promise<Reply>;
}

/**
 * A process of project proj1 with skill `forms` active. `forms` lives in the PROJECT layer; the
 * tenant layer has a `forms` of its own (shadowed) with a file only it holds, and skill `other`
 * (not active) has a secret file.
 */
async function rig(files: Record<string, Uint8Array | string> = {}): Promise<Rig> {
  const h = await handlerHarness();
  await h.putSkill("forms", { body: "Fill the form, see references/FORMS.md" }, PROJECT);
  const own: Record<string, Uint8Array | string> = {
    "references/forms.md": "# Forms\nUse field A.",
    "assets/logo.png": PNG,
    ...files,
  };
  for (const [path, body] of Object.entries(own)) await h.documents.put(TENANT, PROJECT, `_vance/skills/forms/${path}`, body);
  await h.putSkill("forms", { body: "tenant forms" }, "_tenant");
  await h.documents.put(TENANT, "_tenant", "_vance/skills/forms/references/tenant-only.md", "TENANT-ONLY SECRET");
  await h.putSkill("other", { body: "other" }, PROJECT);
  await h.documents.put(TENANT, PROJECT, "_vance/skills/other/notes.md", "OTHER SKILL SECRET");
  const process = await h.spawn("open");
  const activated = await h.call("steer", {
    method: "POST",
    path: `/brain/acme/processes/${process.processId}/skill`,
    headers: { prefer: "wait=5" },
    body: { command: "ACTIVATE", skillName: "forms" },
  });
  expect(activated.status).toBe(200);
  const path = `/brain/acme/processes/${process.processId}/tools/skill_read_file`;
  return { h, read: (args) => h.call("tools", { method: "POST", path, body: { args } }) };
}

describe("skill_read_file", () => {
  it("reads a text file of an active skill from the layer of its SKILL.md", async () => {
    // Prepare
    const { read } = await rig();

    // Act
    const reply = await read({ skill: "forms", path: "references/forms.md" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ result: { path: "references/forms.md", content: "# Forms\nUse field A.", size: 20 } });
  });

  it("resolves a path that matches exactly one file ignoring case to that file", async () => {
    // Prepare
    const { read } = await rig();

    // Act
    const reply = await read({ skill: "forms", path: "References/FORMS.md" });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.json.result.path).toBe("references/forms.md");
    expect(reply.json.result.content).toBe("# Forms\nUse field A.");
  });

  it("refuses a path that matches two files ignoring case as ambiguous, and prefers an exact match", async () => {
    // Prepare
    const { read } = await rig({ "Notes.md": "upper", "notes.md": "lower" });

    // Act
    const ambiguous = await read({ skill: "forms", path: "NOTES.md" });
    const exact = await read({ skill: "forms", path: "Notes.md" });

    // Assess
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.json.error.code).toBe("INVALID_REQUEST");
    expect(ambiguous.json.error.message).toContain("ambiguous");
    expect(exact.json.result.content).toBe("upper");
  });

  it.each([
    ["a parent step", "../x"],
    ["an encoded parent step", "%2e%2e/x"],
    ["an absolute path", "/etc/passwd"],
    ["a backslash", "a\\b"],
    ["a traversal into another skill", "references/../../other/notes.md"],
    ["a traversal to another skill's SKILL.md", "references/../../other-skill/SKILL.md"],
    ["a NUL byte", "references/forms.md\u0000.png"],
    ["a path longer than 1024 characters", `${"a/".repeat(600)}x.md`],
    ["a segment longer than 128 characters", `${"x".repeat(200)}.md`],
    ["a drive letter", "C:/x.md"],
    ["a dot segment", "./references/forms.md"],
    ["an empty segment", "references//forms.md"],
    ["an empty path", ""],
  ])("refuses %s with 400 INVALID_REQUEST", async (_label, path) => {
    // Prepare
    const { read } = await rig();

    // Act
    const reply = await read({ skill: "forms", path });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
    expect(JSON.stringify(reply.json)).not.toContain("SECRET");
  });

  it("answers 404 DOCUMENT_NOT_FOUND for a missing file and for SKILL.md itself (it is no file of the listing)", async () => {
    // Prepare
    const { read } = await rig();

    // Act
    const missing = await read({ skill: "forms", path: "references/missing.md" });
    const skillMd = await read({ skill: "forms", path: "SKILL.md" });

    // Assess
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("DOCUMENT_NOT_FOUND");
    expect(skillMd.status).toBe(404);
  });

  it("never reads an outer layer's file when an inner layer provides the SKILL.md", async () => {
    // Prepare
    const { read } = await rig();

    // Act
    const reply = await read({ skill: "forms", path: "references/tenant-only.md" });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("DOCUMENT_NOT_FOUND");
    expect(JSON.stringify(reply.json)).not.toContain("SECRET");
  });

  it("refuses another skill's file: that skill is not active", async () => {
    // Prepare
    const { read } = await rig();

    // Act
    const other = await read({ skill: "other", path: "notes.md" });
    const unknown = await read({ skill: "nobody", path: "notes.md" });

    // Assess
    expect(other.status).toBe(400);
    expect(other.json.error.code).toBe("INVALID_REQUEST");
    expect(other.json.error.message).toContain("is not active");
    expect(JSON.stringify(other.json)).not.toContain("SECRET");
    expect(unknown.status).toBe(400);
  });

  it("refuses a binary file with 400 saying it is binary", async () => {
    // Prepare
    const { read } = await rig({ "data/invalid.md": new Uint8Array([0x23, 0x20, 0xc3, 0x28]) });

    // Act
    const png = await read({ skill: "forms", path: "assets/logo.png" });
    const invalidUtf8 = await read({ skill: "forms", path: "data/invalid.md" });

    // Assess
    expect(png.status).toBe(400);
    expect(png.json.error.code).toBe("INVALID_REQUEST");
    expect(png.json.error.message).toContain("binary");
    expect(invalidUtf8.status).toBe(400);
    expect(invalidUtf8.json.error.message).toContain("binary");
  });

  it("refuses a file above 256 KB in one read and reads it in parts with byte offset and limit, never splitting a character", async () => {
    // Prepare
    const line = "Grüße — ünïcödé ✓ 𝄞\n";
    const text = line.repeat(Math.ceil((300 * 1024) / Buffer.byteLength(line)));
    const { read } = await rig({ "references/big.md": text });

    // Act
    const whole = await read({ skill: "forms", path: "references/big.md" });
    const parts: string[] = [];
    let offset: number | null = 0;
    let calls = 0;
    while (offset !== null && calls < 100) {
      const reply: Reply = await read({ skill: "forms", path: "references/big.md", offset, limit: 1001 });
      expect(reply.status).toBe(200);
      parts.push(reply.json.result.content);
      offset = reply.json.result.nextOffset;
      calls++;
      if (calls === 1) expect(reply.json.result.size).toBe(Buffer.byteLength(text));
    }
    const rest: Reply = await read({ skill: "forms", path: "references/big.md", offset: 1001 * 99 });

    // Assess
    expect(whole.status).toBe(400);
    expect(whole.json.error.code).toBe("INVALID_REQUEST");
    expect(whole.json.error.message).toContain("offset and limit");
    expect(parts.join("")).toBe(text.slice(0, parts.join("").length));
    expect(parts.every((p) => !p.includes("\ufffd"))).toBe(true);
    expect(Buffer.byteLength(rest.json.result.content)).toBeLessThanOrEqual(256 * 1024);
  });

  it("reads a whole big file in parts of the default limit", async () => {
    // Prepare
    const text = "é".repeat(200 * 1024);
    const { read } = await rig({ "references/big.md": text });

    // Act
    const first = await read({ skill: "forms", path: "references/big.md", offset: 0 });
    const second = await read({ skill: "forms", path: "references/big.md", offset: first.json.result.nextOffset });

    // Assess
    expect(first.json.result.offset).toBe(0);
    expect(Buffer.byteLength(first.json.result.content)).toBe(256 * 1024);
    expect(second.json.result.nextOffset).toBeNull();
    expect(first.json.result.content + second.json.result.content).toBe(text);
  });

  it("moves an offset inside a character forward to the next character", async () => {
    // Prepare
    const { read } = await rig({ "references/u.md": "éa" });

    // Act
    const reply = await read({ skill: "forms", path: "references/u.md", offset: 1, limit: 1 });

    // Assess
    expect(reply.json.result).toEqual({ path: "references/u.md", content: "a", size: 3, offset: 2, nextOffset: null });
  });

  it("refuses a file above 8 MiB even in parts", async () => {
    // Prepare
    const { read } = await rig({ "references/huge.md": "a".repeat(8 * 1024 * 1024 + 1) });

    // Act
    const reply = await read({ skill: "forms", path: "references/huge.md", offset: 0, limit: 10 });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.json.error.code).toBe("INVALID_REQUEST");
    expect(reply.json.error.message).toContain("too large");
  });

  it("refuses a limit above 256 KB and a negative offset", async () => {
    // Prepare
    const { read } = await rig();

    // Act
    const limit = await read({ skill: "forms", path: "references/forms.md", limit: 256 * 1024 + 1 });
    const offset = await read({ skill: "forms", path: "references/forms.md", offset: -1 });

    // Assess
    expect(limit.status).toBe(400);
    expect(offset.status).toBe(400);
  });

  it("is not a tool of a process whose active skills have no files", async () => {
    // Prepare
    const h = await handlerHarness();
    await h.putSkill("plain", {}, PROJECT);
    const process = await h.spawn("open");
    await h.call("steer", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/skill`,
      headers: { prefer: "wait=5" },
      body: { command: "ACTIVATE", skillName: "plain" },
    });

    // Act
    const reply = await h.call("tools", {
      method: "POST",
      path: `/brain/acme/processes/${process.processId}/tools/skill_read_file`,
      body: { args: { skill: "plain", path: "x.md" } },
    });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.json.error.code).toBe("TOOL_NOT_FOUND");
  });
});
