/**
 * Which bucket events reach the s3-events function: the EventBridge rule of the stack and the
 * local stack's emulation (infra/local/s3-event-emulator.ts) filter with the same values.
 * No CDK import here: the local stack loads this module too.
 */
import { CATALOGUE_PREFIX } from "../shared/catalogue/catalogue-versions.js";

/** EventBridge `detail-type`s of the S3 events that change what a level lists. */
export const DOCUMENT_EVENT_TYPES = ["Object Created", "Object Deleted"] as const;

export type DocumentEventType = (typeof DOCUMENT_EVENT_TYPES)[number];

/**
 * EventBridge wildcard (`*` is any run of characters, `/` included) for the keys of catalogue
 * documents, `tenants/{tenant}/projects/{project}/_vance/…`: workspace files written by skill
 * scripts never invoke the function. The function validates each key again.
 */
export const CATALOGUE_KEY_WILDCARD = `tenants/*/projects/*/${CATALOGUE_PREFIX}*`;

/** The wildcard as EventBridge applies it, for the local emulation. */
export const wildcardRegExp = (wildcard: string): RegExp =>
  new RegExp(
    `^${wildcard
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );
