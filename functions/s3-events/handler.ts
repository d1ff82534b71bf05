import type { CatalogueVersions } from "../../shared/catalogue/catalogue-versions.js";
import { bumpForS3Event, type S3EventBumpOutcome } from "../../shared/catalogue/s3-event-bump.js";
import { catalogueVersionsFromEnv, tableRuntimeFromEnv } from "../../shared/wiring/app-environment.js";
import { powertoolsObservability } from "../_shared/observability.js";
import { traced } from "../_shared/tracing.js";
import type { Logger } from "../../shared/support/logger.js";

export interface S3EventsDeps {
  versions: CatalogueVersions;
  logger: Logger;
}

/** Keys are caller-chosen: a log line carries a bounded excerpt of each. */
const excerpt = (key: string): string => (key.length > 300 ? `${key.slice(0, 300)}…` : key);

const fieldOf = (event: unknown, name: string): unknown =>
  typeof event === "object" && event !== null ? (event as Record<string, unknown>)[name] : undefined;

/**
 * EventBridge "Object Created" / "Object Deleted" of the documents bucket (writes that bypass the
 * documents API): bumps the catalogue version of the object's level, so every warm instance lists
 * that level again on its next lookup (spec §3 hot reload).
 *
 * An event that names no usable key is skipped with a warning and never thrown back: a retry
 * could not make it valid. A failing bump (DynamoDB) is thrown, so Lambda retries the event and
 * finally parks it in the rule's dead-letter queue. Redelivery is harmless: a bump only moves the
 * version forward, and a moved version costs one extra listing of the level.
 */
export const createS3EventsHandler =
  (deps: S3EventsDeps) =>
  async (event: unknown): Promise<S3EventBumpOutcome> => {
    let outcome: S3EventBumpOutcome;
    try {
      outcome = await bumpForS3Event(event, deps.versions);
    } catch (error) {
      deps.logger.error("Catalogue version bump failed; the event will be retried", { error });
      throw error;
    }
    const { bumped, ignored } = outcome;
    if (bumped.length === 0 && ignored.length === 0) {
      const detailType = fieldOf(event, "detail-type");
      deps.logger.warn("S3 event names no object key: skipped", { detailType: typeof detailType === "string" ? excerpt(detailType) : typeof detailType });
    }
    if (ignored.length > 0) deps.logger.info("S3 event keys outside any catalogue: ignored", { keys: ignored.map(excerpt) });
    if (bumped.length > 0) deps.logger.info("Catalogue levels bumped", { levels: bumped });
    return outcome;
  };

// Module scope: built once per container.
const { logger, tracer } = powertoolsObservability("skills-s3-events");

export const handler = traced(
  tracer,
  "s3-events",
  createS3EventsHandler({ versions: catalogueVersionsFromEnv(tableRuntimeFromEnv(process.env, { instrument: tracer.instrument })), logger }),
);
