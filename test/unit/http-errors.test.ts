import * as z from "zod";
import { MethodNotAllowed, RouteNotFound } from "../../shared/http/http-errors.js";
import { TooManyRequests } from "../../shared/errors.js";
import { describe, expect, it } from "vitest";
import { Forbidden, Unauthenticated } from "../../shared/auth/auth-errors.js";
import {
  InvalidDocument,
  InvalidRequest,
  SkillArgumentMissing,
  SkillLocked,
  SkillNotAllowedByRecipe,
  SkillNotFound,
  SkillsError,
} from "../../shared/errors.js";
import type { ErrorCode } from "../../shared/errors.js";
import { errorResponse, INTERNAL_ERROR_MESSAGE, SERVICE_UNAVAILABLE_MESSAGE } from "../../shared/http/error-response.js";
import { STATUS_BY_CODE, statusForCode } from "../../shared/http/error-table.js";
import { errorHttpResponse } from "../../shared/http/response.js";
import { ConcurrentUpdateConflict, NameTaken, ProcessNotFound, RequestNotFound } from "../../shared/processes/process-errors.js";
import { TemplateSyntaxError } from "../../shared/templates/template-errors.js";

/** Stand-in for areas whose error classes live elsewhere (recipes, documents, tools). */
class CodedError extends SkillsError {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// API.md "Errors", written out again on purpose: the test must fail if the table drifts.
const API_TABLE: [ErrorCode, number][] = [
  ["UNAUTHENTICATED", 401],
  ["FORBIDDEN", 403],
  ["INVALID_REQUEST", 400],
  ["SKILL_NOT_FOUND", 404],
  ["PROCESS_NOT_FOUND", 404],
  ["SKILL_NOT_ALLOWED", 403],
  ["SKILL_LOCKED", 409],
  ["SKILL_ARGUMENT_MISSING", 422],
  ["INVALID_DOCUMENT", 422],
  ["NAME_TAKEN", 409],
  ["RECIPE_NOT_FOUND", 404],
  ["DOCUMENT_NOT_FOUND", 404],
  ["REQUEST_NOT_FOUND", 404],
  ["TOOL_NOT_FOUND", 404],
  ["REQUEST_CONFLICT", 409],
  ["PROCESS_ENDED", 409],
  // API.md "Additions (second round)": codes the gateway itself may answer.
  ["NOT_FOUND", 404],
  ["METHOD_NOT_ALLOWED", 405],
  ["PAYLOAD_TOO_LARGE", 413],
  ["TOO_MANY_REQUESTS", 429],
];

describe("statusForCode", () => {
  it.each(API_TABLE)("%s → %i", (code, status) => {
    // Act
    const actual = statusForCode(code);

    // Assess
    expect(actual).toBe(status);
  });

  it("covers exactly the API codes plus SERVICE_UNAVAILABLE, VERSIONS_UNAVAILABLE (issue 17) and INTERNAL, and maps unknown codes to 500", () => {
    // Act
    const codes = Object.keys(STATUS_BY_CODE).sort();

    // Assess
    expect(codes).toEqual([...API_TABLE.map(([code]) => code), "SERVICE_UNAVAILABLE", "VERSIONS_UNAVAILABLE", "INTERNAL"].sort());
    expect(statusForCode("SERVICE_UNAVAILABLE")).toBe(503);
    expect(statusForCode("VERSIONS_UNAVAILABLE")).toBe(501);
    expect(statusForCode("INTERNAL")).toBe(500);
    expect(statusForCode("TEAPOT")).toBe(500);
  });
});

describe("errorResponse: headers a refusal carries", () => {
  it.each([
    [0.2, "1"],
    [3, "3"],
    [2.5, "3"],
  ])("TooManyRequests after %s s → 429 with Retry-After %s", (seconds, header) => {
    // Act
    const answer = errorResponse(new TooManyRequests("At most 4 concurrent spawns per user", seconds));

    // Assess
    expect(answer).toEqual({
      statusCode: 429,
      body: { error: { code: "TOO_MANY_REQUESTS", message: "At most 4 concurrent spawns per user" } },
      headers: { "retry-after": header },
    });
  });

  it("MethodNotAllowed → 405 with Allow; RouteNotFound → 404 NOT_FOUND without extra headers", () => {
    // Act
    const wrongMethod = errorResponse(new MethodNotAllowed("PATCH", ["GET", "PUT"]));
    const unknown = errorResponse(new RouteNotFound("GET", "/x"));

    // Assess
    expect(wrongMethod).toMatchObject({ statusCode: 405, body: { error: { code: "METHOD_NOT_ALLOWED" } }, headers: { allow: "GET, PUT" } });
    expect(unknown).toEqual({ statusCode: 404, body: { error: { code: "NOT_FOUND", message: "No route for GET /x" } } });
  });
});

describe("errorResponse", () => {
  const errors: [string, unknown, number, ErrorCode][] = [
    ["Unauthenticated", new Unauthenticated("token has expired"), 401, "UNAUTHENTICATED"],
    ["Forbidden", new Forbidden("Not a member of project 'alpha'"), 403, "FORBIDDEN"],
    ["InvalidRequest", new InvalidRequest("Path must not contain '.' or '..' segments"), 400, "INVALID_REQUEST"],
    ["SkillNotFound", new SkillNotFound("code-review"), 404, "SKILL_NOT_FOUND"],
    ["ProcessNotFound", new ProcessNotFound("p-1"), 404, "PROCESS_NOT_FOUND"],
    ["SkillNotAllowedByRecipe", new SkillNotAllowedByRecipe("deploy", "analyze"), 403, "SKILL_NOT_ALLOWED"],
    ["SkillLocked", new SkillLocked("code-review", "code-read"), 409, "SKILL_LOCKED"],
    ["SkillArgumentMissing", new SkillArgumentMissing("grep", "pattern"), 422, "SKILL_ARGUMENT_MISSING"],
    ["NameTaken", new NameTaken("s-1", "worker"), 409, "NAME_TAKEN"],
    ["a recipe error", new CodedError("RECIPE_NOT_FOUND", "Recipe 'nope' not found"), 404, "RECIPE_NOT_FOUND"],
    ["a document error", new CodedError("DOCUMENT_NOT_FOUND", "Document 'x.md' not found"), 404, "DOCUMENT_NOT_FOUND"],
    ["RequestNotFound", new RequestNotFound("r-1"), 404, "REQUEST_NOT_FOUND"],
    ["a tool error", new CodedError("TOOL_NOT_FOUND", "Tool 'x' not found"), 404, "TOOL_NOT_FOUND"],
  ];

  it.each(errors)("maps %s to its status, code and own message", (_label, error, status, code) => {
    // Act
    const { statusCode, body } = errorResponse(error);

    // Assess
    expect(statusCode).toBe(status);
    expect(body).toEqual({ error: { code, message: (error as Error).message } });
  });

  it("keeps the API.md wording of SKILL_NOT_ALLOWED", () => {
    // Act
    const { body } = errorResponse(new SkillNotAllowedByRecipe("deploy", "analyze"));

    // Assess
    expect(body.error.message).toBe("Skill 'deploy' is not allowed by recipe 'analyze'");
  });

  it("lists the problems of an INVALID_DOCUMENT, errors only, without internal fields", () => {
    // Prepare
    const error = new InvalidDocument("_vance/skills/x/SKILL.md", [
      { path: "_vance/skills/x/SKILL.md", line: 3, message: "name: must be lowercase", severity: "error" },
      { path: "_vance/skills/x/SKILL.md", message: "references/a.md is not present yet", severity: "warning" },
      { path: "_vance/skills/x/SKILL.md", message: "description is required", severity: "error" },
    ]);

    // Act
    const { statusCode, body } = errorResponse(error);

    // Assess
    expect(statusCode).toBe(422);
    expect(body.error.code).toBe("INVALID_DOCUMENT");
    expect(body.error.problems).toEqual([
      { path: "_vance/skills/x/SKILL.md", line: 3, message: "name: must be lowercase" },
      { path: "_vance/skills/x/SKILL.md", message: "description is required" },
    ]);
  });

  it("turns an INVALID_DOCUMENT without a problem list into one problem", () => {
    // Act
    const { statusCode, body } = errorResponse(new TemplateSyntaxError("unexpected end of template", 7));

    // Assess
    expect(statusCode).toBe(422);
    expect(body.error.problems).toEqual([{ path: "", line: 7, message: "unexpected end of template" }]);
  });

  it("maps a zod error to 400 INVALID_REQUEST naming the field", () => {
    // Prepare
    const parsed = z.object({ command: z.enum(["ACTIVATE", "CLEAR"]) }).safeParse({ command: "EXPLODE" });

    // Act
    const { statusCode, body } = errorResponse(parsed.error);

    // Assess
    expect(statusCode).toBe(400);
    expect(body.error.code).toBe("INVALID_REQUEST");
    expect(body.error.message).toMatch(/^Invalid request: command: /);
  });

  it.each([
    ["a plain Error", new Error("ECONNREFUSED 10.0.0.12:8000 at /var/task/index.mjs:1:2")],
    ["a TypeError", new TypeError("Cannot read properties of undefined (reading 'pk')")],
    ["a thrown string", "secret=hunter2"],
    ["undefined", undefined],
    ["an INTERNAL domain error", new ConcurrentUpdateConflict("p-1", 5)],
  ])("answers %s with a generic 500 that leaks nothing", (_label, error) => {
    // Act
    const { statusCode, body } = errorResponse(error);

    // Assess
    expect(statusCode).toBe(500);
    expect(body).toEqual({ error: { code: "INTERNAL", message: INTERNAL_ERROR_MESSAGE } });
  });

  it.each([
    [
      "DynamoDB throttling",
      Object.assign(new Error("Rate of requests exceeds the allowed throughput (table skills-prod)"), {
        name: "ProvisionedThroughputExceededException",
      }),
    ],
    ["an S3 503", Object.assign(new Error("Please reduce your request rate."), { name: "SlowDown", $metadata: { httpStatusCode: 503 } })],
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 10.0.0.12:443"), { code: "ECONNREFUSED" })],
  ])("answers %s with 503 SERVICE_UNAVAILABLE that leaks nothing", (_label, error) => {
    // Act
    const { statusCode, body } = errorResponse(error);

    // Assess
    expect(statusCode).toBe(503);
    expect(body).toEqual({ error: { code: "SERVICE_UNAVAILABLE", message: SERVICE_UNAVAILABLE_MESSAGE } });
  });
});

describe("errorHttpResponse", () => {
  it("is a complete JSON response with the API.md body", () => {
    // Act
    const response = errorHttpResponse(new ProcessNotFound("p-9"));

    // Assess
    expect(response.statusCode).toBe(404);
    expect(response.headers?.["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(String(response.body))).toEqual({ error: { code: "PROCESS_NOT_FOUND", message: "Process 'p-9' not found" } });
  });
});
