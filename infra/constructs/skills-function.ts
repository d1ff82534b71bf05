import { createRequire } from "node:module";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { RemovalPolicy, type Duration } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, ParamsAndSecretsLayerVersion, ParamsAndSecretsVersions, Runtime, Tracing } from "aws-cdk-lib/aws-lambda";
import { LogLevel, NodejsFunction, OutputFormat, type ICommandHooks } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import type { FunctionName } from "../api-routes.js";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";

/** The repository root: entries, shared/bundled and the lock file are all found from here. */
export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Where a handler's code lives, relative to the project root. */
export const handlerEntry = (name: FunctionName): string => `functions/${name}/handler.ts`;

/** The RESOURCE skills and recipes: copied beside each bundle that loads skills. */
const BUNDLED_SOURCE = "shared/bundled";
const BUNDLED_TARGET = "bundled";
/** Lambda unpacks the bundle here. */
const TASK_ROOT = "/var/task";

/** The sandbox worker thread (shared/sandbox): its own esbuild entry, found beside the bundle at run time. */
const SANDBOX_WORKER_SOURCE = "shared/sandbox/sandbox-worker.mjs";
export const SANDBOX_WORKER_FILE = "sandbox-worker.mjs";
/** The emscripten loader resolves its wasm next to the (bundled) module that imports it. */
export const QUICKJS_WASM_FILE = "emscripten-module.wasm";

/** ESM bundles still contain CommonJS dependencies that call `require` for Node built-ins. */
export const ESM_REQUIRE_SHIM = "import { createRequire as __skillsCreateRequire } from 'node:module'; const require = __skillsCreateRequire(import.meta.url);";

export const NODE_TARGET = "node22";

/**
 * Module substitutions in the Lambda bundles: the SDK's default credential chain becomes the
 * environment provider (Lambda always sets the role's keys there; see the module's comment).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  "@aws-sdk/credential-provider-node": "./shared/aws/aws-lambda-credentials.ts",
};

export interface SkillsFunctionProps {
  /** Folder under functions/ holding `handler.ts` (export `handler`). */
  name: FunctionName;
  description: string;
  memorySize: number;
  timeout: Duration;
  /** Copies shared/bundled beside the bundle and points SKILLS_BUNDLED_DIR at it. */
  loadsSkills?: boolean;
  /** Ships the QuickJS sandbox worker and its wasm: only functions that render templates or run scripts. */
  runsSandbox?: boolean;
  /**
   * Adds the AWS Parameters and Secrets extension (a localhost cache in front of Secrets Manager),
   * so the handler reads its secret without bundling the Secrets Manager SDK.
   */
  secretsExtension?: boolean;
  /** POWERTOOLS_LOG_LEVEL. @default "INFO" */
  logLevel?: string;
  logRetention?: RetentionDays;
}

const projectPath = (absolute: string): string => relative(PROJECT_ROOT, absolute).split("\\").join("/");

/** The wasm the sandbox worker loads (RELEASE_SYNC variant), found through quickjs-emscripten's own resolution. */
const quickjsWasmPath = (): string => {
  const fromProject = createRequire(`${PROJECT_ROOT}package.json`);
  const fromQuickjs = createRequire(fromProject.resolve("quickjs-emscripten"));
  return projectPath(fromQuickjs.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
};

const quote = (path: string): string => `'${path.replace(/'/g, "'\\''")}'`;

/** Commands run on the host after esbuild wrote index.mjs (local bundling; no Docker). */
const afterBundlingCommands = (props: SkillsFunctionProps, inputDir: string, outputDir: string): string[] => {
  const commands: string[] = [];
  if (props.loadsSkills) {
    commands.push(`cp -R ${quote(`${inputDir}/${BUNDLED_SOURCE}`)} ${quote(`${outputDir}/${BUNDLED_TARGET}`)}`);
  }
  if (props.runsSandbox) {
    const esbuild = `${inputDir}/node_modules/.bin/esbuild`;
    commands.push(
      [
        quote(esbuild),
        quote(`${inputDir}/${SANDBOX_WORKER_SOURCE}`),
        "--bundle",
        "--platform=node",
        "--format=esm",
        `--target=${NODE_TARGET}`,
        "--minify",
        "--main-fields=module,main",
        "--log-level=warning",
        quote(`--banner:js=${ESM_REQUIRE_SHIM}`),
        quote(`--outfile=${outputDir}/${SANDBOX_WORKER_FILE}`),
      ].join(" "),
      `cp ${quote(`${inputDir}/${quickjsWasmPath()}`)} ${quote(`${outputDir}/${QUICKJS_WASM_FILE}`)}`,
    );
  }
  return commands;
};

/**
 * One handler of the service as its own Lambda: a separate esbuild bundle (minified ESM with
 * source maps, AWS SDK included so the deployed SDK is the tested one), Node.js 22 on arm64,
 * Powertools configuration, and a log group with a retention. Resource access and the
 * environment variables naming resources are added by the resource constructs' grant helpers.
 */
export class SkillsFunction extends NodejsFunction {
  readonly skillsFunctionName: FunctionName;

  constructor(scope: Construct, id: string, props: SkillsFunctionProps) {
    const commandHooks: ICommandHooks = {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir, outputDir) => afterBundlingCommands(props, inputDir, outputDir),
    };
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs:* on "*"): write to this function's log group only.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `Runs the ${props.name} Lambda of the Skills service`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: `${PROJECT_ROOT}${handlerEntry(props.name)}`,
      handler: "handler",
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      logGroup,
      role,
      // X-Ray: Lambda's own segment for every function; the handlers add subsegments through
      // Powertools Tracer (functions/_shared/tracing.ts). CDK grants xray:PutTraceSegments and
      // xray:PutTelemetryRecords on "*" — X-Ray has no resource-level permissions.
      tracing: Tracing.ACTIVE,
      ...(props.secretsExtension ? { paramsAndSecrets: ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103) } : {}),
      environment: {
        [FUNCTION_ENVIRONMENT.nodeOptions]: "--enable-source-maps",
        [FUNCTION_ENVIRONMENT.powertoolsServiceName]: "skills",
        [FUNCTION_ENVIRONMENT.powertoolsMetricsNamespace]: "SkillsService",
        [FUNCTION_ENVIRONMENT.powertoolsLogLevel]: props.logLevel ?? "INFO",
        // Responses carry skill bodies and composed prompts: keep them out of traces. Errors stay.
        [FUNCTION_ENVIRONMENT.powertoolsTracerCaptureResponse]: "false",
        ...(props.loadsSkills ? { [FUNCTION_ENVIRONMENT.bundledDir]: `${TASK_ROOT}/${BUNDLED_TARGET}` } : {}),
      },
      bundling: {
        format: OutputFormat.ESM,
        target: NODE_TARGET,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        logLevel: LogLevel.WARNING,
        mainFields: ["module", "main"],
        banner: ESM_REQUIRE_SHIM,
        bundleAwsSDK: true,
        // `--alias:<from>=<to>`; esbuild resolves a "./" target from its working directory, the project root.
        esbuildArgs: { "--alias": Object.entries(BUNDLE_ALIASES).map(([from, to]) => `${from}=${to}`) },
        commandHooks,
      },
    });
    this.skillsFunctionName = props.name;
  }
}
