import { strictUtf8 } from "../documents/document-body.js";
import { pinnedLayer, type CascadeSources } from "../documents/cascade-layers.js";
import type { FoundDocument } from "../documents/cascade-resolver.js";
import type { StoredDocument } from "../documents/document-store.js";
import { DocumentTooLargeToRead } from "../documents/document-store-errors.js";
import type { ResolvedSkill, SkillDefinition } from "./resolved-skill.js";
import { MAX_SKILL_TEXT_BYTES, parseSkillDocument } from "./skill-document-parser.js";
import { skillDocumentPath } from "./skill-paths.js";
import type { SkillScopeContext } from "../documents/cascade-scope.js";

/** The pinned version as a skill, or why it cannot be one (spawn turns the reason into a 422). */
export type PinOutcome = { skill: ResolvedSkill } | { refusal: string };

type Materialize = (found: FoundDocument<SkillDefinition>) => Promise<ResolvedSkill>;

/** Distinct pinned versions kept per current skill object; a process pins few skills. */
const MAX_PINS_PER_SKILL = 16;

/**
 * Recipe version pins (issue 17): a pinned skill is the skill the cascade resolves now, with its
 * SKILL.md replaced by that version of the same document — read from the level the skill resolves
 * from, never from another one (a version id of another level's document is not found there).
 * Sibling files (INLINE references, scripts, the files listing) stay the level's current ones:
 * only SKILL.md carries the pin.
 *
 * Versions never change, so the materialized pin is memoized per current skill object: with the
 * warm catalogue that object stays the same while the level is unchanged, and a steady turn of a
 * pinned process reads nothing. An edit of the level hands out a new object and the pin is read
 * again (its references may have changed).
 */
export class PinnedSkillVersions {
  private readonly bySkill = new WeakMap<ResolvedSkill, Map<string, Promise<PinOutcome>>>();
  private readonly byListing = new WeakMap<readonly ResolvedSkill[], Map<string, Promise<ResolvedSkill[]>>>();

  constructor(
    private readonly sources: Pick<CascadeSources, "store" | "bundled">,
    private readonly materialize: Materialize,
  ) {}

  /** The version a scope pins for this skill, if any (pins name skills as the recipe spells them). */
  static pinOf(scope: SkillScopeContext, skill: Pick<ResolvedSkill, "name">, asked?: string): string | undefined {
    const pins = scope.skillVersions;
    if (pins === undefined) return undefined;
    return (
      (asked !== undefined && Object.hasOwn(pins, asked) ? pins[asked] : undefined) ??
      (Object.hasOwn(pins, skill.name) ? pins[skill.name] : undefined)
    );
  }

  resolve(scope: SkillScopeContext, current: ResolvedSkill, versionId: string): Promise<PinOutcome> {
    let versions = this.bySkill.get(current);
    if (!versions) this.bySkill.set(current, (versions = new Map()));
    const memo = versions.get(versionId);
    if (memo) return memo;
    const outcome = this.read(scope, current, versionId);
    if (versions.size >= MAX_PINS_PER_SKILL) versions.delete(versions.keys().next().value as string);
    versions.set(versionId, outcome);
    // A failing store is not an answer about the version: the next call asks again.
    outcome.catch(() => versions.delete(versionId));
    return outcome;
  }

  /** The listing with every pinned skill replaced by its pinned version; a refused pin drops the skill. */
  applyToListing(scope: SkillScopeContext, items: readonly ResolvedSkill[]): Promise<ResolvedSkill[]> {
    const pins = scope.skillVersions;
    if (pins === undefined || Object.keys(pins).length === 0) return Promise.resolve(items as ResolvedSkill[]);
    const key = JSON.stringify(Object.entries(pins).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let byPins = this.byListing.get(items);
    if (!byPins) this.byListing.set(items, (byPins = new Map()));
    const memo = byPins.get(key);
    if (memo) return memo;
    const listing = this.pinListing(scope, items);
    byPins.set(key, listing);
    listing.catch(() => byPins.delete(key));
    return listing;
  }

  private async pinListing(scope: SkillScopeContext, items: readonly ResolvedSkill[]): Promise<ResolvedSkill[]> {
    const replaced = await Promise.all(
      items.map(async (skill) => {
        const versionId = PinnedSkillVersions.pinOf(scope, skill);
        if (versionId === undefined) return skill;
        const outcome = await this.resolve(scope, skill, versionId);
        return "skill" in outcome ? outcome.skill : undefined;
      }),
    );
    const kept = replaced.filter((skill): skill is ResolvedSkill => skill !== undefined);
    // Frozen like the catalogue's listing, so identity-keyed memos downstream keep working.
    return Object.isFrozen(items) ? (Object.freeze(kept) as ResolvedSkill[]) : kept;
  }

  private async read(scope: SkillScopeContext, current: ResolvedSkill, versionId: string): Promise<PinOutcome> {
    const { location, name } = current;
    const path = skillDocumentPath(name);
    const where = `the ${current.source} level ('${location.project}') that '${name}' resolves from`;
    if (current.source === "RESOURCE") return { refusal: `'${name}' resolves from the bundled RESOURCE level, which keeps no versions` };
    if (!this.sources.store.keepsVersions)
      return { refusal: "this deployment keeps no document versions (a versioned bucket or a history bucket is needed)" };
    let doc: StoredDocument | undefined;
    try {
      // A SKILL.md larger than the parser reads could never compose: refused before its bytes are read.
      doc = await this.sources.store.getVersion?.(scope.tenantId, location.project, path, versionId, { maxBytes: MAX_SKILL_TEXT_BYTES });
    } catch (error) {
      if (error instanceof DocumentTooLargeToRead)
        return {
          refusal: `version '${versionId.slice(0, 80)}' of ${path} at ${where} is ${error.size} bytes, more than a SKILL.md may be (${MAX_SKILL_TEXT_BYTES})`,
        };
      throw error;
    }
    if (!doc) return { refusal: `version '${versionId.slice(0, 80)}' of ${path} does not exist at ${where}` };
    const text = strictUtf8(doc.body);
    const parsed = text === undefined ? undefined : parseSkillDocument(name, text, path);
    const errors = parsed?.problems.filter((p) => p.severity === "error") ?? [];
    if (!parsed?.definition || errors.length > 0) {
      const reason = text === undefined ? "is not UTF-8 text" : (errors[0]?.message ?? "does not parse");
      return { refusal: `version '${versionId.slice(0, 80)}' of ${path} at ${where} no longer validates: ${reason}` };
    }
    const at = pinnedLayer(scope, this.sources, location);
    const skill = await this.materialize({
      at,
      name,
      definition: parsed.definition,
      warnings: parsed.problems,
      etag: doc.etag,
      doc,
      listing: undefined,
    });
    return { skill: { ...skill, location: { ...skill.location, versionId } } };
  }
}
