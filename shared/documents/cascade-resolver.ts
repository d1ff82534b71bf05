import { isTransientServiceError } from "../support/transient-errors.js";
import type { DocumentProblem } from "../errors.js";
import { SKILL_SCOPES_INNER_FIRST, type SkillScope } from "./cascade-scope.js";
import { strictUtf8 } from "./document-body.js";
import type { DocumentRef, StoredDocument } from "./document-store.js";
import { mapWithConcurrency, type CascadeLayer, type PreparedDocument } from "./cascade-layers.js";

/** A document the cascade skipped, and why (skills: SkillProblem, recipes: RecipeProblem). */
export interface CascadeProblem {
  name: string;
  source: SkillScope;
  path: string;
  line?: number | undefined;
  message: string;
}

/**
 * A document the cascade never reached because an inner level answered for its name first: a
 * usable document of the same name (`overridden`) or an `enabled: false` override (`disabled`).
 * Found from the listings alone: the hidden document is not read, so it may itself be defective.
 */
export interface CascadeShadowed {
  name: string;
  /** The level of the hidden document. */
  source: SkillScope;
  path: string;
  /** The level whose document answered for the name. */
  shadowedBy: SkillScope;
  reason: "overridden" | "disabled";
}

/** Paths present in one layer (under the kind's prefix, or the catalogue's), by path. */
export type LayerListing = ReadonlyMap<string, DocumentRef>;

export interface ParsedDocument<TDefinition> {
  /** Present iff no problem has severity "error". */
  definition?: TDefinition | undefined;
  problems: DocumentProblem[];
}

/** The usable document a lookup found, handed to the kind to become a resolved item. */
export interface FoundDocument<TDefinition> {
  at: CascadeLayer;
  name: string;
  definition: TDefinition;
  warnings: DocumentProblem[];
  /** ETag of the document the definition was parsed from. */
  etag: string;
  /**
   * The document itself; absent when the definition came from the layer's prepared outcomes (a
   * level snapshot): then `definition` carries no body, and the item is a listing entry only.
   */
  doc?: StoredDocument | undefined;
  /** The layer's listing when the lookup had one: a sibling it does not hold is absent. */
  listing: LayerListing | undefined;
}

/** What differs between skills and recipes; everything else about the cascade is shared. */
export interface CascadeDocumentKind<TDefinition, TItem> {
  /** Listing prefix of this kind inside every layer, e.g. `_vance/skills/`. */
  readonly prefix: string;
  /** The name a document path stands for (not yet checked), or undefined for any other file. */
  nameOf(path: string): string | undefined;
  isName(name: string): boolean;
  documentPath(name: string): string;
  invalidNameMessage(name: string): string;
  /** Checked on the bytes before decoding. */
  readonly maxBytes: number;
  /** Problem of a document that parsed to nothing without an error saying why. */
  readonly invalidDocumentMessage: string;
  parse(name: string, text: string, path: string): ParsedDocument<TDefinition>;
  /** A disabled document ends the lookup: outer layers must not shine through (spec §2, §3). */
  isEnabled(definition: TDefinition): boolean;
  materialize(found: FoundDocument<TDefinition>): Promise<TItem>;
  /**
   * Optional: what `materialize` makes of a document found from a layer's prepared outcome (no
   * `doc`) with the layer's listing, when that needs no read. A scan then resolves such names in
   * one synchronous pass, without a promise per name. `found.warnings` may be shared: copy it
   * before adding to it.
   */
  materializeListed?(found: FoundDocument<TDefinition> & { listing: LayerListing }): TItem;
  /**
   * Names that must not share a level: two names with the same key are both refused there
   * (skills: `Foo` and `foo` are one folder on case-insensitive file systems). Optional.
   */
  foldName?(name: string): string;
  /**
   * True when a layer's prepared outcome of a document is the kind's whole definition (recipes:
   * nothing is left out of a snapshot), so a lookup by name takes it instead of reading and
   * parsing the document. Skills leave their body out: only listings use theirs.
   */
  readonly preparedIsWhole?: boolean;
}

/** A document parsed and validated: its definition and warnings, or why it is defective. JSON-safe. */
export type ParseOutcome<TDefinition> =
  | { ok: true; definition: TDefinition; warnings: DocumentProblem[] }
  | { ok: false; findings: { line?: number | undefined; message: string }[] };

/** The names of one kind a listing holds, computed once per listing object. */
interface ListingNames {
  /** Valid names, in listing order. */
  readonly names: readonly string[];
  /** Documents whose folder is no valid name, in listing order. */
  readonly invalid: readonly { name: string; path: string }[];
  /** Name → the names it collides with (kind.foldName), sorted. */
  readonly collisions: ReadonlyMap<string, string[]>;
}

/** Which layer answered for a name (an index into the layers), and how. */
type Resolution<TItem> =
  | { item: TItem; winner: number; disabled?: undefined }
  | { item: undefined; winner: number; disabled: true }
  | { item: undefined; winner?: undefined; disabled?: undefined };

const NOTHING = { item: undefined } as const;

/**
 * Per listing entry made from a prepared outcome: the definition it was made from, and what makes
 * it again from its document, in the layer it was found in. Module-wide, so any loader (MCP builds
 * one per request) completes an entry another one listed without reading versions again.
 */
interface Origin {
  readonly definition: unknown;
  readonly resolver: CascadeDocumentResolver<unknown, unknown>;
  readonly at: CascadeLayer;
  readonly name: string;
  readonly listing: LayerListing | undefined;
}
const origins = new WeakMap<object, Origin>();

/**
 * The prepared definition (a level snapshot's, body left out) a scan made `item` from; undefined
 * for an item made from its document. What a preparer derived from that definition at write time
 * (DocumentPreparer.levelExtras) then holds for the item too.
 */
export const listedDefinitionOf = (item: object): unknown => origins.get(item)?.definition;

type Lookup<TDefinition> =
  | { kind: "absent" }
  | { kind: "defective"; problems: CascadeProblem[] }
  | { kind: "found"; definition: TDefinition; warnings: DocumentProblem[]; etag: string; doc?: StoredDocument | undefined };

/** Parallel reads during a listing: enough to hide latency, few enough not to queue SDK sockets. */
const LISTING_CONCURRENCY = 16;

const EMPTY_COLLISIONS: ReadonlyMap<string, string[]> = new Map();
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const layerRank = (source: SkillScope): number => SKILL_SCOPES_INNER_FIRST.indexOf(source);
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Resolves documents of one kind by name through a scope's layers, innermost first; the first
 * usable document wins. Defective documents (unreadable, not UTF-8, binary, too large, failing to
 * parse or validate, invalid name) are invisible: the lookup falls through to the next outer
 * layer and the problems of a scan report them. Only a failing listing throws.
 *
 * Parse results are memoized per document object: a catalogue hands out the same object for an
 * unchanged ETag, so a warm lookup never parses again, while a plain store's fresh objects do.
 */
export class CascadeDocumentResolver<TDefinition, TItem> {
  private readonly parsed = new WeakMap<StoredDocument, ParseOutcome<TDefinition>>();
  /** Per listing object (a catalogue hands out the same one until the level changes). */
  private readonly listingNames = new WeakMap<LayerListing, ListingNames>();

  constructor(private readonly kind: CascadeDocumentKind<TDefinition, TItem>) {}

  /** One name; a layer with a `listing` that lacks the document is skipped without a read. */
  load(layers: readonly CascadeLayer[], name: string): Promise<TItem | undefined> {
    if (!this.kind.isName(name)) return Promise.resolve(undefined);
    return this.resolveName(
      layers,
      name,
      layers.map((l) => l.listing),
      [],
      false,
    ).then((r) => r.item);
  }

  /**
   * The item a scan made from a prepared outcome (no document read), made again from its document
   * in the same layer (the catalogue's layer: a body kept for its ETag costs no read). Undefined
   * for an item this resolver did not make that way, or whose document is gone or now defective.
   */
  async complete(item: TItem): Promise<TItem | undefined> {
    const origin = typeof item === "object" && item !== null ? origins.get(item) : undefined;
    if (origin === undefined) return undefined;
    return origin.resolver.completeAt(origin.at, origin.name, origin.listing) as Promise<TItem | undefined>;
  }

  private async completeAt(at: CascadeLayer, name: string, listing: LayerListing | undefined): Promise<TItem | undefined> {
    const lookup = await this.lookup(at, name, this.kind.documentPath(name));
    if (lookup.kind !== "found" || !this.kind.isEnabled(lookup.definition)) return undefined;
    return this.kind.materialize({
      at,
      name,
      definition: lookup.definition,
      warnings: [...lookup.warnings],
      etag: lookup.etag,
      doc: lookup.doc,
      listing,
    });
  }

  /**
   * Union of all layers by name (inner wins), disabled and defective ones removed, sorted by name;
   * `shadowed` names every listed document an inner level hid (by name, then level, inner first).
   */
  async scan(layers: readonly CascadeLayer[]): Promise<{ items: TItem[]; problems: CascadeProblem[]; shadowed: CascadeShadowed[] }> {
    const { prefix } = this.kind;
    const problems: CascadeProblem[] = [];
    // One list call per layer without a listing, all layers at once; everything below reuses them.
    const listings = await Promise.all(
      layers.map(async (l): Promise<LayerListing> => l.listing ?? new Map((await l.layer.list(prefix)).map((ref) => [ref.path, ref]))),
    );
    const indexes = listings.map((listing) => this.namesOf(listing));
    const names = new Set<string>();
    for (let i = 0; i < layers.length; i++) {
      const { names: valid, invalid } = indexes[i]!;
      for (let n = 0; n < valid.length; n++) names.add(valid[n]!);
      for (const { name, path } of invalid)
        problems.push({ name, source: layers[i]!.source, path, message: this.kind.invalidNameMessage(name) });
    }
    // The default order compares UTF-16 code units, as byCodePoint does, without a call per comparison.
    const sorted = [...names].sort();
    const resolved = new Array<Resolution<TItem>>(sorted.length);
    // Names every layer answers from its listing and prepared outcomes: resolved at once, no read.
    const pending: number[] = [];
    const collisions = indexes.map((index) => index.collisions);
    const paths = sorted.map((name) => this.kind.documentPath(name));
    for (let n = 0; n < sorted.length; n++) {
      const resolution = this.resolveListed(layers, sorted[n]!, paths[n]!, listings, collisions, problems);
      if (resolution === undefined) pending.push(n);
      else resolved[n] = resolution;
    }
    await mapWithConcurrency(pending, LISTING_CONCURRENCY, async (n) => {
      resolved[n] = await this.resolveName(layers, sorted[n]!, listings, problems, true);
    });
    problems.sort((a, b) => byCodePoint(a.name, b.name) || layerRank(a.source) - layerRank(b.source));
    const items: TItem[] = [];
    const shadowed: CascadeShadowed[] = [];
    for (let n = 0; n < sorted.length; n++) {
      const resolution = resolved[n]!;
      if (resolution.item !== undefined) items.push(resolution.item);
      if (resolution.winner !== undefined) this.collectShadowed(layers, listings, sorted[n]!, paths[n]!, resolution, shadowed);
    }
    return { items, problems, shadowed };
  }

  /**
   * resolveName of a scan, synchronously, when it needs no read: every layer holding the name
   * answers from its prepared outcome and the kind materializes listed documents without one.
   * Undefined (and no problem added) as soon as a layer would need a read: resolveName then runs.
   */
  private resolveListed(
    layers: readonly CascadeLayer[],
    name: string,
    path: string,
    listings: readonly LayerListing[],
    collisions: readonly ReadonlyMap<string, string[]>[],
    problems: CascadeProblem[],
  ): Resolution<TItem> | undefined {
    if (this.kind.materializeListed === undefined) return undefined;
    const added = problems.length;
    for (let i = 0; i < layers.length; i++) {
      const listing = listings[i]!;
      const ref = listing.get(path);
      if (ref === undefined) continue;
      const at = layers[i]!;
      const others = collisions[i]!.get(name);
      if (others !== undefined) {
        problems.push(collisionProblem(at, name, path, others));
        continue;
      }
      // preparedOutcome, with the ref already at hand.
      const prepared = at.prepared?.get(path);
      if (prepared === undefined || prepared.etag !== ref.etag) {
        problems.length = added;
        return undefined;
      }
      const outcome = prepared.outcome;
      if (!outcome.ok) {
        for (const finding of outcome.findings) problems.push(problemOf(at, name, path, finding));
        continue;
      }
      const definition = outcome.definition as TDefinition;
      if (!this.kind.isEnabled(definition)) return { item: undefined, winner: i, disabled: true };
      const item = this.kind.materializeListed({
        at,
        name,
        definition,
        warnings: outcome.warnings,
        etag: prepared.etag,
        doc: undefined,
        listing,
      });
      if (typeof item === "object" && item !== null) origins.set(item, { definition, resolver: this, at, name, listing });
      return { item, winner: i };
    }
    return NOTHING;
  }

  /**
   * Every outer layer whose listing holds the name's document is hidden by the winner. Map
   * lookups only, once per scan (a catalogue's scan is memoized per snapshot): no read, no request.
   */
  private collectShadowed(
    layers: readonly CascadeLayer[],
    listings: readonly LayerListing[],
    name: string,
    path: string,
    resolution: { winner: number; disabled?: true | undefined },
    into: CascadeShadowed[],
  ): void {
    const shadowedBy = layers[resolution.winner]!.source;
    const reason = resolution.disabled ? "disabled" : "overridden";
    for (let i = resolution.winner + 1; i < layers.length; i++) {
      if (listings[i]!.has(path)) into.push({ name, source: layers[i]!.source, path, shadowedBy, reason });
    }
  }

  private async resolveName(
    layers: readonly CascadeLayer[],
    name: string,
    listings: readonly (LayerListing | undefined)[],
    problems: CascadeProblem[],
    /** A listing entry will do: a layer's prepared outcome stands in for reading the document. */
    listed: boolean,
  ): Promise<Resolution<TItem>> {
    const path = this.kind.documentPath(name);
    for (let i = 0; i < layers.length; i++) {
      const at = layers[i]!;
      const listing = listings[i];
      if (listing && !listing.has(path)) continue;
      const others = listing ? this.namesOf(listing).collisions.get(name) : undefined;
      if (others !== undefined) {
        problems.push(collisionProblem(at, name, path, others));
        continue;
      }
      const prepared = listed ? preparedOutcome(at, listing, path) : undefined;
      const lookup = prepared
        ? lookupOf<TDefinition>(prepared, (finding) => problemOf(at, name, path, finding))
        : await this.lookup(at, name, path);
      if (lookup.kind === "absent") continue;
      if (lookup.kind === "defective") {
        problems.push(...lookup.problems);
        continue;
      }
      if (!this.kind.isEnabled(lookup.definition)) return { item: undefined, winner: i, disabled: true };
      const item = await this.kind.materialize({
        at,
        name,
        definition: lookup.definition,
        warnings: [...lookup.warnings],
        etag: lookup.etag,
        doc: lookup.doc,
        listing,
      });
      if (prepared && typeof item === "object" && item !== null)
        origins.set(item, { definition: lookup.definition, resolver: this, at, name, listing });
      return { item, winner: i };
    }
    return NOTHING;
  }

  /**
   * One pass over the listing: its names of this kind, valid or not, and which valid ones collide.
   * Only a name that folds to another string can collide (two names of one key cannot both be
   * that key), so a listing without such a name (all lowercase skills) builds no map of keys.
   */
  private namesOf(listing: LayerListing): ListingNames {
    const memo = this.listingNames.get(listing);
    if (memo) return memo;
    const { prefix } = this.kind;
    const fold = this.kind.foldName;
    const names: string[] = [];
    const invalid: { name: string; path: string }[] = [];
    const folding: string[] = [];
    for (const path of listing.keys()) {
      if (!path.startsWith(prefix)) continue;
      const name = this.kind.nameOf(path);
      if (name === undefined) continue;
      if (!this.kind.isName(name)) {
        invalid.push({ name, path });
        continue;
      }
      names.push(name);
      if (fold !== undefined && fold(name) !== name) folding.push(name);
    }
    const index: ListingNames = {
      names,
      invalid,
      collisions: fold === undefined ? EMPTY_COLLISIONS : collisionsAmong(names, folding, fold),
    };
    this.listingNames.set(listing, index);
    return index;
  }

  private async lookup(at: CascadeLayer, name: string, path: string): Promise<Lookup<TDefinition>> {
    const problem = (finding: Finding): CascadeProblem => problemOf(at, name, path, finding);
    if (this.kind.preparedIsWhole) {
      const prepared = preparedOutcome(at, undefined, path);
      if (prepared) return lookupOf<TDefinition>(prepared, problem);
    }
    let doc: StoredDocument | undefined;
    try {
      doc = await at.layer.read(path);
    } catch (error) {
      // A busy or unreachable store says nothing about the document: falling through to an outer
      // level would answer SKILL_NOT_FOUND (or the wrong layer's skill) for a blip. Let it retry.
      if (isTransientServiceError(error)) throw error;
      return { kind: "defective", problems: [problem({ message: `could not be read: ${messageOf(error)}` })] };
    }
    if (!doc) return { kind: "absent" };
    const outcome = this.outcomeOf(doc, name, path);
    if (!outcome.ok) return { kind: "defective", problems: outcome.findings.map(problem) };
    return { kind: "found", definition: outcome.definition, warnings: outcome.warnings, etag: doc.etag, doc };
  }

  private outcomeOf(doc: StoredDocument, name: string, path: string): ParseOutcome<TDefinition> {
    const memo = this.parsed.get(doc);
    if (memo) return memo;
    const outcome = this.parse(doc, name, path);
    this.parsed.set(doc, outcome);
    return outcome;
  }

  private parse(doc: StoredDocument, name: string, path: string): ParseOutcome<TDefinition> {
    return parseCascadeDocument(this.kind, doc, name, path);
  }
}

type Finding = { line?: number | undefined; message: string };

/**
 * Name → the other names of `names` with the same key, sorted. `folding`: the names whose key is
 * not the name itself; every group of two or more holds one of them.
 */
function collisionsAmong(
  names: readonly string[],
  folding: readonly string[],
  fold: (name: string) => string,
): ReadonlyMap<string, string[]> {
  if (folding.length === 0) return EMPTY_COLLISIONS;
  const groups = new Map<string, Set<string>>();
  for (const name of folding) {
    const key = fold(name);
    const group = groups.get(key) ?? new Set<string>();
    group.add(name);
    groups.set(key, group);
  }
  // A name that is its own key joins the group of that key.
  const moved = new Set(folding);
  for (const name of names) if (!moved.has(name)) groups.get(name)?.add(name);
  const collisions = new Map<string, string[]>();
  for (const group of groups.values()) {
    if (group.size < 2) continue;
    for (const name of group) collisions.set(name, [...group].filter((other) => other !== name).sort(byCodePoint));
  }
  return collisions;
}

const collisionProblem = (at: CascadeLayer, name: string, path: string, others: readonly string[]): CascadeProblem => ({
  name,
  source: at.source,
  path,
  message: `name '${name}' collides with ${others.map((other) => `'${other}'`).join(", ")} in the same level (names may not differ only in case: they are one folder on macOS and Windows); rename or remove one folder`,
});

const problemOf = (at: CascadeLayer, name: string, path: string, finding: Finding): CascadeProblem => ({
  name,
  source: at.source,
  path,
  ...(finding.line !== undefined ? { line: finding.line } : {}),
  message: finding.message,
});

/** The layer's prepared outcome of `path`, when it was taken from the very document the listing names. */
function preparedOutcome(at: CascadeLayer, listing: LayerListing | undefined, path: string): PreparedDocument | undefined {
  const prepared = at.prepared?.get(path);
  if (prepared === undefined) return undefined;
  const ref = listing?.get(path) ?? at.listing?.get(path);
  return ref !== undefined && ref.etag === prepared.etag ? prepared : undefined;
}

function lookupOf<TDefinition>(prepared: PreparedDocument, problem: (finding: Finding) => CascadeProblem): Lookup<TDefinition> {
  const outcome = prepared.outcome;
  if (!outcome.ok) return { kind: "defective", problems: outcome.findings.map(problem) };
  return { kind: "found", definition: outcome.definition as TDefinition, warnings: outcome.warnings, etag: prepared.etag };
}

/**
 * A document's bytes checked, decoded, parsed and validated as `kind` (the one parse per read):
 * what the resolver memoizes per document object, and what a level snapshot keeps per SKILL.md.
 */
export function parseCascadeDocument<TDefinition>(
  kind: Pick<CascadeDocumentKind<TDefinition, unknown>, "maxBytes" | "parse" | "invalidDocumentMessage">,
  doc: StoredDocument,
  name: string,
  path: string,
): ParseOutcome<TDefinition> {
  const fail = (message: string): ParseOutcome<TDefinition> => ({ ok: false, findings: [{ message }] });
  // The parser's own limit, applied on the bytes without building the string.
  if (doc.body.byteLength > kind.maxBytes) return fail(`is larger than ${kind.maxBytes} bytes`);
  const text = strictUtf8(doc.body);
  if (text === undefined) return fail("is not UTF-8 text (invalid byte sequence or binary content)");
  let parsed: ParsedDocument<TDefinition>;
  try {
    parsed = kind.parse(name, text, path);
  } catch (error) {
    return fail(`could not be parsed: ${messageOf(error)}`);
  }
  const errors = parsed.problems.filter((p) => p.severity === "error");
  if (!parsed.definition || errors.length > 0) {
    if (errors.length === 0) return fail(kind.invalidDocumentMessage);
    return { ok: false, findings: errors.map((p) => ({ ...(p.line !== undefined ? { line: p.line } : {}), message: p.message })) };
  }
  return { ok: true, definition: parsed.definition, warnings: parsed.problems.filter((p) => p.severity !== "error") };
}
