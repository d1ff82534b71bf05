import { Duration } from "aws-cdk-lib";
import { HttpApi, HttpMethod, HttpNoneAuthorizer, HttpStage, type ThrottleSettings } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { HTTP_ROUTES, type FunctionName, type HttpRoute } from "../api-routes.js";
import { InfraConfigurationError } from "../infra-errors.js";

export interface SkillsHttpApiProps {
  /** Verifies the bearer token and hands tenant/user/projects/roles to the handlers as context. */
  authorizer: IFunction;
  /** The function behind each function name used in HTTP_ROUTES. */
  handlers: Partial<Record<FunctionName, IFunction>>;
  /**
   * How long a verdict for one Authorization header is reused. Bounds how long a token stays
   * usable past its `exp`. @default 1 minute
   */
  authorizerCacheTtl?: Duration;
  /** @default 100 requests/s steady, bursts of 200 */
  throttle?: ThrottleSettings;
}

/**
 * The HTTP surface of API.md on API Gateway (HTTP API, payload v2): every route from
 * HTTP_ROUTES behind one Lambda authorizer with simple responses, `/health` public.
 * Unauthenticated requests never reach a handler: API Gateway answers 401 itself when the
 * Authorization header is missing or the authorizer throws "Unauthorized" (body
 * `{"message":"Unauthorized"}`, not API.md's error shape; HTTP APIs cannot customize it).
 */
export class SkillsHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly authorizer: HttpLambdaAuthorizer;

  constructor(scope: Construct, id: string, props: SkillsHttpApiProps) {
    super(scope, id);
    this.authorizer = new HttpLambdaAuthorizer("JwtAuthorizer", props.authorizer, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: ["$request.header.Authorization"],
      resultsCacheTtl: props.authorizerCacheTtl ?? Duration.minutes(1),
    });
    this.api = new HttpApi(this, "Api", {
      description: "Skills service HTTP API (API.md)",
      createDefaultStage: false,
      defaultAuthorizer: this.authorizer,
    });
    this.stage = new HttpStage(this, "DefaultStage", {
      httpApi: this.api,
      stageName: "$default",
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
    });

    const integrations = new Map<FunctionName, HttpLambdaIntegration>();
    const integrationFor = (route: HttpRoute): HttpLambdaIntegration => {
      const existing = integrations.get(route.function);
      if (existing) return existing;
      const handler = props.handlers[route.function];
      if (!handler) throw new InfraConfigurationError(`No function given for ${route.function} (route ${route.method} ${route.path})`);
      const integration = new HttpLambdaIntegration(`${route.function}-integration`, handler);
      integrations.set(route.function, integration);
      return integration;
    };

    for (const route of HTTP_ROUTES) {
      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationFor(route),
        ...(route.public ? { authorizer: new HttpNoneAuthorizer() } : {}),
      });
    }
  }

  /** Base URL without a trailing slash (the `$default` stage has no path prefix). */
  get url(): string {
    return this.api.apiEndpoint;
  }
}
