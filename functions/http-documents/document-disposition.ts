/**
 * How a stored document is served. Anyone who may write a level may store any bytes under any
 * content type, and the API's origin carries its readers' tokens: a document served inline as
 * HTML, SVG or script would run in that origin for every reader who opens the link. So only
 * plain text formats (Markdown, YAML, JSON, CSV, plain text) are served inline; everything else
 * is a download (`Content-Disposition: attachment`). `nosniff` keeps a browser from guessing a
 * renderable type from the bytes, and a sandboxing CSP covers whatever a browser renders anyway.
 */
const INLINE_TEXT =
  /^\s*(text\/(plain|markdown|x-markdown|csv|tab-separated-values|yaml|x-yaml)|application\/(json|x-ndjson|yaml|x-yaml))\s*(;|$)/i;

export const isInlineText = (contentType: string): boolean => INLINE_TEXT.test(contentType);

/** The last path segment, reduced to characters every header parser accepts (the UTF-8 name goes in `filename*`). */
function fileNameOf(path: string): { ascii: string; utf8: string } {
  const base = path.split("/").pop() || "document";
  const ascii = base.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200) || "document";
  return { ascii, utf8: encodeURIComponent(base).slice(0, 600) };
}

export function servingHeaders(path: string, contentType: string): Record<string, string> {
  const headers: Record<string, string> = {
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
  };
  if (!isInlineText(contentType)) {
    const name = fileNameOf(path);
    headers["content-disposition"] = `attachment; filename="${name.ascii}"; filename*=UTF-8''${name.utf8}`;
  }
  return headers;
}
