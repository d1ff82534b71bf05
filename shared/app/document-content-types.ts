// The content type a document is stored with and answered with: by extension when the uploader
// gave none that says anything. Split from document-service.ts (issue 29): the editor API only asks.
import type { StoredDocument } from "../documents/document-store.js";

const CONTENT_TYPES: readonly (readonly [RegExp, string])[] = [
  [/\.md$/i, "text/markdown; charset=utf-8"],
  [/\.ya?ml$/i, "application/yaml; charset=utf-8"],
  [/\.json$/i, "application/json; charset=utf-8"],
  [/\.(txt|js|mjs|ts|py|sh)$/i, "text/plain; charset=utf-8"],
];

const OCTET_STREAM = "application/octet-stream";

/**
 * What a GET answers: the uploader's content type, else one by file extension. S3 reports an
 * object stored without a type as `application/octet-stream` (or `binary/octet-stream`), so
 * those count as "none given" when the extension says better.
 */
export function contentTypeOf(doc: Pick<StoredDocument, "path" | "contentType">): string {
  const given = doc.contentType?.trim() ?? "";
  if (given !== "" && !/^(application|binary)\/octet-stream\b/i.test(given)) return given;
  return CONTENT_TYPES.find(([pattern]) => pattern.test(doc.path))?.[1] ?? (given || OCTET_STREAM);
}

/**
 * What the uploader said the document is, except where it said nothing useful: `curl --data`
 * labels every upload as a form, which would make every later GET answer a form.
 */
export const storedContentType = (contentType: string | undefined): string | undefined =>
  contentType === undefined || contentType.trim() === "" || /^application\/x-www-form-urlencoded\b/i.test(contentType)
    ? undefined
    : contentType;
