// First: stack traces of the bundle are mapped to the sources, on demand (NODE_OPTIONS has no --enable-source-maps).
import "../_shared/source-mapped-stacks.js";
import type { CatalogueVersions, LevelVersion } from "../../shared/catalogue/catalogue-versions.js";
import { bumpForS3Event, type S3EventBumpOutcome } from "../../shared/catalogue/s3-event-bump.js";
import { followS3EventBump, type LevelFollowUp, type S3EventFollowUpDeps } from "../../shared/catalogue/s3-event-follow-up.js";
import { catalogueVersionsFromEnv, tableRuntimeFromEnv } from "../../shared/wiring/app-environment.js";
import { s3EventFollowUpFromEnv } from "../../shared/wiring/s3-events-from-env.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import type { Logger } from "../../shared/support/logger.js";

export interface S3EventsDeps {
  versions: CatalogueVersions;
  logger: Logger;
  /** Counters, name claims and the level snapshot after each bump (issue 27); without it the function only bumps. */
  followUp?: S3EventFollowUpDeps | undefined;
}

export interface S3EventsOutcome extends S3EventBumpOutcome {
  /** Per bumped level, with a follow-up wired. */
  followedUp?: LevelFollowUp[];
}

/** Keys are caller-chosen: a log line carries a bounded excerpt of each. */
const excerpt = (key: string): string => (key.length > 300 ? `${key.slice(0, 300)}…` : key);

const fieldOf = (event: unknown, name: string): unknown =>
  typeof event === "object" && event !== null ? (event as Record<string, unknown>)[name] : undefined;

/**
 * EventBridge "Object Created" / "Object Deleted" of the documents bucket (writes that bypass the
 * documents API): bumps the catalogue version of the object's level, so every warm instance lists
 * that level again on its next lookup (spec §3 hot reload); then records the changed documents in
 * the level's counters and name claims and rebuilds the level snapshot at the new version, so the
 * next cold instance reads one object instead of listing (s3-event-follow-up.ts).
 *
 * An event that names no usable key is skipped with a warning and never thrown back: a retry
 * could not make it valid. A failing bump (DynamoDB) is thrown, so Lambda retries the event and
 * finally parks it in the rule's dead-letter queue. Redelivery is harmless: a bump only moves the
 * version forward, and a moved version costs one extra listing of the level.
 */
export const createS3EventsHandler =
  (deps: S3EventsDeps) =>
  async (event: unknown): Promise<S3EventsOutcome> => {
    let outcome: S3EventsOutcome;
    const followed: LevelFollowUp[] = [];
    const { followUp } = deps;
    const after =
      followUp &&
      (async (tenant: string, project: string, version: LevelVersion, paths: readonly string[]) =>
        void followed.push(await followS3EventBump(followUp, tenant, project, version, paths)));
    try {
      outcome = await bumpForS3Event(event, deps.versions, after);
      if (followUp) outcome = { ...outcome, followedUp: followed };
    } catch (error) {
      deps.logger.error("Catalogue version bump failed; the event will be retried", { error });
      throw error;
    }
    const { bumped, ignored } = outcome;
    if (bumped.length === 0 && ignored.length === 0) {
      const detailType = fieldOf(event, "detail-type");
      deps.logger.warn("S3 event names no object key: skipped", {
        detailType: typeof detailType === "string" ? excerpt(detailType) : typeof detailType,
      });
    }
    if (ignored.length > 0) deps.logger.info("S3 event keys outside any catalogue: ignored", { keys: ignored.map(excerpt) });
    if (bumped.length > 0)
      deps.logger.info("Catalogue levels bumped", { levels: bumped, ...(outcome.followedUp ? { followedUp: outcome.followedUp } : {}) });
    return outcome;
  };

// Module scope: built once per container.
const { logger, tracer } = powertoolsObservability("skills-s3-events");
const runtime = tableRuntimeFromEnv(process.env, { instrument: tracer.instrument });

export const handler = traced(
  tracer,
  "s3-events",
  createS3EventsHandler({ versions: catalogueVersionsFromEnv(runtime), logger, followUp: s3EventFollowUpFromEnv(runtime, logger) }),
);
