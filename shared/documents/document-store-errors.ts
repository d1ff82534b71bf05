import { SkillsError } from "../errors.js";

/**
 * The store refused a call for lack of permission (S3 AccessDenied). A deployment fault no caller
 * can fix, so INTERNAL (500, logged with this message) rather than "not found", which would tell
 * an author that a version listed a moment ago does not exist. The message names the action the
 * function's role lacks, so the log says what to grant (infra/constructs/documents-bucket.ts).
 */
export class DocumentStoreAccessDenied extends SkillsError {
  readonly code = "INTERNAL";

  constructor(
    readonly action: string,
    readonly resource: string,
    options?: { cause?: unknown },
  ) {
    super(`The documents bucket denied ${action} on ${resource}: the function's role probably lacks ${action} (DocumentsBucket grants it)`, options);
  }
}
