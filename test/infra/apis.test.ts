import { describe, expect, it } from "vitest";
import type { FunctionName } from "../../infra/api-routes.js";
import {
  functionLogicalId,
  getAtt,
  logicalIdOf,
  synthesizeSkillsStack,
  type SynthesizedStack,
  type TemplateResource,
} from "./synthesize-stack.js";

const synth = synthesizeSkillsStack();

/** Written from API.md, not from infra/api-routes.ts, so a route missing from the table fails here. */
const API_MD_ROUTES: [routeKey: string, fn: FunctionName][] = [
  ["PUT /brain/{tenant}/projects/{project}/documents/{path+}", "http-documents"],
  ["GET /brain/{tenant}/projects/{project}/documents/{path+}", "http-documents"],
  ["DELETE /brain/{tenant}/projects/{project}/documents/{path+}", "http-documents"],
  ["GET /brain/{tenant}/projects/{project}/documents", "http-documents"],
  ["GET /brain/{tenant}/skills/effective", "http-skills"],
  ["GET /brain/{tenant}/skills/effective/{name}", "http-skills"],
  ["GET /brain/{tenant}/skills/problems", "http-skills"],
  ["GET /brain/{tenant}/skills/active", "http-skills"],
  ["POST /brain/{tenant}/sessions/{sessionId}/processes", "http-processes"],
  // API.md "Additions (second round)": sessions are per user.
  ["GET /brain/{tenant}/sessions/{sessionId}/processes", "http-processes"],
  ["GET /brain/{tenant}/processes/{processId}", "http-processes"],
  ["GET /brain/{tenant}/processes/{processId}/requests/{requestId}", "http-processes"],
  ["GET /brain/{tenant}/processes/{processId}/composition", "http-processes"],
  // API.md "Explainable activation": a composed Turn, kept with its compose request.
  ["GET /brain/{tenant}/processes/{processId}/turns/{turnId}", "http-processes"],
  ["POST /brain/{tenant}/processes/{processId}/skill", "http-steer"],
  ["POST /brain/{tenant}/processes/{processId}/turns", "http-steer"],
  ["POST /brain/{tenant}/processes/{processId}/turns/{turnId}/complete", "http-steer"],
  ["POST /brain/{tenant}/processes/{processId}/tools/{toolName}", "http-tools"],
  // API.md "Author's loop" (issue 17): usage, evals, and `…/documents/{path}:restore` on the greedy document route.
  ["GET /brain/{tenant}/skills/usage", "http-skills"],
  ["GET /brain/{tenant}/skills/search", "http-skills"],
  ["GET /brain/{tenant}/skills/effective/{name}/evals", "http-skills"],
  ["POST /brain/{tenant}/projects/{project}/documents/{path+}", "http-documents"],
  ["POST /brain/{tenant}/mcp", "http-mcp"],
  ["GET /brain/{tenant}/mcp", "http-mcp"],
  ["DELETE /brain/{tenant}/mcp", "http-mcp"],
];

const resourcesOf = (s: SynthesizedStack, type: string): [string, TemplateResource][] =>
  Object.entries(s.resources).filter(([, resource]) => resource.Type === type);

/** Route key → the function its integration invokes, and its authorization. */
function routesOf(s: SynthesizedStack, apiId: string): Map<string, { fn: unknown; authorizationType: unknown; authorizerId: unknown }> {
  const integrations = new Map(
    resourcesOf(s, "AWS::ApiGatewayV2::Integration").map(([id, resource]) => [id, resource.Properties!.IntegrationUri]),
  );
  const routes = new Map<string, { fn: unknown; authorizationType: unknown; authorizerId: unknown }>();
  for (const [, route] of resourcesOf(s, "AWS::ApiGatewayV2::Route")) {
    const p = route.Properties!;
    if (JSON.stringify(p.ApiId) !== JSON.stringify({ Ref: apiId })) continue;
    const target = JSON.stringify(p.Target);
    const integrationId = [...integrations.keys()].find((id) => target.includes(`{"Ref":"${id}"}`));
    routes.set(p.RouteKey as string, {
      fn: integrationId && integrations.get(integrationId),
      authorizationType: p.AuthorizationType,
      authorizerId: p.AuthorizerId,
    });
  }
  return routes;
}

/** HTTP integrations use the function ARN; WebSocket integrations the Lambda invocation URI around it. */
const invokes = (uri: unknown, s: SynthesizedStack, name: FunctionName): boolean =>
  JSON.stringify(uri).includes(JSON.stringify(getAtt(functionLogicalId(s, name), "Arn")));

describe("HTTP API", () => {
  const apiId = logicalIdOf(synth.stack, synth.stack.httpApi.api);
  const authorizerIds = resourcesOf(synth, "AWS::ApiGatewayV2::Authorizer")
    .filter(([, a]) => JSON.stringify(a.Properties!.ApiId) === JSON.stringify({ Ref: apiId }))
    .map(([id]) => id);
  const authorizerId = authorizerIds[0]!;
  const routes = routesOf(synth, apiId);

  it("has every API.md route plus /health and /openapi.json, and nothing else", () => {
    // Prepare
    const expected = [...API_MD_ROUTES.map(([key]) => key), "GET /health", "GET /openapi.json"].sort();

    // Act
    const actual = [...routes.keys()].sort();

    // Assess
    expect(actual).toEqual(expected);
  });

  it.each(API_MD_ROUTES)("%s → %s behind the Lambda authorizer", (routeKey, fn) => {
    // Prepare
    const route = routes.get(routeKey);

    // Act
    const target = route?.fn;

    // Assess
    expect(invokes(target, synth, fn)).toBe(true);
    expect(route?.authorizationType).toBe("CUSTOM");
    expect(route?.authorizerId).toEqual({ Ref: authorizerId });
  });

  it.each(["GET /health", "GET /openapi.json"])("serves %s without authorization", (key) => {
    // Prepare
    const route = routes.get(key);

    // Act
    const { authorizationType, authorizerId: routeAuthorizer } = route!;

    // Assess
    expect(authorizationType).toBe("NONE");
    expect(routeAuthorizer).toBeUndefined();
    expect(invokes(route!.fn, synth, "http-skills")).toBe(true);
  });

  it("verifies tokens with the authorizer function: simple responses, Authorization header, short cache", () => {
    // Prepare
    const authorizer = synth.resources[authorizerId]!.Properties!;

    // Act
    const uri = authorizer.AuthorizerUri;

    // Assess
    expect(authorizerIds).toHaveLength(1);
    expect(authorizer).toMatchObject({
      ApiId: { Ref: apiId },
      AuthorizerType: "REQUEST",
      AuthorizerPayloadFormatVersion: "2.0",
      EnableSimpleResponses: true,
    });
    // Every request reaches the authorizer, so a missing token is answered in the API.md shape.
    expect(authorizer.IdentitySource ?? []).toEqual([]);
    expect(authorizer.AuthorizerResultTtlInSeconds).toBe(0);
    expect(invokes(uri, synth, "authorizer")).toBe(true);
  });

  it("serves API.md paths unprefixed from an auto-deployed, throttled $default stage", () => {
    // Prepare
    const stages = resourcesOf(synth, "AWS::ApiGatewayV2::Stage").filter(
      ([, stage]) => JSON.stringify(stage.Properties!.ApiId) === JSON.stringify({ Ref: apiId }),
    );

    // Act
    const [[, stage]] = stages as [[string, TemplateResource]];

    // Assess
    expect(stages).toHaveLength(1);
    expect(stage.Properties).toMatchObject({
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
  });

  it("lets API Gateway invoke each HTTP function and the authorizer", () => {
    // Prepare
    const permissions = resourcesOf(synth, "AWS::Lambda::Permission").map(([, permission]) => permission.Properties!);

    // Act
    const invoked = (name: FunctionName): boolean =>
      permissions.some(
        (p) =>
          p.Principal === "apigateway.amazonaws.com" &&
          JSON.stringify(p.FunctionName) === JSON.stringify(getAtt(functionLogicalId(synth, name), "Arn")),
      );

    // Assess
    for (const name of ["http-skills", "http-processes", "http-steer", "http-documents", "http-tools", "http-mcp", "authorizer"] as const)
      expect(invoked(name)).toBe(true);
  });
});

describe("WebSocket API", () => {
  const apiId = logicalIdOf(synth.stack, synth.stack.webSocketApi.api);
  const routes = routesOf(synth, apiId);
  const authorizers = resourcesOf(synth, "AWS::ApiGatewayV2::Authorizer").filter(
    ([, a]) => JSON.stringify(a.Properties!.ApiId) === JSON.stringify({ Ref: apiId }),
  );

  it("routes $connect, $disconnect and $default to their functions, selecting frames by `type`", () => {
    // Prepare
    const api = synth.resources[apiId]!.Properties!;

    // Act
    const keys = [...routes.keys()].sort();

    // Assess
    expect(api).toMatchObject({ ProtocolType: "WEBSOCKET", RouteSelectionExpression: "$request.body.type" });
    expect(keys).toEqual(["$connect", "$default", "$disconnect"]);
    expect(invokes(routes.get("$connect")!.fn, synth, "ws-connect")).toBe(true);
    expect(invokes(routes.get("$disconnect")!.fn, synth, "ws-disconnect")).toBe(true);
    expect(invokes(routes.get("$default")!.fn, synth, "ws-default")).toBe(true);
  });

  it("authorizes $connect with the token from the `token` query parameter", () => {
    // Prepare
    const [[authorizerId, authorizer]] = authorizers as [[string, TemplateResource]];

    // Act
    const connect = routes.get("$connect")!;

    // Assess
    expect(authorizers).toHaveLength(1);
    expect(authorizer.Properties).toMatchObject({ AuthorizerType: "REQUEST", IdentitySource: ["route.request.querystring.token"] });
    expect(invokes(authorizer.Properties!.AuthorizerUri, synth, "authorizer")).toBe(true);
    expect(connect).toMatchObject({ authorizationType: "CUSTOM", authorizerId: { Ref: authorizerId } });
    expect(routes.get("$disconnect")!.authorizationType).toBe("NONE");
    expect(routes.get("$default")!.authorizationType).toBe("NONE");
  });

  it("deploys one stage, named by the stageName prop", () => {
    // Prepare
    const custom = synthesizeSkillsStack({ stageName: "beta" });
    const customApiId = logicalIdOf(custom.stack, custom.stack.webSocketApi.api);

    // Act
    const stages = resourcesOf(custom, "AWS::ApiGatewayV2::Stage").filter(
      ([, s]) => JSON.stringify(s.Properties!.ApiId) === JSON.stringify({ Ref: customApiId }),
    );

    // Assess
    expect(stages).toHaveLength(1);
    expect(stages[0]![1].Properties).toMatchObject({ StageName: "beta", AutoDeploy: true });
    expect(custom.stack.webSocketApi.stage.stageName).toBe("beta");
    expect(synth.stack.webSocketApi.stage.stageName).toBe("live");
  });
});
