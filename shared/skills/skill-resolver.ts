import type { CascadeShadowed } from "../documents/cascade-resolver.js";
import type { ListedSkill, ResolvedSkill, SkillProblem } from "./resolved-skill.js";
import type { SkillLoader } from "./skill-loader.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";
import type { PinOutcome } from "./pinned-skill-versions.js";

/** What every other service calls (spec §10, §11); SkillLoader stays the only reader of skill documents. */
export class SkillResolver {
  constructor(private readonly loader: SkillLoader) {}

  resolve(ctx: SkillScopeContext, name: string): Promise<ResolvedSkill | undefined> {
    return this.loader.load(ctx, name);
  }

  /** Resolves each distinct name once; names not visible in this scope are dropped, order is kept. */
  async resolveAll(ctx: SkillScopeContext, names: readonly string[]): Promise<ResolvedSkill[]> {
    const distinct = [...new Set(names)];
    const skills = await Promise.all(distinct.map((name) => this.loader.load(ctx, name)));
    return skills.filter((skill): skill is ResolvedSkill => skill !== undefined);
  }

  /** Whether a recipe pin can be served in this scope (checked at spawn). */
  checkPin(ctx: SkillScopeContext, name: string, versionId: string): Promise<PinOutcome> {
    return this.loader.checkPin(ctx, name, versionId);
  }

  /** Listing entries: a body and INLINE contents only where read (see SkillLoader.listAvailable, complete). */
  listAvailable(ctx: SkillScopeContext): Promise<ListedSkill[]> {
    return this.loader.listAvailable(ctx);
  }

  /** A listing entry with its body and INLINE references (SkillLoader.complete). */
  complete(ctx: SkillScopeContext, listed: ListedSkill): Promise<ResolvedSkill | undefined> {
    return this.loader.complete(ctx, listed);
  }

  /** listAvailable plus the skill documents an inner level hides (GET …/skills/effective?includeShadowed=true). */
  listWithShadowed(ctx: SkillScopeContext): Promise<{ skills: ListedSkill[]; shadowed: CascadeShadowed[] }> {
    return this.loader.listWithShadowed(ctx);
  }

  problems(ctx: SkillScopeContext): Promise<SkillProblem[]> {
    return this.loader.problems(ctx);
  }
}
