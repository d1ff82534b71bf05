import { isValidDocumentPath, validateProjectName, validateTenantId } from "../documents/document-path.js";
import { affectsCatalogue, type CatalogueVersions, type LevelVersion } from "./catalogue-versions.js";
import type { DocumentChange } from "./document-change-notifier.js";

/**
 * Writes that bypass the API (S3 console, CLI, replication) reach the catalogue as S3 event
 * notifications: each object key `tenants/{tenant}/projects/{project}/{path}` under `_vance/` bumps
 * its level. No AWS SDK here: the function only reads the event. Both shapes are accepted:
 * EventBridge (`detail.object.key`, what the bucket sends today) and the classic notification
 * (`Records[].s3.object.key`, form-URL-encoded: `+` is a space, `%2B` a plus).
 */

const KEY = /^tenants\/([^/]+)\/projects\/([^/]+)\/(.+)$/;

/** The document a bucket key addresses, or undefined for a key this service never writes. */
export function documentOfS3Key(key: string): DocumentChange | undefined {
  const match = KEY.exec(key);
  if (!match) return undefined;
  const [, tenant, project, path] = match as unknown as [string, string, string, string];
  try {
    validateTenantId(tenant);
    validateProjectName(project);
  } catch {
    return undefined;
  }
  return isValidDocumentPath(path) ? { tenant, project, path } : undefined;
}

const formDecode = (key: string): string | undefined => {
  try {
    return decodeURIComponent(key.replace(/\+/g, " "));
  } catch {
    return undefined;
  }
};

/**
 * The object keys an event names, decoded. EventBridge keys are taken as they are unless they
 * carry a `%` (a key this service writes never does, so one with `%` is encoded).
 */
export function objectKeysOfS3Event(event: unknown): string[] {
  const e = event as { detail?: { object?: { key?: unknown } }; Records?: unknown } | null | undefined;
  const keys: string[] = [];
  const detailKey = e?.detail?.object?.key;
  if (typeof detailKey === "string") {
    const key = detailKey.includes("%") ? formDecode(detailKey) : detailKey;
    if (key !== undefined) keys.push(key);
  }
  if (Array.isArray(e?.Records)) {
    for (const record of e.Records as { s3?: { object?: { key?: unknown } } }[]) {
      const raw = record?.s3?.object?.key;
      const key = typeof raw === "string" ? formDecode(raw) : undefined;
      if (key !== undefined) keys.push(key);
    }
  }
  return keys;
}

export interface S3EventBumpOutcome {
  /** Levels bumped, once each however many of their keys the event names. */
  bumped: { tenant: string; project: string }[];
  /** Keys that bumped nothing: foreign to this service's layout, or not under `_vance/`. */
  ignored: string[];
}

/** What a level owes a bypassing write after its bump (s3-event-follow-up.ts): counters, name claims, snapshot. */
export type AfterBump = (tenant: string, project: string, version: LevelVersion, paths: readonly string[]) => Promise<void>;

/**
 * What functions/s3-events runs per event. Never throws for a malformed event (it names no key,
 * so it bumps nothing); rejects only when a bump (or `after`) fails, so the event is retried.
 * Redelivery is harmless: a bump only moves a level's version forward, and the extra move costs
 * one listing. `after` runs once per bumped level with the version its bump returned and the
 * level's paths the event names.
 */
export async function bumpForS3Event(event: unknown, versions: CatalogueVersions, after?: AfterBump): Promise<S3EventBumpOutcome> {
  const levels = new Map<string, { tenant: string; project: string; paths: Set<string> }>();
  const ignored: string[] = [];
  for (const key of objectKeysOfS3Event(event)) {
    const doc = documentOfS3Key(key);
    if (!doc || !affectsCatalogue(doc.path)) {
      ignored.push(key);
      continue;
    }
    const id = JSON.stringify([doc.tenant, doc.project]);
    const level = levels.get(id) ?? { tenant: doc.tenant, project: doc.project, paths: new Set<string>() };
    level.paths.add(doc.path);
    levels.set(id, level);
  }
  const bumped = [...levels.values()].map(({ tenant, project }) => ({ tenant, project }));
  await Promise.all(
    [...levels.values()].map(async ({ tenant, project, paths }) => {
      const version = await versions.bump(tenant, project);
      await after?.(tenant, project, version, [...paths]);
    }),
  );
  return { bumped, ignored };
}
