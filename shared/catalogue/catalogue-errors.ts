import { SkillsError } from "../errors.js";

/**
 * A level of the cascade could not be listed and the catalogue has no earlier snapshot of it to
 * serve: nothing is known about that level, so no lookup in its scope can be answered. Transient
 * by nature (the store is unavailable), hence `retryable`; its code is INTERNAL so the lane
 * redelivers the message instead of recording a failure, and `$retryable` (the SDK's own marker)
 * makes isTransientServiceError, hence the HTTP surface, answer 503 SERVICE_UNAVAILABLE.
 */
export class CatalogueUnavailable extends SkillsError {
  readonly code = "INTERNAL";
  readonly retryable = true;
  readonly $retryable = true;
  /** A hint for an HTTP Retry-After. */
  readonly retryAfterSeconds = 1;

  constructor(
    readonly tenant: string,
    readonly project: string,
    options?: { cause?: unknown },
  ) {
    super(`The documents of level '${project.slice(0, 80)}' are unavailable right now; retry shortly`, options);
  }
}

/** BatchGetItem kept returning unprocessed keys: the versions are unknown, not "unchanged". */
export class CatalogueVersionsUnavailable extends SkillsError {
  readonly code = "INTERNAL";
  constructor(
    readonly tenant: string,
    readonly attempts: number,
  ) {
    super(`Catalogue versions of tenant '${tenant.slice(0, 64)}' stayed unprocessed after ${attempts} attempts`);
  }
}
