import { describe, expect, it } from "vitest";
import { issueDevToken, parseTokenArgs, runTokenCommand } from "../../cli/token.js";
import { LOCAL_DEV_SECRET } from "../../shared/auth/auth-config.js";
import { verifyToken } from "../../shared/auth/token-verifier.js";
import { InvalidRequest } from "../../shared/errors.js";

describe("skills token arguments", () => {
  it("parses tenant, user, lists and a ttl", () => {
    // Act
    const options = parseTokenArgs([
      "--tenant",
      "acme",
      "--user",
      "mia",
      "--projects",
      "alpha, beta",
      "--roles",
      "tenant-admin",
      "--ttl",
      "30m",
    ]);

    // Assess
    expect(options).toEqual({ tenant: "acme", user: "mia", projects: ["alpha", "beta"], roles: ["tenant-admin"], ttl: "30m" });
  });

  it("reads a bare number as seconds", () => {
    // Act
    const options = parseTokenArgs(["--tenant=acme", "--user=mia", "--ttl=900"]);

    // Assess
    expect(options.ttl).toBe(900);
  });

  it.each([
    [["--user", "mia"], /--tenant is required/],
    [["--tenant", "acme"], /--user is required/],
    [["--tenant", "acme", "--user", "mia", "--secret", "x"], /Unknown option/],
    [["--tenant", "acme", "--user", "mia", "extra"], /positional|Unexpected argument/],
  ])("refuses %j with the usage line", (argv, expected) => {
    // Act
    const parse = () => parseTokenArgs(argv);

    // Assess
    expect(parse).toThrow(InvalidRequest);
    expect(parse).toThrow(expected);
    expect(parse).toThrow(/Usage: skills token/);
  });
});

describe("issueDevToken", () => {
  it("signs with the local default secret when SKILLS_JWT_SECRET is unset", async () => {
    // Act
    const token = await issueDevToken({ tenant: "acme", user: "mia", projects: ["alpha"], roles: ["project-admin:alpha"] }, {});

    // Assess
    await expect(verifyToken(token, { secret: LOCAL_DEV_SECRET })).resolves.toEqual({
      login: "mia",
      tenant: "acme",
      projects: ["alpha"],
      roles: ["project-admin:alpha"],
    });
  });

  it("signs with SKILLS_JWT_SECRET and its issuer/audience when set", async () => {
    // Prepare
    const env = {
      SKILLS_JWT_SECRET: "env-secret-env-secret-env-secret-42",
      SKILLS_JWT_ISSUER: "skills-dev",
      SKILLS_JWT_AUDIENCE: "skills",
    };

    // Act
    const token = await issueDevToken({ tenant: "acme", user: "mia" }, env);

    // Assess
    await expect(verifyToken(token, { secret: env.SKILLS_JWT_SECRET, issuer: "skills-dev", audience: "skills" })).resolves.toMatchObject({
      login: "mia",
    });
    await expect(verifyToken(token, { secret: LOCAL_DEV_SECRET })).rejects.toThrow(/signature/);
  });
});

describe("runTokenCommand", () => {
  it("prints only the token and exits 0", async () => {
    // Prepare
    const out: string[] = [];
    const err: string[] = [];

    // Act
    const code = await runTokenCommand(["--tenant", "acme", "--user", "mia"], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});

    // Assess
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("reports an unknown role on stderr and exits 2", async () => {
    // Prepare
    const out: string[] = [];
    const err: string[] = [];

    // Act
    const code = await runTokenCommand(
      ["--tenant", "acme", "--user", "mia", "--roles", "admin"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      {},
    );

    // Assess
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err.join("\n")).toMatch(/Unknown role 'admin'/);
  });
});
