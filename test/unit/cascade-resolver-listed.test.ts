import { describe, expect, it } from "vitest";
import type { DocumentProblem } from "../../shared/errors.js";
import type { CascadeLayer, PreparedDocument } from "../../shared/documents/cascade-layers.js";
import {
  CascadeDocumentResolver,
  parseCascadeDocument,
  type CascadeDocumentKind,
  type FoundDocument,
} from "../../shared/documents/cascade-resolver.js";
import type { DocumentRef, StoredDocument } from "../../shared/documents/document-store.js";
import { SKILL_SCOPES_INNER_FIRST } from "../../shared/documents/cascade-scope.js";

/**
 * A scan resolves the names every layer answers from its prepared outcomes in one synchronous
 * pass (`materializeListed`), and the others through the async lookup. Pinned here: both give
 * exactly what the async lookup alone gives, over random cascades with case collisions, invalid
 * names, defective and disabled documents, warnings, and outcomes missing or of another ETag.
 */

interface Thing {
  name: string;
  enabled: boolean;
  text: string;
}

interface Item {
  name: string;
  text: string;
  source: string;
  etag: string;
  warnings: DocumentProblem[];
  listed: boolean;
}

const PATH = /^_vance\/things\/([^/]+)\/THING\.md$/;

const made = (found: FoundDocument<Thing>, warnings: DocumentProblem[]): Item => ({
  name: found.name,
  text: found.definition.text,
  source: found.at.source,
  etag: found.etag,
  warnings,
  listed: found.doc === undefined,
});

function thingKind(listed: boolean): CascadeDocumentKind<Thing, Item> {
  return {
    prefix: "_vance/things/",
    nameOf: (path) => PATH.exec(path)?.[1],
    isName: (name) => /^[A-Za-z0-9-]+$/.test(name),
    documentPath: (name) => `_vance/things/${name}/THING.md`,
    invalidNameMessage: (name) => `invalid thing name '${name}'`,
    maxBytes: 10_000,
    invalidDocumentMessage: "is not a thing",
    parse: (name, text, path) => {
      if (text.startsWith("broken")) return { problems: [{ path, line: 1, message: `broken ${name}`, severity: "error" }] };
      const problems: DocumentProblem[] = text.includes("warn") ? [{ path, message: `warned ${name}`, severity: "warning" }] : [];
      return { definition: { name, enabled: !text.startsWith("off"), text }, problems };
    },
    isEnabled: (thing) => thing.enabled,
    materialize: async (found) => made(found, found.warnings),
    ...(listed ? { materializeListed: (found: FoundDocument<Thing>) => made(found, [...found.warnings]) } : {}),
    foldName: (name) => name.toLowerCase(),
  };
}

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const NAMES = ["a", "A", "b", "B", "bb", "Bb", "bB", "c", "d-1", "D-1", "e", "bad_name", "x.y", "zz"];
const TEXTS = ["fine", "fine, warn", "off", "broken", "off, warn"];

/** One random cascade: per layer a listing, the documents, and prepared outcomes for most of them. */
function randomCascade(seed: number): CascadeLayer[] {
  const random = prng(seed);
  const kind = thingKind(false);
  return SKILL_SCOPES_INNER_FIRST.map((source, level) => {
    const docs = new Map<string, StoredDocument>();
    for (const name of NAMES) {
      if (random() < 0.45) continue;
      const path = `_vance/things/${name}/THING.md`;
      const body = new TextEncoder().encode(TEXTS[Math.floor(random() * TEXTS.length)]!);
      docs.set(path, { path, etag: `${level}-${name}-${body.byteLength}`, size: body.byteLength, body });
    }
    if (random() < 0.3)
      docs.set("_vance/things/a/notes.md", { path: "_vance/things/a/notes.md", etag: "n", size: 0, body: new Uint8Array() });
    const listing = new Map<string, DocumentRef>([...docs].map(([path, doc]) => [path, { path, etag: doc.etag, size: doc.size }]));
    const prepared = new Map<string, PreparedDocument>();
    for (const [path, doc] of docs) {
      const name = PATH.exec(path)?.[1];
      const draw = random();
      if (name === undefined || !kind.isName(name) || draw < 0.15) continue;
      // Of another ETag: the listing names a newer document, the outcome must not be used.
      const etag = draw < 0.25 ? "stale" : doc.etag;
      prepared.set(path, { etag, outcome: parseCascadeDocument(kind, doc, name, path) });
    }
    const layer = {
      read: async (path: string) => docs.get(path),
      list: async (prefix: string) => [...listing.values()].filter((ref) => ref.path.startsWith(prefix)),
    };
    return { source, project: `p${level}`, layer, listing, prepared };
  });
}

/** Every name of the listing with the other names of its folded key: what the resolver grouped before with one set per key. */
function collisionsByBruteForce(listing: ReadonlyMap<string, DocumentRef>): string[] {
  const names = [...listing.keys()]
    .map((path) => PATH.exec(path)?.[1])
    .filter((n): n is string => n !== undefined && /^[A-Za-z0-9-]+$/.test(n));
  const found: string[] = [];
  for (const name of names) {
    const others = names.filter((other) => other !== name && other.toLowerCase() === name.toLowerCase()).sort();
    if (others.length > 0) found.push(`${name}: ${others.map((other) => `'${other}'`).join(", ")}`);
  }
  return found.sort();
}

describe("cascade scan from prepared outcomes", () => {
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))("gives what the async lookup alone gives (cascade %i)", async (seed) => {
    // Prepare
    const layers = randomCascade(seed);

    // Act
    const listed = await new CascadeDocumentResolver(thingKind(true)).scan(layers);
    const looked = await new CascadeDocumentResolver(thingKind(false)).scan(layers);

    // Assess
    expect(listed).toEqual(looked);
  });

  it.each(Array.from({ length: 20 }, (_, i) => i + 100))("names every case collision of a level (cascade %i)", async (seed) => {
    // Prepare: one level, so every name of it is reached.
    const [layer] = randomCascade(seed);

    // Act
    const { problems } = await new CascadeDocumentResolver(thingKind(true)).scan([layer!]);

    // Assess
    const collisions = problems
      .filter((p) => p.message.includes("collides"))
      .map((p) => `${p.name}: ${/collides with (.*) in the same/.exec(p.message)![1]}`);
    expect(collisions.sort()).toEqual(collisionsByBruteForce(layer!.listing!));
  });

  it("completes an entry it listed without a read from the document of its layer", async () => {
    // Prepare
    const layers = randomCascade(7);
    const resolver = new CascadeDocumentResolver(thingKind(true));
    const { items } = await resolver.scan(layers);
    const entry = items.find((item) => item.listed)!;

    // Act
    const complete = await resolver.complete(entry);

    // Assess
    expect(complete).toMatchObject({ name: entry.name, source: entry.source, etag: entry.etag, listed: false });
  });
});
