import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, LANE_WAIT_SECONDS, errorOf, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/** Recipe version pins (`skillVersions`, issue 17) over the local stack, whose document store keeps versions. */

const TENANT = "acme";
const P1 = "p1";
const PINNED = "_vance/skills/pinned/SKILL.md";

let stack: LocalStack;
let api: ApiClient;
let tenantAdmin: ApiClient;
let token: string;

const documentUrl = (project: string, path: string, suffix = ""): string =>
  `/brain/${TENANT}/projects/${project}/documents/${path}${suffix}`;

async function versionsOf(client: ApiClient, project: string, path: string): Promise<string[]> {
  const listed = await client.send<{ versions: { versionId: string }[] }>("GET", documentUrl(project, path, "?versions"));
  expect(listed.status, listed.text).toBe(200);
  return listed.json.versions.map((v) => v.versionId);
}

beforeAll(async () => {
  stack = await startLocalStack();
  token = await stack.token({ tenant: TENANT, login: "alice", projects: [P1], roles: [`project-admin:${P1}`] });
  api = new ApiClient(stack.httpUrl, token);
  tenantAdmin = api.as(await stack.token({ tenant: TENANT, login: "root", roles: ["tenant-admin"] }));
});

afterAll(async () => {
  await stack?.close();
});

describe("recipe version pins over the local stack", () => {
  it("composes the pinned version while a newer one exists, in a preview and in a turn; an unpinned process composes the newest", async () => {
    // Prepare
    expect(
      (await api.putDocument(TENANT, P1, PINNED, skillMd("name: pinned\ndescription: Pinned skill.", "Pinned body one."))).status,
    ).toBe(200);
    const [first] = await versionsOf(api, P1, PINNED);
    expect(
      (await api.putDocument(TENANT, P1, PINNED, skillMd("name: pinned\ndescription: Pinned skill.", "Pinned body two."))).status,
    ).toBe(200);
    const recipes = [
      await api.putDocument(
        TENANT,
        P1,
        "_vance/recipes/pinning.yaml",
        `engine: ford\ndefaultActiveSkills: [pinned]\nskillVersions:\n  pinned: ${first}\n`,
        "application/yaml",
      ),
      await api.putDocument(TENANT, P1, "_vance/recipes/newest.yaml", "engine: ford\ndefaultActiveSkills: [pinned]\n", "application/yaml"),
    ];
    for (const saved of recipes) expect(saved.status, saved.text).toBe(200);

    // Act
    const spawned = await api.spawn(TENANT, "pin-session", { recipe: "pinning", projectId: P1 });
    const unpinned = await api.spawn(TENANT, "pin-session", { recipe: "newest", projectId: P1 });
    const preview = await api.composition(TENANT, spawned.json.processId, "hello");
    const turn = await api.compose(TENANT, spawned.json.processId, { message: "hello" }, LANE_WAIT_SECONDS);
    const newest = await api.composition(TENANT, unpinned.json.processId, "hello");
    const mcp = new Client({ name: "pins-e2e", version: "1.0.0" });
    const url = new URL(`/brain/${TENANT}/mcp?projectId=${P1}&processId=${spawned.json.processId}`, stack.httpUrl);
    await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const prompt = await mcp.getPrompt({ name: "pinned" });
    await mcp.close();

    // Assess
    expect(spawned.status, spawned.text).toBe(201);
    expect((spawned.json as { skillVersions?: unknown }).skillVersions).toEqual({ pinned: first });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.skillSection).toContain("Pinned body one.");
    expect(preview.json.skillSection).not.toContain("Pinned body two.");
    expect(turn.status, turn.text).toBe(200);
    expect(turn.json.result?.skillSection).toContain("Pinned body one.");
    expect(turn.json.result?.activation).toContainEqual({ name: "pinned", outcome: "active", activatedBy: "recipe", pinnedVersion: first });
    expect(newest.json.skillSection).toContain("Pinned body two.");
    const promptText = prompt.messages[0]?.content.type === "text" ? prompt.messages[0].content.text : "";
    expect(promptText).toContain("Pinned body one.");
    expect(promptText).not.toContain("Pinned body two.");
  });

  it("refuses a spawn whose pin names a version that does not exist, or one of another level's document, with 422 naming each pin", async () => {
    // Prepare
    const TENANT_SKILL = "_vance/skills/layered/SKILL.md";
    expect(
      (await tenantAdmin.putDocument(TENANT, "_tenant", TENANT_SKILL, skillMd("name: layered\ndescription: Tenant level.", "Tenant body.")))
        .status,
    ).toBe(200);
    const [tenantVersion] = await versionsOf(tenantAdmin, "_tenant", TENANT_SKILL);
    expect(
      (
        await api.putDocument(
          TENANT,
          P1,
          "_vance/skills/layered/SKILL.md",
          skillMd("name: layered\ndescription: Project level.", "Project body."),
        )
      ).status,
    ).toBe(200);
    const yaml = `engine: ford\nskillVersions:\n  layered: ${tenantVersion}\n  pinned: 9999999999999-0000-000000\n`;
    expect((await api.putDocument(TENANT, P1, "_vance/recipes/broken-pins.yaml", yaml, "application/yaml")).status).toBe(200);

    // Act
    const refused = await api.spawn(TENANT, "pin-session", { recipe: "broken-pins", projectId: P1 });

    // Assess
    expect(refused.status, refused.text).toBe(422);
    const error = errorOf(refused);
    expect(error?.code).toBe("INVALID_DOCUMENT");
    expect(error?.problems?.map((p) => ({ path: p.path, message: p.message }))).toEqual([
      {
        path: "_vance/recipes/broken-pins.yaml",
        message: `skillVersions.layered: version '${tenantVersion}' of _vance/skills/layered/SKILL.md does not exist at the PROJECT level ('${P1}') that 'layered' resolves from`,
      },
      {
        path: "_vance/recipes/broken-pins.yaml",
        message: `skillVersions.pinned: version '9999999999999-0000-000000' of ${PINNED} does not exist at the PROJECT level ('${P1}') that 'pinned' resolves from`,
      },
    ]);
  });

  it("warns on saving a recipe that pins a skill of its own level to a version that level does not have", async () => {
    // Act
    const saved = await api.putDocument(
      TENANT,
      P1,
      "_vance/recipes/stale-pin.yaml",
      "engine: ford\nskillVersions:\n  pinned: 9999999999999-0000-000000\n",
      "application/yaml",
    );

    // Assess
    expect(saved.status, saved.text).toBe(200);
    expect((saved.json as { warnings: { message: string }[] }).warnings.map((w) => w.message)).toEqual([
      `skillVersions.pinned: '9999999999999-0000-000000' is not a version of ${PINNED} at this level: a spawn where 'pinned' resolves from here is refused`,
    ]);
  });
});
