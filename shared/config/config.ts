import { ConfigurationError } from "./config-errors.js";
import * as z from "zod/mini";

/**
 * The service's configuration: every environment variable it reads, or that the stack, the
 * Lambda runtime or the local stack sets for it, declared once — its one name, its schema (type,
 * default, validation) and what it is for. Everything else takes the names from here: the
 * handlers (through the slices below), auth and LLM settings, the CDK constructs
 * (infra/function-environment.ts) and the local stack (infra/local/local-environment.ts).
 *
 * A function parses only the slice it needs, once, at module scope (`readConfig(env, keys)`):
 * which resources are there differs by function, so resource variables are optional here and a
 * missing one becomes an adapter that fails with ConfigurationError when used (wiring). A value
 * that is set but invalid fails at once with a ConfigurationError naming the variable.
 *
 * `zod/mini` rather than `zod`: the same schemas (and `import * as z`), but tree-shakable, so the
 * authorizer and the table-only functions stay small (docs/decisions.md, "Bundle size and cold
 * init"); all of shared/ does the same (the no-classic-zod rule of .dependency-cruiser.cjs).
 */

/** What a function was started with: `process.env`, or a plain record in tests. */
export type ConfigEnvironment = Readonly<Record<string, string | undefined>>;

interface Setting<N extends string, S extends z.ZodMiniType> {
  /** The variable's one name. */
  readonly name: N;
  /** Applied to the value when it is set (non-blank); to `undefined` when it is not (optional, default or required). */
  readonly schema: S;
  readonly doc: string;
  /** Never echoed in an error message. */
  readonly secret: boolean;
}

const setting = <const N extends string, S extends z.ZodMiniType>(
  name: N,
  schema: S,
  doc: string,
  options: { secret?: boolean } = {},
): Setting<N, S> => ({
  name,
  schema,
  doc,
  secret: options.secret ?? false,
});

// Schemas. Each names its own failure (zod/mini carries no message locale).
const text = z.optional(z.string());
const trimmed = z.optional(
  z.pipe(
    z.string(),
    z.transform((value: string) => value.trim()),
  ),
);
const POSITIVE_INTEGER = "must be a positive integer";
const positiveInteger = z.coerce
  .number({ error: POSITIVE_INTEGER })
  .check(z.int({ error: POSITIVE_INTEGER }), z.positive({ error: POSITIVE_INTEGER }));
const PORT = "must be a port number (0–65535)";
const port = z.coerce.number({ error: PORT }).check(z.int({ error: PORT }), z.gte(0, { error: PORT }), z.lte(65_535, { error: PORT }));
/** `1`, `true` or `yes` (any case) is on; anything else, or unset, is off. */
const flag = z._default(
  z.pipe(
    z.string(),
    z.transform((value: string) => ["1", "true", "yes"].includes(value.toLowerCase())),
  ),
  false,
);

/** A URL (`new URL` accepts it), as a URL object. */
const url = z.pipe(
  z.string(),
  z.transform((value: string, ctx) => {
    try {
      return new URL(value);
    } catch {
      ctx.issues.push({ code: "custom", message: "is not a valid URL", input: value });
      return z.NEVER;
    }
  }),
);

/** An http(s) base URL, trimmed and without trailing slashes (requests append `/chat/completions`). */
const httpBaseUrl = z.pipe(
  z.string(),
  z.transform((value: string, ctx) => {
    const base = value.trim();
    let parsed: URL;
    try {
      parsed = new URL(base);
    } catch {
      ctx.issues.push({ code: "custom", message: "is not a URL", input: value });
      return z.NEVER;
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
      ctx.issues.push({ code: "custom", message: "must be http(s)", input: value });
      return z.NEVER;
    }
    return base.replace(/\/+$/, "");
  }),
);

export const DEFAULT_REGION = "us-east-1";
export const DEFAULT_LLM_TIMEOUT_MS = 15_000;
/** The Parameters and Secrets extension's default port. */
export const DEFAULT_SECRETS_EXTENSION_PORT = 2773;

export const SETTINGS = {
  // Resources: the stack sets each for the functions granted the resource (infra/function-environment.ts).
  tableName: setting(
    "SKILLS_TABLE_NAME",
    text,
    "The DynamoDB table (processes, requests, connections, catalogue versions, FOOT invocations).",
  ),
  bucketName: setting("SKILLS_BUCKET_NAME", text, "The S3 documents bucket."),
  historyBucketName: setting(
    "SKILLS_HISTORY_BUCKET_NAME",
    text,
    "A bucket for the documents' version history, for a documents bucket without S3 versioning (the local stack sets it): every write is also copied there. Unset: versions are the bucket's own.",
  ),
  laneQueueUrl: setting("SKILLS_LANE_QUEUE_URL", text, "The lane FIFO queue (turns and steering requests)."),
  laneDeadLetterQueueUrl: setting(
    "SKILLS_LANE_DLQ_URL",
    text,
    "The lane's FIFO DLQ: the worker parks a poison message there at once instead of retrying it.",
  ),
  laneMaxReceiveCount: setting(
    "SKILLS_LANE_MAX_RECEIVE_COUNT",
    z.optional(positiveInteger),
    "The lane's redrive maxReceiveCount: on that delivery the worker settles a failing request and parks it.",
  ),
  webSocketCallbackUrl: setting(
    "SKILLS_WS_CALLBACK_URL",
    text,
    "The WebSocket API's management endpoint for PostToConnection, `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}` (locally `http://127.0.0.1:<port>`).",
  ),
  bundledDir: setting(
    "SKILLS_BUNDLED_DIR",
    text,
    "Where the RESOURCE skills and recipes lie (copied beside the bundle); default: shared/bundled of the package.",
  ),

  // Token verification (shared/auth/auth-config.ts): at least one of secret, secret ARN, JWKS URL outside local mode.
  jwtSecret: setting(
    "SKILLS_JWT_SECRET",
    text,
    "The HS256 secret in clear: local mode, the CLI's `token` command (default `local-dev-secret` there only).",
    { secret: true },
  ),
  jwtSecretArn: setting(
    "SKILLS_JWT_SECRET_ARN",
    text,
    "Secrets Manager ARN of the HS256 secret (read through the Parameters and Secrets extension); the secret string is the key.",
  ),
  jwksUrl: setting(
    "SKILLS_JWT_JWKS_URL",
    z.optional(url),
    "JWKS URL for RS256 tokens; https (plain http only to a loopback host in local mode).",
  ),
  jwtIssuer: setting("SKILLS_JWT_ISSUER", text, "Expected `iss` of tokens, if any."),
  jwtAudience: setting("SKILLS_JWT_AUDIENCE", text, "Expected `aud` of tokens, if any."),
  localMode: setting(
    "SKILLS_LOCAL_MODE",
    flag,
    "Local mode (`1`/`true`/`yes`): the dev secret is allowed, short secrets too. Refused inside AWS Lambda.",
  ),

  // The CLI's `push` and `pull` (cli/remote-target.ts): which service, as whom; flags override them.
  cliUrl: setting(
    "SKILLS_URL",
    z.optional(url),
    "Base URL of the service the CLI's `push` / `pull` talk to (e.g. `http://127.0.0.1:3000`); `--url` overrides it.",
  ),
  cliToken: setting(
    "SKILLS_TOKEN",
    trimmed,
    "Bearer token the CLI's `push` / `pull` send; `--token` overrides it (prefer the variable: `ps` shows flags).",
    { secret: true },
  ),

  // The OpenAI-compatible endpoint of LLM guards (shared/llm/llm-config.ts); unset URL: no LLM.
  llmUrl: setting(
    "SKILLS_LLM_URL",
    z.optional(httpBaseUrl),
    "Base URL of the chat-completions endpoint; requests go to `{url}/chat/completions`. Unset: no LLM (guards fail open).",
  ),
  llmModel: setting("SKILLS_LLM_MODEL", trimmed, "The `model` of each request; required with SKILLS_LLM_URL."),
  llmApiKey: setting("SKILLS_LLM_API_KEY", trimmed, "Bearer token, for local use (on AWS: SKILLS_LLM_API_KEY_SECRET_ARN).", {
    secret: true,
  }),
  llmApiKeySecretArn: setting(
    "SKILLS_LLM_API_KEY_SECRET_ARN",
    trimmed,
    "Secrets Manager ARN of the bearer token, resolved on first use through the Parameters and Secrets extension.",
  ),
  llmTimeoutMs: setting(
    "SKILLS_LLM_TIMEOUT_MS",
    z._default(z.optional(positiveInteger), DEFAULT_LLM_TIMEOUT_MS),
    "Timeout of one LLM request in milliseconds.",
  ),

  // WebSocket limits (shared/app/ws-lifecycle.ts; docs/decisions.md).
  wsMaxConnectionsPerUser: setting(
    "SKILLS_WS_MAX_CONNECTIONS_PER_USER",
    z._default(z.optional(positiveInteger), 20),
    "Open WebSocket connections one user of a tenant may hold; `$connect` past it is 429 TOO_MANY_REQUESTS.",
  ),
  wsConnectRetryAfterSeconds: setting(
    "SKILLS_WS_CONNECT_RETRY_AFTER_SECONDS",
    z._default(z.optional(positiveInteger), 30),
    "Retry-After (seconds) of that 429.",
  ),

  // Per-identity caps (docs/decisions.md, hardening).
  maxConcurrentSpawnsPerUser: setting(
    "SKILLS_MAX_CONCURRENT_SPAWNS_PER_USER",
    z._default(z.optional(positiveInteger), 4),
    "Process spawns one user of a tenant may have in flight at once; past it 429 TOO_MANY_REQUESTS with Retry-After: 1.",
  ),

  // Per-project caps on documents (shared/app/document-limits.ts; docs/decisions.md, hardening).
  maxDocumentsPerProject: setting(
    "SKILLS_MAX_DOCUMENTS_PER_PROJECT",
    z._default(z.optional(positiveInteger), 10_000),
    "Documents one project level (a project, `_tenant` or `_user_<login>`) may hold; a PUT of a new path past it is 422 INVALID_DOCUMENT.",
  ),
  maxProjectBytes: setting(
    "SKILLS_MAX_PROJECT_BYTES",
    z._default(z.optional(positiveInteger), 256 * 1024 * 1024),
    "Bytes of all documents of one project level together; a PUT that would pass it is 422 INVALID_DOCUMENT.",
  ),

  // Set by the Lambda runtime (or the developer's shell / the local stack); the SDK's own names.
  awsRegion: setting("AWS_REGION", text, "The region (Lambda sets it); else AWS_DEFAULT_REGION, else us-east-1."),
  awsDefaultRegion: setting("AWS_DEFAULT_REGION", text, "The region when AWS_REGION is not set."),
  awsEndpointUrl: setting(
    "AWS_ENDPOINT_URL",
    text,
    "One endpoint for every AWS service (LocalStack); unset on AWS. The local stack then starts no emulator.",
  ),
  awsEndpointUrlS3: setting("AWS_ENDPOINT_URL_S3", text, "The S3 endpoint, before AWS_ENDPOINT_URL (the local emulators)."),
  awsEndpointUrlDynamodb: setting(
    "AWS_ENDPOINT_URL_DYNAMODB",
    text,
    "The DynamoDB endpoint, before AWS_ENDPOINT_URL (the local emulators).",
  ),
  awsEndpointUrlSqs: setting("AWS_ENDPOINT_URL_SQS", text, "The SQS endpoint, before AWS_ENDPOINT_URL (the local emulators)."),
  awsAccessKeyId: setting(
    "AWS_ACCESS_KEY_ID",
    text,
    "Credentials (Lambda: the role's); the local stack gives the handlers dummy ones with the emulators.",
  ),
  awsSecretAccessKey: setting("AWS_SECRET_ACCESS_KEY", text, "Credentials, with AWS_ACCESS_KEY_ID.", { secret: true }),
  awsSessionToken: setting(
    "AWS_SESSION_TOKEN",
    text,
    "Credentials; also how the Parameters and Secrets extension authenticates its caller.",
    { secret: true },
  ),
  awsExecutionEnv: setting(
    "AWS_EXECUTION_ENV",
    text,
    "Set by the Lambda runtime itself (`AWS_Lambda_nodejs…`), never by the local stack: local mode is refused there.",
  ),
  awsSdkNodeVersionWarningDisabled: setting(
    "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED",
    text,
    "Silences the SDK's Node version notice (the local stack and tools set it).",
  ),
  secretsExtensionHttpPort: setting(
    "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT",
    z._default(z.optional(port), DEFAULT_SECRETS_EXTENSION_PORT),
    "Port of the Parameters and Secrets extension on localhost (the extension's layer sets it).",
  ),

  // Read by Powertools (logger, metrics, tracer), set by the stack (infra/constructs/skills-function.ts) or the local stack.
  powertoolsServiceName: setting("POWERTOOLS_SERVICE_NAME", text, "Service name of logs, metrics and traces."),
  powertoolsMetricsNamespace: setting("POWERTOOLS_METRICS_NAMESPACE", text, "CloudWatch namespace of the EMF metrics."),
  powertoolsMetricsDisabled: setting("POWERTOOLS_METRICS_DISABLED", text, "`true`: no EMF metrics (the local stack's default)."),
  powertoolsLogLevel: setting("POWERTOOLS_LOG_LEVEL", text, "Log level of the Powertools loggers (the stack: INFO; tests: SILENT)."),
  powertoolsTracerCaptureResponse: setting(
    "POWERTOOLS_TRACER_CAPTURE_RESPONSE",
    text,
    "`false` in the stack: responses carry skill bodies and prompts, keep them out of traces.",
  ),
  powertoolsTraceEnabled: setting("POWERTOOLS_TRACE_ENABLED", text, "`false` drops the handlers' X-Ray subsegments without a code change."),

  // The process around the code.
  nodeOptions: setting("NODE_OPTIONS", text, "Node flags; the stack sets none (a bundle maps stack traces itself, on demand)."),
  path: setting("PATH", text, "Passed on to Node processes that import a bundle (bundling test, bundle bench)."),
  port: setting("PORT", z.optional(port), "Port of the local stack (`npm start`; `--port` wins); default 3000, 0 = any free port."),
  skipBundling: setting(
    "SKILLS_SKIP_BUNDLING",
    z._default(
      z.pipe(
        z.string(),
        z.transform((value: string) => value === "1"),
      ),
      false,
    ),
    "`1`: `cdk synth` writes the template without running esbuild.",
  ),
} as const;

type Settings = typeof SETTINGS;
export type SettingKey = keyof Settings;
/** The parsed value of each setting in `K`. */
export type Config<K extends SettingKey = SettingKey> = { -readonly [P in K]: z.output<Settings[P]["schema"]> };

/** The one name of every setting, e.g. `ENV.tableName` is `"SKILLS_TABLE_NAME"`. */
export const ENV = Object.freeze(Object.fromEntries(Object.entries(SETTINGS).map(([key, { name }]) => [key, name]))) as {
  readonly [K in SettingKey]: Settings[K]["name"];
};

export type EnvironmentVariableName = (typeof ENV)[SettingKey];

/** Unset: absent, empty or only whitespace. */
const valueOf = (env: ConfigEnvironment, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value;
};

export interface ReadConfigOptions {
  /** Turns the ConfigurationError into the caller's own error type (it becomes the cause). */
  errorAs?: (error: ConfigurationError) => Error;
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: ConfigurationError };

function parseSetting(key: SettingKey, env: ConfigEnvironment): Parsed {
  const { name, schema, secret } = SETTINGS[key] as Setting<string, z.ZodMiniType>;
  const raw = valueOf(env, name);
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const reason = result.error.issues[0]?.message ?? "is invalid";
  const message = raw === undefined || secret ? `${name} ${reason}` : `${name} ${reason}, got '${raw}'`;
  return { ok: false, error: new ConfigurationError(message, { variable: name, cause: result.error }) };
}

/**
 * The settings in `keys`, parsed from `env` (unset ones are `undefined` or their default).
 * Throws a ConfigurationError naming the first invalid variable.
 */
export function readConfig<const K extends SettingKey>(
  env: ConfigEnvironment,
  keys: readonly K[],
  options: ReadConfigOptions = {},
): Config<K> {
  const config: Partial<Record<SettingKey, unknown>> = {};
  for (const key of keys) {
    const parsed = parseSetting(key, env);
    if (!parsed.ok) throw options.errorAs ? options.errorAs(parsed.error) : parsed.error;
    config[key] = parsed.value;
  }
  return config as Config<K>;
}

/** Every setting (tests and tools; a function reads its slice with readConfig). */
export function parseConfig(env: ConfigEnvironment): Config {
  return readConfig(env, Object.keys(SETTINGS) as SettingKey[]);
}

/** Like readConfig, but every setting in `keys` must be set. */
export function requireConfig<const K extends SettingKey>(
  env: ConfigEnvironment,
  keys: readonly K[],
): { [P in K]: Exclude<Config<K>[P], undefined> } {
  const config = readConfig(env, keys);
  for (const key of keys) {
    if (config[key] === undefined) throw new ConfigurationError(`environment variable ${ENV[key]} is not set`, { variable: ENV[key] });
  }
  return config as { [P in K]: Exclude<Config<K>[P], undefined> };
}

/** Where the SDK clients connect. Endpoint overrides: AWS_ENDPOINT_URL_<SERVICE> before AWS_ENDPOINT_URL; none on AWS. */
export interface AwsConfig {
  region: string;
  endpoints: { s3?: string | undefined; dynamodb?: string | undefined; sqs?: string | undefined };
}

const AWS_SETTINGS = [
  "awsRegion",
  "awsDefaultRegion",
  "awsEndpointUrl",
  "awsEndpointUrlS3",
  "awsEndpointUrlDynamodb",
  "awsEndpointUrlSqs",
] as const;

export function awsConfig(env: ConfigEnvironment): AwsConfig {
  const aws = readConfig(env, AWS_SETTINGS);
  return {
    region: aws.awsRegion ?? aws.awsDefaultRegion ?? DEFAULT_REGION,
    endpoints: {
      s3: aws.awsEndpointUrlS3 ?? aws.awsEndpointUrl,
      dynamodb: aws.awsEndpointUrlDynamodb ?? aws.awsEndpointUrl,
      sqs: aws.awsEndpointUrlSqs ?? aws.awsEndpointUrl,
    },
  };
}

/** The resources a function may have been granted: each optional (a missing one is a missing grant). */
export const RESOURCE_SETTINGS = [
  "tableName",
  "bucketName",
  "laneQueueUrl",
  "laneDeadLetterQueueUrl",
  "laneMaxReceiveCount",
  "webSocketCallbackUrl",
] as const;

export type ResourceConfig = Config<(typeof RESOURCE_SETTINGS)[number]> & AwsConfig;

/** A function's resources and where to reach them (shared/wiring/app-environment.ts builds the adapters). */
export function resourceConfig(env: ConfigEnvironment): ResourceConfig {
  return { ...readConfig(env, RESOURCE_SETTINGS), ...awsConfig(env) };
}
