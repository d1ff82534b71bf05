import { AssetHashType, DockerImage, RemovalPolicy, type Duration } from "aws-cdk-lib";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  Architecture,
  Code,
  Function as LambdaFunction,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsVersions,
  Runtime,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import type { FunctionName } from "../api-routes.js";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import { HANDLER_FILE, PROJECT_ROOT } from "../lambda-bundle.js";
import { BUNDLED_TARGET, writeLambdaAsset } from "../write-lambda-asset.js";

// Importers of these names from here predate infra/lambda-bundle.ts and infra/write-lambda-asset.ts.
export { BUNDLE_ALIASES, ESM_REQUIRE_SHIM, handlerEntry, NODE_TARGET, PROJECT_ROOT } from "../lambda-bundle.js";
export { QUICKJS_WASM_FILE, SANDBOX_WORKER_FILE } from "../write-lambda-asset.js";

/** Lambda unpacks the asset here. */
const TASK_ROOT = "/var/task";

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

/**
 * The asset of one function, built on the host by esbuild (infra/write-lambda-asset.ts) when the
 * stack is synthesized with bundling (CDK skips it for stacks outside `aws:cdk:bundling-stacks`).
 * Its hash is the output's, as NodejsFunction's is.
 */
const functionCode = (props: SkillsFunctionProps): Code =>
  Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling always answers (it builds, or throws esbuild's error).
      image: DockerImage.fromRegistry("scratch"),
      // Part of CDK's staging cache key (the local bundler is not): one asset per function and contents.
      command: [
        "write-lambda-asset",
        props.name,
        `loadsSkills=${String(props.loadsSkills ?? false)}`,
        `runsSandbox=${String(props.runsSandbox ?? false)}`,
      ],
      local: {
        tryBundle: (outputDir) => {
          writeLambdaAsset(props.name, outputDir, props);
          return true;
        },
      },
    },
  });

/**
 * One handler of the service as its own Lambda: ESM with code splitting (index.mjs and its chunks,
 * minified, with source maps; the AWS SDK from AWS_SDK_SOURCE in infra/lambda-bundle.ts), Node.js
 * 22 on arm64, Powertools configuration, and a log group with a retention. Resource access and the
 * environment variables naming resources are added by the resource constructs' grant helpers.
 */
export class SkillsFunction extends LambdaFunction {
  readonly skillsFunctionName: FunctionName;

  constructor(scope: Construct, id: string, props: SkillsFunctionProps) {
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
      code: functionCode(props),
      // Lambda's Node.js 22 runtime loads an .mjs handler as ESM.
      handler: `${HANDLER_FILE.replace(/\.mjs$/, "")}.handler`,
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
        [FUNCTION_ENVIRONMENT.powertoolsServiceName]: "skills",
        [FUNCTION_ENVIRONMENT.powertoolsMetricsNamespace]: "SkillsService",
        [FUNCTION_ENVIRONMENT.powertoolsLogLevel]: props.logLevel ?? "INFO",
        // Responses carry skill bodies and composed prompts: keep them out of traces. Errors stay.
        [FUNCTION_ENVIRONMENT.powertoolsTracerCaptureResponse]: "false",
        ...(props.loadsSkills ? { [FUNCTION_ENVIRONMENT.bundledDir]: `${TASK_ROOT}/${BUNDLED_TARGET}` } : {}),
      },
    });
    this.skillsFunctionName = props.name;
  }
}
