import type { SkillsApp } from "../../shared/app/skills-app.js";
import { assertProjectAccess } from "../../shared/auth/authorization.js";
import { InvalidRequest } from "../../shared/errors.js";
import { jsonResponse } from "../../shared/http/response.js";
import { toSkillDetail } from "../../shared/skills/skill-detail.js";
import { toSkillSummary } from "../../shared/skills/skill-summary.js";
import { parseUsageDays } from "../../shared/usage/skill-usage.js";
import { publicRoute, route } from "../_shared/http-route.js";
import type { AuthenticatedRequest, HttpRoute } from "../_shared/http-route.js";
import { accessibleProcess } from "../_shared/process-access.js";
import { optionalQuery, requiredQuery } from "../_shared/query.js";

interface SkillsRoutesDeps {
  app: Pick<SkillsApp, "listEffective" | "listEffectiveWithShadowed" | "resolveEffective" | "skillProblems" | "getProcess" | "skillUsage" | "skillEvals">;
}

/** `includeShadowed=true|false` (absent: false); anything else is a mistake worth telling. */
function includeShadowedOf(request: AuthenticatedRequest): boolean {
  const value = optionalQuery(request, "includeShadowed");
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new InvalidRequest(`Query parameter 'includeShadowed' must be true or false, got '${value.slice(0, 40)}'`);
}

/** `?projectId=P` adds P's layer to the cascade: only for members of P (or a tenant-admin). */
function projectIdOf(request: AuthenticatedRequest): string | undefined {
  const projectId = optionalQuery(request, "projectId");
  if (projectId !== undefined) assertProjectAccess(request.identity, projectId);
  return projectId;
}

/** API.md "Skills" and `/health`. Nothing here renders a template. */
export function skillsRoutes({ app }: SkillsRoutesDeps): HttpRoute[] {
  return [
    publicRoute("GET", "/health", async () => jsonResponse(200, { status: "ok" })),

    route("GET", "/brain/{tenant}/skills/effective", async (request) => {
      const projectId = projectIdOf(request);
      if (!includeShadowedOf(request)) {
        const skills = await app.listEffective(request.identity.tenant, request.user, projectId);
        return jsonResponse(200, { skills: skills.map(toSkillSummary) });
      }
      const { skills, shadowed } = await app.listEffectiveWithShadowed(request.identity.tenant, request.user, projectId);
      return jsonResponse(200, {
        skills: skills.map(toSkillSummary),
        shadowed: shadowed.map((s) => ({ name: s.name, source: s.source, path: s.path, shadowedBy: s.shadowedBy, reason: s.reason })),
      });
    }),

    route("GET", "/brain/{tenant}/skills/effective/{name}", async (request) => {
      const skill = await app.resolveEffective(request.identity.tenant, request.user, projectIdOf(request), request.param("name"));
      return jsonResponse(200, toSkillDetail(skill));
    }),

    route("GET", "/brain/{tenant}/skills/effective/{name}/evals", async (request) => {
      const report = await app.skillEvals(request.identity.tenant, request.user, projectIdOf(request), request.param("name"));
      return jsonResponse(200, report);
    }),

    route("GET", "/brain/{tenant}/skills/problems", async (request) => {
      const problems = await app.skillProblems(request.identity.tenant, request.user, projectIdOf(request));
      return jsonResponse(200, {
        problems: problems.map((p) => ({
          name: p.name,
          source: p.source,
          path: p.path,
          ...(p.line !== undefined ? { line: p.line } : {}),
          message: p.message,
          severity: p.severity ?? "error",
        })),
      });
    }),

    route("GET", "/brain/{tenant}/skills/usage", async (request) => {
      // Readable by whoever may list that project's skills.
      const projectId = requiredQuery(request, "projectId");
      assertProjectAccess(request.identity, projectId);
      const days = parseUsageDays(optionalQuery(request, "days"));
      const name = optionalQuery(request, "name");
      if (name !== undefined && (name.length === 0 || name.length > 128)) throw new InvalidRequest("Query parameter 'name' must be a skill name of 1 to 128 characters");
      return jsonResponse(200, { usage: await app.skillUsage(request.identity.tenant, projectId, days, name) });
    }),

    route("GET", "/brain/{tenant}/skills/active", async (request) => {
      const process = await accessibleProcess(app, request, requiredQuery(request, "processId"), "metadata");
      return jsonResponse(200, { activeSkills: process.activeSkills });
    }),
  ];
}
