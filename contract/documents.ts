import * as z from "zod/mini";
import "./locale.js";
import { DocumentProblem } from "./common.js";

/** API.md "Documents" and "Author's loop": a level's documents, their versions, a save's answer. */

export const DocumentEntry = z.object({ path: z.string(), etag: z.string(), size: z.int() }).check(z.meta({ id: "DocumentEntry" }));

export const DocumentList = z.object({ documents: z.array(DocumentEntry) });

export const DocumentVersion = z
  .object({
    versionId: z.string(),
    etag: z.string(),
    lastModified: z.string().check(z.describe("ISO 8601")),
    size: z.int(),
    writtenBy: z.optional(z.string().check(z.describe("The writer's login, where known (writes from outside the API carry none)"))),
  })
  .check(z.meta({ id: "DocumentVersion" }));

export const DocumentVersions = z.object({ versions: z.array(DocumentVersion) });

export const SavedDocument = z
  .looseObject({ path: z.string(), etag: z.string(), warnings: z.array(DocumentProblem) })
  .check(z.meta({ id: "SavedDocument" }));

export type DocumentEntry = z.infer<typeof DocumentEntry>;
export type DocumentVersion = z.infer<typeof DocumentVersion>;
export type SavedDocument = z.infer<typeof SavedDocument>;
