import { WebSocketApi, WebSocketStage, type ThrottleSettings } from "aws-cdk-lib/aws-apigatewayv2";
import { WebSocketLambdaAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { WebSocketLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { Grant } from "aws-cdk-lib/aws-iam";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { WEBSOCKET_TOKEN_QUERY_PARAMETER } from "../api-routes.js";
import { FUNCTION_ENVIRONMENT } from "../function-environment.js";
import type { ResourceUser } from "./resource-user.js";

interface SkillsWebSocketApiProps {
  stageName: string;
  /** Runs on `$connect` with the `?token=` query parameter; WebSocket authorizers answer with an IAM policy. */
  authorizer: IFunction;
  connect: IFunction;
  disconnect: IFunction;
  /** Every client frame (API.md "WebSocket frames"); frames are told apart by their `type` field. */
  default: IFunction;
  /** @default 50 messages/s steady, bursts of 100 */
  throttle?: ThrottleSettings;
}

/**
 * The WebSocket surface of API.md: `$connect` behind the token authorizer, `$disconnect`,
 * `$default` for every frame, one auto-deployed stage. Pushing to clients (results, scheduled
 * turns) needs the stage's management API; `grantManageConnections` gives exactly that.
 */
export class SkillsWebSocketApi extends Construct {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;

  constructor(scope: Construct, id: string, props: SkillsWebSocketApiProps) {
    super(scope, id);
    const authorizer = new WebSocketLambdaAuthorizer("ConnectAuthorizer", props.authorizer, {
      identitySource: [`route.request.querystring.${WEBSOCKET_TOKEN_QUERY_PARAMETER}`],
    });
    this.api = new WebSocketApi(this, "Api", {
      description: "Skills service WebSocket API (API.md)",
      routeSelectionExpression: "$request.body.type",
      connectRouteOptions: { integration: new WebSocketLambdaIntegration("ConnectIntegration", props.connect), authorizer },
      disconnectRouteOptions: { integration: new WebSocketLambdaIntegration("DisconnectIntegration", props.disconnect) },
      defaultRouteOptions: { integration: new WebSocketLambdaIntegration("DefaultIntegration", props.default) },
    });
    this.stage = new WebSocketStage(this, "Stage", {
      webSocketApi: this.api,
      stageName: props.stageName,
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 50, burstLimit: 100 },
    });
  }

  /** `wss://…/{stage}` for clients. */
  get url(): string {
    return this.stage.url;
  }

  /** `https://…/{stage}`, the endpoint of PostToConnection. */
  get callbackUrl(): string {
    return this.stage.callbackUrl;
  }

  /** execute-api:ManageConnections on this API's stage only, plus the callback URL in the environment. */
  grantManageConnections(user: ResourceUser): Grant {
    user.addEnvironment(FUNCTION_ENVIRONMENT.webSocketCallbackUrl, this.callbackUrl);
    return this.stage.grantManagementApiAccess(user);
  }
}
