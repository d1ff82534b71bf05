import * as z from "zod/mini";
import "./locale.js";
import { SKILL_SOURCES } from "./levels.js";

/** A caller-chosen id (requestId, processId in a frame): printable and bounded, so derived ids and store keys stay valid. */
// eslint-disable-next-line no-control-regex
export const RequestId = z.string().check(z.minLength(1), z.maxLength(256), z.regex(/^[^\u0000-\u001f\u007f]+$/, "must be printable"));

export const SkillSource = z.enum(SKILL_SOURCES).check(z.meta({ id: "SkillSource" }));

export const ActivatedBy = z.enum(["explicit", "trigger", "model", "recipe", "spawn"]);

export const RequestStatus = z.enum(["QUEUED", "DONE", "FAILED"]);

/** A finding about a document: where (path, line) and what; `severity` absent means an error. */
export const DocumentProblem = z.looseObject({
  path: z.optional(z.string()),
  line: z.optional(z.int()),
  message: z.string(),
  severity: z.optional(z.string()),
});

/** API.md "Errors": the `error` member of every error answer. */
export const ApiError = z.looseObject({ code: z.string(), message: z.string(), problems: z.optional(z.array(DocumentProblem)) });

export const ApiErrorBody = z
  .object({ error: ApiError })
  .check(z.meta({ id: "Error", description: 'API.md "Errors": every error answers this shape' }));

export type SkillSource = z.infer<typeof SkillSource>;
export type ActivatedBy = z.infer<typeof ActivatedBy>;
export type RequestStatus = z.infer<typeof RequestStatus>;
export type DocumentProblem = z.infer<typeof DocumentProblem>;
/** The `error` member of an error answer (what the client's errors carry). */
export type ApiErrorBody = z.infer<typeof ApiError>;
