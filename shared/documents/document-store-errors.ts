import { InvalidRequest, SkillsError } from "../errors.js";

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
    super(
      `The documents bucket denied ${action} on ${resource}: the function's role probably lacks ${action} (DocumentsBucket grants it)`,
      options,
    );
  }
}

/**
 * A version larger than the caller may hold (a PUT's cap): refused before its bytes are read, so
 * a huge object written around the API cannot exhaust a function's memory or outgrow a response.
 */
export class DocumentTooLargeToRead extends InvalidRequest {
  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${path}: this version is ${size} bytes; at most ${maxBytes} bytes can be read or restored (the size a PUT accepts)`);
  }
}

/** Throws DocumentTooLargeToRead when a known size is over the cap. */
export function assertReadableSize(path: string, size: number | undefined, maxBytes: number | undefined): void {
  if (maxBytes !== undefined && size !== undefined && size > maxBytes) throw new DocumentTooLargeToRead(path, size, maxBytes);
}
