import { createLocalJWKSet, exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuthConfig } from "../../shared/auth/auth-config.js";
import { Unauthenticated } from "../../shared/auth/auth-errors.js";
import type { Identity } from "../../shared/auth/identity.js";
import { issueToken } from "../../shared/auth/token-issuer.js";
import { MAX_TOKEN_LENGTH, verifyToken } from "../../shared/auth/token-verifier.js";
import { InvalidRequest } from "../../shared/errors.js";

const SECRET = "a-test-secret-that-is-long-enough-for-hs256";
const config: AuthConfig = { secret: SECRET };
const mia: Identity = { login: "mia@example.com", tenant: "acme", projects: ["alpha", "beta"], roles: ["project-admin:alpha"] };

const key = new TextEncoder().encode(SECRET);
const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

/** Signs arbitrary claims, bypassing issueToken's own checks, to test what the verifier accepts. */
const signRaw = (claims: Record<string, unknown>, alg = "HS256", signingKey: Uint8Array = key) =>
  new SignJWT(claims).setProtectedHeader({ alg }).setExpirationTime(inOneHour()).sign(signingKey);

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Unauthenticated);
  return (error as Unauthenticated).reason;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("verifyToken with HS256", () => {
  it("returns the identity of a valid token", async () => {
    // Prepare
    const token = await issueToken(mia, SECRET, { ttl: "1h" });

    // Act
    const identity = await verifyToken(token, config);

    // Assess
    expect(identity).toEqual(mia);
  });

  it("defaults missing projects and roles to empty arrays", async () => {
    // Prepare
    const token = await signRaw({ sub: "uma", tenant: "acme" });

    // Act
    const identity = await verifyToken(token, config);

    // Assess
    expect(identity).toEqual({ login: "uma", tenant: "acme", projects: [], roles: [] });
  });

  it("rejects a token signed with another secret", async () => {
    // Prepare
    const token = await issueToken(mia, "another-secret-that-is-also-long-enough!!", { ttl: "1h" });

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(reason).toMatch(/signature/);
  });

  it("rejects a token once it has expired", async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-02T10:00:00Z"));
    const token = await issueToken(mia, SECRET, { ttl: "1h" });
    const stillValid = await verifyToken(token, config);
    vi.setSystemTime(new Date("2026-12-02T11:01:00Z"));

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(stillValid.login).toBe("mia@example.com");
    expect(reason).toMatch(/expired/);
  });

  it("rejects an unsecured token (alg none)", async () => {
    // Prepare
    const token = new UnsecuredJWT({ sub: "mia", tenant: "acme" }).setExpirationTime(inOneHour()).encode();

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(reason).toMatch(/algorithm|malformed/);
  });

  it("rejects an HS512 token even when signed with the right secret", async () => {
    // Prepare
    const token = await signRaw({ sub: "mia", tenant: "acme" }, "HS512");

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(reason).toMatch(/algorithm/);
  });

  it("rejects a token without an expiry", async () => {
    // Prepare
    const token = await new SignJWT({ sub: "mia", tenant: "acme" }).setProtectedHeader({ alg: "HS256" }).sign(key);

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(reason).toMatch(/exp/);
  });

  it.each([
    ["no sub", { tenant: "acme" }, /sub/],
    ["no tenant", { sub: "mia" }, /tenant/],
    ["an empty tenant", { sub: "mia", tenant: "" }, /tenant/],
    ["a tenant that is not a string", { sub: "mia", tenant: 7 }, /tenant/],
    ["a tenant with a path in it", { sub: "mia", tenant: "acme/../globex" }, /tenant/],
    ["a login with a control character", { sub: "mia\u0000", tenant: "acme" }, /login/],
    ["projects as a string", { sub: "mia", tenant: "acme", projects: "alpha" }, /projects/],
    ["projects with a number", { sub: "mia", tenant: "acme", projects: ["alpha", 3] }, /projects/],
    ["a reserved project id", { sub: "mia", tenant: "acme", projects: ["_tenant"] }, /projects/],
    ["a traversing project id", { sub: "mia", tenant: "acme", projects: ["../beta"] }, /projects/],
    ["roles as an object", { sub: "mia", tenant: "acme", roles: { admin: true } }, /roles/],
    ["a project-admin role for an invalid project", { sub: "mia", tenant: "acme", roles: ["project-admin:../x"] }, /project-admin/],
    ["an empty role", { sub: "mia", tenant: "acme", roles: [""] }, /role/],
    ["too many projects", { sub: "mia", tenant: "acme", projects: Array.from({ length: 300 }, (_, i) => `p${i}`) }, /projects/],
  ])("rejects a token with %s", async (_label, claims, expected) => {
    // Prepare
    const token = await signRaw(claims);

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(reason).toMatch(expected);
  });

  it("rejects garbage, empty and oversized tokens", async () => {
    // Prepare
    const tokens = ["", "not-a-jwt", "a.b.c", `${"a".repeat(MAX_TOKEN_LENGTH)}.b.c`];

    // Act
    const reasons = await Promise.all(tokens.map((t) => reasonOf(verifyToken(t, config))));

    // Assess
    expect(reasons).toEqual(["token is missing", "token is malformed", "token is malformed", "token is too long"]);
  });

  it("refuses every token when no key is configured", async () => {
    // Prepare
    const token = await issueToken(mia, SECRET, { ttl: "1h" });

    // Act
    const reason = await reasonOf(verifyToken(token, {}));

    // Assess
    expect(reason).toMatch(/no verification key/);
  });
});

describe("verifyToken issuer and audience", () => {
  const strict: AuthConfig = { secret: SECRET, issuer: "https://issuer.example", audience: "skills" };

  it("accepts a token with the configured issuer and audience", async () => {
    // Prepare
    const token = await issueToken(mia, SECRET, { ttl: 600, issuer: "https://issuer.example", audience: "skills" });

    // Act
    const identity = await verifyToken(token, strict);

    // Assess
    expect(identity.tenant).toBe("acme");
  });

  it.each([
    ["no issuer", { audience: "skills" }, /iss/],
    ["another issuer", { issuer: "https://evil.example", audience: "skills" }, /iss/],
    ["no audience", { issuer: "https://issuer.example" }, /aud/],
    ["another audience", { issuer: "https://issuer.example", audience: "billing" }, /aud/],
  ])("rejects a token with %s", async (_label, claims, expected) => {
    // Prepare
    const token = await issueToken(mia, SECRET, { ttl: 600, ...claims });

    // Act
    const reason = await reasonOf(verifyToken(token, strict));

    // Assess
    expect(reason).toMatch(expected);
  });
});

describe("verifyToken with RS256 from a key set", () => {
  async function rsaSetup() {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
    return { privateKey, publicKey, jwks: createLocalJWKSet({ keys: [jwk] }) };
  }

  it("accepts a token signed by a key in the set", async () => {
    // Prepare
    const { privateKey, jwks } = await rsaSetup();
    const token = await new SignJWT({ tenant: "acme", projects: ["alpha"] })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setSubject("mia")
      .setExpirationTime("1h")
      .sign(privateKey);

    // Act
    const identity = await verifyToken(token, { jwks });

    // Assess
    expect(identity).toEqual({ login: "mia", tenant: "acme", projects: ["alpha"], roles: [] });
  });

  it("rejects an HS256 token signed with the public key (algorithm confusion)", async () => {
    // Prepare
    const { publicKey, jwks } = await rsaSetup();
    const pem = await exportSPKI(publicKey);
    const token = await signRaw({ sub: "mia", tenant: "acme" }, "HS256", new TextEncoder().encode(pem));

    // Act
    const reason = await reasonOf(verifyToken(token, { jwks }));

    // Assess
    expect(reason).toMatch(/algorithm/);
  });

  it("rejects an RS256 token when only HS256 is configured", async () => {
    // Prepare
    const { privateKey } = await rsaSetup();
    const token = await new SignJWT({ tenant: "acme" })
      .setProtectedHeader({ alg: "RS256" })
      .setSubject("mia")
      .setExpirationTime("1h")
      .sign(privateKey);

    // Act
    const reason = await reasonOf(verifyToken(token, config));

    // Assess
    expect(reason).toMatch(/algorithm/);
  });
});

describe("issueToken", () => {
  it.each([
    ["an unknown role", { ...mia, roles: ["tenant_admin"] }, { ttl: "1h" }, /Unknown role/],
    ["an invalid tenant", { ...mia, tenant: "../x" }, { ttl: "1h" }, /tenant/],
    ["a malformed ttl", mia, { ttl: "forever" }, /ttl/],
    ["a zero ttl", mia, { ttl: 0 }, /ttl/],
  ])("refuses %s", async (_label, identity, options, expected) => {
    // Prepare
    const issuing = issueToken(identity, SECRET, options);

    // Act
    const error = await issuing.then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toBeInstanceOf(InvalidRequest);
    expect((error as Error).message).toMatch(expected);
  });

  it("sets exp from the ttl", async () => {
    // Prepare
    const now = new Date("2026-12-02T10:00:00Z");

    // Act
    const token = await issueToken(mia, SECRET, { ttl: "12h", now });

    // Assess
    const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as { exp: number; iat: number; sub: string };
    expect(payload.exp - payload.iat).toBe(12 * 3600);
    expect(payload.sub).toBe("mia@example.com");
  });
});
