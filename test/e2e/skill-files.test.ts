import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * API.md "Skill files" over the local stack: a project skill with a reference and a binary asset
 * shows its files on the effective detail; activated, its turn lists them and carries
 * `skill_read_file`, which reads the text file and refuses the binary one.
 */

const TENANT = "acme";
const P1 = "p1";
const FORMS = skillMd(
  ["name: forms", "description: Fills in PDF forms. Use when the user has a form to fill."].join("\n"),
  "Read references/FORMS.md first.\n",
);
const REFERENCE = "# Forms\n\nField A goes first — then B.\n";
const LOGO = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xde, 0xad, 0xbe, 0xef,
]);

let stack: LocalStack;
let api: ApiClient;
let processId: string;

beforeAll(async () => {
  stack = await startLocalStack();
  api = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] }));
  const seeded = [
    await api.putDocument(TENANT, P1, "_vance/skills/forms/SKILL.md", FORMS),
    await api.putDocument(TENANT, P1, "_vance/skills/forms/references/forms.md", REFERENCE),
    await api.putDocument(TENANT, P1, "_vance/skills/forms/assets/logo.png", LOGO, "image/png"),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
  const spawned = await api.spawn(TENANT, "files-session", { recipe: "default", projectId: P1 });
  expect(spawned.status, spawned.text).toBe(201);
  processId = spawned.json.processId;
});

afterAll(async () => {
  await stack?.close();
});

describe("skill files over the local stack", () => {
  it("lists the skill's files on the effective detail, SKILL.md excluded", async () => {
    // Act
    const detail = await api.effectiveSkill(TENANT, "forms", P1);

    // Assess
    expect(detail.status, detail.text).toBe(200);
    // Issue 32: each with the SHA-256 of its bytes.
    const digest = (bytes: string | Buffer): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    expect(detail.json.files).toEqual([
      { path: "assets/logo.png", size: LOGO.byteLength, digest: digest(LOGO) },
      { path: "references/forms.md", size: Buffer.byteLength(REFERENCE), digest: digest(REFERENCE) },
    ]);
  });

  it("lists the files in the turn, offers skill_read_file, reads the text file and refuses the binary one", async () => {
    // Prepare
    const activated = await api.steer(
      TENANT,
      processId,
      { command: "ACTIVATE", skillName: "forms", requestId: "activate-forms" },
      LANE_WAIT_SECONDS,
    );
    expect(activated.status, activated.text).toBe(200);

    // Act
    const composed = await api.compose(TENANT, processId, { message: "fill my form" }, LANE_WAIT_SECONDS);
    const read = await api.tool(TENANT, processId, "skill_read_file", { skill: "forms", path: "references/FORMS.md" });
    const binary = await api.tool(TENANT, processId, "skill_read_file", { skill: "forms", path: "assets/logo.png" });
    const outside = await api.tool(TENANT, processId, "skill_read_file", { skill: "forms", path: "../other/SKILL.md" });
    const missing = await api.tool(TENANT, processId, "skill_read_file", { skill: "forms", path: "references/none.md" });

    // Assess
    expect(composed.status, composed.text).toBe(200);
    const turn = composed.json.result!;
    expect(turn.skillSection).toContain(
      [
        'Files of this skill — read a text file with skill_read_file {"skill":"forms","path":"<path>"}:',
        `- assets/logo.png (${LOGO.byteLength} bytes)`,
        `- references/forms.md (${Buffer.byteLength(REFERENCE)} bytes)`,
      ].join("\n"),
    );
    expect(turn.tools).toContain("skill_read_file");
    expect(turn.toolSpecs.map((spec) => spec.name)).toContain("skill_read_file");
    expect(read.status, read.text).toBe(200);
    expect(read.json.result).toEqual({ path: "references/forms.md", content: REFERENCE, size: Buffer.byteLength(REFERENCE) });
    expect(binary.status).toBe(400);
    expect(errorOf(binary)?.code).toBe("INVALID_REQUEST");
    expect(errorOf(binary)?.message).toContain("binary");
    expect(outside.status).toBe(400);
    expect(errorOf(outside)?.code).toBe("INVALID_REQUEST");
    expect(missing.status).toBe(404);
    expect(errorOf(missing)?.code).toBe("DOCUMENT_NOT_FOUND");
  });
});
