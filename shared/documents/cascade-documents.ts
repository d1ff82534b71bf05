import { LRUCache } from "lru-cache";
import type { DocumentProblem } from "../errors.js";
import type { SkillScope, SkillScopeContext } from "./cascade-scope.js";
import { cascadeLayers, cascadeLevels, type CascadeSources, type CascadeView, type StaleLevel } from "./cascade-layers.js";
import { CascadeDocumentResolver, type CascadeDocumentKind, type CascadeProblem, type CascadeShadowed } from "./cascade-resolver.js";

/** What a resolved item must carry so a stale level can be named on it. */
interface CascadeItem {
  location: { source: SkillScope; project: string };
  warnings: DocumentProblem[];
}

interface CascadeScan<TItem> {
  items: TItem[];
  problems: CascadeProblem[];
  /** Documents an inner level hid (computed with the scan, so memoized with it). */
  shadowed: CascadeShadowed[];
}

/** Scopes whose listing is kept per loader; a warm Lambda serves few tenants × users × projects. */
const MEMO_SCOPES = 512;

const scopeKey = (scope: SkillScopeContext): string => JSON.stringify([scope.tenantId, scope.userId ?? "", scope.projectId ?? ""]);

const sameSnapshots = (a: readonly object[], b: readonly object[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

/**
 * The cascade of one document kind for a scope (spec §3). Without a catalogue every call lists
 * and reads the layers (the spec's v1 behaviour: always fresh, always paying). With one, a call
 * validates the scope's levels through it and resolves from memory; a listing is then computed
 * once per set of level snapshots and handed out as the SAME frozen arrays while nothing changed,
 * so caches keyed by array identity (the trigger matcher's index) stay warm.
 */
export class CascadeDocuments<TDefinition, TItem extends CascadeItem> {
  private readonly resolver: CascadeDocumentResolver<TDefinition, TItem>;
  private readonly memo = new LRUCache<string, { snapshots: readonly object[]; scan: Promise<CascadeScan<TItem>> }>({ max: MEMO_SCOPES });

  constructor(
    private readonly kind: CascadeDocumentKind<TDefinition, TItem>,
    private readonly sources: CascadeSources,
  ) {
    this.resolver = new CascadeDocumentResolver(kind);
  }

  /** Throws InvalidRequest for a malformed scope, even for a name that cannot exist. */
  async load(scope: SkillScopeContext, name: string): Promise<TItem | undefined> {
    const catalogue = this.sources.catalogue;
    if (!catalogue) {
      const layers = cascadeLayers(scope, this.sources);
      return this.resolver.load(layers, name);
    }
    cascadeLevels(scope);
    // A name that cannot be a document cannot exist anywhere: "not found" without touching storage.
    if (!this.kind.isName(name)) return undefined;
    const view = await catalogue.view(scope);
    const item = await this.resolver.load(view.layers, name);
    return item && markStale(item, view.stale);
  }

  /** A scan's entry made again from its document (CascadeDocumentResolver.complete); undefined when it cannot be. */
  complete(item: TItem): Promise<TItem | undefined> {
    return this.resolver.complete(item);
  }

  async scan(scope: SkillScopeContext): Promise<CascadeScan<TItem>> {
    const catalogue = this.sources.catalogue;
    if (!catalogue) return this.resolver.scan(cascadeLayers(scope, this.sources));
    cascadeLevels(scope);
    const view = await catalogue.view(scope);
    if (view.stale.length > 0) return this.staleScan(view);
    const key = scopeKey(scope);
    const memo = this.memo.get(key);
    if (memo && sameSnapshots(memo.snapshots, view.snapshots)) return memo.scan;
    const scan = this.resolver.scan(view.layers).then(({ items, problems, shadowed }) => ({
      items: Object.freeze(items) as TItem[],
      problems: Object.freeze(problems) as CascadeProblem[],
      shadowed: Object.freeze(shadowed) as CascadeShadowed[],
    }));
    this.memo.set(key, { snapshots: view.snapshots, scan });
    scan.catch(() => {
      if (this.memo.get(key)?.scan === scan) this.memo.delete(key);
    });
    return scan;
  }

  private async staleScan(view: CascadeView): Promise<CascadeScan<TItem>> {
    const { items, problems, shadowed } = await this.resolver.scan(view.layers);
    return { items: items.map((item) => markStale(item, view.stale)), problems, shadowed };
  }
}

/** An item from a level that could not be refreshed says so (the level may have changed since). */
function markStale<TItem extends CascadeItem>(item: TItem, stale: readonly StaleLevel[]): TItem {
  const level = stale.find((s) => s.source === item.location.source && s.project === item.location.project);
  if (!level) return item;
  const warning: DocumentProblem = {
    path: "_vance/",
    message: `served from the warm catalogue: the ${level.source} level '${level.project}' could not be refreshed (${level.reason})`,
    severity: "warning",
  };
  return { ...item, warnings: [...item.warnings, warning] };
}
