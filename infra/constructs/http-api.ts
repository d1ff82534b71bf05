import { Duration } from "aws-cdk-lib";
import { CorsHttpMethod, HttpApi, HttpMethod, HttpNoneAuthorizer, HttpStage, type ThrottleSettings } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { HTTP_ROUTES, type FunctionName, type HttpRoute } from "../api-routes.js";
import { InfraConfigurationError } from "../infra-errors.js";

interface SkillsHttpApiProps {
  /** Verifies the bearer token and hands tenant/user/projects/roles to the handlers as context. */
  authorizer: IFunction;
  /** The function behind each function name used in HTTP_ROUTES. */
  handlers: Partial<Record<FunctionName, IFunction>>;
  /** @default 100 requests/s steady, bursts of 200 */
  throttle?: ThrottleSettings;
  /** Browser origins that may call the API (the web console's distribution). @default none */
  allowedOrigins?: string[];
}

/**
 * The HTTP surface of API.md on API Gateway (HTTP API, payload v2): every route from
 * HTTP_ROUTES behind one Lambda authorizer with simple responses, `/health` public.
 * API Gateway's own 401 body is `{"message":"Unauthorized"}`, not API.md's error shape, and HTTP
 * APIs cannot change it. So the authorizer runs for every request (no identity source, hence no
 * result cache) and lets a missing or bad token through marked unauthenticated; the handler
 * wrapper then answers 401 UNAUTHENTICATED in the API.md shape. Identity still comes only from
 * the authorizer's verified context.
 */
export class SkillsHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly authorizer: HttpLambdaAuthorizer;

  constructor(scope: Construct, id: string, props: SkillsHttpApiProps) {
    super(scope, id);
    this.authorizer = new HttpLambdaAuthorizer("JwtAuthorizer", props.authorizer, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    this.api = new HttpApi(this, "Api", {
      description: "Skills service HTTP API (API.md)",
      createDefaultStage: false,
      defaultAuthorizer: this.authorizer,
      // API Gateway answers the preflight itself, before the authorizer (a preflight has no token).
      ...(props.allowedOrigins && props.allowedOrigins.length > 0
        ? {
            corsPreflight: {
              allowOrigins: props.allowedOrigins,
              allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.PUT, CorsHttpMethod.POST, CorsHttpMethod.DELETE],
              allowHeaders: ["authorization", "content-type", "prefer", "skills-file-mode"],
              exposeHeaders: ["etag", "retry-after", "skills-request-id", "skills-file-mode"],
              maxAge: Duration.hours(1),
            },
          }
        : {}),
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
