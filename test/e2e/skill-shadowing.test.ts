import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, skillMd } from "./support/api-client.js";
import { startLocalStack } from "./support/local-stack.js";
import type { LocalStack } from "./support/local-stack.js";

/**
 * API.md "Explainable activation", shadowing over the local stack: a skill at `_tenant` and one of
 * the same name at the project. The effective list with `includeShadowed=true` names the tenant
 * document as hidden by PROJECT; the problems endpoint lists it as an `info` entry.
 */

const TENANT = "acme";
const P1 = "p1";
const PATH = "_vance/skills/house-style/SKILL.md";

let stack: LocalStack;
let admin: ApiClient;

beforeAll(async () => {
  stack = await startLocalStack();
  admin = new ApiClient(stack.httpUrl, await stack.token({ tenant: TENANT, login: "admin", projects: [P1], roles: ["tenant-admin"] }));
  const seeded = [
    await admin.putDocument(
      TENANT,
      "_tenant",
      PATH,
      skillMd("title: House style\nversion: 1.0.0\ndescription: The tenant's house style.", "Tenant body.\n"),
    ),
    await admin.putDocument(
      TENANT,
      P1,
      PATH,
      skillMd("title: House style\nversion: 1.0.0\ndescription: The project's house style.", "Project body.\n"),
    ),
  ];
  for (const response of seeded) expect(response.status, response.text).toBe(200);
});

afterAll(async () => {
  await stack?.close();
});

describe("shadowed skills over the local stack", () => {
  it("lists the tenant document as shadowed by PROJECT with includeShadowed=true, and nothing extra without it", async () => {
    // Act
    const shadowing = await admin.effectiveWithShadowed(TENANT, P1);
    const plain = await admin.effective(TENANT, P1);

    // Assess
    expect(shadowing.status, shadowing.text).toBe(200);
    expect(shadowing.json.shadowed).toContainEqual({
      name: "house-style",
      source: "VANCE",
      path: PATH,
      shadowedBy: "PROJECT",
      reason: "overridden",
    });
    expect(shadowing.json.skills.find((s) => s.name === "house-style")).toMatchObject({
      source: "PROJECT",
      description: "The project's house style.",
    });
    expect(shadowing.json.skills).toEqual(plain.json.skills);
    expect(Object.keys(plain.json)).toEqual(["skills"]);
  });

  it("shows the shadowed tenant document in problems as an info entry naming what shadows it", async () => {
    // Act
    const problems = await admin.problems(TENANT, P1);

    // Assess
    expect(problems.status, problems.text).toBe(200);
    expect(problems.json.problems.filter((p) => p.name === "house-style")).toEqual([
      {
        name: "house-style",
        source: "VANCE",
        path: PATH,
        message: `shadowed by the PROJECT level's skill of the same name (${PATH})`,
        severity: "info",
      },
    ]);
  });
});
