import * as z from "zod/mini";
import "../../contract/locale.js";
import { isCatalogCandidate } from "../skills/skill-catalog.js";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, searchSkills } from "../skills/relevance/skill-search.js";
import { scopeOf } from "../steering/steer-context.js";
import { SKILL_SEARCH_TOOL } from "../turns/service-tool-specs.js";
import { serviceTool } from "./tool-invoker.js";

/**
 * skill_search (API.md "Catalog at scale"): every catalog candidate of the process now — listed
 * or omitted, the catalog's filter (enabled, allowed, inactive, model-invocable) — best first.
 * The process has the tool while its catalog omits a candidate (turn-composer.ts). A query of any
 * length is answered: the index reads a bounded part of it.
 */
export const skillSearchTool = serviceTool({
  name: SKILL_SEARCH_TOOL,
  schema: z.strictObject({
    query: z.string().check(z.refine((q) => q.trim() !== "", "must not be blank")),
    limit: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_SEARCH_LIMIT))),
  }),
  async invoke(call) {
    const listing = await call.loader.listAvailable(scopeOf(call.process));
    const active = new Set(call.process.activeSkills.map((s) => s.name));
    const allowed = call.process.allowedSkillsOverride === null ? undefined : new Set(call.process.allowedSkillsOverride);
    return searchSkills(listing, call.args.query, {
      limit: call.args.limit ?? DEFAULT_SEARCH_LIMIT,
      accept: (skill) => isCatalogCandidate(skill, active, allowed),
    });
  },
});
