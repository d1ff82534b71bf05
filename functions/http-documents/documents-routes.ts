import type { DocumentService } from "../../shared/app/document-service.js";
import { contentTypeOf } from "../../shared/app/document-content-types.js";
import { MAX_DOCUMENT_BYTES } from "../../shared/app/document-limits.js";
import { FILE_MODE_HEADER, formatFileMode, requestFileMode } from "../../shared/documents/document-mode.js";
import { RestoreBody } from "../../contract/requests.js";
import { InvalidRequest } from "../../shared/errors.js";
import { parseJsonBody, readBody } from "../../shared/http/request.js";
import { emptyResponse, jsonResponse } from "../../shared/http/response.js";
import { route } from "../_shared/http-route.js";
import { servingHeaders } from "./document-disposition.js";
import type { HttpReply, HttpRoute } from "../_shared/http-route.js";

interface DocumentsRoutesDeps {
  documents: Pick<DocumentService, "put" | "get" | "delete" | "list" | "versions" | "getVersion" | "restore">;
}

const DOCUMENT = "/brain/{tenant}/projects/{project}/documents/{path+}";
const RESTORE_SUFFIX = ":restore";

const quoted = (etag: string): string => `"${etag}"`;

/** `If-None-Match: "etag"` (or a list, or `*`) matching the stored document. */
function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const bare = tag.trim().replace(/^W\//, "").replaceAll('"', "");
    return bare === "*" || bare === etag;
  });
}

/** API.md "Documents (the editor API)"; the rules (authorization, validation on PUT) are DocumentService's. */
export function documentsRoutes({ documents }: DocumentsRoutesDeps): HttpRoute[] {
  return [
    route("GET", "/brain/{tenant}/projects/{project}/documents", async (request) => {
      const list = await documents.list(request.identity, request.param("tenant"), request.param("project"), request.query("prefix") ?? "");
      return jsonResponse(200, { documents: list });
    }),

    route("PUT", DOCUMENT, async (request) => {
      const mode = requestFileMode(request.header(FILE_MODE_HEADER));
      const body = readBody(request.event, { maxBytes: MAX_DOCUMENT_BYTES });
      const saved = await documents.put(
        request.identity,
        request.param("tenant"),
        request.param("project"),
        request.param("path"),
        body,
        request.header("content-type"),
        mode,
      );
      return jsonResponse(200, saved, { etag: quoted(saved.etag) });
    }),

    route("POST", DOCUMENT, async (request) => {
      // `POST …/documents/{path}:restore` (API.md "Author's loop"); the greedy {path+} carries the suffix.
      const raw = request.param("path");
      if (!raw.endsWith(RESTORE_SUFFIX)) throw new InvalidRequest("POST on a document is only ':restore'");
      const { versionId } = parseJsonBody(request.event, RestoreBody, { maxBytes: 4096 });
      const saved = await documents.restore(
        request.identity,
        request.param("tenant"),
        request.param("project"),
        raw.slice(0, -RESTORE_SUFFIX.length),
        versionId,
      );
      return jsonResponse(200, saved, { etag: quoted(saved.etag) });
    }),

    route("GET", DOCUMENT, async (request): Promise<HttpReply> => {
      if (request.query("versions") !== undefined) {
        const versions = await documents.versions(
          request.identity,
          request.param("tenant"),
          request.param("project"),
          request.param("path"),
        );
        return jsonResponse(200, { versions });
      }
      const versionId = request.query("versionId");
      const doc =
        versionId !== undefined
          ? await documents.getVersion(
              request.identity,
              request.param("tenant"),
              request.param("project"),
              request.param("path"),
              versionId,
            )
          : await documents.get(request.identity, request.param("tenant"), request.param("project"), request.param("path"));
      const contentType = contentTypeOf(doc);
      const headers = {
        etag: quoted(doc.etag),
        "cache-control": "no-store",
        ...servingHeaders(doc.path, contentType),
        ...(doc.mode !== undefined ? { [FILE_MODE_HEADER]: formatFileMode(doc.mode) } : {}),
      };
      if (notModified(request.header("if-none-match"), doc.etag)) return emptyResponse(304, headers);
      // Base64 keeps any bytes intact through API Gateway; it decodes before answering the client.
      return {
        statusCode: 200,
        headers: { ...headers, "content-type": contentType },
        body: Buffer.from(doc.body).toString("base64"),
        isBase64Encoded: true,
      };
    }),

    route("DELETE", DOCUMENT, async (request) => {
      await documents.delete(request.identity, request.param("tenant"), request.param("project"), request.param("path"));
      return emptyResponse(204);
    }),
  ];
}
