import { describe, expect, it } from "vitest";
import { InvalidRequest } from "../../shared/errors.js";
import { RoutePatternError } from "../../shared/http/http-errors.js";
import { matchRoute } from "../../shared/http/router.js";
import type { RouteDefinition } from "../../shared/http/router.js";

const routes: RouteDefinition<string>[] = [
  { method: "GET", pattern: "/health", target: "health" },
  { method: "GET", pattern: "/brain/{tenant}/skills/effective", target: "list" },
  { method: "GET", pattern: "/brain/{tenant}/skills/effective/{name}", target: "effective" },
  { method: "GET", pattern: "/brain/{tenant}/skills/{what}", target: "skills-other" },
  { method: "GET", pattern: "/brain/{tenant}/projects/{project}/documents", target: "documents-list" },
  { method: "GET", pattern: "/brain/{tenant}/projects/{project}/documents/{path+}", target: "document-get" },
  { method: "PUT", pattern: "/brain/{tenant}/projects/{project}/documents/{path+}", target: "document-put" },
  { method: "DELETE", pattern: "/brain/{tenant}/projects/{project}/documents/{path+}", target: "document-delete" },
  { method: "POST", pattern: "/brain/{tenant}/processes/{processId}/turns/{turnId}/complete", target: "turn-complete" },
  { method: "ANY", pattern: "/echo/{rest+}", target: "echo" },
];

function matched(method: string, path: string) {
  const result = matchRoute(method, path, routes);
  if (result.kind !== "matched") throw new Error(`expected a match for ${method} ${path}, got ${result.kind}`);
  return { target: result.route.target, params: result.params };
}

describe("matchRoute", () => {
  it("matches a literal route", () => {
    // Act
    const result = matched("GET", "/health");

    // Assess
    expect(result).toEqual({ target: "health", params: {} });
  });

  it("extracts named parameters", () => {
    // Act
    const result = matched("POST", "/brain/acme/processes/p-1/turns/t-7/complete");

    // Assess
    expect(result).toEqual({ target: "turn-complete", params: { tenant: "acme", processId: "p-1", turnId: "t-7" } });
  });

  it("prefers a literal segment over a parameter at the same position", () => {
    // Act
    const literal = matched("GET", "/brain/acme/skills/effective");
    const param = matched("GET", "/brain/acme/skills/problems");

    // Assess
    expect(literal.target).toBe("list");
    expect(param).toEqual({ target: "skills-other", params: { tenant: "acme", what: "problems" } });
  });

  it("captures the rest of the path in a greedy parameter, keeping inner slashes", () => {
    // Act
    const result = matched("PUT", "/brain/acme/projects/_tenant/documents/_vance/skills/a.b/SKILL.md");

    // Assess
    expect(result).toEqual({ target: "document-put", params: { tenant: "acme", project: "_tenant", path: "_vance/skills/a.b/SKILL.md" } });
  });

  it("does not let a greedy parameter match nothing", () => {
    // Act
    const bare = matched("GET", "/brain/acme/projects/alpha/documents");
    const trailing = matchRoute("GET", "/brain/acme/projects/alpha/documents/", routes);

    // Assess
    expect(bare.target).toBe("documents-list");
    expect(trailing.kind).toBe("not-found");
  });

  it("percent-decodes each segment exactly once", () => {
    // Act
    const user = matched("GET", "/brain/acme/projects/_user_mia%40example.com/documents/notes/caf%C3%A9.md");
    const doubly = matched("GET", "/brain/acme/skills/effective/a%2520b");

    // Assess
    expect(user.params).toEqual({ tenant: "acme", project: "_user_mia@example.com", path: "notes/café.md" });
    expect(doubly.params.name).toBe("a%20b");
  });

  it("matches the method case-insensitively and honours ANY", () => {
    // Act
    const lower = matched("get", "/health");
    const any = matched("PATCH", "/echo/a/b");

    // Assess
    expect(lower.target).toBe("health");
    expect(any).toEqual({ target: "echo", params: { rest: "a/b" } });
  });

  it("reports the allowed methods when only the method is wrong", () => {
    // Act
    const result = matchRoute("POST", "/brain/acme/projects/alpha/documents/x.md", routes);

    // Assess
    expect(result).toEqual({ kind: "method-not-allowed", allowed: ["DELETE", "GET", "PUT"] });
  });

  it.each(["/nope", "/brain/acme", "/brain/acme/skills/effective/a/b", "/health/", "//health"])("finds nothing for %s", (path) => {
    // Act
    const result = matchRoute("GET", path, routes);

    // Assess
    expect(result).toEqual({ kind: "not-found" });
  });

  it.each([
    "/brain/acme/projects/alpha/documents/%2e%2e/%2e%2e/globex/x",
    "/brain/acme/projects/alpha/documents/a%252e%252e/x/..",
    "/nope/..",
    "/brain/acme/skills/effective/a%5cb",
  ])("rejects the unsafe path %s before routing, whatever the route", (path) => {
    // Act
    const route = () => matchRoute("GET", path, routes);

    // Assess
    expect(route).toThrow(InvalidRequest);
  });

  it("rejects an encoded slash inside a segment", () => {
    // Act
    const route = () => matchRoute("GET", "/brain/acme/skills/effective/a%2Fb", routes);

    // Assess
    expect(route).toThrow(/encoded '\/'/);
  });

  it.each(["health", "/a/{x+}/b", "/a/{x}/{x}", "/a//b", "/a/{x"])("refuses the malformed pattern %s", (pattern) => {
    // Prepare
    const bad: RouteDefinition<string>[] = [{ method: "GET", pattern, target: "bad" }];

    // Act
    const route = () => matchRoute("GET", "/a/b", bad);

    // Assess
    expect(route).toThrow(RoutePatternError);
  });
});
