import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../shared/config/config-errors.js";
import { FUNCTION_ENVIRONMENT } from "../../infra/function-environment.js";
import { localEnvironment } from "../../infra/local/local-environment.js";
import { placeholderFunctionEnvironment } from "../../infra/placeholder-environment.js";
import {
  awsConfig,
  DEFAULT_LLM_TIMEOUT_MS,
  DEFAULT_REGION,
  DEFAULT_SECRETS_EXTENSION_PORT,
  ENV,
  parseConfig,
  readConfig,
  requireConfig,
  resourceConfig,
  SETTINGS,
} from "../../shared/config/config.js";
import type { SettingKey } from "../../shared/config/config.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NAMES = Object.values(ENV) as string[];
/** Any declared name as a whole word (PATH, not WEBSOCKET_PATH). */
const NAME_PATTERN = new RegExp(`(?<![A-Z0-9_])(?:${NAMES.join("|")})(?![A-Z0-9_])`, "g");

const thrown = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  return undefined;
};

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) return sourcesUnder(path);
    return path.endsWith(".ts") ? [path] : [];
  });

/** Variable names in the code of a file — string and template literals, identifiers, property names — comments excluded. */
function namesInCode(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(join(ROOT, path), "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const text = ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) ? node.text : undefined;
    if (text !== undefined) for (const match of text.matchAll(NAME_PATTERN)) found.push(match[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the configuration", () => {
  it("gives unset variables their defaults, blank counting as unset", () => {
    // Act
    const config = parseConfig({});
    const blank = parseConfig(Object.fromEntries(NAMES.map((name) => [name, "  "])));

    // Assess
    for (const parsed of [config, blank]) {
      expect(parsed).toMatchObject({
        tableName: undefined,
        laneMaxReceiveCount: undefined,
        webSocketCallbackUrl: undefined,
        localMode: false,
        llmUrl: undefined,
        llmTimeoutMs: DEFAULT_LLM_TIMEOUT_MS,
        secretsExtensionHttpPort: DEFAULT_SECRETS_EXTENSION_PORT,
        port: undefined,
        skipBundling: false,
      });
    }
    expect(awsConfig({})).toEqual({ region: DEFAULT_REGION, endpoints: { s3: undefined, dynamodb: undefined, sqs: undefined } });
  });

  it("parses each type: integers, flags, URLs, trimmed values", () => {
    // Act
    const config = readConfig(
      {
        SKILLS_LANE_MAX_RECEIVE_COUNT: "5",
        SKILLS_LOCAL_MODE: "YES",
        SKILLS_JWT_JWKS_URL: "https://idp.example/jwks.json",
        SKILLS_LLM_URL: " https://llm.example/v1// ",
        SKILLS_LLM_MODEL: " judge ",
        SKILLS_JWT_SECRET: " kept as given ",
        PORT: "0",
        SKILLS_SKIP_BUNDLING: "1",
      },
      ["laneMaxReceiveCount", "localMode", "jwksUrl", "llmUrl", "llmModel", "jwtSecret", "port", "skipBundling"],
    );

    // Assess
    expect(config).toEqual({
      laneMaxReceiveCount: 5,
      localMode: true,
      jwksUrl: new URL("https://idp.example/jwks.json"),
      llmUrl: "https://llm.example/v1",
      llmModel: "judge",
      jwtSecret: " kept as given ",
      port: 0,
      skipBundling: true,
    });
    expect(readConfig({ SKILLS_LOCAL_MODE: "no" }, ["localMode"]).localMode).toBe(false);
  });

  it("takes the region from AWS_REGION, then AWS_DEFAULT_REGION, and per-service endpoints before the shared one", () => {
    // Act
    const fallback = awsConfig({ AWS_DEFAULT_REGION: "eu-west-1" });
    const both = awsConfig({
      AWS_REGION: "eu-central-1",
      AWS_DEFAULT_REGION: "eu-west-1",
      AWS_ENDPOINT_URL: "http://all",
      AWS_ENDPOINT_URL_SQS: "http://sqs",
    });

    // Assess
    expect(fallback.region).toBe("eu-west-1");
    expect(both).toEqual({ region: "eu-central-1", endpoints: { s3: "http://all", dynamodb: "http://all", sqs: "http://sqs" } });
  });

  it.each([
    ["SKILLS_LANE_MAX_RECEIVE_COUNT", "0", "laneMaxReceiveCount"],
    ["SKILLS_LANE_MAX_RECEIVE_COUNT", "1.5", "laneMaxReceiveCount"],
    ["SKILLS_LANE_MAX_RECEIVE_COUNT", "many", "laneMaxReceiveCount"],
    ["SKILLS_LLM_TIMEOUT_MS", "soon", "llmTimeoutMs"],
    ["SKILLS_LLM_URL", "not a url", "llmUrl"],
    ["SKILLS_LLM_URL", "file:///etc/passwd", "llmUrl"],
    ["SKILLS_JWT_JWKS_URL", "jwks.json", "jwksUrl"],
    ["PORT", "70000", "port"],
    ["PARAMETERS_SECRETS_EXTENSION_HTTP_PORT", "x", "secretsExtensionHttpPort"],
  ] as const)("refuses %s=%s with a ConfigurationError naming the variable", (name, value, key) => {
    // Act
    const error = thrown(() => readConfig({ [name]: value }, [key]));

    // Assess
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).variable).toBe(name);
    expect((error as ConfigurationError).message).toMatch(
      new RegExp(`^${name} .+, got '${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}'$`),
    );
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigurationError);
  });

  it("parses only the slice asked for, and lets the caller choose the error type", () => {
    // Prepare
    const env = { SKILLS_TABLE_NAME: "t", PORT: "not a port" };
    class OwnError extends Error {}

    // Act
    const slice = readConfig(env, ["tableName"]);
    const own = thrown(() => readConfig(env, ["port"], { errorAs: (error) => new OwnError(error.message, { cause: error }) }));

    // Assess
    expect(slice).toEqual({ tableName: "t" });
    expect(own).toBeInstanceOf(OwnError);
    expect((own as OwnError).cause).toBeInstanceOf(ConfigurationError);
  });

  it("keeps a missing resource optional, unless the caller requires it", () => {
    // Act
    const resources = resourceConfig({ SKILLS_TABLE_NAME: "t" });
    const missing = thrown(() => requireConfig({ SKILLS_TABLE_NAME: "t" }, ["tableName", "bucketName"]));

    // Assess
    expect(resources).toMatchObject({ tableName: "t", bucketName: undefined, laneQueueUrl: undefined, region: DEFAULT_REGION });
    expect(missing).toBeInstanceOf(ConfigurationError);
    expect((missing as ConfigurationError).variable).toBe("SKILLS_BUCKET_NAME");
    expect(String(missing)).toMatch(/SKILLS_BUCKET_NAME is not set/);
  });
});

describe("one name per setting", () => {
  it("declares every variable once, with a doc, under its name in ENV", () => {
    // Act
    const settings = Object.entries(SETTINGS) as [SettingKey, (typeof SETTINGS)[SettingKey]][];

    // Assess
    expect(new Set(NAMES).size).toBe(NAMES.length);
    for (const [key, setting] of settings) {
      expect(ENV[key]).toBe(setting.name);
      expect(setting.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(setting.doc.length).toBeGreaterThan(10);
    }
  });

  it("has one name for the WebSocket callback URL, the one the stack sets", () => {
    // Assess
    expect(FUNCTION_ENVIRONMENT.webSocketCallbackUrl).toBe("SKILLS_WS_CALLBACK_URL");
    expect(NAMES).not.toContain("SKILLS_WS_ENDPOINT");
  });

  it("declares every name the stack, the local stack and the bundling probe give a function, under the same key", () => {
    // Prepare
    const local = localEnvironment({
      resources: {
        tableName: "t",
        bucketName: "b",
        laneQueueUrl: "q",
        laneQueueArn: "arn",
        deadLetterQueueUrl: "d",
        laneMaxReceiveCount: 5,
      },
      emulators: {
        mode: "emulators",
        endpoints: { dynamodb: "http://d", s3: "http://s", sqs: "http://q" },
        description: [],
        stop: async () => undefined,
      },
      region: "eu-central-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
      managementEndpoint: "http://127.0.0.1:3000",
      jwtSecret: "s",
    });

    // Act
    const given = [...Object.keys(local), ...Object.keys(placeholderFunctionEnvironment("/tmp/bundled"))];

    // Assess
    for (const [key, name] of Object.entries(FUNCTION_ENVIRONMENT)) expect(ENV[key as SettingKey]).toBe(name);
    expect(given.filter((name) => !NAMES.includes(name))).toEqual([]);
  });

  it("leaves no variable name as a literal in infra/, functions/ or cli/: they come from ENV", () => {
    // Prepare
    const files = ["infra", "functions", "cli"].flatMap(sourcesUnder);

    // Act
    const literals = files.flatMap((file) => namesInCode(file).map((name) => `${file}: ${name}`));

    // Assess
    expect(files.length).toBeGreaterThan(20);
    expect(literals).toEqual([]);
  });

  it("names the dropped SKILLS_WS_ENDPOINT nowhere in the code or the docs", () => {
    // Prepare
    const files = [
      ...["shared", "infra", "functions", "cli"].flatMap(sourcesUnder),
      "README.md",
      "infra/local/README.md",
      "docs/decisions.md",
    ];
    const dropped = ["SKILLS", "WS", "ENDPOINT"].join("_");

    // Act
    const mentions = files.filter((file) => readFileSync(join(ROOT, file), "utf8").includes(dropped));

    // Assess
    expect(mentions).toEqual([]);
  });
});
