import type { JWTVerifyGetKey } from "jose";
import { describe, expect, it } from "vitest";
import { loadAuthConfig, LOCAL_DEV_SECRET } from "../../shared/auth/auth-config.js";
import { AuthConfigurationError } from "../../shared/auth/auth-errors.js";
import { secretFromParametersAndSecretsExtension } from "../../shared/auth/aws-secrets-extension.js";

const LONG_SECRET = "0123456789abcdef0123456789abcdef-long";

const failure = async (promise: Promise<unknown>): Promise<Error> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthConfigurationError);
  return error as Error;
};

describe("loadAuthConfig", () => {
  it("refuses to start without any key outside local mode", async () => {
    // Act
    const error = await failure(loadAuthConfig({}));

    // Assess
    expect(error.message).toMatch(/SKILLS_JWT_SECRET/);
  });

  it("uses the local default secret only in local mode (option or SKILLS_LOCAL_MODE)", async () => {
    // Act
    const byOption = await loadAuthConfig({}, { localMode: true });
    const byEnv = await loadAuthConfig({ SKILLS_LOCAL_MODE: "1" });

    // Assess
    expect(byOption.secret).toBe(LOCAL_DEV_SECRET);
    expect(byEnv.secret).toBe(LOCAL_DEV_SECRET);
  });

  it("prefers SKILLS_JWT_SECRET over the local default", async () => {
    // Act
    const config = await loadAuthConfig({ SKILLS_JWT_SECRET: "short-but-local" }, { localMode: true });

    // Assess
    expect(config.secret).toBe("short-but-local");
  });

  it("refuses local mode inside the Lambda runtime", async () => {
    // Act
    const error = await failure(loadAuthConfig({ SKILLS_LOCAL_MODE: "true", AWS_EXECUTION_ENV: "AWS_Lambda_nodejs20.x" }));

    // Assess
    expect(error.message).toMatch(/Lambda/);
  });

  it("refuses a short HS256 secret outside local mode and accepts a long one", async () => {
    // Act
    const error = await failure(loadAuthConfig({ SKILLS_JWT_SECRET: "local-dev-secret" }));
    const config = await loadAuthConfig({
      SKILLS_JWT_SECRET: LONG_SECRET,
      SKILLS_JWT_ISSUER: "https://iss",
      SKILLS_JWT_AUDIENCE: "skills",
    });

    // Assess
    expect(error.message).toMatch(/at least 32 bytes/);
    expect(config).toEqual({ secret: LONG_SECRET, issuer: "https://iss", audience: "skills" });
  });

  it("reads the secret behind SKILLS_JWT_SECRET_ARN through the secret source", async () => {
    // Prepare
    const asked: string[] = [];
    const secretSource = (id: string) => {
      asked.push(id);
      return Promise.resolve(LONG_SECRET);
    };
    const arn = "arn:aws:secretsmanager:eu-central-1:123456789012:secret:skills-jwt-AbCdEf";

    // Act
    const config = await loadAuthConfig({ SKILLS_JWT_SECRET_ARN: arn }, { secretSource });
    const withoutSource = await failure(loadAuthConfig({ SKILLS_JWT_SECRET_ARN: arn }));

    // Assess
    expect(config.secret).toBe(LONG_SECRET);
    expect(asked).toEqual([arn]);
    expect(withoutSource.message).toMatch(/secret source/);
  });

  it("builds a remote key set for an https JWKS URL and refuses plain http", async () => {
    // Prepare
    const urls: string[] = [];
    const keySet: JWTVerifyGetKey = () => Promise.reject(new Error("not used"));
    const remoteJwks = (url: URL) => {
      urls.push(url.href);
      return keySet;
    };

    // Act
    const config = await loadAuthConfig({ SKILLS_JWT_JWKS_URL: "https://idp.example/.well-known/jwks.json" }, { remoteJwks });
    const insecure = await failure(loadAuthConfig({ SKILLS_JWT_JWKS_URL: "http://idp.example/jwks.json" }, { remoteJwks }));

    // Assess
    expect(config.jwks).toBe(keySet);
    expect(config.secret).toBeUndefined();
    expect(urls).toEqual(["https://idp.example/.well-known/jwks.json"]);
    expect(insecure.message).toMatch(/https/);
  });

  it("refuses a JWKS URL that is not one, naming the variable", async () => {
    // Act
    const error = await failure(loadAuthConfig({ SKILLS_JWT_JWKS_URL: "idp.example/jwks.json" }));

    // Assess
    expect(error.message).toBe("SKILLS_JWT_JWKS_URL is not a valid URL, got 'idp.example/jwks.json'");
  });

  it("accepts plain http for the JWKS URL only to a loopback host in local mode", async () => {
    // Prepare
    const remoteJwks = (): JWTVerifyGetKey => () => Promise.reject(new Error("not used"));

    // Act
    const local = await loadAuthConfig({ SKILLS_JWT_JWKS_URL: "http://127.0.0.1:8080/jwks.json" }, { localMode: true, remoteJwks });
    const remote = await failure(loadAuthConfig({ SKILLS_JWT_JWKS_URL: "http://idp.example/jwks.json" }, { localMode: true, remoteJwks }));

    // Assess
    expect(local.jwks).toBeDefined();
    expect(remote.message).toMatch(/SKILLS_JWT_JWKS_URL must use https/);
  });
});

describe("secretFromParametersAndSecretsExtension", () => {
  it("asks the extension on localhost with the session token and returns SecretString", async () => {
    // Prepare
    const calls: { url: string; token: string | null }[] = [];
    const fakeFetch = ((url: string, init?: RequestInit) => {
      calls.push({ url, token: new Headers(init?.headers).get("X-Aws-Parameters-Secrets-Token") });
      return Promise.resolve(new Response(JSON.stringify({ SecretString: LONG_SECRET }), { status: 200 }));
    }) as typeof fetch;
    const source = secretFromParametersAndSecretsExtension({ fetch: fakeFetch, sessionToken: "session-token", port: 2773 });

    // Act
    const secret = await source("arn:aws:secretsmanager:eu-central-1:1:secret:jwt");

    // Assess
    expect(secret).toBe(LONG_SECRET);
    expect(calls).toEqual([
      {
        url: "http://localhost:2773/secretsmanager/get?secretId=arn%3Aaws%3Asecretsmanager%3Aeu-central-1%3A1%3Asecret%3Ajwt",
        token: "session-token",
      },
    ]);
  });

  it("fails with a configuration error when the extension refuses", async () => {
    // Prepare
    const fakeFetch = (() => Promise.resolve(new Response("forbidden", { status: 403 }))) as typeof fetch;
    const source = secretFromParametersAndSecretsExtension({ fetch: fakeFetch, sessionToken: "t" });

    // Act
    const error = await failure(source("arn"));

    // Assess
    expect(error.message).toMatch(/403/);
  });
});
